import { nextSyncDueMs } from './cadence';
import { isoOfMs } from './calendar';
import { type FullSyncVerdict, manualFullSyncMs, scheduledFullSyncMs } from './full-sync';
import { DEFAULT_SCHEDULE_SETTINGS } from './settings';
import { sparedUntilMs } from './sparing';
import { runningAtMs } from './state';
import { msOf, reasonTime } from './time';
import type {
  DecideOptions,
  Instant,
  ScheduleSettings,
  ScheduleSourceConfig,
  SourceDecision,
  SourceScheduleState,
} from './types';

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
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
  settings: ScheduleSettings = DEFAULT_SCHEDULE_SETTINGS,
  options: DecideOptions = {},
): SourceDecision {
  const nowMs = msOf(now, 'now');
  const common: Pick<SourceDecision, 'sourceId' | 'lastFullSyncAt'> = { sourceId: config.sourceId };
  if (state.fullSyncLastCompletedAt !== undefined) common.lastFullSyncAt = state.fullSyncLastCompletedAt;

  if (!config.active) {
    return {
      ...common,
      action: 'skip',
      reason: 'inactive: only active sources are synced (ERR-7, ONB-3)',
      ruleIds: ['ERR-7', 'ONB-3'],
    };
  }

  const scheduledFull = options.scheduledFullSyncs ?? true;
  const running = runningAtMs(state, nowMs);
  if (running !== undefined) {
    const leaseText = reasonTime(msOf(running.leaseUntil), nowMs);
    if (running.kind === 'incremental') {
      let reason = `running incremental sync (lease until ${leaseText})`;
      const ruleIds = ['SCH-5'];
      if (scheduledFull && scheduledFullSyncMs(config, state, nowMs, settings).due) {
        reason += '; the full sync follows right after it (FULL-1)';
        ruleIds.push('FULL-1');
      }
      return { ...common, action: 'wait', dueAt: running.leaseUntil, reason, ruleIds };
    }
    return {
      ...common,
      action: 'wait',
      dueAt: running.leaseUntil,
      reason: `running ${running.kind === 'sliced' ? 'sliced ' : ''}full sync (lease until ${leaseText}); incremental syncs of this source rest meanwhile (FULL-1)`,
      ruleIds: ['SCH-5', 'FULL-1'],
    };
  }
  const expiredLease =
    state.running === undefined
      ? ''
      : `; the lease of the ${state.running.kind} run started ${reasonTime(msOf(state.running.startedAt), nowMs)} expired`;

  const sparing = sparedUntilMs(state, nowMs);
  if (sparing.spared) {
    const request = state.manualRequest;
    const ruleIds = [...sparing.ruleIds, 'SCH-7'];
    return {
      ...common,
      action: 'wait',
      dueAt: sparing.until,
      reason:
        request === undefined
          ? `${sparing.reason}; not synced while spared (SCH-7)`
          : `${sparing.reason}; the manual ${request.kind} request waits — sparing wins (SCH-7)`,
      ruleIds: unique(ruleIds),
    };
  }

  const cadence = nextSyncDueMs(config, state, nowMs, settings);
  const cadenceAtMs = msOf(cadence.at);
  const incrementalDue = cadenceAtMs <= nowMs;

  const request = state.manualRequest;
  if (request !== undefined) {
    const requested = `manual ${request.kind} request of ${reasonTime(msOf(request.requestedAt), nowMs)}`;
    if (request.kind === 'full') {
      const verdict = manualFullSyncMs(config, state, nowMs, settings);
      const decision: SourceDecision = {
        ...common,
        action: 'sync',
        kind: verdict.kind,
        trigger: 'manual',
        dueAt: request.requestedAt,
        incrementalDue,
        reason: `${requested}: ${verdict.reason}${expiredLease}`,
        ruleIds: unique(['SCH-7', ...verdict.ruleIds]),
      };
      if (verdict.windowId !== undefined) decision.windowId = verdict.windowId;
      if (verdict.deadline !== undefined) decision.deadline = verdict.deadline;
      return decision;
    }
    return {
      ...common,
      action: 'sync',
      kind: 'incremental',
      trigger: 'manual',
      dueAt: request.requestedAt,
      incrementalDue,
      reason: `${requested}: incremental now; robots.txt, host pace and full-sync windows still apply (SCH-7)${expiredLease}`,
      ruleIds: ['SCH-7'],
    };
  }

  let full: FullSyncVerdict | undefined;
  if (scheduledFull) {
    full = scheduledFullSyncMs(config, state, nowMs, settings);
    if (full.due) {
      const decision: SourceDecision = {
        ...common,
        action: 'sync',
        kind: full.kind,
        trigger: 'schedule',
        windowId: full.windowId,
        dueAt: full.windowId,
        incrementalDue,
        reason: `${full.reason}${expiredLease}`,
        ruleIds: full.ruleIds,
      };
      if (full.deadline !== undefined) decision.deadline = full.deadline;
      return decision;
    }
  }

  if (incrementalDue) {
    return {
      ...common,
      action: 'sync',
      kind: 'incremental',
      trigger: 'schedule',
      dueAt: cadence.at,
      cadenceAt: cadence.at,
      incrementalDue,
      reason: `${cadence.reason}${expiredLease}`,
      ruleIds: cadence.ruleIds,
    };
  }

  // Wait until the earlier of the next incremental and the next possible full sync.
  let dueAtMs = cadenceAtMs;
  let reason = cadence.reason;
  const ruleIds = [...cadence.ruleIds];
  if (full !== undefined && !full.due) {
    dueAtMs = Math.min(dueAtMs, msOf(full.nextPossibleAt));
    reason += `; ${full.reason}`;
    ruleIds.push(...full.ruleIds);
  }
  return {
    ...common,
    action: 'wait',
    dueAt: isoOfMs(dueAtMs),
    cadenceAt: cadence.at,
    incrementalDue: false,
    reason: `${reason}${expiredLease}`,
    ruleIds: unique(ruleIds),
  };
}
