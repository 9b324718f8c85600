import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/random';
import {
  applyRunOutcome,
  decideSource,
  type FailureKind,
  markSyncStarted,
  type RunOutcome,
  resolveScheduleSettings,
  type ScheduleSettings,
  type ScheduleSourceConfig,
  type SourceScheduleState,
} from '../../shared/schedule';
import { msOf } from '../../shared/schedule/time';
import * as old from './luxon-reference';

/**
 * Issue 27: the decisions were made cheap — each built field by field instead of `{ ...common, … }`,
 * the state after a run copied without its ended fields instead of `delete`d, the stored instants read
 * digit by digit. What the planner stores and logs must not change by a byte: same fields, same values,
 * same order. So sources walk through simulated days with the real functions — runs that change or
 * not, fail (ERR-4/ERR-5 pauses), full syncs in own and default windows (FULL-1/2/4/6/7), manual
 * requests (SCH-7, FULL-8), session days (SCH-2) — and at every step the decision and each new state
 * are serialised and compared with the luxon computation kept in ./luxon-reference/ (fast-path.test.ts
 * compares values; this compares the text).
 */

const MINUTE = 60_000;
const WALK_START = Date.UTC(2026, 9, 22, 12); // Thursday before the autumn DST change, and across it
const WINDOWS = [undefined, undefined, { start: '22:00', end: '04:00' }, { start: '02:30', end: '03:30' }];
const FAILURES: readonly FailureKind[][] = [[], [], [], ['5xx-series'], ['ua-blocked'], ['other']];

type Random = () => number;

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

function randomConfig(random: Random, index: number): ScheduleSourceConfig {
  const config: ScheduleSourceConfig = {
    sourceId: `src-${index}`,
    active: index > 0,
    cadenceMinutes: random() < 0.2 ? { weekdayDay: 30 } : {},
    fullSyncMinDays: pick(random, [0, 1, 2, 7]),
    fullSyncSliced: index % 4 === 1,
  };
  const window = pick(random, WINDOWS);
  if (window !== undefined) config.fullSyncWindow = window;
  return config;
}

function localDateOf(ms: number): string {
  return old.localDate(old.toBerlin(new Date(ms).toISOString()));
}

function randomOutcome(
  random: Random,
  state: SourceScheduleState,
  startMs: number,
  endMs: number,
): RunOutcome {
  const outcome: RunOutcome = {
    kind: state.running?.kind ?? 'incremental',
    startedAt: old.toIso(old.toBerlin(new Date(startMs).toISOString())),
    endedAt: old.toIso(old.toBerlin(new Date(endMs).toISOString())),
    changed: random() < 0.3,
    complete: random() < 0.9,
    failed: random() < 0.2,
    failures: pick(random, FAILURES),
  };
  if (random() < 0.03) outcome.filterNotHonoured = true;
  if (random() < 0.4)
    outcome.sessionDays = [localDateOf(endMs + 86_400_000), localDateOf(endMs - 86_400_000)];
  if (random() < 0.8) outcome.requests = 1 + Math.floor(random() * 200);
  return outcome;
}

/** Serialised, so field order counts too. */
function text(value: unknown): string {
  return JSON.stringify(value);
}

/** One source's walk; returns how many decisions and states it compared. */
function walk(random: Random, config: ScheduleSourceConfig, settings: ScheduleSettings): Set<string> {
  const seen = new Set<string>();
  let state: SourceScheduleState = old.applyRunOutcome(
    { schemaVersion: 1, quietStreak: 0, failureStreak: 0, fullSyncInProgress: false, sessionDays: [] },
    randomOutcome(random, { schemaVersion: 1 } as SourceScheduleState, WALK_START - 20 * MINUTE, WALK_START),
    new Date(WALK_START).toISOString(),
  );
  for (let nowMs = WALK_START; nowMs < WALK_START + 5 * 86_400_000; ) {
    const now = old.toIso(old.toBerlin(new Date(nowMs).toISOString()));
    if (random() < 0.03)
      state = {
        ...state,
        manualRequest: { kind: pick(random, ['sync', 'full'] as const), requestedAt: now },
      };
    const ours = decideSource(config, state, now, { settings });
    const theirs = old.decideSource(config, state, now, settings);
    expect(text(ours), `decideSource at ${now} for ${text({ config, state })}`).toBe(text(theirs));
    seen.add(`${theirs.action}:${theirs.kind ?? ''}`);
    if (theirs.action !== 'sync') {
      // Forward to the decision's due time (or a few minutes), so the walk meets every kind of wait;
      // an inactive source (ERR-7, ONB-3: the first of the walks) is looked at every six hours.
      const due = theirs.dueAt === undefined ? nowMs + 6 * 3_600_000 : Date.parse(theirs.dueAt);
      nowMs =
        Math.max(nowMs + MINUTE, Math.min(due, nowMs + 6 * 3_600_000)) + Math.floor(random() * 3) * MINUTE;
      continue;
    }
    const lease = pick(random, [25, 90]);
    const started = markSyncStarted(state, theirs, now, lease);
    expect(text(started), `markSyncStarted at ${now}`).toBe(
      text(old.markSyncStarted(state, theirs, now, lease)),
    );
    const endMs = nowMs + (1 + Math.floor(random() * (theirs.kind === 'incremental' ? 3 : 60))) * MINUTE;
    // Now and then a run overruns its lease: the next decision sees an expired lease.
    const outcome = randomOutcome(random, started, nowMs, endMs);
    const endedAt = outcome.endedAt;
    const cadence = random() < 0.5 ? { config, settings } : undefined;
    if (random() < 0.05) {
      const later = nowMs + (lease + 5) * MINUTE;
      const laterIso = old.toIso(old.toBerlin(new Date(later).toISOString()));
      expect(text(decideSource(config, started, laterIso, { settings }))).toBe(
        text(old.decideSource(config, started, laterIso, settings)),
      );
    }
    const next = applyRunOutcome(started, outcome, endedAt, cadence);
    expect(text(next), `applyRunOutcome at ${endedAt} for ${text({ started, outcome })}`).toBe(
      text(old.applyRunOutcome(started, outcome, endedAt, cadence)),
    );
    state = next;
    nowMs = endMs + Math.floor(random() * 5) * MINUTE;
  }
  return seen;
}

describe('the cheap decisions serialise byte for byte as before (issue 27; SCH-1…SCH-7, FULL-1…FULL-8, ERR-4/5)', () => {
  it('SCH-5: 12 sources walk five days across a DST change: every decision and state compared as text', () => {
    const random = seededRandom(2710);
    const seen = new Set<string>();
    for (let i = 0; i < 12; i += 1) {
      const settings = resolveScheduleSettings({
        weekdayDayBaseMinutes: pick(random, [10, 15]),
        fullSyncHour: pick(random, [3, 3, 1, 23]),
        maxConcurrentSyncs: 4,
      });
      for (const key of walk(random, randomConfig(random, i), settings)) seen.add(key);
    }
    for (const key of ['skip:', 'wait:', 'sync:incremental', 'sync:full', 'sync:sliced']) {
      expect(seen.has(key), key).toBe(true);
    }
  }, 240_000);

  it('the stored form read digit by digit gives the instant luxon reads, and refuses what it refuses', () => {
    const random = seededRandom(1848);
    const two = (n: number) => String(n).padStart(2, '0');
    let valid = 0;
    for (let i = 0; i < 20_000; i += 1) {
      const year = pick(random, [2026, 2024, 2100, 2000, 150, 99, 9999]);
      let value = `${String(year).padStart(4, '0')}-${two(Math.floor(random() * 14))}-${two(Math.floor(random() * 33))}T${two(Math.floor(random() * 26))}:${two(Math.floor(random() * 62))}:${two(Math.floor(random() * 62))}`;
      value += pick(random, ['', '', '.5', '.05', '.123', '.1234']);
      value += pick(random, ['Z', '+01:00', '+02:00', '-00:00', '+14:59', '+15:00', '', ' ']);
      let ours: number | string;
      let theirs: number | string;
      try {
        ours = msOf(value);
      } catch {
        ours = 'invalid';
      }
      try {
        theirs = old.toBerlin(value).toMillis();
        valid += 1;
      } catch {
        theirs = 'invalid';
      }
      expect(ours, value).toBe(theirs);
    }
    expect(valid).toBeGreaterThan(2_000);
  });
});
