import type { SourceConfig } from '../config';
import {
  cadenceIntervalMinutes,
  dayOfIndex,
  localDayAt,
  msOf,
  type PeriodId,
  periodAtMs,
  type ScheduleSettings,
  type SourceScheduleState,
} from '../schedule';
import { expectedRequests, type HostSourceInput, secondsPerRequestOf } from './model';

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
    intervalMinutes: cadenceIntervalMinutes(source, settings, period, quiet, sessionDay),
    expectedIncrementalRequests: expectedRequests(state, 'incremental'),
    sessionDay,
  };
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
