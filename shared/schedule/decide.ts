import { nextSyncDueMs } from './cadence';
import { isoOfMs } from './calendar';
import { type FullSyncVerdict, manualFullSyncMs, scheduledFullSyncMs } from './full-sync';
import { DEFAULT_SCHEDULE_SETTINGS } from './settings';
import { type SparingVerdict, sparedUntilMs } from './sparing';
import { runningAtMs } from './state';
import { msOf, reasonTime } from './time';
import type {
  CadenceDue,
  DecideOptions,
  DecisionAction,
  Instant,
  ManualRequest,
  RunningSync,
  ScheduleSettings,
  ScheduleSourceConfig,
  SourceDecision,
  SourceScheduleState,
} from './types';

/** One decision's inputs and what more than one of its steps reads, made once per decision. */
interface DecideContext {
  config: ScheduleSourceConfig;
  state: SourceScheduleState;
  nowMs: number;
  settings: ScheduleSettings;
  /** Scheduled full syncs considered (`DecideOptions.scheduledFullSyncs`). */
  scheduledFull: boolean;
  /** "; the lease of the … run started … expired", or '' — appended to the reasons of later steps. */
  expiredLease: string;
}

/** The rule ids of `lists` in order, each once (a handful of ids: a scan is cheaper than a Set). */
function unique(...lists: readonly (readonly string[])[]): string[] {
  const ids: string[] = [];
  for (const list of lists) for (const id of list) if (!ids.includes(id)) ids.push(id);
  return ids;
}

/**
 * A decision's first fields in their order: the source, its last complete full sync (FULL-3's order
 * of freed slots) when there is one, the action. Each step then sets its own fields, in the order the
 * decisions have always had. Field by field rather than `{ ...common, … }`: that spread cost
 * microseconds a decision, most of the fleet bench's CPU (issue 27).
 */
function decisionOf(step: DecideContext, action: DecisionAction): SourceDecision {
  const decision = { sourceId: step.config.sourceId } as SourceDecision;
  const lastFull = step.state.fullSyncLastCompletedAt;
  if (lastFull !== undefined) decision.lastFullSyncAt = lastFull;
  decision.action = action;
  return decision;
}

/** 1. ERR-7, ONB-3: only active sources are synced. */
function inactiveSource(step: DecideContext): SourceDecision {
  const decision = decisionOf(step, 'skip');
  decision.reason = 'inactive: only active sources are synced (ERR-7, ONB-3)';
  decision.ruleIds = ['ERR-7', 'ONB-3'];
  return decision;
}

/** 2. SCH-5: a sync of the source holds its lease; a running full sync rests the incrementals (FULL-1). */
function whileRunning(step: DecideContext, running: RunningSync): SourceDecision {
  const leaseText = reasonTime(msOf(running.leaseUntil), step.nowMs);
  const decision = decisionOf(step, 'wait');
  decision.dueAt = running.leaseUntil;
  if (running.kind === 'incremental') {
    let reason = `running incremental sync (lease until ${leaseText})`;
    const ruleIds = ['SCH-5'];
    if (step.scheduledFull && scheduledFullSyncMs(step.config, step.state, step.nowMs, step.settings).due) {
      reason += '; the full sync follows right after it (FULL-1)';
      ruleIds.push('FULL-1');
    }
    decision.reason = reason;
    decision.ruleIds = ruleIds;
    return decision;
  }
  decision.reason = `running ${running.kind === 'sliced' ? 'sliced ' : ''}full sync (lease until ${leaseText}); incremental syncs of this source rest meanwhile (FULL-1)`;
  decision.ruleIds = ['SCH-5', 'FULL-1'];
  return decision;
}

/** The note on a lease that ran out (its run died or overran), for the reasons of the later steps. */
function expiredLeaseText(state: SourceScheduleState, nowMs: number): string {
  return state.running === undefined
    ? ''
    : `; the lease of the ${state.running.kind} run started ${reasonTime(msOf(state.running.startedAt), nowMs)} expired`;
}

/** 3. ERR-4/ERR-5, SCH-7: a paused source waits, also with a manual request. */
function whileSpared(step: DecideContext, sparing: SparingVerdict): SourceDecision {
  const request = step.state.manualRequest;
  const decision = decisionOf(step, 'wait');
  decision.dueAt = sparing.until;
  decision.reason =
    request === undefined
      ? `${sparing.reason}; not synced while spared (SCH-7)`
      : `${sparing.reason}; the manual ${request.kind} request waits — sparing wins (SCH-7)`;
  decision.ruleIds = unique(sparing.ruleIds, ['SCH-7']);
  return decision;
}

/** 4. SCH-7: a manual request syncs now; a manual full sync as FULL-8 allows. */
function onManualRequest(
  step: DecideContext,
  request: ManualRequest,
  incrementalDue: boolean,
): SourceDecision {
  const requested = `manual ${request.kind} request of ${reasonTime(msOf(request.requestedAt), step.nowMs)}`;
  const decision = decisionOf(step, 'sync');
  if (request.kind === 'full') {
    const verdict = manualFullSyncMs(step.config, step.state, step.nowMs, step.settings);
    decision.kind = verdict.kind;
    decision.trigger = 'manual';
    decision.dueAt = request.requestedAt;
    decision.incrementalDue = incrementalDue;
    decision.reason = `${requested}: ${verdict.reason}${step.expiredLease}`;
    decision.ruleIds = unique(['SCH-7'], verdict.ruleIds);
    if (verdict.windowId !== undefined) decision.windowId = verdict.windowId;
    if (verdict.deadline !== undefined) decision.deadline = verdict.deadline;
    return decision;
  }
  decision.kind = 'incremental';
  decision.trigger = 'manual';
  decision.dueAt = request.requestedAt;
  decision.incrementalDue = incrementalDue;
  decision.reason = `${requested}: incremental now; robots.txt, host pace and full-sync windows still apply (SCH-7)${step.expiredLease}`;
  decision.ruleIds = ['SCH-7'];
  return decision;
}

/** 5. FULL-1/2/4/6/7: a scheduled full sync whose window is open. */
function scheduledFullSyncStart(
  step: DecideContext,
  full: Extract<FullSyncVerdict, { due: true }>,
  incrementalDue: boolean,
): SourceDecision {
  const decision = decisionOf(step, 'sync');
  decision.kind = full.kind;
  decision.trigger = 'schedule';
  decision.windowId = full.windowId;
  decision.dueAt = full.windowId;
  decision.incrementalDue = incrementalDue;
  decision.reason = `${full.reason}${step.expiredLease}`;
  decision.ruleIds = full.ruleIds;
  if (full.deadline !== undefined) decision.deadline = full.deadline;
  return decision;
}

/**
 * 6. SCH-1…SCH-4: the incremental cadence — sync when it is due, else wait until the earlier of the
 * next incremental and the next possible full sync.
 */
function byCadence(
  step: DecideContext,
  cadence: CadenceDue,
  full: FullSyncVerdict | undefined,
): SourceDecision {
  const cadenceAtMs = msOf(cadence.at);
  if (cadenceAtMs <= step.nowMs) {
    const decision = decisionOf(step, 'sync');
    decision.kind = 'incremental';
    decision.trigger = 'schedule';
    decision.dueAt = cadence.at;
    decision.cadenceAt = cadence.at;
    decision.incrementalDue = true;
    decision.reason = `${cadence.reason}${step.expiredLease}`;
    decision.ruleIds = cadence.ruleIds;
    return decision;
  }
  let dueAtMs = cadenceAtMs;
  let reason = cadence.reason;
  let ruleIds = unique(cadence.ruleIds);
  if (full !== undefined && !full.due) {
    dueAtMs = Math.min(dueAtMs, msOf(full.nextPossibleAt));
    reason += `; ${full.reason}`;
    ruleIds = unique(ruleIds, full.ruleIds);
  }
  const decision = decisionOf(step, 'wait');
  decision.dueAt = isoOfMs(dueAtMs);
  decision.cadenceAt = cadence.at;
  decision.incrementalDue = false;
  decision.reason = `${reason}${step.expiredLease}`;
  decision.ruleIds = ruleIds;
  return decision;
}

/**
 * The planner's decision for one source at `now` — pure: `(config, state, now) → decision + reason`.
 * Order of precedence, each step citing its rule:
 * 1. inactive → skip (ERR-7, ONB-3);
 * 2. a sync of the source holds its lease → wait (SCH-5; a running full sync rests the incrementals, FULL-1);
 * 3. paused → wait, also with a manual request (ERR-4/ERR-5, SCH-7);
 * 4. a manual request → sync now (SCH-7; a manual full sync as FULL-8 allows);
 * 5. a scheduled full sync whose window is open → sync full/sliced (FULL-1/2/4/6/7);
 * 6. the incremental cadence (SCH-1…SCH-4) → sync or wait until it is due.
 * Slots (SCH-5, FULL-3) are allocated afterwards across sources by `allocateSyncSlots`.
 */
export function decideSource(
  config: ScheduleSourceConfig,
  state: SourceScheduleState,
  now: Instant,
  options: DecideOptions = {},
): SourceDecision {
  const nowMs = msOf(now, 'now');
  const settings = options.settings ?? DEFAULT_SCHEDULE_SETTINGS;
  const step: DecideContext = {
    config,
    state,
    nowMs,
    settings,
    scheduledFull: options.scheduledFullSyncs ?? true,
    expiredLease: '',
  };
  if (!config.active) return inactiveSource(step);
  const running = runningAtMs(state, nowMs);
  if (running !== undefined) return whileRunning(step, running);
  step.expiredLease = expiredLeaseText(state, nowMs);

  const sparing = sparedUntilMs(state, nowMs);
  if (sparing.spared) return whileSpared(step, sparing);

  const cadence = nextSyncDueMs(config, state, nowMs, settings);
  const incrementalDue = msOf(cadence.at) <= nowMs;
  const request = state.manualRequest;
  if (request !== undefined) return onManualRequest(step, request, incrementalDue);

  const full = step.scheduledFull ? scheduledFullSyncMs(config, state, nowMs, settings) : undefined;
  if (full?.due) return scheduledFullSyncStart(step, full, incrementalDue);
  return byCadence(step, cadence, full);
}
