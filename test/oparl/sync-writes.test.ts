import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { CHECKPOINT_MAX_UNSAVED_REQUESTS, MARK_REFRESH_MS } from '../../shared/engine';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { harness, TestClock } from './support';

const T0 = Date.parse('2026-11-30T10:00:00+01:00');

/**
 * What a sync writes to DynamoDB (issue 18: an unchanged incremental sync every ten minutes was 57 write
 * units, most of them checkpoints). Measured against the real local DynamoDB (dynalite) through a
 * counting middleware on the test bed's real SDK client: every item a Put, Update, Delete or
 * BatchWrite sends, by sort-key family.
 */
describe('issue 18: the writes of an unchanged sync', () => {
  let bed: AwsTestbed;
  let fake: FakeCouncil;
  const clock = new TestClock(T0);
  let writes: string[] = [];
  beforeAll(async () => {
    bed = await startAwsTestbed();
    fake = await startFakeCouncil({ now: clock.now, bodies: 1, objectsPerList: 6, pageSize: 2 });
    bed.clients.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? '';
        const input = args.input as {
          Item?: { sk?: unknown };
          Key?: { sk?: unknown };
          RequestItems?: Record<string, unknown[]>;
        };
        if (/^(Put|Update|Delete)/.test(name)) {
          // The document client's plain values, or the low-level client's `{ S }`.
          const raw = input.Item?.sk ?? input.Key?.sk;
          const sk = String((raw as { S?: string } | undefined)?.S ?? raw ?? '');
          writes.push(sk.split('#')[0] as string);
        } else if (name.startsWith('BatchWrite')) {
          for (const list of Object.values(input.RequestItems ?? {}))
            for (const _ of list) writes.push('batch');
        }
        return next(args);
      },
      { step: 'initialize', name: 'countWrites' },
    );
  });
  afterAll(async () => {
    await fake.close();
    await bed.stop();
  });

  const families = (list: string[]) => {
    const out: Record<string, number> = {};
    for (const f of list) out[f] = (out[f] ?? 0) + 1;
    return out;
  };

  it('an unchanged incremental sync writes its cursor once, its list reports in one item and the body mark: 3 items (was 57)', async () => {
    const h = harness(bed, fake.systemUrl, clock, 'writes');
    expect((await h.sync('full')).complete).toBe(true);
    clock.advance(10 * 60_000);
    const first = await h.sync('incremental');
    clock.advance(10 * 60_000);
    writes = [];
    const unchanged = await h.sync('incremental', { runId: 'unchanged-run' });
    const counted = families(writes);
    expect(unchanged).toMatchObject({ complete: true, changed: false });
    // One body: its body list page and ten lists, one page each (fewer than the unsaved bound).
    expect(unchanged.requests).toBe(11);
    expect(unchanged.requests).toBeLessThan(CHECKPOINT_MAX_UNSAVED_REQUESTS);
    expect(counted).toEqual({ CURSOR: 1, RUNLIST: 1, BODY: 1 });
    // The reports are all there, and a redelivered message answers with the same ones (SCH-5).
    expect(unchanged.lists.map((l) => `${l.list} ${l.outcome}`)).toEqual(
      first.lists.map((l) => `${l.list} ${l.outcome}`),
    );
    writes = [];
    const replayed = await h.sync('incremental', { runId: 'unchanged-run' });
    expect(replayed.lists).toEqual(unchanged.lists);
    expect(writes).toEqual([]);
  });

  it('a change is still saved at once, and unchanged list marks are rewritten once their times are a day old', async () => {
    const h = harness(bed, fake.systemUrl, clock, 'writes-change');
    await h.sync('full');
    clock.advance(10 * 60_000);
    await h.sync('incremental');
    clock.advance(10 * 60_000);
    fake.mutate([{ op: 'update', list: 'paper', n: 1, set: { name: 'Geändert' } }]);
    clock.advance(60_000);
    writes = [];
    const changed = await h.sync('incremental');
    expect(changed.objects.modified).toBeGreaterThan(0);
    // The page with the change checkpoints at once, the end of the run again.
    expect(families(writes).CURSOR).toBeGreaterThanOrEqual(2);

    clock.advance(MARK_REFRESH_MS);
    writes = [];
    const dayLater = await h.sync('incremental');
    expect(dayLater.complete).toBe(true);
    expect(families(writes).LIST).toBe(dayLater.lists.filter((l) => l.outcome === 'done').length);
  });
});
