import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import {
  applyRunOutcome,
  DEFAULT_LEASE_MINUTES,
  DEFAULT_SCHEDULE_SETTINGS,
  initialScheduleState,
  markSyncStarted,
  type RunOutcome,
  type SourceScheduleState,
} from '../../shared/schedule';
import { acquireSyncLease, claimSyncRun, sourcePartition, type TableContext } from '../../shared/store';
import { dynamoItemBytes, writeUnitsOfBytes } from './item-size';

/**
 * Issue 28: the STATE item's size as DynamoDB counts it (attribute names + values) and what one write of
 * it costs in the table (a write bills the larger of the item before and after, one unit per started KB):
 * every lease, claim and release rewrites it, so each state it passes through is measured.
 */
export interface StateItemSize {
  bytes: number;
  /** Write units of one write of an item this size (the table's own; index copies apart). */
  writeUnits: number;
}

/** A source's STATE item as stored, sized (undefined: none). */
export async function stateItemSize(
  dynamo: DynamoDBClient,
  table: string,
  sourceId: string,
): Promise<StateItemSize | undefined> {
  const out = await dynamo.send(
    new GetItemCommand({
      TableName: table,
      Key: { pk: { S: sourcePartition(sourceId) }, sk: { S: 'STATE' } },
      ConsistentRead: true,
    }),
  );
  if (out.Item === undefined) return undefined;
  const bytes = dynamoItemBytes(out.Item);
  return { bytes, writeUnits: writeUnitsOfBytes(bytes) };
}

/** A long but real host name, and a planner reason as long as the longest the planner writes. */
const WORST_HOST = 'ratsinformation.landeshauptstadt-musterstadt-am-main.de';
const WORST_REASON =
  'full sync due in window 03:00–05:00 (last complete full sync 26 h ago, at least 1 day apart); manual request by on-call (SCH-7, FULL-8)';
/** Session days a busy council publishes ahead: every weekday for two months (the store keeps two weeks). */
const PUBLISHED_SESSION_WEEKS = 9;

/**
 * The largest STATE item a source reaches in normal operation, built by the schedule's own bookkeeping:
 * every schedule field set (a complete full sync in a window, a failure streak with its pause, FULL-7's
 * incremental-only period, six learnt runs with fractional seconds, a busy council's session days), then
 * a manual full sync with window and deadline leased and claimed as the sync function claims it. The
 * size bound the store tests hold every hot write to.
 */
export async function writeWorstLeasedStateItem(
  { doc, table }: TableContext,
  sourceId: string,
  now: Date,
): Promise<void> {
  const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000).toISOString();
  const windowId = at(-24 * 60);
  const cadence = { config: { cadenceMinutes: {} }, settings: DEFAULT_SCHEDULE_SETTINGS };
  let state: SourceScheduleState = markSyncStarted(
    initialScheduleState(),
    { kind: 'full', trigger: 'schedule', windowId, deadline: at(-22 * 60) },
    at(-24 * 60),
  );
  const sessionDays = Array.from({ length: PUBLISHED_SESSION_WEEKS * 7 }, (_, i) =>
    at(i * 24 * 60).slice(0, 10),
  );
  const outcome = (minutes: number, extra: Partial<RunOutcome>): RunOutcome => ({
    kind: 'incremental',
    startedAt: at(minutes),
    endedAt: at(minutes + 3.7),
    changed: true,
    complete: true,
    failed: false,
    failures: [],
    requests: 1_234,
    sessionDays,
    ...extra,
  });
  state = applyRunOutcome(
    state,
    outcome(-24 * 60, { kind: 'full', requests: 12_345 }),
    at(-24 * 60 + 4),
    cadence,
  );
  state = applyRunOutcome(state, outcome(-300, { filterNotHonoured: true }), at(-296), cadence);
  for (const minutes of [-120, -90, -60, -30])
    state = applyRunOutcome(
      state,
      outcome(minutes, { failed: true, complete: false, failures: ['5xx-series', 'other'] }),
      at(minutes + 4),
      cadence,
    );
  state = markSyncStarted(
    { ...state, manualRequest: { kind: 'full', requestedAt: at(-1) } },
    { kind: 'full', trigger: 'manual', windowId: at(0), deadline: at(120) },
    at(0),
  );
  const runId = '9b2f4c1e-7a3d-4e5f-8a6b-0c1d2e3f4a5b';
  const leased = await acquireSyncLease(doc, table, sourceId, {
    runId,
    kind: 'full',
    until: new Date(at(DEFAULT_LEASE_MINUTES)),
    now,
    extra: {
      schedule: state,
      lastValidPace: { host: WORST_HOST, requestIntervalSeconds: 2.5 },
      dueAt: new Date(at(DEFAULT_LEASE_MINUTES)).toISOString(),
      lastDecision: {
        action: 'sync',
        kind: 'full',
        reason: WORST_REASON,
        decidedAt: now.toISOString(),
        ruleIds: ['SCH-7', 'FULL-8', 'FULL-2', 'FULL-4'],
      },
    },
  });
  if (!leased) throw new Error(`worst STATE item: the lease of ${sourceId} is held`);
  const claimed = await claimSyncRun(doc, table, sourceId, {
    runId,
    step: 0,
    holder: 'c7d8e9f0-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
    heldUntil: new Date(at(15)),
    leaseUntil: new Date(at(DEFAULT_LEASE_MINUTES)),
    now,
  });
  if (!claimed) throw new Error(`worst STATE item: the claim on ${sourceId} was refused`);
}
