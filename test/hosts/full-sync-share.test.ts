import { describe, expect, it } from 'vitest';
import {
  admitRuns,
  fullSyncShareOf,
  type HostSourceInput,
  hostModelsOf,
  type Lane,
  laneAfterRun,
  lanesOf,
  nextFullTurnMs,
  nextLaneRun,
  planHostFullSyncs,
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
    // A lane without a share (a host with spare capacity) is left as it was: fulls chain there.
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
    const gapMs = (600_000 * (1 - share)) / share;
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

  it('FULL-3: a host with spare capacity gets no share — its window budget decides, as before', () => {
    const spare = hostModelsOf(
      inputs.slice(0, 5).map((s) => ({ ...s, host: 'lone.example' })),
      new Map(),
      NIGHT_MS,
    ).get('lone.example');
    expect(spare).toBeDefined();
    if (spare === undefined) return;
    expect(fullSyncShareOf({ fullRequests: 6000, windowSeconds: 18_000, model: spare })).toBeUndefined();
    expect(
      fullSyncShareOf({ fullRequests: 0, windowSeconds: 18_000, model: hosts.get(HOST)! }),
    ).toBeUndefined();
  });
});
