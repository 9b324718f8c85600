import type { SourceConfig } from '../config';
import {
  cadenceIntervalMinutes,
  dayOfIndex,
  localDayAt,
  msOf,
  type PeriodId,
  periodAtMs,
  QUIET_SYNCS_PER_DOUBLING,
  type ScheduleSettings,
  type SourceScheduleState,
} from '../schedule';
import { expectedRequests, type HostSourceInput, secondsPerRequestOf } from './model';

/**
 * SCH-3's ladder ends at its ceiling (120 min from 10: four doublings; a slower base, fewer); a base of
 * a minute would need seven — the bound only keeps a misconfigured one finite.
 */
const MAX_LADDER_STEPS = 8;

/** The part of a source's schedule state the host model reads (a warm planner keeps it per source). */
export type HostStateView = Pick<
  SourceScheduleState,
  'lastSyncPeriod' | 'quietStreak' | 'sessionDays' | 'recentRuns' | 'lastSyncEndedAt'
>;

/** Only the fields the host model reads, so a planner can keep them for every source cheaply. */
export function hostStateView(state: SourceScheduleState): HostStateView {
  const view: HostStateView = { quietStreak: state.quietStreak ?? 0, sessionDays: state.sessionDays ?? [] };
  if (state.lastSyncPeriod !== undefined) view.lastSyncPeriod = state.lastSyncPeriod;
  if (state.recentRuns !== undefined) view.recentRuns = state.recentRuns;
  if (state.lastSyncEndedAt !== undefined) view.lastSyncEndedAt = state.lastSyncEndedAt;
  return view;
}

/**
 * What one source asks of its host now: its cadence interval in the current period (SCH-1…SCH-3, with
 * the session-day cap, SCH-2 — unstretched) and its expected incremental requests (learnt; default at
 * first). A source without state counts with the period's base and the default.
 */
export function hostSourceInputOf(
  source: Pick<SourceConfig, 'sourceId' | 'host' | 'requestIntervalSeconds' | 'cadenceMinutes'>,
  state: HostStateView | undefined,
  now: string,
  settings: ScheduleSettings,
): HostSourceInput {
  const { period, today, tomorrow } = clockOf(now);
  const quiet = state?.lastSyncPeriod === period ? (state.quietStreak ?? 0) : 0;
  // SCH-2 as `isSessionCapped`, with the two local dates computed once per tick, not once per source.
  const days = state?.sessionDays ?? [];
  const sessionDay = days.length > 0 && (days.includes(today) || days.includes(tomorrow));
  const input: HostSourceInput = {
    sourceId: source.sourceId,
    host: source.host,
    requestIntervalSeconds: source.requestIntervalSeconds,
    intervalMinutes: cadenceIntervalMinutes(source, settings, {
      period,
      quietStreak: quiet,
      sessionCapped: sessionDay,
    }),
    expectedIncrementalRequests: expectedRequests(state, 'incremental'),
    sessionDay,
  };
  // RATE-9 / SCH-3: on a saturated host the model counts the streak in the source's own cycles.
  if (quiet > 0) {
    const minutes = [
      cadenceIntervalMinutes(source, settings, { period, quietStreak: 0, sessionCapped: sessionDay }),
    ];
    for (let d = 1; d <= MAX_LADDER_STEPS; d += 1) {
      const quietStreak = d * QUIET_SYNCS_PER_DOUBLING;
      const next = cadenceIntervalMinutes(source, settings, {
        period,
        quietStreak,
        sessionCapped: sessionDay,
      });
      if (next === minutes[minutes.length - 1]) break;
      minutes.push(next);
    }
    input.quietLadder = { quietStreak: quiet, minutes };
  }
  const perRequest = secondsPerRequestOf(state);
  if (perRequest !== undefined) input.secondsPerRequest = perRequest;
  return input;
}

/** The period and the local dates of today and tomorrow at `now` (Europe/Berlin), kept for the last `now`. */
let lastClock: { now: string; period: PeriodId; today: string; tomorrow: string } | undefined;

function clockOf(now: string): { period: PeriodId; today: string; tomorrow: string } {
  if (lastClock?.now === now) return lastClock;
  const ms = msOf(now);
  const day = localDayAt(ms);
  lastClock = { now, period: periodAtMs(ms), today: day.date, tomorrow: dayOfIndex(day.index + 1).date };
  return lastClock;
}
