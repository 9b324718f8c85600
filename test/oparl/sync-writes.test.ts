import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { CHECKPOINT_MAX_UNSAVED_REQUESTS, MARK_REFRESH_MS } from '../../shared/engine';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { harness, TestClock } from '../support/oparl-harness';
import { countWrites } from '../support/write-counter';

const T0 = Date.parse('2026-11-30T10:00:00+01:00');

/**
 * What a sync writes to DynamoDB (issue 18: an unchanged incremental sync every ten minutes was 57 write
 * units, most of them checkpoints). Measured against the real local DynamoDB (dynalite) through a
 * counting middleware on the test bed's real SDK client (test/support/write-counter.ts).
 */
describe('issue 18: the writes of an unchanged sync', () => {
  let bed: AwsTestbed;
  let fake: FakeCouncil;
  const clock = new TestClock(T0);
  let writes: ReturnType<typeof countWrites>;
  beforeAll(async () => {
    bed = await startAwsTestbed();
    fake = await startFakeCouncil({ now: clock.now, bodies: 1, objectsPerList: 6, pageSize: 2 });
    writes = countWrites(bed.clients.dynamo);
  });
  afterAll(async () => {
    await fake.close();
    await bed.stop();
  });

  it('an unchanged incremental sync writes its cursor once, its list reports in one item and the body mark: 3 items (was 57)', async () => {
    const h = harness(bed, fake.systemUrl, clock, 'writes');
    writes.reset();
    const full = await h.sync('full');
    expect(full.complete).toBe(true);
    // Issue 16: the first sync pays one counter ADD per new object of a body's list (the API's
    // `pagination` counts); the body object and objects of no body are in no list.
    const fullWrites = writes.families();
    expect(fullWrites.APILISTCOUNT).toBeGreaterThan(0);
    expect(fullWrites.APILISTCOUNT).toBeLessThan(full.objects.new);
    clock.advance(10 * 60_000);
    const first = await h.sync('incremental');
    clock.advance(10 * 60_000);
    writes.reset();
    const unchanged = await h.sync('incremental', { runId: 'unchanged-run' });
    const counted = writes.families();
    expect(unchanged).toMatchObject({ complete: true, changed: false });
    // One body: its body list page and ten lists, one page each (fewer than the unsaved bound).
    expect(unchanged.requests).toBe(11);
    expect(unchanged.requests).toBeLessThan(CHECKPOINT_MAX_UNSAVED_REQUESTS);
    expect(counted).toEqual({ CURSOR: 1, RUNLIST: 1, BODY: 1 });
    // The reports are all there, and a redelivered message answers with the same ones (SCH-5).
    expect(unchanged.lists.map((l) => `${l.list} ${l.outcome}`)).toEqual(
      first.lists.map((l) => `${l.list} ${l.outcome}`),
    );
    writes.reset();
    const replayed = await h.sync('incremental', { runId: 'unchanged-run' });
    expect(replayed.lists).toEqual(unchanged.lists);
    expect(writes.total()).toBe(0);
  });

  it('a change is still saved at once, and unchanged list marks are rewritten once their times are a day old', async () => {
    const h = harness(bed, fake.systemUrl, clock, 'writes-change');
    await h.sync('full');
    clock.advance(10 * 60_000);
    await h.sync('incremental');
    clock.advance(10 * 60_000);
    fake.mutate([{ op: 'update', list: 'paper', n: 1, set: { name: 'Geändert' } }]);
    clock.advance(60_000);
    writes.reset();
    const changed = await h.sync('incremental');
    expect(changed.objects.modified).toBeGreaterThan(0);
    // A modified live object changes no count: no counter write (issue 16).
    expect(writes.families().APILISTCOUNT).toBeUndefined();
    // The page with the change checkpoints at once, the end of the run again.
    expect(writes.families().CURSOR).toBeGreaterThanOrEqual(2);

    clock.advance(MARK_REFRESH_MS);
    writes.reset();
    const dayLater = await h.sync('incremental');
    expect(dayLater.complete).toBe(true);
    expect(writes.families().LIST).toBe(dayLater.lists.filter((l) => l.outcome === 'done').length);
  });
});
