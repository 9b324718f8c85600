import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './context';
import { storedItemBytes, WRITE_UNIT_BYTES } from './item-bytes';
import { LAST_RUN_SK, sourcePartition } from './keys';
import { BATCH_GET_MAX } from './partition-items';
import { type QueryInput, queryAll } from './query-pages';
import {
  MANUAL_REQUEST_STORED,
  stateItemFromStore,
  storedSchedule,
  storedStateAttribute,
} from './schedule-codec';
import { DUE_INDEX, STATE_TABLE } from './tables';

/**
 * The machine-written `STATE` item of a source in the State table: scheduling state (owned by
 * shared/schedule), the sync lease (SCH-5: at most one sync per source), the last run's outcome, the
 * planner's last decision and any config problems — everything on-call needs to see why a source waits.
 *
 * The lease is flat attributes so that every write is one conditional single-item update (dynalite has
 * no transactions; none are needed).
 *
 * Issue 28: one index, `byDueAt`, serves the planner for both due sources and running syncs. Taking the
 * lease leaves `dueAt` where it was — due, as the taker read it — so a leased item stays in the planner's
 * due read for as long as it is leased: the running syncs are counted there and a dead run's lease is
 * found there once `leaseUntil` (projected into the index) has passed (SCH-5). A run moves the index key
 * once, when its release sets the next due time; the lease and a renewing claim rewrite only the copy.
 */
export const STATE_SK = 'STATE';
/** All STATE items share one `byDueAt` partition; `dueAt` orders them for the planner. */
export const PLANNER_SHARD = 'planner';
/**
 * Written by the release before issue 28's single index (the sparse `byLease` index's key): still removed
 * by a release, so an item leased by the previous release leaves that index too (one release).
 */
const LEGACY_LEASE_SHARD_ATTRIBUTE = 'leaseShard';

/** The source's partition (keys.ts `sourcePartition`). */
export const sourcePk = sourcePartition;

/** An item as the store hands it out: the schedule (and what else is stored short) in its own shape. */
const fromStore = stateItemFromStore;

/**
 * The STATE item and its `LASTRUN` item as one view. A release writes the last run inline when the item
 * stays within one write unit with it (`releaseSyncRun`), else to `LASTRUN` and removes the inline one —
 * so an inline last run is always the newest, and a `LASTRUN` item beside it is an older one left behind.
 * (An item written before issue 28 carries its last run inline too, with no `LASTRUN` item.)
 */
function withLastRun<T extends { lastRun?: unknown }>(state: T, lastRunItem?: { lastRun?: unknown }): T {
  const item = fromStore(state);
  if (item.lastRun !== undefined || lastRunItem?.lastRun === undefined) return item;
  return { ...item, lastRun: lastRunItem.lastRun };
}

export interface SourceStateItem<Schedule = Record<string, unknown>> {
  pk: string;
  sk: typeof STATE_SK;
  sourceId: string;
  dueShard: typeof PLANNER_SHARD;
  /** ISO instant of the next planner decision that may change something for this source. */
  dueAt: string;
  schedule?: Schedule;
  leaseRunId?: string;
  leaseKind?: string;
  /** ISO instant; a lease past this is free again (an instance that died cannot block a source). */
  leaseUntil?: string;
  /**
   * Which message of the lease's run may work now (0 = the planner's, n = its n-th continuation), and
   * the invocation working on it until `leaseHeldUntil` (the end of that invocation's time): a
   * duplicate delivery of the same message finds the claim taken and is dropped (issue 13).
   */
  leaseStep?: number;
  leaseHolder?: string;
  leaseHeldUntil?: string;
  /** The last run's report: kept in the source's `LASTRUN` item (issue 28), joined here on reading. */
  lastRun?: Record<string, unknown>;
  lastDecision?: { action: string; kind?: string; reason: string; decidedAt: string; ruleIds?: string[] };
  configProblems?: { field: string; message: string }[];
  /**
   * RATE-2 (issue 13): host and interval of the source's last valid config, written by the planner. A
   * broken Sources item keeps counting for its host's pace with it until the item is fixed.
   */
  lastValidPace?: { host: string; requestIntervalSeconds: number };
  manualRequest?: { kind: 'sync' | 'full'; requestedAt: string; by?: string };
}

export async function getSourceState<S>(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
): Promise<SourceStateItem<S> | undefined> {
  const [state, lastRun] = await batchGetItems(
    doc,
    table,
    [STATE_SK, LAST_RUN_SK].map((sk) => ({ pk: sourcePk(sourceId), sk })),
    true,
  );
  return state === undefined ? undefined : withLastRun(state as unknown as SourceStateItem<S>, lastRun);
}

/**
 * Issue 28: `getSourceState` of many sources at once (the deletion check's per-source loads): the same
 * strongly consistent items, 50 sources a BatchGet instead of one round trip each — each round trip
 * costs the run ≈ 2 ms of SDK CPU (signing, HTTP), whatever its size.
 */
export async function getSourceStates<S>(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceIds: readonly string[],
): Promise<Map<string, SourceStateItem<S>>> {
  const items = await batchGetItems(
    doc,
    table,
    sourceIds.flatMap((id) => [STATE_SK, LAST_RUN_SK].map((sk) => ({ pk: sourcePk(id), sk }))),
    true,
  );
  const out = new Map<string, SourceStateItem<S>>();
  sourceIds.forEach((id, i) => {
    const state = items[2 * i];
    if (state !== undefined)
      out.set(id, withLastRun(state as unknown as SourceStateItem<S>, items[2 * i + 1]));
  });
  return out;
}

/**
 * The STATE item alone, strongly consistent: what a run's end applies its outcome to (issue 28: one
 * read unit — the last run's own item, which on-call reads beside it, is not needed there).
 */
export async function getStateItem<S>(
  { doc, table }: TableContext,
  sourceId: string,
): Promise<SourceStateItem<S> | undefined> {
  const out = await doc.send(
    new GetCommand({ TableName: table, Key: { pk: sourcePk(sourceId), sk: STATE_SK }, ConsistentRead: true }),
  );
  return out.Item === undefined ? undefined : fromStore(out.Item as unknown as SourceStateItem<S>);
}

/**
 * Items by key, in the order asked (absent = undefined), 100 keys a round trip; keys DynamoDB leaves
 * unprocessed are asked again after a short backoff.
 */
export async function batchGetItems(
  doc: DynamoDBDocumentClient,
  table: string,
  keys: Record<string, string>[],
  consistent: boolean,
): Promise<(Record<string, unknown> | undefined)[]> {
  const found = new Map<string, Record<string, unknown>>();
  // An item's identity is its key attributes' values (the answer carries every attribute, in any order).
  const names = Object.keys(keys[0] ?? {});
  const id = (key: Record<string, unknown>) => names.map((n) => String(key[n])).join('\u0000');
  // DynamoDB refuses a BatchGet naming one key twice: each key asked once, answered for every place.
  const unique = [...new Map(keys.map((key) => [id(key), key])).values()];
  for (let i = 0; i < unique.length; i += BATCH_GET_MAX) {
    let pending: Record<string, unknown>[] = unique.slice(i, i + BATCH_GET_MAX);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
      const res = await doc.send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      for (const item of res.Responses?.[table] ?? []) found.set(id(item), item);
      pending = (res.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[]) ?? [];
    }
  }
  return keys.map((key) => found.get(id(key)));
}

/**
 * Issue 28: a new index is built in AWS after the deploy that adds it (docs/operations.md, "State
 * indexes"); until then DynamoDB refuses to read it ("does not have the specified index", "backfilling"),
 * and the index it replaces — same keys, every attribute — answers instead.
 */
function isIndexNotReady(err: unknown, indexName: string): boolean {
  const { name, message } = err as { name?: string; message?: string };
  return name === 'ValidationException' && String(message ?? '').includes(indexName);
}

const REPLACED_INDEX = Object.fromEntries(
  STATE_TABLE.globalIndexes.flatMap((index) =>
    index.replaces === undefined ? [] : [[index.indexName, index.replaces] as const],
  ),
);

/** Every page of a Query on a State index, from the index it replaces while it is not built yet. */
async function queryStateIndex<T = Record<string, unknown>>(
  doc: DynamoDBDocumentClient,
  input: QueryInput & { IndexName: string },
): Promise<T[]> {
  const pages = async (IndexName: string) => (await queryAll(doc, { ...input, IndexName })) as T[];
  try {
    return await pages(input.IndexName);
  } catch (err) {
    const replaced = REPLACED_INDEX[input.IndexName];
    if (replaced === undefined || !isIndexNotReady(err, input.IndexName)) throw err;
    return pages(replaced);
  }
}

/**
 * Every STATE item through the `byDueAt` index (no table scan), oldest due first — as the index holds
 * it (issue 28): schedule, last decision, config problems, the lease's end and kind (a leased item stays
 * due while it is leased: the running syncs are among `dueBefore: now`); not the last run
 * (`readSourceStates` reads whole items).
 */
export async function listSourceStates<S>(
  doc: DynamoDBDocumentClient,
  table: string,
  opts: { dueBefore?: string } = {},
): Promise<SourceStateItem<S>[]> {
  const items = await queryStateIndex<SourceStateItem<S>>(doc, {
    TableName: table,
    IndexName: DUE_INDEX,
    KeyConditionExpression:
      opts.dueBefore === undefined ? 'dueShard = :shard' : 'dueShard = :shard AND dueAt <= :before',
    ExpressionAttributeValues: {
      ':shard': PLANNER_SHARD,
      ...(opts.dueBefore === undefined ? {} : { ':before': opts.dueBefore }),
    },
  });
  return items.map(fromStore);
}

/**
 * Every source's whole STATE item, lease and last run included (on-call's view: `status`, `explain`):
 * the keys from `byDueAt`, the items by BatchGet, 100 a round trip.
 */
export async function readSourceStates<S>({ doc, table }: TableContext): Promise<SourceStateItem<S>[]> {
  const keys = (
    await queryStateIndex(doc, {
      TableName: table,
      IndexName: DUE_INDEX,
      KeyConditionExpression: 'dueShard = :shard',
      ExpressionAttributeValues: { ':shard': PLANNER_SHARD },
      ProjectionExpression: 'pk',
    })
  ).map((item) => String(item.pk));
  const items = await batchGetItems(
    doc,
    table,
    keys.flatMap((pk) => [STATE_SK, LAST_RUN_SK].map((sk) => ({ pk, sk }))),
    false,
  );
  const out: SourceStateItem<S>[] = [];
  for (let i = 0; i < items.length; i += 2) {
    const state = items[i] as unknown as SourceStateItem<S> | undefined;
    if (state !== undefined) out.push(withLastRun(state, items[i + 1]));
  }
  // Oldest due first, as the index answers.
  return out.sort((a, b) => a.dueAt.localeCompare(b.dueAt) || a.sourceId.localeCompare(b.sourceId));
}

/** Ids of every source that has a STATE item (keys only: cheap even for many sources). */
export async function listStateSourceIds(doc: DynamoDBDocumentClient, table: string): Promise<Set<string>> {
  const items = await queryStateIndex(doc, {
    TableName: table,
    IndexName: DUE_INDEX,
    KeyConditionExpression: 'dueShard = :shard',
    ExpressionAttributeValues: { ':shard': PLANNER_SHARD },
    ProjectionExpression: 'sourceId',
  });
  return new Set(items.map((item) => String(item.sourceId)));
}

function isConditionFailure(err: unknown): boolean {
  return (err as { name?: string }).name === 'ConditionalCheckFailedException';
}

/** One conditional update of a STATE item; `false` when its condition did not hold. */
async function updateIf(doc: DynamoDBDocumentClient, input: UpdateCommandInput): Promise<boolean> {
  try {
    await doc.send(new UpdateCommand(input));
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/**
 * `SET`/`REMOVE` clauses for plain attributes, with placeholder names so any attribute name is safe.
 * `tag` keeps placeholders of several calls in one expression apart. Undefined values are skipped.
 */
function attributeClauses(
  set: Record<string, unknown>,
  remove: string[],
  tag: string,
): { sets: string[]; removes: string[]; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  Object.entries(set).forEach(([k, v], i) => {
    if (v === undefined) return;
    names[`#${tag}${i}`] = k;
    values[`:${tag}${i}`] = storedStateAttribute(k, v);
    sets.push(`#${tag}${i} = :${tag}${i}`);
  });
  const removes = remove.map((k, i) => {
    names[`#${tag}r${i}`] = k;
    return `#${tag}r${i}`;
  });
  return { sets, removes, names, values };
}

/** Set attributes of the STATE item (creating it), without touching the lease. */
export async function patchSourceState(
  { doc, table }: TableContext,
  sourceId: string,
  patch: Partial<Omit<SourceStateItem, 'pk' | 'sk' | 'leaseRunId' | 'leaseUntil' | 'leaseKind'>>,
  remove: string[] = [],
): Promise<void> {
  const { sets, removes, names, values } = attributeClauses(
    { ...patch, sourceId, dueShard: PLANNER_SHARD },
    remove,
    'f',
  );
  // A new item needs a dueAt for the index; "now-ish" epoch 0 makes it due at once.
  if (patch.dueAt === undefined) {
    names['#due'] = 'dueAt';
    values[':dueDefault'] = new Date(0).toISOString();
    sets.push('#due = if_not_exists(#due, :dueDefault)');
  }
  await doc.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: sourcePk(sourceId), sk: STATE_SK },
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

/** The attributes of a claim on a lease (see `claimSyncRun`). */
const CLAIM_ATTRIBUTES = ['leaseHolder', 'leaseHeldUntil'];

/** A new run's lease on a source (SCH-5), with what the same write records beside it. */
export interface SyncLeaseRequest {
  runId: string;
  kind: string;
  until: Date;
  now: Date;
  extra?: Record<string, unknown>;
  /**
   * Host lanes: take the lease only while the source's stored due time is no later than this — a lane
   * entry whose source ran or was decided again since the lane was planned is stale and is skipped.
   */
  dueBy?: Date;
}

/**
 * The due time a lease write leaves (issue 28): none when the caller read the source due (`dueBy` not
 * after `now`) — the condition `dueAt <= :dueBy` holds the stored one there, so the item stays in the
 * planner's due read while leased and no index key moves; otherwise (a CLI run, a lane entry without a
 * read due time) `now`, for the same reason. A caller's own `dueAt` in `extra` wins.
 */
function leaseDueClause(lease: SyncLeaseRequest): string {
  const readDue = lease.dueBy !== undefined && lease.dueBy.getTime() <= lease.now.getTime();
  return lease.extra?.dueAt !== undefined || readDue ? '' : ', dueAt = :now';
}

/**
 * SCH-5: the one definition of taking a source's sync lease — free or expired only, recording the new
 * run and `extra` in the same conditional update. The lease's end and kind are copied into `byDueAt`
 * (the planner counts running syncs from them); the write moves no index key (`leaseDueClause`).
 */
function syncLeaseUpdate(table: string, sourceId: string, lease: SyncLeaseRequest): UpdateCommandInput {
  const extra = attributeClauses(lease.extra ?? {}, [], 'x');
  const extraSets = extra.sets.map((clause) => `, ${clause}`).join('');
  return {
    TableName: table,
    Key: { pk: sourcePk(sourceId), sk: STATE_SK },
    UpdateExpression:
      'SET leaseRunId = :run, leaseKind = :kind, leaseUntil = :until, sourceId = :sid, dueShard = :shard, leaseStep = :step' +
      leaseDueClause(lease) +
      extraSets +
      // A dead run's claim goes with its lease.
      ` REMOVE ${CLAIM_ATTRIBUTES.join(', ')}`,
    ConditionExpression:
      '(attribute_not_exists(leaseUntil) OR leaseUntil < :now)' +
      (lease.dueBy === undefined ? '' : ' AND dueAt <= :dueBy'),
    ...(extraSets === '' ? {} : { ExpressionAttributeNames: extra.names }),
    ExpressionAttributeValues: {
      ...extra.values,
      ':run': lease.runId,
      ':kind': lease.kind,
      ':until': lease.until.toISOString(),
      ':now': lease.now.toISOString(),
      ':sid': sourceId,
      ':shard': PLANNER_SHARD,
      ':step': 0,
      ...(lease.dueBy === undefined ? {} : { ':dueBy': lease.dueBy.toISOString() }),
    },
  };
}

/**
 * SCH-5: take the source's sync lease for a new run if it is free or expired. One conditional write;
 * `false` means another run holds it. The run's messages then claim it one at a time (`claimSyncRun`).
 */
export async function acquireSyncLease(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
  lease: SyncLeaseRequest,
): Promise<boolean> {
  return updateIf(doc, syncLeaseUpdate(table, sourceId, lease));
}

/** One message's claim on its run's lease: the run, which of its messages, and who works on it. */
export interface SyncRunClaim {
  runId: string;
  /** The message's `continuation` (0 for the planner's message). */
  step: number;
  /** This invocation (random per delivery). */
  holder: string;
}

/**
 * Issue 13 / SCH-5: a delivered sync message claims its run's lease for this invocation, renewing it.
 * Only the run the planner (or the CLI) took the lease for may claim, only with its current message or a
 * later one (a continuation takes over from the message that sent it), and only while no other
 * invocation works on that message — unless that one's time is up (`leaseHeldUntil`, the end of its
 * invocation: after a crash the redelivery proceeds). `false`: a duplicate or stale delivery; it must
 * touch nothing.
 *
 * Issue 28: the lease's end is copied into `byDueAt`, so renewing it writes an index copy. With
 * `keepLease` the claim first tries to leave the lease as it stands — only while it outlasts this
 * invocation (`leaseUntil >= heldUntil`), which the claim's condition checks — and renews it only if not.
 */
export async function claimSyncRun(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
  claim: SyncRunClaim & { heldUntil: Date; leaseUntil: Date; now: Date; keepLease?: boolean },
): Promise<boolean> {
  const update = (renew: boolean): UpdateCommandInput => ({
    TableName: table,
    Key: { pk: sourcePk(sourceId), sk: STATE_SK },
    UpdateExpression: `SET ${renew ? 'leaseUntil = :until, ' : ''}leaseStep = :step, leaseHolder = :holder, leaseHeldUntil = :held`,
    ConditionExpression:
      'leaseRunId = :run AND (attribute_not_exists(leaseStep) OR leaseStep < :step OR ' +
      '(leaseStep = :step AND (attribute_not_exists(leaseHeldUntil) OR leaseHeldUntil < :now)))' +
      (renew ? '' : ' AND leaseUntil >= :held'),
    ExpressionAttributeValues: {
      ':run': claim.runId,
      ':step': claim.step,
      ':holder': claim.holder,
      ':held': claim.heldUntil.toISOString(),
      ':now': claim.now.toISOString(),
      ...(renew ? { ':until': claim.leaseUntil.toISOString() } : {}),
    },
  });
  if (claim.keepLease === true && (await updateIf(doc, update(false)))) return true;
  return updateIf(doc, update(true));
}

/**
 * Give up this invocation's claim but keep the run's lease: the redelivery of the same message may
 * claim it at once (issue 13: after a store outage). With `nextStep`, hand the run over to the
 * continuation message sent for it, so a late redelivery of this message is stale.
 */
export async function releaseSyncClaim(
  { doc, table }: TableContext,
  sourceId: string,
  claim: SyncRunClaim,
  nextStep?: number,
): Promise<boolean> {
  return updateIf(doc, {
    TableName: table,
    Key: { pk: sourcePk(sourceId), sk: STATE_SK },
    UpdateExpression: `${nextStep === undefined ? '' : 'SET leaseStep = :next '}REMOVE ${CLAIM_ATTRIBUTES.join(', ')}`,
    ConditionExpression: 'leaseRunId = :run AND leaseHolder = :holder',
    ExpressionAttributeValues: {
      ':run': claim.runId,
      ':holder': claim.holder,
      ...(nextStep === undefined ? {} : { ':next': nextStep }),
    },
  });
}

/** What a release removes: the lease, its claim, and the lease index key of the release before. */
const RELEASE_REMOVES = [
  'leaseRunId',
  'leaseKind',
  'leaseUntil',
  LEGACY_LEASE_SHARD_ATTRIBUTE,
  'leaseStep',
  ...CLAIM_ATTRIBUTES,
];

/**
 * Issue 28: room a released STATE item keeps for the next run's lease and claim — their attributes at
 * their largest (run id and holder UUIDs, the longest kind, the lease's and the claim's ends, a step) —
 * and for a next decision whose reason is up to DECISION_ROOM_BYTES longer than the last one's. The
 * lease, the claim and the release each bill the larger of the item before and after, so a release
 * puts the last run inline only while the released item plus this room stays within one write unit.
 */
export const DECISION_ROOM_BYTES = 64;
export const LEASE_ROOM_BYTES =
  storedItemBytes({
    leaseRunId: '00000000-0000-4000-8000-000000000000',
    leaseKind: 'incremental',
    leaseUntil: '2026-12-09T10:00:00.000Z',
    leaseStep: 99,
    leaseHolder: '00000000-0000-4000-8000-000000000000',
    leaseHeldUntil: '2026-12-09T10:00:00.000Z',
  }) + DECISION_ROOM_BYTES;

/**
 * The DynamoDB size of the STATE item a release leaves (pure): `before` as read (`getStateItem`) without
 * its lease, claim and last run, with `patch` and `lastRun` set — each attribute as stored.
 */
export function releasedItemBytes(
  sourceId: string,
  before: Record<string, unknown>,
  patch: Record<string, unknown>,
  lastRun?: Record<string, unknown>,
): number {
  const kept = Object.entries(before).filter(
    ([name]) => !RELEASE_REMOVES.includes(name) && name !== 'lastRun' && !(name in patch),
  );
  const item: Record<string, unknown> = {
    ...Object.fromEntries(kept),
    ...patch,
    ...(lastRun === undefined ? {} : { lastRun }),
    pk: sourcePk(sourceId),
    sk: STATE_SK,
  };
  return storedItemBytes(
    Object.fromEntries(
      Object.entries(item).map(([name, value]) => [name, storedStateAttribute(name, value)]),
    ),
  );
}

/** A run's end (shared/sync run.ts): its lease released with its outcome and its report. */
export interface RunRelease {
  /** The run id, or this invocation's claim (then only while it holds it). */
  run: string | SyncRunClaim;
  /** Attributes the release sets (the schedule, the next due time). */
  patch?: Record<string, unknown>;
  /** The run's report as on-call reads it (`status`, `explain`). */
  lastRun?: Record<string, unknown>;
  /** The STATE item as read before the release (`getStateItem`): whether the report fits inline. */
  before?: Record<string, unknown>;
  /**
   * Only while the item's due time is still this one (as read before the release): a source made due
   * meanwhile (a config edit the planner saw, an operator's request) is not given a later one.
   */
  ifDueAt?: string;
}

/**
 * Release the lease held by `runId` (and, given a claim, only while this invocation holds it) and
 * record the run's results in the same write.
 */
export async function releaseSyncLease(
  ctx: TableContext,
  sourceId: string,
  run: string | SyncRunClaim,
  patch: Record<string, unknown> = {},
): Promise<boolean> {
  const { lastRun, ...statePatch } = patch;
  return releaseSyncRun(ctx, sourceId, {
    run,
    patch: statePatch,
    ...(lastRun === undefined ? {} : { lastRun: lastRun as Record<string, unknown> }),
  });
}

/**
 * Release the run's lease with its outcome (`releaseSyncLease`) and keep its report. Issue 28: inline,
 * in the same write, when the released item plus LEASE_ROOM_BYTES stays within one write unit (known
 * from `before`): one write a run fewer, and the report lands with the outcome or not at all. Otherwise
 * in the source's `LASTRUN` item after the release (and the inline one removed), so the item every
 * lease, claim and release rewrites stays under 1 KB.
 */
export async function releaseSyncRun(
  { doc, table }: TableContext,
  sourceId: string,
  { run, patch = {}, lastRun, before, ifDueAt }: RunRelease,
): Promise<boolean> {
  const inline =
    lastRun !== undefined &&
    before !== undefined &&
    releasedItemBytes(sourceId, before, patch, lastRun) + LEASE_ROOM_BYTES <= WRITE_UNIT_BYTES;
  const { sets, removes, names, values } = attributeClauses(
    inline ? { ...patch, lastRun } : patch,
    lastRun === undefined || inline ? [] : ['lastRun'],
    'f',
  );
  const removeAll = [...RELEASE_REMOVES, ...removes].join(', ');
  const claim = typeof run === 'string' ? undefined : run;
  const released = await updateIf(doc, {
    TableName: table,
    Key: { pk: sourcePk(sourceId), sk: STATE_SK },
    UpdateExpression: `${sets.length > 0 ? `SET ${sets.join(', ')} ` : ''}REMOVE ${removeAll}`,
    ConditionExpression:
      (claim ? 'leaseRunId = :run AND leaseHolder = :holder' : 'leaseRunId = :run') +
      (ifDueAt === undefined ? '' : ' AND dueAt = :ifDue'),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: {
      ...values,
      ':run': claim ? claim.runId : run,
      ...(claim ? { ':holder': claim.holder } : {}),
      ...(ifDueAt === undefined ? {} : { ':ifDue': ifDueAt }),
    },
  });
  if (released && lastRun !== undefined && !inline)
    await doc.send(
      new PutCommand({ TableName: table, Item: { pk: sourcePk(sourceId), sk: LAST_RUN_SK, lastRun } }),
    );
  return released;
}

/**
 * SCH-7 / FULL-8: record an operator's request for a sync or a full sync in the source's schedule state
 * and make the source due, so the planner decides on it at its next tick (the rules still apply there).
 * One update of the nested attribute: a concurrent write of other schedule fields is not lost.
 */
export async function requestManualSync(
  { doc, table }: TableContext,
  sourceId: string,
  request: { kind: 'sync' | 'full'; requestedAt: string },
  initialSchedule: object,
): Promise<void> {
  const key = { pk: sourcePk(sourceId), sk: STATE_SK };
  // A source never planned has no schedule map yet: create it first, then set the request inside it.
  await doc.send(
    new UpdateCommand({
      TableName: table,
      Key: key,
      UpdateExpression:
        'SET #s = if_not_exists(#s, :initial), sourceId = :sid, dueShard = :shard, dueAt = if_not_exists(dueAt, :epoch)',
      ExpressionAttributeNames: { '#s': 'schedule' },
      ExpressionAttributeValues: {
        ':initial': storedSchedule(initialSchedule),
        ':sid': sourceId,
        ':shard': PLANNER_SHARD,
        ':epoch': new Date(0).toISOString(),
      },
    }),
  );
  await doc.send(
    new UpdateCommand({
      TableName: table,
      Key: key,
      UpdateExpression: 'SET #s.#r = :request, dueAt = :now',
      ExpressionAttributeNames: { '#s': 'schedule', '#r': MANUAL_REQUEST_STORED },
      ExpressionAttributeValues: { ':request': request, ':now': request.requestedAt },
    }),
  );
}
