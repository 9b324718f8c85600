import {
  cadenceIntervalMinutes,
  msOf,
  periodAtMs,
  periodBoundariesMs,
  type ScheduleSettings,
  type ScheduleSourceConfig,
  type SourceScheduleState,
  sessionCappedAtMs,
} from '../schedule';
import { ownQuietStreak } from './model';

/**
 * RATE-9's yardstick in the scheduler (issue 27), pure: how many turns of its own cadence a source has
 * waited. RATE-9 slows every source of a saturated host by the same factor *in force*; a source's own
 * cadence asks at a rate that changes over the day — SCH-1's periods (07:00, 19:00, the weekend), SCH-2's
 * session-day caps (from midnight), SCH-3's doubling — so its turns waited are counted at the rate its
 * cadence asks in each stretch of the wait, not at the one interval its last sync ran with.
 *
 * Counted at the last sync's interval only (before), a quiet council whose last sync was at 05:00 on a
 * 120-minute night interval had waited 1 turn at 07:00 and 1.5 at 08:00, while alone it syncs at 07:00,
 * 07:10, 07:20 …: on a host stretched 5× it was due only at ≈ 13:30 and the session-capped councils took
 * its morning; in the evening a council leaving the day at a 20-minute interval went on counting 20-minute
 * turns through the night's 60. Both shifted service between the hours of the host's different factors
 * (fleet bench, a week at 1,000 sources: the Monday + Tuesday session councils 1.31–1.35 of their share
 * at the host's hourly factor, see docs/scale.md).
 */

/** What a source's own cadence needs besides its state: its per-period settings and the host's factor. */
export interface OwnCadence {
  config: Pick<ScheduleSourceConfig, 'cadenceMinutes'>;
  settings: ScheduleSettings;
  /** The host's factor (SCH-3's streak counted in the source's own cycles, `ownQuietStreak`). */
  stretch: number;
}

/** The schedule fields a source's turns are counted from (its last sync, SCH-2's days, SCH-3's streak). */
export type TurnState = Pick<
  SourceScheduleState,
  'lastSyncKind' | 'lastSyncStartedAt' | 'lastSyncEndedAt' | 'lastSyncPeriod'
> &
  Partial<Pick<SourceScheduleState, 'quietStreak' | 'sessionDays'>>;

/**
 * The service a full sync took that is not charged to the source's incremental turns (RATE-9's fair
 * share): its duration, when the source's last sync was a full sync; 0 otherwise. SCH-4 measures the
 * next incremental from the end of the full sync, so without this credit the source queued behind
 * sources that had had their incremental turns meanwhile.
 */
export function fullSyncCreditMs(
  state: Pick<SourceScheduleState, 'lastSyncKind' | 'lastSyncStartedAt' | 'lastSyncEndedAt'>,
): number {
  if (state.lastSyncKind === undefined || state.lastSyncKind === 'incremental') return 0;
  if (state.lastSyncStartedAt === undefined || state.lastSyncEndedAt === undefined) return 0;
  return Math.max(0, msOf(state.lastSyncEndedAt) - msOf(state.lastSyncStartedAt));
}

/** Where the source's current turn began: the last sync's start (after a full sync: its end). */
export function turnBeganMs(state: TurnState): number | undefined {
  const { lastSyncStartedAt, lastSyncEndedAt } = state;
  if (lastSyncStartedAt === undefined)
    return lastSyncEndedAt === undefined ? undefined : msOf(lastSyncEndedAt);
  return msOf(lastSyncStartedAt) + fullSyncCreditMs(state);
}

const MINUTE_MS = 60_000;

/**
 * The rate the source's own cadence asks at `ms` after `cadenceAtMs`: one turn per (the interval of the
 * period at `ms` — SCH-3's streak only in the period of the last sync, as `nextSyncDue` counts it; SCH-2's
 * cap on a capped day — plus the run, as the first turn's cycle counts it).
 */
function cycleMsAt(ms: number, state: TurnState, own: OwnCadence, runMs: number): number {
  const period = periodAtMs(ms);
  const lastPeriod = state.lastSyncPeriod ?? periodAtMs(turnBeganMs(state) ?? ms);
  const streak = period === lastPeriod ? ownQuietStreak(state.quietStreak ?? 0, own.stretch) : 0;
  const capped = sessionCappedAtMs(ms, state.sessionDays ?? []);
  return (
    cadenceIntervalMinutes(own.config, own.settings, { period, quietStreak: streak, sessionCapped: capped }) *
      MINUTE_MS +
    runMs
  );
}

/**
 * Turns of its own cadence the source has waited at `nowMs`: up to its cadence instant (`cadenceAtMs`,
 * `decideSource`'s — the interval from its last sync, or earlier where a period with a shorter interval
 * begins) the share of that first cycle, 1 at the cadence; after it one turn per cycle of the period in
 * force, summed over the periods passed (boundaries at 00:00, 07:00 and 19:00). Infinity for a source
 * never synced; undefined without a last sync's start or end.
 */
export function ownTurnsWaited(
  state: TurnState,
  cadenceAtMs: number,
  own: OwnCadence,
  nowMs: number,
): number | undefined {
  const began = turnBeganMs(state);
  if (began === undefined) return Number.POSITIVE_INFINITY;
  const first = cadenceAtMs - began;
  if (!(first > 0)) return Number.POSITIVE_INFINITY;
  if (nowMs <= cadenceAtMs) return (nowMs - began) / first;
  const runMs = runOf(state);
  let turns = 1;
  let from = cadenceAtMs;
  for (const boundary of periodBoundariesMs(cadenceAtMs, nowMs)) {
    turns += (boundary - from) / cycleMsAt(from, state, own, runMs);
    from = boundary;
  }
  return turns + (nowMs - from) / cycleMsAt(from, state, own, runMs);
}

/**
 * The instant the source will have waited `turns` turns of its own cadence (`ownTurnsWaited`'s inverse;
 * `turns` ≥ 1: never before its cadence, SCH-1…SCH-4). RATE-9's stretched due time: `turns` = the
 * host's factor × `STRETCH_DUE_SHARE`.
 */
export function ownTurnsDueMs(state: TurnState, cadenceAtMs: number, own: OwnCadence, turns: number): number {
  const runMs = runOf(state);
  let left = turns - 1;
  let from = cadenceAtMs;
  // Each period is at most a day long: look a day ahead at a time.
  for (;;) {
    const horizon = from + DAY_MS;
    for (const boundary of [...periodBoundariesMs(from, horizon), horizon]) {
      const cycle = cycleMsAt(from, state, own, runMs);
      const span = (boundary - from) / cycle;
      if (span >= left) return from + left * cycle;
      left -= span;
      from = boundary;
    }
  }
}

const DAY_MS = 24 * 60 * MINUTE_MS;

/** The last incremental run's duration (a turn's cycle counts it, SCH-4); 0 after a full sync's credit. */
function runOf(state: TurnState): number {
  if (state.lastSyncStartedAt === undefined || state.lastSyncEndedAt === undefined) return 0;
  if (fullSyncCreditMs(state) > 0) return 0;
  return Math.max(0, msOf(state.lastSyncEndedAt) - msOf(state.lastSyncStartedAt));
}
