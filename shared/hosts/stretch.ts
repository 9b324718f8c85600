import {
  decideSource,
  fullSyncWindowAt,
  isoOfMs,
  msOf,
  nextFullSyncWindow,
  periodBoundariesMs,
  type ScheduleSettings,
  type ScheduleSourceConfig,
  type SourceDecision,
  type SourceScheduleState,
} from '../schedule';
import { MAX_SATURATED_FULL_SYNC_SHARE, STRETCH_DUE_SHARE } from './constants';
import { type HostModel, ownQuietStreak, round, saturationText } from './model';
import { cadenceAtMsOf, type OwnCadence, ownTurnsDueMs, type TurnState } from './turns';

type StretchModel = Pick<HostModel, 'host' | 'demand' | 'capacity' | 'stretch' | 'fullSyncShare'>;

/**
 * RATE-9, pure: a source's decision on its host — `decideSource` (SCH-1…SCH-4, FULL, ERR) on the
 * source's own cycles (`ownCycleState`: SCH-3's quiet streak counted as its unstretched self would have
 * counted it), then `stretchDecision`. On a host with capacity (stretch 1) exactly `decideSource`.
 * `decided` is `decideSource` of the same state and instant when the caller has it (reused when the
 * streak is not rescaled).
 */
export function decideOnHost(input: {
  source: ScheduleSourceConfig;
  state: SourceScheduleState;
  now: string;
  settings: ScheduleSettings;
  model: StretchModel | undefined;
  decided?: SourceDecision;
}): SourceDecision {
  const { source, state, now, settings } = input;
  const model = factorInForceAt(input.model, msOf(now), settings);
  const own = ownCycleState(state, model?.stretch ?? 1);
  const decision =
    own === state && input.decided !== undefined
      ? input.decided
      : decideSource(source, own, now, { settings });
  return stretchDecision(decision, { state, model, now, own: { config: source, settings } });
}

/**
 * SCH-3 on a host stretched by `stretch` (RATE-9): the state with its quiet streak counted in the
 * source's own cycles (`ownQuietStreak`); the same object when nothing changes (stretch 1, no streak).
 */
export function ownCycleState<S extends Pick<SourceScheduleState, 'quietStreak'>>(
  state: S,
  stretch: number,
): S {
  const quiet = state.quietStreak ?? 0;
  const own = ownQuietStreak(quiet, stretch);
  return own === quiet ? state : { ...state, quietStreak: own };
}

/**
 * RATE-9: the instant a source on a host stretched by `stretch` is expected due again, ms — from the end
 * of its last sync (SCH-4), its own interval now × the stretch × `STRETCH_DUE_SHARE`, never before its
 * own cadence. The lane pool's hint (`lanePoolOf`, when to read a source's state); the decision itself
 * counts the turns of the source's own cadence across periods (`stretchDecision`, `ownTurnsDueMs`).
 */
export function stretchedDueMs(endedMs: number, cadenceMs: number, stretch: number): number {
  return endedMs + Math.max(0, cadenceMs - endedMs) * dueFactorOf(stretch);
}

/** RATE-9: the turns of its own cadence a source waits on a host stretched by `stretch` (≥ 1). */
export function dueFactorOf(stretch: number): number {
  return stretch <= 1 ? 1 : Math.max(1, stretch * STRETCH_DUE_SHARE);
}

/**
 * RATE-9, pure: on a saturated host every source's incremental interval is stretched by the host's one
 * factor (demand / capacity), so the host's pace serves them all and none is starved. A source is due
 * again a little before its stretched time (`STRETCH_DUE_SHARE`): the host's lane then serves the due
 * ones by the turns of their own cadence waited (`nextLaneRun`), which keeps each at the one factor.
 * The turns are counted at the rate the source's own cadence asks in each period the wait spans
 * (`ownTurnsDueMs`, ./turns.ts): a quiet council last synced on the night's 120 min is due by the day's
 * 10 from 07:00, as alone — not at the night's interval × the factor, hours into the morning.
 *
 * Reading of "session days first (SCH-2)": the factor is the same for every source on the host, session
 * days included — a session-day cap of 10 min becomes 10 × factor. Only when the host has capacity
 * (factor 1) does the cap hold as published. What session days get first is the host: among runs due on
 * one host, a session-day run starts before the others (`admitRuns`).
 *
 * Only scheduled incremental syncs are stretched: manual requests (SCH-7) and full syncs (FULL-3 per host,
 * `planHostFullSyncs`) are paced by admission and the window budget instead. `decision` should be
 * decided on the source's own cycles (`decideOnHost`).
 */
export function stretchDecision(
  decision: SourceDecision,
  on: {
    /** The source's stored schedule state (its last sync; SCH-3's streak as stored). */
    state: TurnState;
    model: StretchModel | undefined;
    now: string;
    /** The source's per-period cadence and the settings (SCH-1): its turns are counted per period. */
    own: Omit<OwnCadence, 'stretch'>;
  },
): SourceDecision {
  const { state, model, now } = on;
  if (model === undefined || model.stretch <= 1 || decision.action === 'skip') return decision;
  const sentence = saturationText(model);
  const annotated: SourceDecision = {
    ...decision,
    reason: `${decision.reason}; ${sentence}`,
    ruleIds: unique([...decision.ruleIds, 'RATE-9']),
  };
  // Only the scheduled incremental cadence is stretched: due when the source has waited the factor's
  // turns of its own cadence, each counted at the interval of the period it falls in (`ownTurnsDueMs`).
  const cadenceAt = decision.cadenceAt;
  if (decision.action === 'sync' && (decision.kind ?? 'incremental') !== 'incremental')
    return withStretchedFallback(annotated, { ...on, stretch: model.stretch });
  const scheduled =
    decision.action === 'wait' || (decision.kind === 'incremental' && decision.trigger === 'schedule');
  if (!scheduled || cadenceAt === undefined || state.lastSyncEndedAt === undefined) return annotated;
  const cadenceMs = msOf(cadenceAt);
  const own: OwnCadence = { config: on.own.config, settings: on.own.settings, stretch: model.stretch };
  const stretchedMs = ownTurnsDueMs(state, cadenceMs, own, dueFactorOf(model.stretch));
  if (stretchedMs <= msOf(now)) return annotated;
  // Whole milliseconds, as `new Date(ms)` keeps them.
  const at = isoOfMs(Math.trunc(stretchedMs));
  // Counted at today's factor only until the factor may change: looked at again then (`factorMayChangeMs`).
  const changesMs = factorMayChangeMs(msOf(now), on.own.settings);
  const recheck = changesMs < stretchedMs ? isoOfMs(changesMs) : undefined;
  const next = `${sentence}: next incremental at ${at} (${round(dueFactorOf(model.stretch))} turns of its own cadence, then in the host's fair order; the cadence alone: ${cadenceAt})${recheck === undefined ? '' : `; looked at again at ${recheck}, where the host's factor may change`}`;
  const dueAt = recheck ?? at;
  if (decision.action === 'wait') {
    // A wait for something earlier than the cadence (a full-sync window opening) keeps its time.
    const waitsForCadence = decision.dueAt === undefined || msOf(decision.dueAt) >= cadenceMs;
    return {
      ...annotated,
      ...(waitsForCadence ? { dueAt } : {}),
      reason: waitsForCadence ? next : `${decision.reason}; ${next}`,
    };
  }
  return { ...annotated, action: 'wait', dueAt, incrementalDue: false, reason: next };
}

/**
 * RATE-9, pure: the first instant after `nowMs` at which a host's factor may change by the clock alone —
 * SCH-1's period boundaries (00:00, 07:00, 19:00: every source's interval, SCH-2's caps from midnight)
 * and the end of the default full-sync window (FULL-3: the full syncs' share leaves a saturated host's
 * factor, `windowStretchOf`). A source stretched past it is looked at again there: its stretched turn
 * counted at today's factor no longer holds once the factor falls. Stored at the old factor instead,
 * the planner did not read the source until that turn (it reads due items only), and the host idled
 * with capacity to spare while its councils waited — fleet bench, a week at 1,000 sources: Saturday
 * 00:00, the Friday night's factor 2.8 → the weekend's 1, the larger hosting centre 7–9 % busy from
 * 00:30 to 02:00 while councils last synced at 21:47 waited until 02:15 (SourceStarved 2.5 h).
 */
export function factorMayChangeMs(nowMs: number, settings: ScheduleSettings): number {
  const boundary = periodBoundariesMs(nowMs, nowMs + DAY_MS)[0] ?? Number.POSITIVE_INFINITY;
  const nowIso = isoOfMs(nowMs);
  const window =
    fullSyncWindowAt(DEFAULT_WINDOW, settings, nowIso) ??
    nextFullSyncWindow(DEFAULT_WINDOW, settings, nowIso);
  const windowEndMs = msOf(window.end);
  return Math.min(boundary, windowEndMs > nowMs ? windowEndMs : Number.POSITIVE_INFINITY);
}

/**
 * RATE-9, pure: the last instant at or before `nowMs` at which a host's factor may have changed by the
 * clock (`factorMayChangeMs`' counterpart) — from there on the factor in force is the one the host has
 * now. What a source waited before it was waited at another factor.
 */
export function factorInForceSinceMs(nowMs: number, settings: ScheduleSettings): number {
  const boundaries = periodBoundariesMs(nowMs - DAY_MS, nowMs + 1);
  let since = boundaries[boundaries.length - 1] ?? Number.NEGATIVE_INFINITY;
  // The default window's end before now: that of the window opened last before now, or of the one before.
  for (let from = nowMs - 2 * DAY_MS; ; ) {
    const window = nextFullSyncWindow(DEFAULT_WINDOW, settings, isoOfMs(from));
    const startMs = msOf(window.start);
    if (startMs > nowMs) break;
    const endMs = msOf(window.end);
    if (endMs <= nowMs) since = Math.max(since, endMs);
    from = startMs;
  }
  return since;
}

/**
 * RATE-9 with FULL-3, pure: the host's model with the factor in force at `nowMs` — a full-sync share
 * (`withFullSyncShare`, stretch ÷ (1 − share)) counts only while the default window it was planned in
 * is open; after it the host's bare stretch. The share reaches a decision from a plan made in the window:
 * a lane carries its plan's factor for up to `LANE_MAX_LIFE_MS`, and the planner's last plan may still
 * hold it at the window's end. Decided so after 08:00, the source's stretched turn was counted at the
 * window's factor until the next clock change (19:00, `factorMayChangeMs`): fleet bench, a week at
 * 1,000 sources, councils of ris1 synced 07:20–08:20 decided at × 7.6 (share 30 %) instead of the day's
 * × 5.3, stored until ≈ 12:09 and then 130–155 min past their turn at the day's factor (SourceStarved
 * ≈ 1.5 h a week on weekdays 11–13).
 */
export function factorInForceAt<M extends Pick<HostModel, 'stretch' | 'fullSyncShare'>>(
  model: M | undefined,
  nowMs: number,
  settings: ScheduleSettings,
): M | undefined {
  const share = model?.fullSyncShare;
  if (model === undefined || share === undefined) return model;
  if (fullSyncWindowAt(DEFAULT_WINDOW, settings, isoOfMs(nowMs)) !== undefined) return model;
  const { fullSyncShare: _share, ...rest } = model;
  const bare = model.stretch * (1 - Math.min(Math.max(share, 0), MAX_SATURATED_FULL_SYNC_SHARE));
  return { ...rest, stretch: Math.max(1, bare) } as M;
}

const DAY_MS = 24 * 60 * 60_000;
/** A source without an own window: the default window the host's full-sync share is planned in. */
const DEFAULT_WINDOW = { fullSyncMinDays: 0, fullSyncSliced: false } as const;

/**
 * RATE-9 read with FULL-3: a full sync that waits (for a full lane's turn, tonight's budget or a slot)
 * keeps the incremental cadence meanwhile (`incrementalDue` → `asIncrementalFallback`) — at the host's
 * factor like every incremental on the host, not at its own unstretched cadence, which would serve a
 * council whose full sync waits ahead of the others all night. Carries its cadence instant (the lane's
 * fair order counts its turns from it).
 */
function withStretchedFallback(
  decision: SourceDecision,
  on: { state: TurnState; now: string; own: Omit<OwnCadence, 'stretch'>; stretch: number },
): SourceDecision {
  if (on.state.lastSyncEndedAt === undefined) return decision;
  const nowMs = msOf(on.now);
  const cadenceMs = cadenceAtMsOf(decision, on.state, { ...on.own, stretch: on.stretch }, nowMs);
  const dueMs = fallbackDueMs({ cadenceAt: isoOfMs(cadenceMs) }, on);
  const incrementalDue = decision.incrementalDue === true && dueMs !== undefined && dueMs <= nowMs;
  return { ...decision, cadenceAt: isoOfMs(cadenceMs), incrementalDue };
}

/**
 * When a full-sync decision's fallback incremental is due on a host stretched by `stretch` (RATE-9,
 * `ownTurnsDueMs` from its cadence instant); its cadence instant at stretch 1; undefined without a
 * cadence instant (`withStretchedFallback` sets it on a saturated host) or a last sync.
 */
export function fallbackDueMs(
  decision: Pick<SourceDecision, 'cadenceAt'>,
  on: { state: TurnState; own: Omit<OwnCadence, 'stretch'>; stretch: number },
): number | undefined {
  if (decision.cadenceAt === undefined || on.state.lastSyncEndedAt === undefined) return undefined;
  const cadenceMs = msOf(decision.cadenceAt);
  if (on.stretch <= 1) return cadenceMs;
  const own: OwnCadence = { config: on.own.config, settings: on.own.settings, stretch: on.stretch };
  return ownTurnsDueMs(on.state, cadenceMs, own, dueFactorOf(on.stretch));
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
