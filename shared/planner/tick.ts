import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config/source';
import { decideSource, initialScheduleState, markSyncStarted, planSyncSlots } from '../schedule';
import type { ScheduleSettings, SourceDecision, SourceScheduleState } from '../schedule/types';
import {
  acquireSyncLease,
  listSourceStates,
  patchSourceState,
  releaseSyncLease,
  type SourceStateItem,
} from '../store/source-state';
import { loadAllSources } from '../store/sources';
import type { SyncMessage } from '../sync/message';

/**
 * One planner tick: load config and state, decide per source (pure, shared/schedule), take the leases
 * of the sources that start now and send one sync message each. It never fetches from a council server.
 */
export interface PlannerDeps {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
  tables: { sources: string; state: string };
  syncQueueUrl: string;
  settings: ScheduleSettings;
  /** How long a sync lease lasts before another run may take over (an instance may die). */
  leaseMinutes: number;
  newRunId?: () => string;
}

export interface PlannedSource {
  sourceId: string;
  action: 'sync' | 'wait' | 'skip';
  kind?: string;
  reason: string;
  dueAt?: string;
  started: boolean;
}

export interface PlannerTickResult {
  at: string;
  sources: number;
  invalid: number;
  started: PlannedSource[];
  decisions: PlannedSource[];
}

export type StoredState = SourceStateItem<SourceScheduleState>;

/** The schedule state as the pure core sees it: the stored one plus the lease that is in force now. */
export function scheduleStateOf(item: StoredState | undefined, now: Date): SourceScheduleState {
  const schedule = item?.schedule ?? initialScheduleState();
  const leaseActive = item?.leaseUntil !== undefined && item.leaseUntil > now.toISOString();
  if (!leaseActive) {
    const { running: _stale, ...rest } = schedule;
    return rest;
  }
  return {
    ...schedule,
    running: {
      kind: (item?.leaseKind as 'incremental' | 'full' | 'sliced') ?? 'incremental',
      trigger: schedule.running?.trigger ?? 'schedule',
      startedAt: schedule.running?.startedAt ?? now.toISOString(),
      leaseUntil: item?.leaseUntil as string,
      ...(schedule.running?.windowId ? { windowId: schedule.running.windowId } : {}),
      ...(schedule.running?.deadline ? { deadline: schedule.running.deadline } : {}),
    },
  };
}

export async function plannerTick(deps: PlannerDeps, now: Date): Promise<PlannerTickResult> {
  const newRunId = deps.newRunId ?? randomUUID;
  const [{ parsed }, states] = await Promise.all([
    loadAllSources(deps.doc, deps.tables.sources),
    listSourceStates<SourceScheduleState>(deps.doc, deps.tables.state),
  ]);
  const stateById = new Map(states.map((s) => [s.sourceId, s]));
  const result: PlannerTickResult = {
    at: now.toISOString(),
    sources: parsed.length,
    invalid: 0,
    started: [],
    decisions: [],
  };

  const candidates: { source: SourceConfig; decision: SourceDecision; state: SourceScheduleState }[] = [];
  for (const p of parsed) {
    if (!p.ok) {
      result.invalid += 1;
      const reason = `invalid config: ${p.problems.map((x) => `${x.field} ${x.message}`).join('; ')}`;
      result.decisions.push({ sourceId: p.sourceId, action: 'skip', reason, started: false });
      const previous = stateById.get(p.sourceId);
      if (previous?.lastDecision?.reason !== reason) {
        await patchSourceState(deps.doc, deps.tables.state, p.sourceId, {
          configProblems: p.problems,
          lastDecision: { action: 'skip', reason, decidedAt: now.toISOString(), ruleIds: [] },
        });
      }
      continue;
    }
    const item = stateById.get(p.source.sourceId);
    const state = scheduleStateOf(item, now);
    const decision = decideSource(p.source, state, now.toISOString(), deps.settings);
    candidates.push({ source: p.source, decision, state });
  }

  const running = [...stateById.values()].filter(
    (s) => s.leaseUntil !== undefined && s.leaseUntil > now.toISOString(),
  );
  const runningFull = running.filter((s) => s.leaseKind === 'full' || s.leaseKind === 'sliced').length;
  // SCH-5 / FULL-3: the allocator may turn a full sync without a slot into the incremental that is due.
  const allocation = planSyncSlots(
    candidates.map((c) => c.decision),
    running.length,
    runningFull,
    deps.settings,
  );
  const toStart = new Map(allocation.start.map((d) => [d.sourceId, d]));
  const waitingReason = new Map(allocation.waiting.map((w) => [w.sourceId, w.reason]));

  for (const { source, decision, state } of candidates) {
    let started = false;
    let finalDecision = decision;
    const startDecision = toStart.get(source.sourceId);
    if (startDecision) {
      started = await startSync(deps, source, startDecision, state, now, newRunId());
      finalDecision = started
        ? startDecision
        : {
            ...startDecision,
            action: 'wait',
            reason: `${startDecision.reason}; another run holds the lease (SCH-5)`,
          };
    } else if (decision.action === 'sync') {
      finalDecision = {
        ...decision,
        action: 'wait',
        reason:
          waitingReason.get(source.sourceId) ?? `${decision.reason}; waiting for a free sync slot (SCH-5)`,
      };
    }
    const planned: PlannedSource = {
      sourceId: source.sourceId,
      action: finalDecision.action,
      reason: finalDecision.reason,
      started,
      ...(finalDecision.kind ? { kind: finalDecision.kind } : {}),
      ...(finalDecision.dueAt ? { dueAt: finalDecision.dueAt } : {}),
    };
    result.decisions.push(planned);
    if (started) result.started.push(planned);
    const previous = stateById.get(source.sourceId);
    // Write only what changed: a quiet source costs no write per tick.
    if (
      started ||
      previous?.lastDecision?.reason !== finalDecision.reason ||
      previous?.configProblems !== undefined ||
      (finalDecision.dueAt !== undefined && previous?.dueAt !== finalDecision.dueAt)
    ) {
      await patchSourceState(
        deps.doc,
        deps.tables.state,
        source.sourceId,
        {
          lastDecision: {
            action: finalDecision.action,
            reason: finalDecision.reason,
            decidedAt: now.toISOString(),
            ruleIds: finalDecision.ruleIds,
            ...(finalDecision.kind ? { kind: finalDecision.kind } : {}),
          },
          ...(finalDecision.dueAt && !started ? { dueAt: finalDecision.dueAt } : {}),
        },
        previous?.configProblems !== undefined ? ['configProblems'] : [],
      );
    }
  }
  return result;
}

async function startSync(
  deps: PlannerDeps,
  source: SourceConfig,
  decision: SourceDecision,
  state: SourceScheduleState,
  now: Date,
  runId: string,
): Promise<boolean> {
  const kind = decision.kind ?? 'incremental';
  const trigger = decision.trigger ?? 'schedule';
  const until = new Date(now.getTime() + deps.leaseMinutes * 60_000);
  // FULL-2: the window is recorded at the start, so a run that dies is not retried in the same window.
  const schedule = markSyncStarted(state, decision, now.toISOString(), deps.leaseMinutes);
  const taken = await acquireSyncLease(deps.doc, deps.tables.state, source.sourceId, {
    runId,
    kind,
    until,
    now,
    extra: { schedule },
  });
  if (!taken) return false;
  const message: SyncMessage = {
    sourceId: source.sourceId,
    runId,
    kind,
    trigger,
    continuation: 0,
    startedAt: now.toISOString(),
    ...(decision.deadline ? { deadline: decision.deadline } : {}),
    ...(decision.windowId ? { windowId: decision.windowId } : {}),
  };
  try {
    await deps.sqs.send(
      new SendMessageCommand({ QueueUrl: deps.syncQueueUrl, MessageBody: JSON.stringify(message) }),
    );
    return true;
  } catch (err) {
    // Without a message nobody would release the lease until it expires: give it back now.
    await releaseSyncLease(deps.doc, deps.tables.state, source.sourceId, runId, { schedule: state });
    throw err;
  }
}
