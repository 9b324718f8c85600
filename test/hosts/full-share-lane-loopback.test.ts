import { describe, expect, it } from 'vitest';
import type { SyncEngine } from '../../shared/engine';
import { processSyncBody } from '../../shared/sync/batch';
import { parseSyncMessage } from '../../shared/sync/message';
import { loopbackFetcher } from '../support/oparl-harness';
import { captureLog, deliver, oparlTestEngine, plan, runDepsOf, useSourceBed } from '../support/sync-bed';

/**
 * RATE-9 with FULL-3 in the sync function (issue 27, item 4): a full lane that carries its saturated
 * host's full-sync share does not chain the next full sync after one ended — it waits its turn
 * (duration × (1 − share) ÷ share) and serves the host's incremental syncs meanwhile. Real planner tick,
 * real queue (fauxqs), State and Sources tables (dynalite), the real OParl engine, the council on
 * loopback; the schedule on a clock the test moves (each run takes `RUN_MS` of it).
 *
 * Three councils on one host with capacity to spare: the planner gives their full lane a share too
 * (FULL-3: the incrementals keep their cadence while full syncs run — `fullSyncShareOf`). Before, it gave
 * none on a host with capacity, and the lane chained the full syncs while the councils' incremental
 * cadence waited; the control runs three other councils with the share taken out of the head's message —
 * the only injected part — which is that lane. Before FULL-3's fallback in the lane the share's lane ran
 * nothing after its head: every other council was decided `full` and passed over, although its
 * incremental cadence was due.
 */
const NIGHT = new Date('2026-11-30T02:00:00Z'); // 03:00 in Berlin: the default window opens (FULL-1)
/**
 * What each run takes of the test's clock: a few seconds, so the host model learns a pace-bound server
 * (under 1.5 host intervals a request: one run at a time, RATE-4) and the control's tick starts one run.
 */
const RUN_MS = 4_000;

/** The host's first lane at 03:00, as planned or with its `fullShare` taken out; the runs' kinds in order. */
async function firstLaneKinds(bed: ReturnType<typeof useSourceBed>['bed'], withShare: boolean) {
  let simNow = NIGHT;
  const now = () => simNow;
  const inner = oparlTestEngine(bed, loopbackFetcher(), now);
  const engine: SyncEngine = async (source, message, budget) => {
    const report = await inner(source, message, budget);
    simNow = new Date(simNow.getTime() + RUN_MS);
    return report;
  };
  const { log } = captureLog();
  const deps = { runDeps: runDepsOf(bed, engine, now), log };

  const tick = await plan(bed, NIGHT);
  expect(tick.started).toHaveLength(1);
  const headId = tick.started[0]?.sourceId as string;
  const record = await deliver(bed, headId);
  const planned = parseSyncMessage(record.body);
  expect(planned.kind).toBe('full');
  expect(planned.lane?.kind).toBe('full');
  // Three councils leave the host spare capacity (3 × 16 requests an hour of its 1/s: 0.0133/s); the
  // planner still gives the full lane its share: their three fulls (225 requests each, not learnt yet)
  // of all asked until the window ends — 675 ÷ (675 + 18,000 s × 0.0133/s) = 73.8 %, under the spare
  // less headroom (1 − 1.25 × 0.0133 = 98.3 %). Before the fix: none on a host with capacity.
  expect(tick.hosts).toEqual([expect.objectContaining({ stretch: 1, saturated: false, capacity: 1 })]);
  expect(planned.lane?.fullShare).toBeCloseTo(675 / (675 + 18_000 * ((3 * 16) / 3600)), 9);
  const raw = JSON.parse(record.body) as { lane: Record<string, unknown> };
  const { fullShare: _taken, ...unshared } = raw.lane;
  const body = withShare ? record.body : JSON.stringify({ ...raw, lane: unshared });
  const first = await processSyncBody(deps, body, 15 * 60_000);
  expect(first.status).toBe('done');
  return ['full', ...(first.laneRuns ?? []).map((r) => (r.status === 'done' ? r.outcome.kind : r.status))];
}

describe('a host’s full lane waits its full-sync turn (RATE-9, FULL-3)', () => {
  const { bed } = useSourceBed('share-a', 'share-b', 'share-c');

  it('RATE-9 / FULL-3: after a full sync the lane starts no further full before its turn, and serves the incremental cadence meanwhile', async () => {
    // The planner's share in the head's message. The other two councils' full syncs are due, but not
    // before the head's end + 4 s × (1 − share) ÷ share; meanwhile the lane serves their incremental
    // cadence (FULL-3's fallback, due: never synced) — never two fulls in a row, and all three fulls
    // done within the lane.
    const kinds = await firstLaneKinds(bed, true);
    expect(kinds[1]).toBe('incremental');
    for (let i = 1; i < kinds.length; i += 1) expect(`${kinds[i - 1]} → ${kinds[i]}`).not.toBe('full → full');
    expect(kinds.filter((k) => k === 'full')).toHaveLength(3);
  }, 90_000);
});

describe('a full lane without a share chains its full syncs (the control: the lane before the fix)', () => {
  const { bed } = useSourceBed('chain-a', 'chain-b', 'chain-c');

  it('FULL-3: without a share the lane starts the next full sync at once, oldest first', async () => {
    expect(await firstLaneKinds(bed, false)).toEqual(['full', 'full', 'full']);
  }, 90_000);
});
