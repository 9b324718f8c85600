import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { ListReport } from '../../shared/engine';
import { CURSOR_ITEM_MAX_BYTES, OParlStateStore } from '../../shared/oparl/state';
import { SourceSyncItems } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';
import { countCalls, countWrites } from '../support/write-counter';

/**
 * Issue 28: a run reads the sync's items of its source partition in one Query (`preloadSyncState`)
 * and its list reports ride in its cursor item while that fits one write unit — against the real
 * local DynamoDB (dynalite), DynamoDB calls counted by a middleware on the test bed's real client.
 */

const bed = useAwsTestbed();
let counter = 0;
const sourceId = () => `snapshot-${++counter}`;
const ctx = () => ({ doc: bed.clients.doc, table: bed.env.STATE_TABLE });

async function putRaw(source: string, sk: string, item: Record<string, unknown>): Promise<void> {
  await bed.clients.doc.send(
    new PutCommand({ TableName: bed.env.STATE_TABLE, Item: { pk: `SOURCE#${source}`, sk, ...item } }),
  );
}

describe('issue 28: the sync items of a source partition, read once', () => {
  it('one Query serves the reads of its range; a written item is read from the table again, and so is what lies outside the range', async () => {
    const id = sourceId();
    await putRaw(id, 'BODY#b1', { name: 'Rat' });
    await putRaw(id, 'LIST#b1#paper', { list: 'paper', n: 1 });
    await putRaw(id, 'LIST#b1#meeting', { list: 'meeting', n: 2 });
    await putRaw(id, 'SESSION#b1', { m_a: '2026-12-10' });
    await putRaw(id, 'STATE', { dueAt: 'x' });
    const calls = countCalls(bed.clients.dynamo);
    const items = new SourceSyncItems(ctx(), id);
    await items.preloadSyncState();
    expect(calls.calls().map((c) => c.command)).toEqual(['Query']);
    calls.reset();
    expect(await items.get('BODY#b1')).toEqual({ name: 'Rat' });
    expect(await items.get('OPARL#SYSTEM')).toBeUndefined(); // absent in the range: known absent
    expect((await items.listPrefix<{ list: string }>('LIST#b1#')).map((i) => i.list)).toEqual([
      'meeting',
      'paper',
    ]);
    expect(await items.getMany(['SESSION#b1', 'BODY#nope'])).toEqual([{ m_a: '2026-12-10' }]);
    expect(calls.calls()).toEqual([]);
    // A read hands out a copy: changing it changes nothing the next read sees.
    ((await items.get<{ name: string }>('BODY#b1')) as { name: string }).name = 'changed';
    expect(await items.get('BODY#b1')).toEqual({ name: 'Rat' });

    // A write: the item (and a listing of its prefix) comes from the table from now on.
    await items.put('LIST#b1#paper', { list: 'paper', n: 3 });
    calls.reset();
    expect((await items.listPrefix<{ n: number }>('LIST#b1#')).map((i) => i.n)).toEqual([2, 3]);
    await items.setMeetingDay('b1', 'b', '2026-12-11');
    expect(await items.get('SESSION#b1')).toEqual({ bodyKey: 'b1', m_a: '2026-12-10', m_b: '2026-12-11' });
    // STATE sorts after the range: never served from it.
    expect(await items.get('STATE')).toEqual({ dueAt: 'x' });
    expect(calls.calls().map((c) => c.command)).toEqual(['Query', 'UpdateItem', 'GetItem', 'GetItem']);
  });

  it('without a preload every read goes to the table, as before', async () => {
    const id = sourceId();
    await putRaw(id, 'BODY#b1', { name: 'Rat' });
    const calls = countCalls(bed.clients.dynamo);
    const items = new SourceSyncItems(ctx(), id);
    expect(await items.get('BODY#b1')).toEqual({ name: 'Rat' });
    expect(await items.get('BODY#b1')).toEqual({ name: 'Rat' });
    expect(calls.calls().map((c) => c.command)).toEqual(['GetItem', 'GetItem']);
  });
});

function report(n: number, note: string): ListReport {
  return {
    body: 'rat',
    list: 'paper',
    outcome: 'done',
    pages: n,
    changed: n,
    filter: 'unknown',
    timeOfDay: false,
    note,
  };
}

describe('issue 28: a run’s list reports ride in its cursor item while it fits one write unit', () => {
  const cursor = (runId: string, seq: number) => ({
    kind: 'incremental',
    runId,
    seq,
    status: 'running',
    sourceId: 'x',
  });

  it('a few reports: one cursor item of ≤ 1 KB, no RUNLIST item; a fresh store reads them from the cursor alone', async () => {
    const id = sourceId();
    const store = new OParlStateStore(bed.clients, bed.env.STATE_TABLE, id);
    const writes = countWrites(bed.clients.dynamo);
    for (let i = 0; i < 10; i += 1) await store.putRunList('incremental', i, 'run-a', report(i, 'unchanged'));
    await store.putCursor(cursor('run-a', 1), undefined);
    expect(writes.families()).toEqual({ CURSOR: 1 });

    const fresh = new OParlStateStore(bed.clients, bed.env.STATE_TABLE, id);
    await fresh.getCursor('incremental');
    const calls = countCalls(bed.clients.dynamo);
    const reports = await fresh.getRunLists('incremental', 'run-a', 10);
    expect(reports.map((r) => r.pages)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(calls.calls()).toEqual([]);
  });

  it('reports past one write unit go to RUNLIST items first; the cursor then carries only the later ones, and all are read back in order', async () => {
    const id = sourceId();
    const store = new OParlStateStore(bed.clients, bed.env.STATE_TABLE, id);
    const writes = countWrites(bed.clients.dynamo);
    // Notes that do not compress: 40 reports cannot ride in 1 KB.
    const noisy = (i: number) => `note ${i} ${randomBytes(32).toString('base64')}`;
    for (let i = 0; i < 40; i += 1) await store.putRunList('incremental', i, 'run-b', report(i, noisy(i)));
    await store.putCursor(cursor('run-b', 1), undefined);
    expect(writes.families()).toEqual({ RUNLIST: 1, CURSOR: 1 });
    writes.reset();
    for (let i = 40; i < 43; i += 1) await store.putRunList('incremental', i, 'run-b', report(i, 'short'));
    await store.putCursor(cursor('run-b', 2), 1);
    expect(writes.families()).toEqual({ CURSOR: 1 });
    // The packed cursor with the three later reports is within one unit.
    expect(
      new SourceSyncItems(ctx(), id).packedBytes('CURSOR#incremental', {
        ...cursor('run-b', 2),
        runLists: { from: 40, reports: [40, 41, 42].map((i) => report(i, 'short')) },
      }),
    ).toBeLessThanOrEqual(CURSOR_ITEM_MAX_BYTES);

    const fresh = new OParlStateStore(bed.clients, bed.env.STATE_TABLE, id);
    await fresh.preload();
    expect(await fresh.getCursor('incremental')).toEqual(cursor('run-b', 2));
    const reports = await fresh.getRunLists('incremental', 'run-b', 43);
    expect(reports.map((r) => r.pages)).toEqual(Array.from({ length: 43 }, (_, i) => i));
  });

  it('a new run of the kind does not answer with the reports of the one before', async () => {
    const id = sourceId();
    const store = new OParlStateStore(bed.clients, bed.env.STATE_TABLE, id);
    await store.putRunList('incremental', 0, 'run-c', report(0, 'c'));
    await store.putCursor(cursor('run-c', 1), undefined);
    const next = new OParlStateStore(bed.clients, bed.env.STATE_TABLE, id);
    await next.getCursor('incremental');
    await next.putRunList('incremental', 0, 'run-d', report(7, 'd'));
    await next.putCursor(cursor('run-d', 2), 1);
    const fresh = new OParlStateStore(bed.clients, bed.env.STATE_TABLE, id);
    await fresh.getCursor('incremental');
    expect((await fresh.getRunLists('incremental', 'run-d', 1)).map((r) => r.note)).toEqual(['d']);
    expect(await fresh.getRunLists('incremental', 'run-c', 1)).toEqual([]);
  });
});
