import { describe, expect, it } from 'vitest';
import {
  admitRuns,
  fullSyncShareOf,
  type HostModel,
  type HostSourceInput,
  hostModelsOf,
  LANE_MAX_LIFE_MS,
  type Lane,
  laneAfterRun,
  lanesOf,
  MAX_SATURATED_FULL_SYNC_SHARE,
  nextFullTurnMs,
  nextLaneRun,
  planHostFullSyncs,
  saturationText,
  windowStretchOf,
  withFullSyncShare,
} from '../../shared/hosts';
import { isoOfMs, type SourceDecision } from '../../shared/schedule';
import { parseSyncMessage } from '../../shared/sync/message';
import { iso, syncDecision } from '../support/schedule-factories';

/**
 * RATE-9 with FULL-3 on a saturated host at night (issue 27, item 4). Forty councils on one host ask
 * 100 requests an hour each at the night cadence — 1.11 requests/s of the host's 1 (RATE-1): saturated,
 * so the window holds no spare budget for full syncs. Ten of them have a full sync due tonight (600
 * requests each). Both demands share one pace; each is slowed by the same factor, so the full syncs
 * take the share of the host's time their requests are of all asked: 6,000 ÷ (6,000 + 5 h × 1.11/s).
 */
const HOST = 'ris.hosting.example';
const COUNCILS = 40;
const INCREMENTAL_REQUESTS = 100;
const FULL_REQUESTS = 600;
const NIGHT_MS = Date.parse(iso('2026-12-03 03:00'));
const WINDOW_END_MS = NIGHT_MS + 5 * 3_600_000;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const inputs: HostSourceInput[] = Array.from({ length: COUNCILS }, (_, i) => ({
  sourceId: `c${String(i).padStart(2, '0')}`,
  host: HOST,
  requestIntervalSeconds: 1,
  intervalMinutes: 60,
  expectedIncrementalRequests: INCREMENTAL_REQUESTS,
}));
const hosts = hostModelsOf(inputs, new Map(), NIGHT_MS);
/** c00 has the oldest full sync, c09 the newest of the ten due (FULL-3's order). */
const fullDecisions = inputs.slice(0, 10).map((s, i) =>
  syncDecision({
    sourceId: s.sourceId,
    kind: 'full',
    dueAt: isoOfMs(NIGHT_MS),
    lastFullSyncAt: isoOfMs(NIGHT_MS - (20 - i) * DAY_MS),
  }),
);

function plansAt(nowMs: number, fulls: readonly SourceDecision[]) {
  return planHostFullSyncs(
    fulls.map((decision) => ({ decision, host: HOST, expectedRequests: FULL_REQUESTS })),
    { hosts, nowMs, defaultWindowEndMs: WINDOW_END_MS },
  );
}

/**
 * The host's lane served for `spanMs` from 03:00, as shared/sync's lane does it: the planner's head (the
 * oldest full sync, its first chance), then at each run's end `laneAfterRun` and `nextLaneRun` among the
 * due full syncs and the councils' due incrementals. One run at a time (RATE-4), one request a second
 * (RATE-1): a full sync takes 600 s, an incremental 100 s. Returns the host time per kind.
 */
function serveNight(lane: Lane, head: SourceDecision, spanMs: number) {
  const fullsLeft = fullDecisions.filter((d) => d.sourceId !== head.sourceId);
  // Each council's incremental is due at 03:00 (staggered by a minute, most overdue first).
  const dueMs = new Map(inputs.map((s, i) => [s.sourceId, NIGHT_MS - (COUNCILS - i) * 60_000]));
  const time = {
    full: 0,
    incremental: 0,
    fullsDone: 0,
    incrementalRuns: 0,
    incrementalRunsBeforeFullsDone: 0,
  };
  let t = NIGHT_MS;
  let run: SourceDecision | undefined = head;
  let current: Lane = lane;
  while (run !== undefined && t < NIGHT_MS + spanMs) {
    const full = run.kind !== 'incremental';
    const durationMs = (full ? FULL_REQUESTS : INCREMENTAL_REQUESTS) * 1000;
    const endedMs = t + durationMs;
    if (full) {
      time.full += durationMs;
      time.fullsDone += 1;
    } else {
      time.incremental += durationMs;
      time.incrementalRuns += 1;
      if (fullsLeft.length > 0) time.incrementalRunsBeforeFullsDone += 1;
      dueMs.set(run.sourceId, endedMs + HOUR_MS);
    }
    const notBefore = laneAfterRun(current, { kind: run.kind ?? 'incremental', startedMs: t, endedMs });
    current = notBefore === undefined ? current : { ...current, fullsNotBefore: notBefore };
    t = endedMs;
    const candidates = [
      ...fullsLeft.map((decision) => ({ decision })),
      ...[...dueMs]
        .filter(([, at]) => at <= t)
        .map(([sourceId, at]) => ({ decision: syncDecision({ sourceId, dueAt: isoOfMs(at) }) })),
    ];
    const nb = current.fullsNotBefore === undefined ? undefined : Date.parse(current.fullsNotBefore);
    run = nextLaneRun(candidates, current.kind ?? 'incremental', t, nb);
    if (run !== undefined && run.kind !== 'incremental')
      fullsLeft.splice(
        fullsLeft.findIndex((d) => d.sourceId === run?.sourceId),
        1,
      );
  }
  return time;
}

/** The planner's tick at 03:00: admission (the oldest full's first chance) and its lane. */
function laneAtNight(withShare: boolean) {
  const plans = plansAt(NIGHT_MS, fullDecisions);
  const admission = admitRuns({
    due: [
      ...fullDecisions.map((decision) => ({ decision, host: HOST })),
      ...inputs.slice(10).map((s) => ({ decision: syncDecision({ sourceId: s.sourceId }), host: HOST })),
    ],
    running: [],
    hosts,
    settings: { maxConcurrentSyncs: 8 },
    fullSyncBehind: plans.behind,
    fullSyncSlotsNeeded: plans.slotsNeeded,
  });
  const head = admission.start[0] as SourceDecision;
  const lanes = lanesOf(admission, () => HOST, isoOfMs(NIGHT_MS), {
    hosts,
    poolOf: () => inputs.map((s) => ({ sourceId: s.sourceId })),
    ...(withShare ? { fullShareOf: (key: string) => plans.byHost.get(key)?.share } : {}),
  });
  return { plans, admission, head, lane: lanes.get(head.sourceId) as Lane };
}

describe('full syncs on a saturated host take their share of its time (RATE-9, FULL-3)', () => {
  it('RATE-9, FULL-3: the share is the full syncs’ part of all requests asked of the host until the window ends', () => {
    const model = hosts.get(HOST);
    expect(model?.demand).toBeGreaterThan(model?.capacity ?? 0);
    const { plans, head } = laneAtNight(true);
    const plan = plans.byHost.get(HOST);
    const incremental = 5 * 3600 * ((COUNCILS * INCREMENTAL_REQUESTS) / 3600);
    expect(plan?.share).toBeCloseTo((10 * FULL_REQUESTS) / (10 * FULL_REQUESTS + incremental), 6);
    // FULL-3's order: the oldest gets the first chance; the rest wait, and say why.
    expect(head.sourceId).toBe('c00');
    expect(plan?.tonight).toEqual(['c00']);
    expect(plans.behind.get('c05')).toMatch(
      /^full sync behind: host capacity.*saturated: full syncs take 23 % of its time, interleaved/,
    );
  });

  it('RATE-9: a saturated host at night serves its incrementals their share between full syncs, instead of none', () => {
    const chained = laneAtNight(false);
    const before = serveNight(chained.lane, chained.head, 3 * HOUR_MS);
    // Today's lane chains the full syncs: the incrementals get nothing until all ten are done (100 min).
    expect(before.incrementalRunsBeforeFullsDone).toBe(0);
    expect(before.full / (3 * HOUR_MS)).toBeGreaterThan(0.5);

    const fair = laneAtNight(true);
    expect(fair.lane.kind).toBe('full');
    const share = fair.lane.fullShare as number;
    const after = serveNight(fair.lane, fair.head, 3 * HOUR_MS);
    const span = after.full + after.incremental;
    // Both demands slowed by one factor: each gets its share of the host's time (within one run's grain).
    expect(after.full / span).toBeGreaterThan(share - (FULL_REQUESTS * 1000) / span);
    expect(after.full / span).toBeLessThan(share + (FULL_REQUESTS * 1000) / span);
    expect(after.incrementalRunsBeforeFullsDone).toBeGreaterThan(60);
    // …and no full sync is starved: they keep turning, oldest first.
    expect(after.fullsDone).toBeGreaterThanOrEqual(3);
  });

  it('RATE-9: the next full waits duration × (1 − share) ÷ share; a manual full does not wait (SCH-7)', () => {
    expect(nextFullTurnMs({ endedMs: 1_000, durationMs: 600_000, share: 0.25 })).toBe(1_000 + 1_800_000);
    expect(nextFullTurnMs({ endedMs: 1_000, durationMs: 600_000, share: 1 })).toBe(1_000);
    const gate = NIGHT_MS + HOUR_MS;
    const inc = { decision: syncDecision({ sourceId: 'inc', dueAt: isoOfMs(NIGHT_MS) }) };
    const full = { decision: fullDecisions[3] as SourceDecision };
    const manual = { decision: { ...(fullDecisions[4] as SourceDecision), trigger: 'manual' as const } };
    expect(nextLaneRun([inc, full], 'full', NIGHT_MS, gate)?.sourceId).toBe('inc');
    expect(nextLaneRun([inc, full], 'full', gate, gate)?.sourceId).toBe(fullDecisions[3]?.sourceId);
    expect(nextLaneRun([inc, manual], 'full', NIGHT_MS, gate)?.sourceId).toBe(manual.decision.sourceId);
    // A share near 0 (a host with hardly any spare): no further full in this lane — bounded by its life
    // (before: a turn past what a Date holds, a RangeError in the fleet bench at 10,000 sources).
    expect(laneAfterRun({ fullShare: 1e-12 }, { kind: 'full', startedMs: 0, endedMs: 600_000 })).toBe(
      new Date(600_000 + LANE_MAX_LIFE_MS).toISOString(),
    );
    // A lane without a share (no full sync planned on its host) is left as it was.
    expect(laneAfterRun({}, { kind: 'full', startedMs: 0, endedMs: 600_000 })).toBeUndefined();
  });

  it('RATE-9: a handed-on lane keeps its share and its next full turn (the sync message carries both)', () => {
    const { lane } = laneAtNight(true);
    const fullsNotBefore = laneAfterRun(lane, {
      kind: 'full',
      startedMs: NIGHT_MS,
      endedMs: NIGHT_MS + 600_000,
    });
    const share = lane.fullShare as number;
    // 600 s × 0.769 ÷ 0.231 = 33.3 min, beyond the lane's life: bounded by it (no further full in it).
    const gapMs = Math.min((600_000 * (1 - share)) / share, LANE_MAX_LIFE_MS);
    expect(gapMs).toBe(LANE_MAX_LIFE_MS);
    expect(fullsNotBefore).toBe(new Date(Math.ceil(NIGHT_MS + 600_000 + gapMs)).toISOString());
    const body = JSON.stringify({
      sourceId: 'c01',
      runId: 'r1',
      kind: 'incremental',
      startedAt: isoOfMs(NIGHT_MS),
      lane: { ...lane, fullsNotBefore },
    });
    const parsed = parseSyncMessage(body).lane;
    expect(parsed?.fullShare).toBe(lane.fullShare);
    expect(parsed?.fullsNotBefore).toBe(fullsNotBefore);
  });

  it('RATE-9 / FULL-3: the window’s factor on a saturated host counts the full syncs’ share — stretch ÷ (1 − share), the share at most 0.5', () => {
    const model = hosts.get(HOST) as HostModel;
    // 40 × 100 requests an hour of a pace of 1/s: stretch 1.111…; tonight's 10 fulls take 23.08 %.
    expect(model.stretch).toBeCloseTo(40 / 36, 9);
    const share = (10 * FULL_REQUESTS) / (10 * FULL_REQUESTS + 5 * 3600 * (4000 / 3600));
    expect(share).toBeCloseTo(0.230769, 6);
    // 1.1111 ÷ 0.76923 = 1.4444: the incrementals get 76.9 % of the pace, their turns come that much later.
    expect(windowStretchOf(model, share)).toBeCloseTo(1.444444, 6);
    const counted = withFullSyncShare(model, share);
    expect(counted.stretch).toBeCloseTo(1.444444, 6);
    expect(counted.fullSyncShare).toBe(share);
    expect(saturationText(counted)).toBe(
      `host ${HOST} saturated: needs 1.11 requests/s of 1, full syncs take 23 % of its time tonight (FULL-3); intervals × 1.44 (RATE-9)`,
    );
    // A night of 100 overdue fulls would ask 60,000 of 80,000 requests (75 %): capped at half, × 2.
    expect(fullSyncShareOf({ fullRequests: 60_000, windowSeconds: 18_000, model })).toBe(
      MAX_SATURATED_FULL_SYNC_SHARE,
    );
    expect(windowStretchOf(model, 0.75)).toBeCloseTo((40 / 36) * 2, 9);
    // Without full syncs tonight the model is the host's own.
    expect(withFullSyncShare(model, undefined)).toBe(model);
  });
});

/**
 * The gap the SourceStarved replay found (issue 28): a host of the hosting centre with capacity to spare
 * at night (factor 1) gave its full lane no share, so its full syncs ran back to back while the window's
 * budget held one more, and its councils' incremental cadence waited the whole window — FULL-3 promises
 * it meanwhile. Forty councils on one host at the night's 60 min, 16 requests a run: 0.1778 requests/s
 * of its 1. Forty full syncs of 600 requests are due tonight.
 */
describe('full syncs on a host with capacity take at most its spare (FULL-3, RATE-9)', () => {
  const HOSTED = 'ris2.hosting.example';
  const councils: HostSourceInput[] = inputs.map((s) => ({
    ...s,
    host: HOSTED,
    expectedIncrementalRequests: 16,
  }));
  const spareHosts = hostModelsOf(councils, new Map(), NIGHT_MS);
  const model = spareHosts.get(HOSTED) as HostModel;
  const fulls = councils.map((s, i) =>
    syncDecision({
      sourceId: s.sourceId,
      kind: 'full',
      dueAt: isoOfMs(NIGHT_MS),
      lastFullSyncAt: isoOfMs(NIGHT_MS - (60 - i) * DAY_MS),
    }),
  );

  it('FULL-3: the share is the spare less the incrementals’ headroom, 1 − 1.25 × demand ÷ capacity = 77.8 %, when the due fulls ask more; the factor stays 1', () => {
    expect(model.demand).toBeCloseTo((40 * 16) / 3600, 9);
    expect(model.stretch).toBe(1);
    // Asked: 24,000 ÷ (24,000 + 18,000 s × 0.1778/s = 3,200) = 88.2 % — more than the spare.
    const plans = planHostFullSyncs(
      fulls.map((decision) => ({ decision, host: HOSTED, expectedRequests: FULL_REQUESTS })),
      { hosts: spareHosts, nowMs: NIGHT_MS, defaultWindowEndMs: WINDOW_END_MS },
    );
    const share = plans.byHost.get(HOSTED)?.share as number;
    expect(share).toBeCloseTo(1 - (1.25 * (40 * 16)) / 3600, 9);
    // Its incrementals keep their cadence: the factor stays 1 (FULL-3), the model is the host's own.
    expect(withFullSyncShare(model, share)).toBe(model);
    expect(plans.behind.get('c39')).toMatch(
      /: full syncs take 78 % of its time, interleaved with the incremental syncs, which keep their cadence \(FULL-3, RATE-9\)$/,
    );
    // After a 600 s full sync the lane serves the incrementals 600 × 0.2222 ÷ 0.7778 = 171.4 s.
    expect(nextFullTurnMs({ endedMs: 0, durationMs: 600_000, share })).toBeCloseTo(
      (600_000 * 0.2222222222) / 0.7777777778,
      0,
    );
    // Nearly saturated (0.9 of its capacity: × 1.25 leaves nothing): the bare spare, 10 %.
    expect(
      fullSyncShareOf({ fullRequests: 24_000, windowSeconds: 18_000, model: { demand: 0.9, capacity: 1 } }),
    ).toBeCloseTo(0.1, 9);
    // Few fulls tonight (two, 1,200 requests): their own part, 27.3 %, below the spare.
    expect(fullSyncShareOf({ fullRequests: 1_200, windowSeconds: 18_000, model })).toBeCloseTo(
      1_200 / (1_200 + 3_200),
      9,
    );
  });

  it('RATE-9 / FULL-3: over three hours the lane serves every due council between full syncs — before, none until the window’s budget ran out', () => {
    const plans = planHostFullSyncs(
      fulls.map((decision) => ({ decision, host: HOSTED, expectedRequests: FULL_REQUESTS })),
      { hosts: spareHosts, nowMs: NIGHT_MS, defaultWindowEndMs: WINDOW_END_MS },
    );
    const serve = (fullShare: number | undefined) => {
      // One run at a time at 1 request/s: a full 600 s, an incremental 16 s; each council due hourly.
      const dueMs = new Map(councils.map((s, i) => [s.sourceId, NIGHT_MS - (40 - i) * 60_000]));
      const fullsLeft = fulls.slice(1);
      const served = new Map<string, number[]>();
      let lane: Pick<Lane, 'fullShare' | 'fullsNotBefore'> = fullShare === undefined ? {} : { fullShare };
      let t = NIGHT_MS;
      let run: SourceDecision | undefined = fulls[0];
      while (t < NIGHT_MS + 3 * HOUR_MS) {
        if (run === undefined) break;
        const full = run.kind !== 'incremental';
        const endedMs = t + (full ? FULL_REQUESTS : 16) * 1000;
        if (!full) {
          served.set(run.sourceId, [...(served.get(run.sourceId) ?? []), t]);
          dueMs.set(run.sourceId, endedMs + HOUR_MS);
        }
        const fullsNotBefore = laneAfterRun(lane, { kind: run.kind ?? 'incremental', startedMs: t, endedMs });
        lane = fullsNotBefore === undefined ? lane : { ...lane, fullsNotBefore };
        t = endedMs;
        const candidates = [
          ...fullsLeft.map((decision) => ({ decision })),
          ...[...dueMs]
            .filter(([, at]) => at <= t)
            .map(([sourceId, at]) => ({ decision: syncDecision({ sourceId, dueAt: isoOfMs(at) }) })),
        ];
        const nb = lane.fullsNotBefore === undefined ? undefined : Date.parse(lane.fullsNotBefore);
        run = nextLaneRun(candidates, 'full', t, nb);
        if (run === undefined) {
          // Nothing the lane may start: it ends, and the next planner tick admits the host afresh —
          // a due full sync first (`admitRuns`), in a new lane without a gate.
          t = Math.ceil((t + 1) / 60_000) * 60_000;
          lane = fullShare === undefined ? {} : { fullShare };
          run = fullsLeft[0] ?? nextLaneRun(candidates, 'full', t);
          if (run === undefined) continue;
        }
        const id = run.sourceId;
        if (run.kind !== 'incremental')
          fullsLeft.splice(
            fullsLeft.findIndex((d) => d.sourceId === id),
            1,
          );
      }
      // The longest any council waited past its hourly turn in the three hours (minutes).
      let worstMinutes = 0;
      for (const [i, s] of councils.entries()) {
        const starts = served.get(s.sourceId) ?? [];
        let due = NIGHT_MS - (40 - i) * 60_000;
        for (const at of [...starts, NIGHT_MS + 3 * HOUR_MS]) {
          worstMinutes = Math.max(worstMinutes, (at - due) / 60_000);
          due = at + 16_000 + HOUR_MS;
        }
      }
      return { served, worstMinutes, fullsStarted: 40 - fullsLeft.length };
    };
    // Main's lane on this host (no share): full syncs back to back — 18 done and the 19th started at
    // 3 h (10,800 s ÷ 600 s) — and no council served in three hours.
    const before = serve(undefined);
    expect(before.served.size).toBe(0);
    expect(before.fullsStarted).toBe(19);
    expect(before.worstMinutes).toBeGreaterThan(180);
    // With its share (77.8 %): every council served each hour (3 runs each). The 40 due at 03:00 drain
    // ~10 a gap of 171 s between 600 s fulls — four of them, ≈ 51 min — so none waits an interval (60 min)
    // past its turn: not starved (`starvationOf`). The fulls go on: 16 started in the three hours.
    const after = serve(plans.byHost.get(HOSTED)?.share);
    expect(after.served.size).toBe(40);
    for (const starts of after.served.values()) expect(starts.length).toBeGreaterThanOrEqual(3);
    expect(after.worstMinutes).toBeLessThan(60);
    expect(after.fullsStarted).toBeGreaterThanOrEqual(15);
  });
});
