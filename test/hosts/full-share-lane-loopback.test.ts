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
 * Three councils on one host have capacity to spare, so the planner gives their lane no share; the
 * test writes the share a saturated host's plan would carry (0.5) into the head's message — the only
 * injected part — and runs the same on three other councils without it, as the control. Before FULL-3's
 * fallback in the lane the share's lane ran nothing after its head: every other council was decided
 * `full` and passed over, although its incremental cadence was due.
 */
const NIGHT = new Date('2026-11-30T02:00:00Z'); // 03:00 in Berlin: the default window opens (FULL-1)
/**
 * What each run takes of the test's clock: a few seconds, so the host model learns a pace-bound server
 * (under 1.5 host intervals a request: one run at a time, RATE-4) and the control's tick starts one run.
 */
const RUN_MS = 4_000;

/** The host's first lane at 03:00, its head's message with `fullShare` when given; the runs' kinds in order. */
async function firstLaneKinds(bed: ReturnType<typeof useSourceBed>['bed'], fullShare: number | undefined) {
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
  // Three councils leave the host spare capacity: no share, the window budget decides (as before).
  expect(planned.lane?.fullShare).toBeUndefined();
  const raw = JSON.parse(record.body) as { lane: Record<string, unknown> };
  const body =
    fullShare === undefined ? record.body : JSON.stringify({ ...raw, lane: { ...raw.lane, fullShare } });
  const first = await processSyncBody(deps, body, 15 * 60_000);
  expect(first.status).toBe('done');
  return ['full', ...(first.laneRuns ?? []).map((r) => (r.status === 'done' ? r.outcome.kind : r.status))];
}

describe('a saturated host’s full lane waits its full-sync turn (RATE-9, FULL-3)', () => {
  const { bed } = useSourceBed('share-a', 'share-b', 'share-c');

  it('RATE-9 / FULL-3: after a full sync the lane starts no further full before its turn, and serves the incremental cadence meanwhile', async () => {
    // The share a saturated host's plan would carry (0.5) written into the head's message. The other
    // two councils' full syncs are due, but not before the head's end + 4 s × 0.5 ÷ 0.5; meanwhile the
    // lane serves their incremental cadence (FULL-3's fallback, due: never synced) — never two fulls
    // in a row, and all three fulls done within the lane.
    const kinds = await firstLaneKinds(bed, 0.5);
    expect(kinds[1]).toBe('incremental');
    for (let i = 1; i < kinds.length; i += 1) expect(`${kinds[i - 1]} → ${kinds[i]}`).not.toBe('full → full');
    expect(kinds.filter((k) => k === 'full')).toHaveLength(3);
  }, 90_000);
});

describe('a full lane without a share chains its full syncs (the control; FULL-3)', () => {
  const { bed } = useSourceBed('chain-a', 'chain-b', 'chain-c');

  it('FULL-3: without a share the lane starts the next full sync at once, oldest first', async () => {
    expect(await firstLaneKinds(bed, undefined)).toEqual(['full', 'full', 'full']);
  }, 90_000);
});
