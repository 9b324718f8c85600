import { describe, expect, it } from 'vitest';
import { type LaneCandidate, laneTurnShare, nextLaneRun, stretchDecision } from '../../shared/hosts';
import {
  applyRunOutcome,
  decideSource,
  isoOfMs,
  markSyncStarted,
  msOf,
  type ScheduleSourceConfig,
  type SourceScheduleState,
} from '../../shared/schedule';
import { iso, settings, source, syncDecision } from '../support/schedule-factories';

/**
 * RATE-9, pure: the lane's fair order serves each source of a saturated host at the same multiple of its
 * own cadence (SCH-1…SCH-3), not at its due time plus a queue delay every source pays alike.
 */
const NOW = iso('2026-12-02 22:00');
const NOW_MS = Date.parse(NOW);
const MIN = 60_000;
const at = (minutes: number) => isoOfMs(NOW_MS + minutes * MIN);

/** A due incremental whose last 20-second turn started `startedMinutesAgo`, its interval `interval`. */
function turn(sourceId: string, startedMinutesAgo: number, interval: number): LaneCandidate {
  const started = -startedMinutesAgo;
  const ended = started + 1 / 3;
  return {
    decision: syncDecision({ sourceId, dueAt: at(ended + interval), cadenceAt: at(ended + interval) }),
    state: { lastSyncKind: 'incremental', lastSyncStartedAt: at(started), lastSyncEndedAt: at(ended) },
  };
}

describe('lane fair order: each source at the same multiple of its own cadence (RATE-9, SCH-1, SCH-2)', () => {
  it('RATE-9 / SCH-2: a session-day source 50 min into a 10-min cadence goes before a 60-min source overdue longer', () => {
    const session = turn('session', 50, 10); // 4.8 cycles waited, due 39.7 min ago
    const night = turn('night', 250, 60); // 4.1 cycles waited, due 189.7 min ago
    expect(laneTurnShare(session, NOW_MS)).toBeCloseTo(50 / (10 + 1 / 3), 6);
    expect(laneTurnShare(night, NOW_MS)).toBeCloseTo(250 / (60 + 1 / 3), 6);
    expect(nextLaneRun([night, session], 'incremental', NOW_MS)?.sourceId).toBe('session');
    // Without the instant (an older caller) the order is the earliest due time, as before.
    expect(nextLaneRun([night, session], 'incremental')?.sourceId).toBe('night');
  });

  it('RATE-9: never synced first; a full sync is no incremental turn — the turn begins at its end', () => {
    const fresh: LaneCandidate = {
      decision: syncDecision({ sourceId: 'fresh', cadenceAt: at(-1) }),
      state: {},
    };
    expect(laneTurnShare(fresh, NOW_MS)).toBe(Number.POSITIVE_INFINITY);
    const fullRan: LaneCandidate = {
      decision: syncDecision({ sourceId: 'full-ran', dueAt: at(-20), cadenceAt: at(-20) }),
      state: { lastSyncKind: 'full', lastSyncStartedAt: at(-90), lastSyncEndedAt: at(-30) },
    };
    // From the full sync's end: 30 min waited of a 10-min interval (not 90 of 70).
    expect(laneTurnShare(fullRan, NOW_MS)).toBeCloseTo(3, 6);
    expect(nextLaneRun([turn('other', 35, 10), fullRan, fresh], 'incremental', NOW_MS)?.sourceId).toBe(
      'fresh',
    );
    expect(nextLaneRun([turn('other', 35, 10), fullRan], 'incremental', NOW_MS)?.sourceId).toBe('other');
  });

  it('SCH-7 / FULL-3: manual requests and full syncs keep their places before the fair share', () => {
    const manual: LaneCandidate = {
      decision: syncDecision({ sourceId: 'manual', trigger: 'manual', dueAt: at(0) }),
    };
    const full: LaneCandidate = {
      decision: syncDecision({ sourceId: 'full', kind: 'full', dueAt: at(0), lastFullSyncAt: at(-9000) }),
    };
    const starved = turn('starved', 500, 10);
    expect(nextLaneRun([starved, full, manual], 'full', NOW_MS)?.sourceId).toBe('manual');
    expect(nextLaneRun([starved, full], 'full', NOW_MS)?.sourceId).toBe('full');
    expect(nextLaneRun([starved, full], 'incremental', NOW_MS)?.sourceId).toBe('starved');
  });

  /**
   * A weekday night on one saturated host (19:00–07:00, SCH-1: 60 min), one lane serving it without a
   * gap, each run 3 minutes (180 requests at 1 s, RATE-1): two councils whose session is tomorrow
   * (SCH-2: capped at 10 min tonight), twelve that change every sync (60 min) and twelve long quiet
   * (SCH-3: 120 min). Alone each would start a run every interval + 3 min: together they ask ≈ 26.5 runs
   * an hour of the host's 20. RATE-9: each gets the same share of what it asks.
   */
  function night(withInstant: boolean): {
    offFair: Map<string, number>;
    factor: number;
    fair: Map<string, number>;
  } {
    const from = Date.parse(iso('2026-12-02 19:00'));
    // An hour to settle (the day's last syncs, all due as the night begins), then the night measured.
    const measureFrom = Date.parse(iso('2026-12-02 20:00'));
    const to = Date.parse(iso('2026-12-03 07:00'));
    const runMs = 3 * MIN;
    const sources: { config: ScheduleSourceConfig; changes: boolean; state: SourceScheduleState }[] = [];
    const add = (id: string, changes: boolean, sessionDays: string[], quietStreak: number) =>
      sources.push({
        config: source({ sourceId: id }),
        changes,
        state: {
          schemaVersion: 1,
          quietStreak,
          failureStreak: 0,
          fullSyncInProgress: false,
          sessionDays,
          lastSyncKind: 'incremental',
          // The day's last turns, one after another on the host.
          lastSyncStartedAt: isoOfMs(from - (sources.length + 1) * runMs),
          lastSyncEndedAt: isoOfMs(from - sources.length * runMs),
          fullSyncLastCompletedAt: isoOfMs(from - 60 * MIN),
        },
      });
    for (let i = 0; i < 2; i += 1) add(`session-${i}`, true, ['2026-12-03'], 0);
    for (let i = 0; i < 12; i += 1) add(`changing-${i}`, true, [], 0);
    for (let i = 0; i < 12; i += 1) add(`quiet-${i}`, false, [], 30);
    const noFull = { settings, scheduledFullSyncs: false };
    const model = { host: 'council.example', demand: 1.3, capacity: 1, stretch: 1.3 };

    /** Runs the sources from `from` to `to` one after another; the starts per source. */
    const serve = (
      members: typeof sources,
      pick: (c: LaneCandidate[], nowMs: number) => string | undefined,
    ) => {
      const states = new Map(members.map((s) => [s.config.sourceId, s.state]));
      const starts = new Map(members.map((s) => [s.config.sourceId, 0]));
      let t = from;
      while (t < to) {
        const nowIso = isoOfMs(t);
        const candidates: LaneCandidate[] = [];
        let nextDue = Number.POSITIVE_INFINITY;
        for (const s of members) {
          const state = states.get(s.config.sourceId) as SourceScheduleState;
          const decided = decideSource(s.config, state, nowIso, noFull);
          const decision =
            members.length > 1
              ? stretchDecision(decided, { state, model, now: nowIso, own: { config: s.config, settings } })
              : decided;
          if (decision.action === 'sync') candidates.push({ decision, state });
          else if (decision.dueAt !== undefined) nextDue = Math.min(nextDue, msOf(decision.dueAt));
        }
        const id = pick(candidates, t);
        if (id === undefined) {
          t = Math.max(t + 1000, nextDue);
          continue;
        }
        const s = members.find((m) => m.config.sourceId === id) as (typeof members)[number];
        const decision = candidates.find((c) => c.decision.sourceId === id)
          ?.decision as LaneCandidate['decision'];
        const started = markSyncStarted(states.get(id) as SourceScheduleState, decision, nowIso);
        const endIso = isoOfMs(t + runMs);
        const outcome = {
          kind: 'incremental' as const,
          startedAt: nowIso,
          endedAt: endIso,
          changed: s.changes,
          complete: true,
          failed: false,
          failures: [],
        };
        states.set(id, applyRunOutcome(started, outcome, endIso, { config: s.config, settings }));
        if (t >= measureFrom) starts.set(id, (starts.get(id) ?? 0) + 1);
        t += runMs;
      }
      return starts;
    };

    const lane = (c: LaneCandidate[], nowMs: number) =>
      nextLaneRun(c, 'incremental', withInstant ? nowMs : undefined)?.sourceId;
    const achieved = serve(sources, lane);
    const asked = new Map(
      sources.map((s) => [
        s.config.sourceId,
        serve([s], (c) => c[0]?.decision.sourceId).get(s.config.sourceId) as number,
      ]),
    );
    const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    // The host's factor: what its sources ask ÷ what it served; each source's fair count is its ask ÷ that.
    const factor = sum(asked) / sum(achieved);
    const offFair = new Map(
      [...asked].map(([id, n]) => [id, ((achieved.get(id) as number) - n / factor) / (n / factor)] as const),
    );
    return { offFair, factor, fair: new Map([...asked].map(([id, n]) => [id, n / factor])) };
  }

  it('RATE-9 / SCH-2 / SCH-3: a saturated night — session-day, changing and quiet councils each within one sync or 5 % of the one factor', () => {
    const { offFair, factor, fair } = night(true);
    expect(factor).toBeGreaterThan(1.3); // saturated: the host serves less than its sources ask
    for (const [id, off] of offFair) {
      // A quiet council asks 6 syncs of the night: one sync is 1/4 of its fair 4 — the count's grain.
      const grain = Math.max(0.05, 1 / (fair.get(id) as number));
      expect({ id, within: Math.abs(off) <= grain }).toEqual({ id, within: true });
    }
  });

  it('RATE-9: the same night by earliest due time (the order before) serves the 10-min councils far short of the factor', () => {
    const { offFair } = night(false);
    // session-0 asks ≈ 51 syncs of the night; the due-time order gives it about a third fewer than its share.
    expect(offFair.get('session-0') as number).toBeLessThan(-0.25);
    expect(offFair.get('quiet-0') as number).toBeGreaterThan(0);
  });
});
