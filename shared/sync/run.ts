import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config';
import type { EngineReport, SyncEngine } from '../engine';
import { isIngestorError } from '../errors';
import { decideOnHost } from '../hosts';
import type {
  DecisionRecord,
  RunOutcome,
  ScheduleSettings,
  SourceDecision,
  SourceScheduleState,
} from '../schedule';
import { applyRunOutcome, decideSource, decisionRecord, initialScheduleState } from '../schedule';
import {
  claimSyncRun,
  getSourceState,
  getStateItem,
  loadSource,
  patchSourceState,
  releaseSyncClaim,
  releaseSyncLease,
  releaseSyncRun,
  StoreUnavailableError,
  type SyncQueue,
  type SyncRunClaim,
  storeOutageOf,
  storeRefusalOf,
} from '../store';
import { type DuplicateKind, duplicateDelivery } from './duplicate';
import type { SyncLane, SyncMessage } from './message';

/**
 * Of the time kept back after `deadlineMs` (BUDGET_RESERVE_MS, shared/sync/batch.ts), this much stays
 * after every request has ended — cut if need be: the checkpoint and the hand-over (issue 13).
 */
export const CHECKPOINT_RESERVE_MS = 15_000;

export interface SyncRunDeps {
  doc: DynamoDBDocumentClient;
  tables: { sources: string; state: string };
  /** The sync queue a continuation (and a lane's hand-over) is sent to: the runtime's one `SyncQueue`. */
  queue: Pick<SyncQueue, 'send'>;
  engine: SyncEngine;
  now: () => Date;
  leaseMinutes: number;
  settings: ScheduleSettings;
  /** Names this invocation's claim on a lease; random by default. */
  newHolderId?: () => string;
}

export type SyncRunResult =
  | {
      status: 'done';
      sourceId: string;
      report: EngineReport;
      outcome: RunOutcome;
      /** How far this instance's clock was behind the run's start (planner's clock), when it was. */
      clockSkewMs?: number;
    }
  | { status: 'continued'; sourceId: string; report: EngineReport; continuation: number }
  | {
      status: 'dropped';
      sourceId: string;
      reason: string;
      /** Set when the message was a duplicate or stale delivery (issue 13): nothing was touched. */
      duplicate?: DuplicateKind;
    };

/**
 * One sync message, end to end: check the source and the lease, run the engine within the time budget,
 * then either hand over to a continuation message (lease kept) or record the outcome in the schedule
 * state and release the lease in the same conditional write. Never throws for a problem of the source
 * itself — that is an outcome the planner learns from; it throws only when our store fails
 * (`StoreUnavailableError`, issue 13) or refuses a call (`storeRefusalOf`), so the message is redelivered. A duplicate or stale delivery of a
 * message is dropped without touching anything (`duplicate`).
 */
export async function runSyncMessage(
  deps: SyncRunDeps,
  message: SyncMessage,
  budget: RunBudget,
): Promise<SyncRunResult> {
  const { sourceId, runId } = message;
  const now = deps.now();
  // Issue 13 / SCH-5: this delivery claims its run's lease for as long as this invocation may live.
  const claim: SyncRunClaim = {
    runId,
    step: message.continuation,
    holder: (deps.newHolderId ?? randomUUID)(),
  };
  const heldUntil = new Date(
    now.getTime() + Math.max(0, (budget.endsAtMs ?? budget.deadlineMs) - Date.now()),
  );
  const claimed = await claimSyncRun(deps.doc, deps.tables.state, sourceId, {
    ...claim,
    heldUntil,
    leaseUntil: new Date(now.getTime() + deps.leaseMinutes * 60_000),
    now,
    keepLease: leaseOutlasts(message, deps.leaseMinutes, heldUntil),
  });
  if (!claimed) {
    const item = await getSourceState(deps.doc, deps.tables.state, sourceId);
    const duplicate = duplicateDelivery(item, message);
    return { status: 'dropped', sourceId, reason: duplicate.reason, duplicate: duplicate.kind };
  }
  try {
    return await runClaimed(deps, message, claim, budget);
  } catch (err) {
    const outage = storeOutageOf(err);
    if (outage === undefined && storeRefusalOf(err) === undefined) throw err;
    // Ours, not the source's: no outcome, no failure (ERR-4). The lease stays with the run and the
    // claim is given back so the redelivery proceeds at once — should this write fail too, the claim
    // ends with this invocation's time, before SQS redelivers.
    await releaseSyncClaim({ doc: deps.doc, table: deps.tables.state }, sourceId, claim).catch(() => false);
    if (outage === undefined) throw err;
    throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(outage, err);
  }
}

interface RunBudget {
  deadlineMs: number;
  /** When this invocation is killed at the latest (wall clock, ms); default `deadlineMs`. */
  endsAtMs?: number;
  /** The operator's stop (CLI Ctrl-C): the engine ends at its next checkpoint. */
  signal?: AbortSignal;
}

/**
 * Issue 28: whether the lease its start took (`startedAt` + `leaseMinutes`, shared/sync/start.ts) still
 * covers this invocation — then the first message's claim need not renew it, and writes no index copy
 * (the claim's condition checks the stored lease; a renewing claim follows if it does not hold). A
 * continuation renews: its run has outlived one invocation already.
 */
export function leaseOutlasts(message: SyncMessage, leaseMinutes: number, heldUntil: Date): boolean {
  const plannedEnd = Date.parse(message.startedAt) + leaseMinutes * 60_000;
  return message.continuation === 0 && plannedEnd >= heldUntil.getTime();
}

/** A message whose claim this invocation holds: what each step of its run works with. */
interface ClaimedRun {
  deps: SyncRunDeps;
  message: SyncMessage;
  claim: SyncRunClaim;
}

/** A claimed message, step by step: the source still to sync, the engine, then hand-over or outcome. */
async function runClaimed(
  deps: SyncRunDeps,
  message: SyncMessage,
  claim: SyncRunClaim,
  budget: RunBudget,
): Promise<SyncRunResult> {
  const run: ClaimedRun = { deps, message, claim };
  const checked = await sourceToSync(run);
  if (checked.status === 'dropped') return checked;
  const ran = await runEngine(run, checked.source, budget);
  if (ran.status === 'dropped') return ran;
  if (ran.report.continued) return handOver(run, ran.report);
  return recordOutcome(run, checked.source, ran.report);
}

type Dropped = Extract<SyncRunResult, { status: 'dropped' }>;

/**
 * The message's source as it is configured now; a source that is gone, broken (ERR-6) or deactivated
 * while queued (ERR-7) ends the run here, its lease released.
 */
async function sourceToSync({
  deps,
  message,
  claim,
}: ClaimedRun): Promise<Dropped | { status: 'ok'; source: SourceConfig }> {
  const { sourceId } = message;
  const state = { doc: deps.doc, table: deps.tables.state };
  // Due again at once, and moved on from the due time a planner or lane may have read (their `dueBy`,
  // issue 28: the lease left it as it was), so only a fresh decision starts the source again.
  const dueNow = { dueAt: deps.now().toISOString() };
  const parsed = await loadSource(deps.doc, deps.tables.sources, sourceId);
  if (parsed === undefined || !parsed.ok) {
    const reason =
      parsed === undefined
        ? 'source no longer exists'
        : `invalid config: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`;
    await releaseSyncLease(state, sourceId, claim, dueNow);
    if (parsed !== undefined && !parsed.ok)
      await patchSourceState(state, sourceId, { configProblems: parsed.problems });
    return { status: 'dropped', sourceId, reason };
  }
  // ERR-7: deactivated while queued. A manual run (CLI) may sync an inactive source once (ONB-3).
  if (!parsed.source.active && message.trigger !== 'manual') {
    await releaseSyncLease(state, sourceId, claim, dueNow);
    return { status: 'dropped', sourceId, reason: 'source is inactive (ERR-7)' };
  }
  return { status: 'ok', source: parsed.source };
}

/**
 * The engine within the budget. Its failure is the run's outcome (ERR-4) — unless the store failed (ours:
 * thrown for redelivery, issue 13) or another invocation owns the run (its cursor moved: dropped).
 */
async function runEngine(
  { deps, message, claim }: ClaimedRun,
  source: SourceConfig,
  budget: RunBudget,
): Promise<Dropped | { status: 'ran'; report: EngineReport }> {
  try {
    const report = await deps.engine(source, message, {
      deadlineMs: budget.deadlineMs,
      // Every request of the run ends (its socket closed) in time for the checkpoint.
      ...(budget.endsAtMs === undefined ? {} : { requestsEndMs: budget.endsAtMs - CHECKPOINT_RESERVE_MS }),
      runStartedAt: new Date(message.startedAt),
      ...(budget.signal ? { signal: budget.signal } : {}),
    });
    return { status: 'ran', report };
  } catch (err) {
    // A store outage or refusal is ours (issue 13, ERR-4): the caller redelivers the message.
    if (storeOutageOf(err) !== undefined || storeRefusalOf(err) !== undefined) throw err;
    if (isIngestorError(err, 'SYNC_CURSOR_CONFLICT')) {
      // Another invocation advanced this run's cursor: it owns the run; this one leaves everything to it.
      await releaseSyncClaim({ doc: deps.doc, table: deps.tables.state }, message.sourceId, claim);
      return {
        status: 'dropped',
        sourceId: message.sourceId,
        reason: `duplicate delivery: ${err.message}`,
        duplicate: 'concurrent',
      };
    }
    // An engine bug or an unexpected fault: a failed run (ERR-4), never a crashed planner.
    return {
      status: 'ran',
      report: {
        kind: message.kind,
        requests: 0,
        changed: false,
        complete: false,
        continued: false,
        objects: { new: 0, modified: 0, deleted: 0 },
        failures: ['other'],
        failureDetails: [
          err instanceof Error
            ? `${(err as { code?: string }).code ?? err.name}: ${err.message}`
            : String(err),
        ],
      },
    };
  }
}

/** The run goes on in a continuation message; the lease stays with the run (issue 13). */
async function handOver({ deps, message, claim }: ClaimedRun, report: EngineReport): Promise<SyncRunResult> {
  const next: SyncMessage = { ...message, continuation: message.continuation + 1 };
  await deps.queue.send(JSON.stringify(next));
  // Hand the run over, so a late redelivery of this message is stale. Best effort: the continuation
  // takes over by its later step anyway.
  await releaseSyncClaim(
    { doc: deps.doc, table: deps.tables.state },
    message.sourceId,
    claim,
    next.continuation,
  ).catch(() => false);
  return { status: 'continued', sourceId: message.sourceId, report, continuation: next.continuation };
}

/**
 * The run's end: its outcome applied to the schedule state and the lease released in the same
 * conditional write with its report, and the wait the source's own decision asks from its end
 * (`nextDecisionOf`) — or due again at once, for the planner's next tick.
 */
async function recordOutcome(
  { deps, message, claim }: ClaimedRun,
  source: SourceConfig,
  report: EngineReport,
): Promise<SyncRunResult> {
  const { sourceId } = message;
  const { endedAt, skewMs } = runEndedAt(new Date(message.startedAt), deps.now());
  const outcome = runOutcomeOf(report, message.startedAt, endedAt);
  const item = await getStateItem<SourceScheduleState>({ doc: deps.doc, table: deps.tables.state }, sourceId);
  const schedule = applyRunOutcome(item?.schedule ?? initialScheduleState(), outcome, endedAt.toISOString(), {
    config: source,
    settings: deps.settings,
  });
  const state = { doc: deps.doc, table: deps.tables.state };
  const release = {
    run: claim,
    lastRun: lastRunOf(message, report, outcome),
    // Issue 28: the item as read tells whether the report fits inline (one write a run fewer).
    ...(item === undefined ? {} : { before: item as unknown as Record<string, unknown> }),
  };
  const dueNow = { schedule, dueAt: endedAt.toISOString() };
  const next = madeDueDuringRun(item?.dueAt, message.startedAt)
    ? dueNow
    : {
        schedule,
        ...nextDecisionOf(source, schedule, endedAt, {
          settings: deps.settings,
          host: plannedStretch(message),
        }),
      };
  // A wait only while nobody made the source due since the read; else due at the run's end, as before.
  const released =
    next.dueAt !== dueNow.dueAt &&
    (await releaseSyncRun(state, sourceId, { ...release, patch: next, ifDueAt: item?.dueAt }));
  if (!released) await releaseSyncRun(state, sourceId, { ...release, patch: dueNow });
  return { status: 'done', sourceId, report, outcome, ...(skewMs > 0 ? { clockSkewMs: skewMs } : {}) };
}

/**
 * Issue 28, pure: the due time (and decision) a run's release leaves. The source's own decision at the
 * run's end (`decideSource`: cadence, pause, full-sync window — SCH-1…4, ERR-4/5, FULL-2) when it waits:
 * then the release records it as the planner would, and the planner's next tick does not read the
 * source again only to write that wait (a second due-time move each run: 3 write units). The host's
 * stretch (RATE-9) and admission only ever wait longer, so this is never later than the planner's own
 * next look; it looks again then, with the whole fleet. Anything else — due again at once, a skip —
 * leaves the source due at the run's end, and the planner decides at its next tick. Either due time is
 * later than any a planner or lane read before the run (`dueBy`): a stale lane start is refused.
 */
export function nextDecisionOf(
  source: SourceConfig,
  schedule: SourceScheduleState,
  endedAt: Date,
  on: {
    settings: ScheduleSettings;
    /** RATE-9: the host's stretch as the planner saw it at the plan (`plannedStretch`); none: not saturated. */
    host?: HostStretch;
  },
): { dueAt: string; lastDecision?: DecisionRecord } {
  const { settings } = on;
  const endedIso = endedAt.toISOString();
  const decision: SourceDecision = decideSource(source, schedule, endedIso, { settings });
  const dueMs = decision.dueAt === undefined ? Number.NaN : Date.parse(decision.dueAt);
  if (decision.action !== 'wait' || !(dueMs > endedAt.getTime())) return { dueAt: endedIso };
  return {
    // The index sorts strings: UTC ISO, whatever offset the decision carries.
    dueAt: new Date(dueMs).toISOString(),
    lastDecision: decisionRecord(
      { ...decision, ...stretchedReason(source, schedule, endedIso, on) },
      endedIso,
    ),
  };
}

/** RATE-9: a saturated host as a run's message carries it (`SyncLane.stretch`). */
export type HostStretch = Parameters<typeof decideOnHost>[0]['model'];

/**
 * RATE-9: the stretch of the run's host as the planner saw it when it planned the run's lane (a
 * saturated host only; a run without a lane is alone on its host or was started by hand).
 */
export function plannedStretch(message: Pick<SyncMessage, 'lane'>): HostStretch {
  const { lane } = message;
  if (lane?.stretch === undefined || lane.stretch.factor <= 1) return undefined;
  return laneStretchModel(lane);
}

/** RATE-9: a lane's host stretch (as the planner saw the host) in the form `decideOnHost` takes. */
export function laneStretchModel(lane: SyncLane): HostStretch {
  if (lane.stretch === undefined) return undefined;
  return {
    host: lane.host,
    stretch: lane.stretch.factor,
    demand: lane.stretch.demand,
    capacity: lane.stretch.capacity,
    // The window's share in the factor: decided after the window, the bare factor counts (`factorInForceAt`).
    ...(lane.stretch.fullSyncShare === undefined ? {} : { fullSyncShare: lane.stretch.fullSyncShare }),
  };
}

/**
 * RATE-9, pure: what the release records on a saturated host — the reason and rules the planner writes
 * when it decides the source there ("…; host … saturated …: next incremental at …"), so on-call reads
 * the stretch from the run's end on, not only once the planner looks again. The due time stays the
 * source's own wait: the planner looks then and waits on to the stretched turn (never earlier).
 */
function stretchedReason(
  source: SourceConfig,
  schedule: SourceScheduleState,
  endedIso: string,
  on: { settings: ScheduleSettings; host?: HostStretch },
): Pick<SourceDecision, 'reason' | 'ruleIds'> | undefined {
  if (on.host === undefined) return undefined;
  const onHost = decideOnHost({
    source,
    state: schedule,
    now: endedIso,
    settings: on.settings,
    model: on.host,
  });
  return onHost.action === 'wait' ? { reason: onHost.reason, ruleIds: onHost.ruleIds } : undefined;
}

/**
 * Whether something made the source due while it ran: the lease leaves its due time at or before the
 * run's start (`leaseDueClause`), and while it is leased only a config change the planner saw (RATE-2)
 * or an operator's request (SCH-7) sets one — their "now", after the start. Then the planner must decide
 * at its next tick, with what changed: a hand edit wins, as before issue 28.
 */
export function madeDueDuringRun(dueAt: string | undefined, startedAt: string): boolean {
  return dueAt !== undefined && Date.parse(dueAt) > Date.parse(startedAt);
}

function runOutcomeOf(report: EngineReport, startedAt: string, endedAt: Date): RunOutcome {
  return {
    kind: report.kind,
    startedAt: new Date(startedAt).toISOString(),
    endedAt: endedAt.toISOString(),
    changed: report.changed,
    complete: report.complete,
    failed: report.failures.length > 0 && !report.complete,
    failures: report.failures,
    ...(report.filterNotHonoured ? { filterNotHonoured: true } : {}),
    ...(report.sessionDays ? { sessionDays: report.sessionDays } : {}),
    requests: report.requests,
  };
}

/** The run's report as on-call reads it (`status`, `explain`): inline in STATE or in its LASTRUN item. */
function lastRunOf(message: SyncMessage, report: EngineReport, outcome: RunOutcome): Record<string, unknown> {
  return {
    runId: message.runId,
    kind: report.kind,
    trigger: message.trigger,
    startedAt: outcome.startedAt,
    endedAt: outcome.endedAt,
    ok: !outcome.failed,
    changed: report.changed,
    complete: report.complete,
    requests: report.requests,
    objects: report.objects,
    failures: report.failures,
    ...(report.failureDetails ? { failureDetails: report.failureDetails.slice(0, 10) } : {}),
    continuations: message.continuation,
  };
}

/**
 * The end of a run by this instance's clock — never before its start, which the planner stamped with its
 * own clock: an instance running behind would otherwise end the run before it began, the schedule would
 * refuse the outcome, and the lease would stay held until the message came back (chaos bench,
 * `clock-jump-back-mid-run`). `skewMs` says how far behind it was, for the log.
 */
export function runEndedAt(startedAt: Date, now: Date): { endedAt: Date; skewMs: number } {
  const skewMs = Math.max(0, startedAt.getTime() - now.getTime());
  return { endedAt: skewMs > 0 ? new Date(startedAt.getTime()) : now, skewMs };
}
