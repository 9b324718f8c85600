import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/random';
import {
  applyRunOutcome,
  decideSource,
  fullSyncWindowAt,
  isSessionCapped,
  markSyncStarted,
  nextFullSyncWindow,
  nextSyncDue,
  periodAt,
  type RunOutcome,
  resolveScheduleSettings,
  type ScheduleSettings,
  type ScheduleSourceConfig,
  type SourceScheduleState,
  toIso,
} from '../../shared/schedule';
import * as old from './luxon-reference';

/**
 * Issue 27: the schedule's decisions run on epoch milliseconds and a per-local-date calendar instead of
 * luxon DateTimes. They must decide exactly as before — same action, times, reasons and rule ids — so
 * the luxon computation is kept verbatim in ./luxon-reference/ and both are asked the same questions:
 * thousands of seeded random states and instants, a third of them around the two DST changes of
 * Europe/Berlin (2026-03-29 and 2026-10-25), own windows inside the DST hour and full-sync hours 0–23.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;
const DST_CHANGES = [Date.UTC(2026, 2, 29, 1), Date.UTC(2026, 9, 25, 1), Date.UTC(2027, 2, 28, 1)];
const SPAN = [Date.UTC(2025, 11, 1), Date.UTC(2027, 3, 1)] as const;
const WINDOWS = [
  undefined,
  undefined,
  { start: '22:00', end: '04:00' },
  { start: '02:30', end: '03:30' },
  { start: '01:00', end: '02:15' },
  { start: '00:00', end: '06:00' },
  { start: '19:30', end: '19:00' },
];

type Random = () => number;

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

/** An instant: anywhere in the span, near a DST change, or on a period/window edge (± a few seconds). */
function instant(random: Random): number {
  const u = random();
  if (u < 0.35) return pick(random, DST_CHANGES) + Math.round((random() - 0.5) * 4 * DAY);
  const ms = SPAN[0] + Math.floor(random() * (SPAN[1] - SPAN[0]));
  if (u < 0.6) {
    // On a local hour edge of the day (00, 02, 03, 07, 08, 19) in CET or CEST, give or take seconds.
    const day = Math.floor(ms / DAY) * DAY;
    const hour = pick(random, [0, 2, 3, 7, 8, 19]) - pick(random, [1, 2]);
    return day + hour * HOUR + pick(random, [0, 0, 0, 1, -1, 999, -30_000]);
  }
  return ms;
}

/** A stored form of an instant: mostly the Berlin ISO the code writes, sometimes UTC or with ms. */
function stored(random: Random, ms: number): string {
  const u = random();
  if (u < 0.15) return new Date(ms).toISOString();
  if (u < 0.2) return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  return old.toIso(old.toBerlin(new Date(ms).toISOString()));
}

function localDate(ms: number): string {
  return old.localDate(old.toBerlin(new Date(ms).toISOString()));
}

function randomSettings(random: Random): ScheduleSettings {
  return resolveScheduleSettings({
    weekdayDayBaseMinutes: pick(random, [10, 10, 15]),
    fullSyncHour: random() < 0.6 ? 3 : Math.floor(random() * 24),
    maxConcurrentSyncs: 4,
  });
}

function randomConfig(random: Random): ScheduleSourceConfig {
  const config: ScheduleSourceConfig = {
    sourceId: 'src-1',
    active: random() > 0.03,
    cadenceMinutes: {},
    fullSyncMinDays: pick(random, [0, 0, 1, 2, 7]),
    fullSyncSliced: random() < 0.15,
  };
  if (random() < 0.2) config.cadenceMinutes.weekdayDay = pick(random, [5, 20, 30]);
  if (random() < 0.1) config.cadenceMinutes.weekend = pick(random, [60, 240]);
  const window = pick(random, WINDOWS);
  if (window !== undefined) config.fullSyncWindow = window;
  return config;
}

function randomState(random: Random, nowMs: number, settings: ScheduleSettings): SourceScheduleState {
  const state: SourceScheduleState = {
    schemaVersion: 1,
    quietStreak: Math.floor(random() * 16),
    failureStreak: Math.floor(random() * 5),
    fullSyncInProgress: false,
    sessionDays: [],
  };
  if (random() < 0.92) {
    const ended = nowMs - Math.floor(random() * 5 * HOUR) + (random() < 0.1 ? HOUR : 0);
    state.lastSyncEndedAt = stored(random, ended);
    if (random() < 0.9) state.lastSyncStartedAt = stored(random, ended - Math.floor(random() * 30 * MINUTE));
    if (random() < 0.85)
      state.lastSyncPeriod = pick(random, ['weekdayDay', 'weekdayNight', 'weekend'] as const);
  }
  const days = Math.floor(random() * 4);
  for (let i = 0; i < days; i += 1)
    state.sessionDays.push(localDate(nowMs + Math.round((random() - 0.3) * 3) * DAY));
  if (random() < 0.15) {
    state.pause = {
      until: stored(random, nowMs + Math.round((random() - 0.5) * 4 * HOUR)),
      kind: 'failure-streak',
      minutes: 40,
      because: '5 failed runs in a row (ERR-4)',
      ruleIds: ['ERR-4'],
    };
  }
  if (random() < 0.15) {
    const started = nowMs - Math.floor(random() * 40 * MINUTE);
    state.running = {
      kind: pick(random, ['incremental', 'full', 'sliced'] as const),
      trigger: 'schedule',
      startedAt: stored(random, started),
      leaseUntil: old.toIsoAfterMinutes(old.toBerlin(new Date(started).toISOString()), 25),
    };
  }
  if (random() < 0.12) {
    state.manualRequest = {
      kind: pick(random, ['sync', 'full'] as const),
      requestedAt: stored(random, nowMs - 5 * MINUTE),
    };
  }
  if (random() < 0.85) {
    // Last night's (or an older) window, as the planner stores it.
    const back = nowMs - Math.floor(random() * 3) * DAY;
    const defaultWindow = { fullSyncMinDays: 0, fullSyncSliced: false };
    const from = stored(random, back - pick(random, [1, 2]) * DAY);
    state.fullSyncLastWindowId = old.nextFullSyncWindow(defaultWindow, settings, from).id;
    if (random() < 0.8) {
      state.fullSyncLastCompleteWindowId = state.fullSyncLastWindowId;
      state.fullSyncLastCompleteStartedAt = stored(random, back - DAY);
      state.fullSyncLastCompletedAt = stored(random, back - DAY + 20 * MINUTE);
    } else if (random() < 0.5) {
      state.fullSyncLastCompletedAt = stored(random, back - 2 * DAY);
    }
  }
  if (random() < 0.05)
    state.incrementalOnlyUntil = stored(random, nowMs + Math.round((random() - 0.3) * 3 * DAY));
  return state;
}

function randomOutcome(random: Random, nowMs: number, state: SourceScheduleState): RunOutcome {
  const started = nowMs - Math.floor(random() * 40 * MINUTE);
  const outcome: RunOutcome = {
    kind: state.running?.kind ?? pick(random, ['incremental', 'incremental', 'full'] as const),
    startedAt: stored(random, started),
    endedAt: stored(random, nowMs),
    changed: random() < 0.3,
    complete: random() < 0.9,
    failed: random() < 0.15,
    failures: random() < 0.1 ? [pick(random, ['5xx-series', 'ua-blocked', 'other'] as const)] : [],
  };
  if (random() < 0.05) outcome.filterNotHonoured = true;
  if (random() < 0.5) outcome.sessionDays = [localDate(nowMs + DAY), localDate(nowMs - DAY), '2026-02-30'];
  if (random() < 0.7) outcome.requests = 1 + Math.floor(random() * 200);
  return outcome;
}

describe('fast decision path equals the luxon computation (issue 27; SCH-1…SCH-5, FULL-1…FULL-8, ERR-4/5)', () => {
  it('decideSource on 3,000 seeded random states and instants, a third around DST changes', () => {
    const random = seededRandom(2027);
    let compared = 0;
    const actions = new Map<string, number>();
    for (let i = 0; i < 3_000; i += 1) {
      const nowMs = instant(random);
      const settings = randomSettings(random);
      const config = randomConfig(random);
      const state = randomState(random, nowMs, settings);
      const now = stored(random, nowMs);
      const theirs = old.decideSource(config, state, now, settings);
      const ours = decideSource(config, state, now, { settings });
      expect(ours, `decideSource at ${now} for ${JSON.stringify({ config, state, settings })}`).toEqual(
        theirs,
      );
      const key = `${theirs.action}:${theirs.kind ?? ''}`;
      actions.set(key, (actions.get(key) ?? 0) + 1);
      compared += 1;
    }
    expect(compared).toBe(3_000);
    // The states reach every branch: skips, waits, incremental, full and sliced syncs.
    for (const key of ['skip:', 'wait:', 'sync:incremental', 'sync:full', 'sync:sliced']) {
      expect(actions.get(key) ?? 0, key).toBeGreaterThan(10);
    }
  });

  it('nextSyncDue, periodAt, isSessionCapped and the full-sync windows on 3,000 more', () => {
    const random = seededRandom(1848);
    for (let i = 0; i < 3_000; i += 1) {
      const nowMs = instant(random);
      const settings = randomSettings(random);
      const config = randomConfig(random);
      const state = randomState(random, nowMs, settings);
      const now = stored(random, nowMs);
      expect(nextSyncDue(config, state, now, settings)).toEqual(
        old.nextSyncDue(config, state, now, settings),
      );
      expect(periodAt(now)).toBe(old.periodAt(now));
      expect(isSessionCapped(now, state.sessionDays)).toBe(old.isSessionCapped(now, state.sessionDays));
      expect(fullSyncWindowAt(config, settings, now)).toEqual(old.fullSyncWindowAt(config, settings, now));
      expect(nextFullSyncWindow(config, settings, now)).toEqual(
        old.nextFullSyncWindow(config, settings, now),
      );
    }
  });

  it('markSyncStarted and applyRunOutcome write the same state on 2,000 runs', () => {
    const random = seededRandom(1990);
    for (let i = 0; i < 2_000; i += 1) {
      const nowMs = instant(random);
      const settings = randomSettings(random);
      const config = randomConfig(random);
      const state = randomState(random, nowMs, settings);
      const now = stored(random, nowMs);
      const decision = old.decideSource(config, state, now, settings);
      if (decision.action === 'sync') {
        const lease = pick(random, [25, 25, 90]);
        expect(markSyncStarted(state, decision, now, lease)).toEqual(
          old.markSyncStarted(state, decision, now, lease),
        );
      }
      const outcome = randomOutcome(random, nowMs, state);
      const cadence = random() < 0.5 ? { config, settings } : undefined;
      expect(applyRunOutcome(state, outcome, now, cadence)).toEqual(
        old.applyRunOutcome(state, outcome, now, cadence),
      );
    }
  });

  it('the stored form of every 7 minutes and 13 ms over both DST changes of 2026', () => {
    for (const change of DST_CHANGES.slice(0, 2)) {
      for (let ms = change - 2 * DAY; ms < change + 2 * DAY; ms += 7 * MINUTE + 13) {
        const at = old.toBerlin(new Date(ms).toISOString());
        expect(toIso(at)).toBe(old.toIso(at));
        expect(periodAt(at)).toBe(old.periodAt(at));
      }
    }
  });
});
