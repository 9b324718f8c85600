import { type HostModel, hostModelOf, hostSourceInputOf, hostStateView } from '../../shared/hosts';
import {
  applyRunOutcome,
  isoOfMs,
  markSyncStarted,
  type ScheduleSourceConfig,
  type SourceDecision,
  type SourceScheduleState,
} from '../../shared/schedule';
import { iso, settings, source } from '../support/schedule-factories';

/**
 * The saturated host of the RATE-9 stretch tests: sixteen councils on one host that asks 10 s between
 * requests (RATE-2), each run 16 requests (160 s) — together they ask far more than the host serves.
 */
export const MIN = 60_000;
export const HOST = 'ris.hosting.example';
/** RATE-2: the councils' own interval, 10 s per request; a run of 16 requests takes 160 s. */
export const INTERVAL_S = 10;
export const REQUESTS = 16;

export interface Council {
  config: ScheduleSourceConfig & { host: string; requestIntervalSeconds: number };
  state: SourceScheduleState;
}

/**
 * Thursday 2026-12-03 from `from` (`YYYY-MM-DD HH:MM`): four councils with a session today (SCH-2: capped
 * at 10 min) and twelve quiet ones with SCH-3's `quietStreak`, none of which changes. Each last synced
 * during the night, one after another, and this night's full sync is done (FULL-2: once per window), so
 * the day is the cadence's alone.
 */
export function saturatedCouncils(from: string, quietStreak: number): Council[] {
  const fromMs = Date.parse(iso(from));
  const list: Council[] = [];
  const add = (id: string, sessionDays: string[], i: number) =>
    list.push({
      config: { ...source({ sourceId: id }), host: HOST, requestIntervalSeconds: INTERVAL_S },
      state: {
        schemaVersion: 1,
        quietStreak,
        failureStreak: 0,
        fullSyncInProgress: false,
        sessionDays,
        lastSyncKind: 'incremental',
        lastSyncPeriod: 'weekdayNight',
        lastSyncStartedAt: isoOfMs(fromMs - (i + 1) * 3 * MIN),
        lastSyncEndedAt: isoOfMs(fromMs - i * 3 * MIN),
        recentRuns: [{ kind: 'incremental', requests: REQUESTS, seconds: REQUESTS * INTERVAL_S }],
        fullSyncLastWindowId: iso('2026-12-03 03:00'),
        fullSyncLastCompleteWindowId: iso('2026-12-03 03:00'),
        fullSyncLastCompleteStartedAt: iso('2026-12-03 03:10'),
        fullSyncLastCompletedAt: iso('2026-12-03 03:30'),
      },
    });
  for (let i = 0; i < 4; i += 1) add(`session-${i}`, ['2026-12-03'], i);
  for (let i = 0; i < 12; i += 1) add(`quiet-${i}`, [], i + 4);
  return list;
}

/** The host's model from its councils' states, as the planner and the lane compute it. */
export function modelOf(members: readonly Council[], nowIso: string): HostModel {
  const inputs = members.map((c) => hostSourceInputOf(c.config, hostStateView(c.state), nowIso, settings));
  return hostModelOf(HOST, inputs, {}, Date.parse(nowIso));
}

/**
 * The lane starts `picked` for council `c` at `startMs` and the run ends unchanged and complete after its
 * REQUESTS at INTERVAL_S (the host's pace): the council's state moves on as the sync function's release
 * would move it. Returns the run's end (ms).
 */
export function runUnchanged(c: Council, picked: SourceDecision, startMs: number): number {
  const startIso = isoOfMs(startMs);
  const endMs = startMs + REQUESTS * INTERVAL_S * 1000;
  const endIso = isoOfMs(endMs);
  c.state = applyRunOutcome(
    markSyncStarted(c.state, picked, startIso),
    {
      kind: 'incremental',
      startedAt: startIso,
      endedAt: endIso,
      changed: false,
      complete: true,
      failed: false,
      failures: [],
      requests: REQUESTS,
    },
    endIso,
    { config: c.config, settings },
  );
  return endMs;
}
