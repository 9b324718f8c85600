import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoItemBytes } from '../../bench/cost/item-size';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { CHECKPOINT_MAX_UNSAVED_REQUESTS, MARK_REFRESH_MS, SyncStateStore } from '../../shared/engine';
import { CHANGE_WINDOW_MARGIN_MS } from '../../shared/oparl/constants';
import type { SyncCursor } from '../../shared/oparl/cursor';
import { formatFilterTime } from '../../shared/oparl/windows';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { harness, SimulatedCrash, TestClock } from '../support/oparl-harness';
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

  it('an unchanged incremental sync writes its cursor once, its list reports riding in it: 1 item (was 57; issue 28: no body mark, no RUNLIST item)', async () => {
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
    expect(counted).toEqual({ CURSOR: 1 });
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

/**
 * Issue 28: what an unchanged run writes carries new information only. The body's SCH-9 start rides in
 * the incremental cursor (written at the run's end anyway) and reaches the `BODY#` item once a day; the
 * list reports are one deflated item. Real local DynamoDB, the loopback fake council; the crash is the
 * harness port refusing the next request (an instance killed mid-run).
 */
describe('issue 28: an unchanged run writes no body mark, and the SCH-9 window still moves', () => {
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

  /** The `modified_since` of the lists a run asked (the body list asks none). */
  const windowsAsked = (urls: string[]) =>
    new Set(
      urls.map((u) => new URL(u).searchParams.get('modified_since')).filter((s): s is string => s !== null),
    );
  const windowOf = (startedAt: string) => formatFilterTime(Date.parse(startedAt) - CHANGE_WINDOW_MARGIN_MS);

  it('SCH-9: the window starts at the last complete run though its body item was not written; a crashed run in between loses nothing; a day later the body item moves', async () => {
    const h = harness(bed, fake.systemUrl, clock, 'sch9-carry');
    const state = new SyncStateStore(bed.clients, bed.env.STATE_TABLE, h.source.sourceId);
    const full = await h.sync('full');
    const [body] = await state.getBodies();
    expect(body?.lastCompleteSyncStart).toBe(full.startedAt);

    clock.advance(10 * 60_000);
    writes.reset();
    const a = await h.sync('incremental');
    expect(a.complete).toBe(true);
    // (a) No body item written: its start rides in the cursor.
    expect(writes.families().BODY).toBeUndefined();
    expect((await state.getBody(body!.bodyKey))?.lastCompleteSyncStart).toBe(full.startedAt);
    const cursorA = await state.getCursor<SyncCursor>('incremental');
    expect(cursorA?.bodiesComplete).toEqual({ at: a.startedAt, bodyKeys: [body!.bodyKey] });

    // (b) The next run asks from run A's start (minus the margin), not from the body item's older one.
    clock.advance(10 * 60_000);
    h.fetcher.urls.length = 0;
    writes.reset();
    const b = await h.sync('incremental');
    expect(writes.families()).toEqual({ CURSOR: 1 });
    expect(windowsAsked(h.fetcher.urls)).toEqual(new Set([windowOf(a.startedAt)]));

    // A run killed after a few requests (nothing saved: its pages changed nothing) and its message
    // delivered again: the redelivery still asks from run B's start — the carried start survived.
    clock.advance(10 * 60_000);
    h.fetcher.crashAfter = h.fetcher.count + 3;
    await expect(h.sync('incremental', { runId: 'crashy' })).rejects.toBeInstanceOf(SimulatedCrash);
    h.fetcher.crashAfter = undefined;
    clock.advance(60_000);
    h.fetcher.urls.length = 0;
    const d = await h.sync('incremental', { runId: 'crashy' });
    expect(d.complete).toBe(true);
    expect(windowsAsked(h.fetcher.urls)).toEqual(new Set([windowOf(b.startedAt)]));

    // (c) Once the body item's start is a day old, the run writes it (and carries nothing).
    clock.advance(MARK_REFRESH_MS);
    writes.reset();
    const e = await h.sync('incremental');
    // Two body writes that day: its daily `lastSeenAt` refresh (the body list) and the SCH-9 start.
    expect(writes.families().BODY).toBe(2);
    expect((await state.getBody(body!.bodyKey))?.lastCompleteSyncStart).toBe(e.startedAt);
    expect((await state.getCursor<SyncCursor>('incremental'))?.bodiesComplete).toBeUndefined();
    clock.advance(10 * 60_000);
    h.fetcher.urls.length = 0;
    await h.sync('incremental');
    expect(windowsAsked(h.fetcher.urls)).toEqual(new Set([windowOf(e.startedAt)]));
  });

  it('a run that does not complete the body hands the carried start to the body item before its cursor forgets it', async () => {
    const h = harness(bed, fake.systemUrl, clock, 'sch9-handover');
    const state = new SyncStateStore(bed.clients, bed.env.STATE_TABLE, h.source.sourceId);
    await h.sync('full');
    clock.advance(10 * 60_000);
    const a = await h.sync('incremental');
    const [body] = await state.getBodies();
    expect((await state.getCursor<SyncCursor>('incremental'))?.bodiesComplete?.at).toBe(a.startedAt);
    // The council's paper list answers 500 once: the run ends, the body is not complete this time.
    clock.advance(10 * 60_000);
    const fault = fake.setFault('/oparl/v1/bodies/1/paper', { kind: 'status', status: 500 }, { times: 1 });
    const b = await h.sync('incremental');
    expect(fault.hits).toBe(1);
    expect(b.complete).toBe(false);
    expect((await state.getBody(body!.bodyKey))?.lastCompleteSyncStart).toBe(a.startedAt);
    expect((await state.getCursor<SyncCursor>('incremental'))?.bodiesComplete).toBeUndefined();
  });

  it('issue 28: the list reports of an unchanged run ride in its cursor item of one write unit, and a redelivery answers with them', async () => {
    const h = harness(bed, fake.systemUrl, clock, 'packed-reports');
    await h.sync('full');
    clock.advance(10 * 60_000);
    const run = await h.sync('incremental', { runId: 'packed' });
    const items = await bed.clients.doc.send(
      new QueryCommand({
        TableName: bed.env.STATE_TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': `SOURCE#${h.source.sourceId}`, ':p': 'RUNLIST#incremental#' },
      }),
    );
    expect(items.Items).toHaveLength(0);
    const cursor = await bed.clients.doc.send(
      new QueryCommand({
        TableName: bed.env.STATE_TABLE,
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': `SOURCE#${h.source.sourceId}`, ':sk': 'CURSOR#incremental' },
      }),
    );
    // As DynamoDB sizes it: at most 1 KB is one write unit (cursor ≈ 1 KB plain and reports ≈ 0.3 KB
    // packed were two items of one unit each).
    expect(dynamoItemBytes(marshall(cursor.Items?.[0] ?? {}))).toBeLessThanOrEqual(1024);
    expect(run.lists.length).toBeGreaterThanOrEqual(10);
    const replayed = await h.sync('incremental', { runId: 'packed' });
    expect(replayed.lists).toEqual(run.lists);
  });

  it('issue 28: an unchanged run reads its own items of the source partition in one Query (was a GetItem or Query each)', async () => {
    const h = harness(bed, fake.systemUrl, clock, 'one-read');
    await h.sync('full');
    clock.advance(10 * 60_000);
    await h.sync('incremental');
    clock.advance(10 * 60_000);
    // Every read of the source's partition, by command and sort key (or key condition), on the real
    // client in front of dynalite.
    const reads: string[] = [];
    bed.clients.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as {
          Key?: Record<string, unknown>;
          KeyConditionExpression?: string;
          ExpressionAttributeValues?: Record<string, unknown>;
          RequestItems?: Record<string, { Keys?: Record<string, unknown>[] }>;
        };
        // The document client's plain values, or the low-level client's `{ S }`.
        const plain = (v: unknown) => String((v as { S?: string } | undefined)?.S ?? v ?? '');
        const keys = [
          ...(input.Key ? [input.Key] : []),
          ...Object.values(input.RequestItems ?? {}).flatMap((r) => r.Keys ?? []),
        ];
        const pks = [...keys.map((k) => plain(k.pk)), plain(input.ExpressionAttributeValues?.[':pk'])];
        const command = context.commandName ?? '';
        if (/^(Get|Query|BatchGet)/.test(command) && pks.includes(`SOURCE#${h.source.sourceId}`))
          reads.push(`${command} ${keys.map((k) => plain(k.sk)).join(',') || input.KeyConditionExpression}`);
        return next(args);
      },
      { step: 'initialize', name: 'onePartitionRead' },
    );
    try {
      const run = await h.sync('incremental');
      expect(run).toMatchObject({ complete: true, changed: false });
      expect(reads).toEqual(['QueryCommand pk = :pk AND sk BETWEEN :from AND :to']);
    } finally {
      bed.clients.dynamo.middlewareStack.remove('onePartitionRead');
    }
  });
});
