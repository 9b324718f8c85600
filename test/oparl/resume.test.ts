import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { MIRROR_TYPES } from '../../shared/mirror';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { type Harness, harness, SimulatedCrash, TestClock } from '../support/oparl-harness';

const T0 = Date.parse('2024-07-01T10:00:00+02:00');

/** Every record of a source (tombstones included) without the fields that name the source. */
async function snapshot(h: Harness): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const type of MIRROR_TYPES) {
    for await (const entry of h.mirror.listAll(h.source.sourceId, type)) {
      const record = await h.mirror.read(h.source.sourceId, type, entry.id);
      const { sourceId: _s, ...meta } = record?.meta ?? ({} as Record<string, unknown>);
      out[`${type} ${entry.id}`] = { object: record?.object, meta, deleted: entry.deleted, hash: entry.hash };
    }
  }
  return out;
}

// Deterministic "random" kill points (mulberry32), so a failure is reproducible.
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('checkpoints (every page with a change, every page after a crash): killed, resumed, same mirror', () => {
  let bed: AwsTestbed;
  let fake: FakeCouncil;
  const clock = new TestClock(T0);
  beforeAll(async () => {
    bed = await startAwsTestbed();
    fake = await startFakeCouncil({ now: clock.now, objectsPerList: 3, pageSize: 2, bodies: 2 });
  });
  afterAll(async () => {
    await fake.close();
    await bed.stop();
  });

  it('a full sync killed at random pages and resumed with the same runId ends with the same mirror as an uninterrupted one', async () => {
    const whole = harness(bed, fake.systemUrl, clock, 'whole');
    const reference = await whole.sync('full');
    expect(reference.complete).toBe(true);

    const killed = harness(bed, fake.systemUrl, clock, 'killed');
    const next = prng(42);
    let crashes = 0;
    let report: Awaited<ReturnType<Harness['sync']>> | undefined;
    while (!report) {
      killed.fetcher.crashAfter = killed.fetcher.count + 1 + Math.floor(next() * 6);
      try {
        report = await killed.sync('full', { runId: 'killed-run' });
      } catch (err) {
        expect(err).toBeInstanceOf(SimulatedCrash);
        crashes += 1;
      }
    }
    expect(crashes).toBeGreaterThan(3);
    expect(report.complete).toBe(true);
    expect(await snapshot(killed)).toEqual(await snapshot(whole));
    // A killed instance loses at most the page in flight: re-fetched pages are bounded by the crashes.
    expect(killed.fetcher.count).toBeLessThanOrEqual(reference.requests + crashes);
  });

  it('an incremental sync killed mid-run and resumed picks up every change exactly once', async () => {
    const a = harness(bed, fake.systemUrl, clock, 'inc-a');
    const b = harness(bed, fake.systemUrl, clock, 'inc-b');
    await a.sync('full');
    await b.sync('full');
    clock.advance(10 * 60_000);
    fake.mutate([
      { op: 'update', list: 'paper', n: 1, set: { name: 'Geändert' } },
      { op: 'delete', list: 'meeting', n: 1 },
      { op: 'add', list: 'person', body: 2 },
    ]);
    clock.advance(60_000);
    const whole = await a.sync('incremental', { runId: 'inc-whole' });
    b.fetcher.crashAfter = b.fetcher.count + 4;
    await expect(b.sync('incremental', { runId: 'inc-killed' })).rejects.toBeInstanceOf(SimulatedCrash);
    b.fetcher.crashAfter = undefined;
    const resumed = await b.sync('incremental', { runId: 'inc-killed' });
    expect(resumed.complete).toBe(true);
    expect(whole.objects).toEqual({ new: 1, modified: 1, deleted: 1 });
    expect(await snapshot(b)).toEqual(await snapshot(a));
  });

  it('a duplicated message running at the same time never interleaves: the cursor lock stops one of the two', async () => {
    const reference = harness(bed, fake.systemUrl, clock, 'dup-ref');
    await reference.sync('full');
    const h = harness(bed, fake.systemUrl, clock, 'dup');
    const results = await Promise.allSettled([
      h.sync('full', { runId: 'same-message' }),
      h.sync('full', { runId: 'same-message' }),
    ]);
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(fulfilled.length).toBeGreaterThanOrEqual(1);
    for (const r of rejected) expect((r.reason as { code?: string }).code).toBe('SYNC_CURSOR_CONFLICT');
    // Whoever lost, a redelivery finishes the run and the mirror is the uninterrupted one.
    const final = await h.sync('full', { runId: 'same-message' });
    expect(final.complete).toBe(true);
    expect(await snapshot(h)).toEqual(await snapshot(reference));
  });

  it('time budget: the run stops before its deadline with the cursor saved, reports continued, and a continuation finishes it', async () => {
    const reference = harness(bed, fake.systemUrl, new TestClock(T0), 'budget-ref');
    const uninterrupted = await reference.sync('full');

    const budgetClock = new TestClock(T0);
    const h = harness(bed, fake.systemUrl, budgetClock, 'budget');
    h.fetcher.onRequest = () => budgetClock.advance(1000);
    const first = await h.sync('full', { runId: 'budget-run', deadlineMs: T0 + 9_500 });
    expect(first).toMatchObject({ continued: true, complete: false, stopReason: 'deadline' });
    expect(first.requests).toBe(10);
    let last = first;
    let invocations = 1;
    while (last.continued) {
      last = await h.sync('full', { runId: 'budget-run', deadlineMs: budgetClock.ms + 9_500 });
      invocations += 1;
    }
    expect(invocations).toBeGreaterThan(2);
    expect(last).toMatchObject({ continued: false, complete: true });
    // Nothing fetched twice: the continuation starts at the page after the last checkpoint.
    expect(last.requests).toBe(uninterrupted.requests);
    expect(h.fetcher.count).toBe(uninterrupted.requests);
    expect(last.objects).toEqual(uninterrupted.objects);
  });
});
