import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillIndexCommand } from '../../cli/commands/backfill';
import {
  apiIdHash,
  backfillListIndex,
  INLINE_ITEM_MAX_BYTES,
  indexPartition,
  listCountKey,
  listPartition,
  listSort,
  MirrorStore,
  type MirrorWrite,
  mirrorKey,
  paceSlot,
} from '../../shared/mirror';
import { packInline, unpackInline } from '../../shared/store';
import { sealTakenDown } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { incompressibleText, paperWrite, seedListedBody, serveApi, walkList } from '../support/mirror-api';

/**
 * Issue 16 maintenance: index items written before the `byList` attributes (and the inline copy)
 * existed, or with the long keys of the first list index, get them from `ingestor backfill-index` — as the sync would have written them, idempotent,
 * paced, and never over a newer sync write. Old items are made by removing the attributes from items
 * the real mirror store wrote.
 */
const SOURCE = 'backfill-src';
const ORIGIN = 'https://ris-backfill.test/oparl';
const BODY = `${ORIGIN}/body/1`;
const T0 = Date.parse('2024-05-01T08:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function paper(n: number, when: string, extra: Record<string, unknown> = {}): MirrorWrite {
  return paperWrite(SOURCE, BODY, n, when, extra);
}

let bed: AwsTestbed;
let mirror: MirrorStore;

async function item(type: string, id: string, source = SOURCE): Promise<Record<string, unknown>> {
  const out = await bed.clients.doc.send(
    new GetCommand({
      TableName: bed.env.STATE_TABLE,
      Key: { pk: indexPartition(source, type), sk: apiIdHash(id) },
    }),
  );
  return out.Item ?? {};
}

/** What an item written before issue 16 looks like: no list keys, no inline copy. */
async function makeOld(type: string, id: string): Promise<void> {
  await bed.clients.doc.send(
    new UpdateCommand({
      TableName: bed.env.STATE_TABLE,
      Key: { pk: indexPartition(SOURCE, type), sk: apiIdHash(id) },
      UpdateExpression: 'REMOVE lp, ls, o',
    }),
  );
}

beforeAll(async () => {
  bed = await startAwsTestbed();
  mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  await seedListedBody(bed, SOURCE, BODY, at(0));
}, 60_000);
afterAll(async () => {
  await bed?.stop();
});

describe('backfill of the API list index (issue 16)', () => {
  it('pace: the n-th write starts n/rate seconds after the first (pure)', () => {
    expect([0, 1, 2, 3].map((n) => paceSlot(1000, n, 4))).toEqual([1000, 1250, 1500, 1750]);
  });

  it('gives old items the keys and inline copy the sync would write; deleted and taken-down ones no content; idempotent; paced', async () => {
    const small = paper(1, at(10));
    // Too large for one read unit even packed (issue 28).
    const big = paper(2, at(20), { text: incompressibleText(2 * INLINE_ITEM_MAX_BYTES) });
    const gone = paper(3, at(30));
    const down = paper(4, at(40));
    for (const w of [small, big, gone, down]) await mirror.writeLive(w);
    const before = await item('paper', small.id);
    expect(before.o).toBeDefined(); // what the sync writes today
    const [previous] = (await mirror.lookup(SOURCE, [gone])).values();
    await mirror.writeTombstone({ ...paper(3, at(50)), object: { id: gone.id, deleted: true } }, previous);
    const [downEntry] = (await mirror.lookup(SOURCE, [down])).values();
    if (!downEntry) throw new Error('no entry');
    await sealTakenDown(
      { clients: bed.clients, bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
      downEntry,
      { at: at(60), by: 'test' },
    );
    for (const w of [small, big, gone, down]) await makeOld('paper', w.id);

    let clock = T0;
    const sleeps: number[] = [];
    const run = () =>
      backfillListIndex(
        bed.clients,
        { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
        {
          sourceIds: [SOURCE],
          ratePerSecond: 2,
          now: () => clock,
          sleep: async (ms) => {
            sleeps.push(ms);
            clock += ms;
          },
        },
      );
    const report = await run();
    // The list's counter was right (the items only lost their keys): recounted, not rewritten.
    expect(report).toMatchObject({ updated: 4, inlined: 1, raced: 0, lists: 1, recounted: 0 });
    // Four writes and the list's count Query at two per second: the last starts 2 s after the first.
    expect(sleeps.reduce((a, b) => a + b, 0)).toBe(2000);

    const after = await item('paper', small.id);
    expect(after.lp).toBe(before.lp);
    expect(after.ls).toBe(before.ls);
    expect(after.o).toEqual(before.o);
    const bigItem = await item('paper', big.id);
    expect(bigItem.lp).toBe(listPartition(SOURCE, BODY, 'paper'));
    expect(bigItem.o).toBeUndefined();
    const goneItem = await item('paper', gone.id);
    expect(goneItem.ls).toBe(listSort(at(50), gone.id));
    expect(goneItem.o).toBeUndefined();
    const downItem = await item('paper', down.id);
    expect(downItem.ls).toBe(listSort(at(60), down.id));
    expect(downItem.o).toBeUndefined();

    const again = await run();
    // Only the object too large to inline is looked at again; nothing is written.
    expect(again).toMatchObject({ updated: 0, inlined: 0, raced: 0 });
  });

  it('never over a newer sync write: an object the sync rewrote meanwhile keeps the sync version', async () => {
    const first = paper(10, at(100));
    const second = paper(11, at(110));
    for (const w of [first, second]) await mirror.writeLive(w);
    for (const w of [first, second]) await makeOld('paper', w.id);
    let clock = T0;
    const report = await backfillListIndex(
      bed.clients,
      { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
      {
        sourceIds: [SOURCE],
        ratePerSecond: 1,
        now: () => clock,
        // While the backfill waits for its pace, a sync commits new versions of both objects.
        sleep: async (ms) => {
          clock += ms;
          for (const n of [10, 11]) await mirror.writeLive(paper(n, at(500), { name: `neu ${n}` }));
        },
      },
    );
    expect(report.raced).toBe(1);
    const rewritten = [await item('paper', first.id), await item('paper', second.id)];
    expect(rewritten.map((i) => i.ls).sort()).toEqual(
      [listSort(at(500), first.id), listSort(at(500), second.id)].sort(),
    );
    expect(rewritten.every((i) => JSON.stringify(unpackInline(i.o)).includes('neu'))).toBe(true);
  });

  it('items of the first list index (long keys, its counters) move to byList: listed again, the first index and its counters empty after, idempotent', async () => {
    const source = 'backfill-legacy';
    await seedListedBody(bed, source, BODY, at(0));
    const writes = [30, 31, 32].map((n) => paperWrite(source, BODY, n, at(300 + n)));
    for (const w of writes) await mirror.writeLive(w);
    const [goneEntry] = (await mirror.lookup(source, [writes[2] as MirrorWrite])).values();
    await mirror.writeTombstone(
      { ...paperWrite(source, BODY, 32, at(340)), object: { id: writes[2]?.id, deleted: true } },
      goneEntry,
    );
    // The first release's shapes: `<source>#<40-hex body hash>#<type>` and `<ISO>#<40-hex id hash>`.
    const legacyList = `${source}#${apiIdHash(BODY)}#paper`;
    for (const [i, w] of writes.entries()) {
      await bed.clients.doc.send(
        new UpdateCommand({
          TableName: bed.env.STATE_TABLE,
          Key: { pk: indexPartition(source, 'paper'), sk: apiIdHash(w.id) },
          UpdateExpression: 'REMOVE lp, ls SET apiList = :l, apiListSort = :s',
          ExpressionAttributeValues: {
            ':l': legacyList,
            ':s': `${at(i === 2 ? 340 : 300 + 30 + i)}#${apiIdHash(w.id)}`,
          },
        }),
      );
    }
    // The new list's counter without its numbers (as if edited by hand): recounted all the same.
    const newCounter = listCountKey(source, listPartition(source, BODY, 'paper'));
    await bed.clients.doc.send(
      new UpdateCommand({
        TableName: bed.env.STATE_TABLE,
        Key: newCounter,
        UpdateExpression: 'REMOVE entries, live',
      }),
    );
    await bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.STATE_TABLE,
        Item: { ...listCountKey(source, legacyList), entries: 3, live: 2 },
      }),
    );
    // The first list index is gone from the tables (issue 28): its long keys on the items are what it held.
    const legacyRows = async () =>
      (await Promise.all(writes.map((w) => item('paper', w.id, source)))).filter(
        (row) => row.apiList !== undefined || row.apiListSort !== undefined,
      );
    expect(await legacyRows()).toHaveLength(3);
    const api = await serveApi(bed);
    try {
      const list = `${api.base}/oparl/v1/${source}/body/${apiIdHash(BODY)}/paper`;
      const shown = async () => (await walkList(list)).objects.map((o) => o['mandari:originId']);
      expect(await shown()).toEqual([]);
      const run = () =>
        backfillListIndex(
          bed.clients,
          { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
          { sourceIds: [source], ratePerSecond: 1000, sleep: async () => {} },
        );
      const report = await run();
      expect(report).toMatchObject({
        updated: 3,
        moved: 3,
        inlined: 0,
        lists: 1,
        recounted: 1,
        legacyCounters: 1,
      });
      expect(await legacyRows()).toEqual([]);
      for (const [i, w] of writes.entries()) {
        const moved = await item('paper', w.id, source);
        expect(moved.apiList).toBeUndefined();
        expect(moved.apiListSort).toBeUndefined();
        expect(moved.ls).toBe(listSort(i === 2 ? at(340) : at(330 + i), w.id));
      }
      const counter = async (key: { pk: string; sk: string }) =>
        (await bed.clients.doc.send(new GetCommand({ TableName: bed.env.STATE_TABLE, Key: key }))).Item;
      expect(await counter(listCountKey(source, legacyList))).toBeUndefined();
      expect(await counter(newCounter)).toMatchObject({ entries: 3, live: 2 });
      // Shown in commit order; the tombstone only in a filtered list.
      expect(await shown()).toEqual([writes[0]?.id, writes[1]?.id]);
      expect(await run()).toMatchObject({ updated: 0, moved: 0, recounted: 0, legacyCounters: 0 });
    } finally {
      await new Promise<void>((resolve) => api.server.close(() => resolve()));
      api.server.closeAllConnections();
    }
  });

  it('ingestor backfill-index: old objects appear in the API after it; --dry-run writes nothing', async () => {
    const olds = [20, 21, 22].map((n) => paper(n, at(200 + n)));
    for (const w of olds) await mirror.writeLive(w);
    for (const w of olds) await makeOld('paper', w.id);
    const api = await serveApi(bed);
    try {
      const list = `${api.base}/oparl/v1/${SOURCE}/body/${apiIdHash(BODY)}/paper`;
      const shown = async () => (await walkList(list)).objects.map((o) => o['mandari:originId']);
      expect(await shown()).not.toContain(olds[0]?.id);
      const rt = { env: bed.env, clients: bed.clients, dataDir: '.', close: async () => {} };
      const noSleep = { sleep: async () => {} };
      const dry = await backfillIndexCommand(rt, { dryRun: true, rate: 1000 }, noSleep);
      expect(dry.json).toMatchObject({ updated: 3, dryRun: true });
      expect(await shown()).not.toContain(olds[0]?.id);
      const real = await backfillIndexCommand(rt, { source: SOURCE, dryRun: false, rate: 1000 }, noSleep);
      expect(real.json).toMatchObject({ updated: 3, inlined: 3 });
      expect(real.text.join('\n')).toContain('updated 3');
      expect(await shown()).toEqual(expect.arrayContaining(olds.map((w) => w.id)));
      await expect(backfillIndexCommand(rt, { dryRun: false, rate: 0 })).rejects.toThrow(/--rate/);
    } finally {
      await new Promise<void>((resolve) => api.server.close(() => resolve()));
      api.server.closeAllConnections();
    }
  });
  it('issue 28: a plain inline copy written before is packed from its own text (no S3 read); idempotent', async () => {
    const source = 'backfill-legacy';
    const w = paperWrite(source, BODY, 1, at(300), { reference: 'VO/1' });
    await mirror.writeLive(w);
    const key = { pk: indexPartition(source, 'paper'), sk: apiIdHash(w.id) };
    // As written before issue 28: the object's JSON as a plain string.
    await bed.clients.doc.send(
      new UpdateCommand({
        TableName: bed.env.STATE_TABLE,
        Key: key,
        UpdateExpression: 'SET o = :o',
        ExpressionAttributeValues: { ':o': JSON.stringify(w.object) },
      }),
    );
    // Its S3 record gone: the copy must come from the item itself.
    await bed.clients.s3.send(
      new DeleteObjectCommand({ Bucket: bed.env.BUCKET, Key: mirrorKey(source, 'paper', w.id) }),
    );
    const run = () =>
      backfillListIndex(
        bed.clients,
        { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
        { sourceIds: [source], ratePerSecond: 1000, sleep: async () => {} },
      );
    expect(await run()).toMatchObject({ updated: 1, inlined: 1, raced: 0 });
    const packed = await item('paper', w.id, source);
    expect(packed.o).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(packed.o as Uint8Array)).toEqual(Buffer.from(packInline(w.object)));
    expect(await run()).toMatchObject({ updated: 0, inlined: 0 });
  });
});
