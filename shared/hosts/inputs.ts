import type { SourceConfig } from '../config';
import {
  cadenceIntervalMinutes,
  isSessionCapped,
  periodAt,
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
  const period = periodAt(now);
  const quiet = state?.lastSyncPeriod === period ? (state.quietStreak ?? 0) : 0;
  const sessionDay = isSessionCapped(now, state?.sessionDays ?? []);
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
