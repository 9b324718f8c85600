import {
  cadenceIntervalMinutes,
  msOf,
  nextSyncDueMs,
  periodAtMs,
  periodBoundariesMs,
  QUIET_SYNCS_PER_DOUBLING,
  type ScheduleSettings,
  type ScheduleSourceConfig,
  type SourceDecision,
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
 * Where the walk over a source's own cadence stands after its cadence instant: the instant, the
 * period in force, SCH-3's streak there as its own cadence would count it, and whether a period has
 * begun since its last sync (`fresh`: the streak then starts afresh and advances by one per turn).
 */
interface TurnCursor {
  ms: number;
  period: ReturnType<typeof periodAtMs>;
  /** Turns counted in a fresh period (continuous; its whole part is SCH-3's streak). */
  streak: number;
  fresh: boolean;
}

/**
 * At the cadence instant: still in the period of the last sync, SCH-3's streak is the source's own
 * (`ownQuietStreak`) and stays so for the whole wait — within that period it grows at each decision,
 * by the factor's many own syncs per stretched one, and a change (SCH-3) resets it, so counting it on
 * within the wait would assume no change came; in a period begun since, the streak is that of its
 * first sync there (1: state.ts starts a new period's streak afresh).
 */
function cursorAtCadence(state: TurnState, own: OwnCadence, cadenceAtMs: number): TurnCursor {
  const period = periodAtMs(cadenceAtMs);
  const lastPeriod = state.lastSyncPeriod ?? periodAtMs(turnBeganMs(state) ?? cadenceAtMs);
  return period === lastPeriod
    ? { ms: cadenceAtMs, period, streak: ownQuietStreak(state.quietStreak ?? 0, own.stretch), fresh: false }
    : { ms: cadenceAtMs, period, streak: 1, fresh: true };
}

/**
 * One stretch of the walk at one rate: the cycle in force at the cursor (its period's interval at
 * SCH-3's streak there, SCH-2's cap on a capped day, plus the run) and where that rate ends — at the
 * next period boundary (00:00, 07:00, 19:00) or where SCH-3 doubles the interval (every third quiet
 * turn, until the ceiling or a cap holds it).
 */
function pieceAt(
  cursor: TurnCursor,
  state: TurnState,
  own: OwnCadence,
  runMs: number,
): { cycleMs: number; doublingAt: number } {
  const capped = sessionCappedAtMs(cursor.ms, state.sessionDays ?? []);
  const intervalAt = (streak: number) =>
    cadenceIntervalMinutes(own.config, own.settings, {
      period: cursor.period,
      quietStreak: streak,
      sessionCapped: capped,
    });
  const streak = Math.floor(cursor.streak);
  const interval = intervalAt(streak);
  const doublingAt = (Math.floor(streak / QUIET_SYNCS_PER_DOUBLING) + 1) * QUIET_SYNCS_PER_DOUBLING;
  const grows = cursor.fresh && intervalAt(doublingAt) !== interval;
  return {
    cycleMs: interval * MINUTE_MS + runMs,
    // In the last sync's period, or where the interval no longer grows (the ceiling, SCH-2's cap),
    // the streak changes nothing within the wait.
    doublingAt: grows ? doublingAt : Number.POSITIVE_INFINITY,
  };
}

/** SCH-1's boundaries (00:00, 07:00, 19:00) from an instant on, read a day at a time. */
class PeriodBoundaries {
  private list: number[] = [];
  private next = 0;
  private readTo: number;

  constructor(private readonly fromMs: number) {
    this.readTo = fromMs;
  }

  /** The first boundary after `ms` (≥ the instant it was built with). */
  after(ms: number): number {
    for (;;) {
      while (this.next < this.list.length) {
        const b = this.list[this.next] as number;
        if (b > ms) return b;
        this.next += 1;
      }
      // Boundaries in (readTo − 1, readTo + a day): the first read excludes the instant itself.
      const after = this.readTo === this.fromMs ? this.readTo : this.readTo - 1;
      this.list = periodBoundariesMs(after, this.readTo + DAY_MS);
      this.next = 0;
      this.readTo += DAY_MS;
    }
  }
}

/**
 * Walks the source's own cadence from its cadence instant (1 turn waited there) until `untilMs` or
 * until `turns` turns are waited, whichever comes first: the turns waited and the instant reached.
 * Each turn is counted at the cycle its cadence alone would run then: the period in force (SCH-1),
 * SCH-2's cap of that day, and SCH-3's streak — its own in the period of its last sync; in a period
 * begun since, afresh and advancing by one per turn (doubling every third), as a quiet source's cadence
 * alone runs there (RATE-9's yardstick).
 */
function walkTurns(
  state: TurnState,
  cadenceAtMs: number,
  own: OwnCadence,
  limit: { untilMs: number; turns: number },
): { turns: number; ms: number } {
  const runMs = runOf(state);
  const cursor = cursorAtCadence(state, own, cadenceAtMs);
  const boundaries = new PeriodBoundaries(cadenceAtMs);
  let turns = 1;
  for (;;) {
    const piece = pieceAt(cursor, state, own, runMs);
    const boundaryMs = boundaries.after(cursor.ms);
    const turnsToBoundary = (boundaryMs - cursor.ms) / piece.cycleMs;
    const turnsToLimit = Math.min(limit.turns - turns, (limit.untilMs - cursor.ms) / piece.cycleMs);
    const step = Math.min(turnsToBoundary, piece.doublingAt - cursor.streak);
    if (turnsToLimit <= step) {
      const ms =
        limit.turns - turns <= (limit.untilMs - cursor.ms) / piece.cycleMs
          ? cursor.ms + (limit.turns - turns) * piece.cycleMs
          : limit.untilMs;
      return { turns: turns + Math.max(0, turnsToLimit), ms };
    }
    turns += step;
    if (step === turnsToBoundary) {
      cursor.ms = boundaryMs;
      const period = periodAtMs(cursor.ms);
      // A new period starts SCH-3's streak afresh; 00:00 inside a night only changes SCH-2's cap.
      if (period !== cursor.period) {
        cursor.streak = 1;
        cursor.fresh = true;
      } else if (cursor.fresh) cursor.streak += step;
      cursor.period = period;
    } else {
      cursor.ms += step * piece.cycleMs;
      cursor.streak = piece.doublingAt;
    }
  }
}

/**
 * Turns of its own cadence the source has waited at `nowMs`: up to its cadence instant (`cadenceAtMs`,
 * `decideSource`'s — the interval from its last sync, or earlier where a period with a shorter interval
 * begins) the share of that first cycle, 1 at the cadence; after it one turn per cycle its cadence alone
 * would run then (`walkTurns`: SCH-1's period, SCH-2's cap, SCH-3's streak — in a period begun since
 * the last sync afresh and advancing per turn). Infinity for a source never synced; undefined without a
 * last sync's start or end.
 *
 * Why SCH-3 advances in a period begun since (issue 27, the 10,000-source week): alone, a quiet
 * council's night runs its first syncs an hour apart, then two hours (SCH-3 doubles after the third).
 * Counted at the night's fresh 60 min all night, a council whose last sync was in the day waited up to
 * twice the turns its cadence asks, and on a hosting host whose nights are stretched far (most of the
 * window is the full syncs' share) it took the turns of the councils with a session the next day (10
 * min all night, SCH-2) — on ris7 the most served council got 35 night syncs of a fair 30.5, the least
 * 54 of 60.5 (docs/scale.md).
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
  return walkTurns(state, cadenceAtMs, own, { untilMs: nowMs, turns: Number.POSITIVE_INFINITY }).turns;
}

/**
 * The instant the source will have waited `turns` turns of its own cadence (`ownTurnsWaited`'s inverse;
 * `turns` ≥ 1: never before its cadence, SCH-1…SCH-4). RATE-9's stretched due time: `turns` = the
 * host's factor × `STRETCH_DUE_SHARE`.
 */
export function ownTurnsDueMs(state: TurnState, cadenceAtMs: number, own: OwnCadence, turns: number): number {
  if (turns <= 1) return cadenceAtMs;
  return walkTurns(state, cadenceAtMs, own, { untilMs: Number.POSITIVE_INFINITY, turns }).ms;
}

const DAY_MS = 24 * 60 * MINUTE_MS;

/** The last incremental run's duration (a turn's cycle counts it, SCH-4); 0 after a full sync's credit. */
function runOf(state: TurnState): number {
  if (state.lastSyncStartedAt === undefined || state.lastSyncEndedAt === undefined) return 0;
  if (fullSyncCreditMs(state) > 0) return 0;
  return Math.max(0, msOf(state.lastSyncEndedAt) - msOf(state.lastSyncStartedAt));
}

/**
 * FULL-3: the incremental cadence instant of a decision, ms — its `cadenceAt`; for a full-sync decision,
 * which `decideSource` gives none, the cadence its source keeps while the full sync waits (SCH-1…SCH-4
 * on its own cycles, SCH-3's streak as `ownQuietStreak` counts it, as `decideOnHost` decides).
 */
export function cadenceAtMsOf(
  decision: Pick<SourceDecision, 'cadenceAt'>,
  state: TurnState,
  own: OwnCadence,
  nowMs: number,
): number {
  if (decision.cadenceAt !== undefined) return msOf(decision.cadenceAt);
  const cadenceState = {
    ...state,
    quietStreak: ownQuietStreak(state.quietStreak ?? 0, own.stretch),
    sessionDays: state.sessionDays ?? [],
  };
  return msOf(nextSyncDueMs(own.config, cadenceState, nowMs, own.settings).at);
}
