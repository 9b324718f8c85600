import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { mirrorRebuildCommand } from '../../cli/commands/mirror-rebuild';
import type { LocalRuntime } from '../../cli/local/runtime';
import { contentHash } from '../../shared/engine';
import {
  MIRROR_TYPES,
  type MirrorIndexEntry,
  MirrorRebuildPhaseError,
  type MirrorRebuildReport,
  type MirrorRecord,
  MirrorStore,
  mirrorKey,
  rebuildDecision,
} from '../../shared/mirror';
import { indexKey, indexPartition, MirrorRecords, mirrorTablePlacement } from '../../shared/store';
import { TakedownRegistry, tombstoneIds } from '../../shared/takedown';
import { type AwsTestbed, useAwsTestbed } from '../support/aws';
import { aroundItemPut } from '../support/aws-faults';
import { syncedTwoBodyCouncil } from '../support/oparl-harness';
import { takedownDepsOf } from '../support/takedown';

/**
 * Issue 28: `ingestor mirror rebuild` (shared/mirror rebuild.ts) on the local S3 and DynamoDB, the
 * deployment in phase `own` (the Mirror table holds the items alone). The state is a real one: the
 * fake council (two bodies) fully synced by the real engine, whose commits write the S3 records and the
 * Mirror items the rebuild must give back. Takedowns are the real `tombstone` (shared/takedown). Races
 * are made by a middleware on the real DynamoDB client that runs a writer just before the rebuild's
 * PutItem of one item, or reads the item just after it — fault injection around the real peer.
 */
const bed = useAwsTestbed({ MIRROR_TABLE_PHASE: 'own' });
const T0 = Date.parse('2025-03-01T08:00:00Z');
const fast = { sleep: async () => undefined };
const rtOf = (b: AwsTestbed) => ({ env: b.env, clients: b.clients }) as LocalRuntime;

/** A synced source of its own (the tables are shared by the file). */
async function seeded() {
  const { council, h } = await syncedTwoBodyCouncil(bed, 'rebuild', T0, { objectsPerList: 3, pageSize: 5 });
  await council.close();
  return h.source.sourceId;
}

/** Every Mirror item of a source, sorted by key: what the rebuild must give back. */
async function snapshot(sourceId: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (const type of MIRROR_TYPES) {
    const out = await bed.clients.doc.send(
      new QueryCommand({
        TableName: bed.env.MIRROR_TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': indexPartition(sourceId, type) },
        ConsistentRead: true,
      }),
    );
    items.push(...(out.Items ?? []));
  }
  return items.sort((a, b) => `${a.pk} ${a.sk}`.localeCompare(`${b.pk} ${b.sk}`));
}

/** The loss: every item of the source deleted from the Mirror table. */
async function empty(sourceId: string): Promise<void> {
  for (const item of await snapshot(sourceId))
    await bed.clients.doc.send(
      new DeleteCommand({ TableName: bed.env.MIRROR_TABLE, Key: { pk: item.pk, sk: item.sk } }),
    );
}

async function rebuild(
  sourceId: string,
  extra: { restart?: boolean; dryRun?: boolean; pageSize?: number } = {},
): Promise<MirrorRebuildReport & { text: string[]; exitCode: number }> {
  const { pageSize, ...values } = extra;
  const result = await mirrorRebuildCommand(
    rtOf(bed),
    { source: sourceId, rate: 1000, all: false, dryRun: false, restart: false, ...values },
    { ...fast, ...(pageSize !== undefined ? { pageSize } : {}) },
  );
  return { ...(result.json as MirrorRebuildReport), text: result.text, exitCode: result.exitCode ?? 0 };
}

const papersOf = (items: Record<string, unknown>[]) => items.filter((i) => i.type === 'paper');

/** The Mirror table's write of one item, staged by `aroundItemPut` (test/support/aws-faults.ts). */
const aroundPutOf = (
  key: { pk: string; sk: string },
  around: { before?: () => Promise<void>; after?: () => Promise<void> },
) => aroundItemPut(bed.clients.doc, bed.env.MIRROR_TABLE, key, around);

async function item(sourceId: string, type: string, id: string) {
  return (await snapshot(sourceId)).find((i) => i.pk === indexPartition(sourceId, type) && i.id === id);
}

const records = () => new MirrorRecords({ s3: bed.clients.s3, bucket: bed.env.BUCKET });
const takedownDeps = () => ({
  ...takedownDepsOf(bed),
  tables: { ...takedownDepsOf(bed).tables, mirror: mirrorTablePlacement(bed.env) },
});

describe('mirror rebuild (issue 28)', () => {
  it('after the table was emptied it gives back the items the sync wrote; a rerun writes nothing', async () => {
    const sourceId = await seeded();
    // A source's deletion (OPT-2) as the sync commits it: rebuilt deleted, never live.
    const own = new MirrorStore(bed.clients, {
      bucket: bed.env.BUCKET,
      stateTable: bed.env.STATE_TABLE,
      mirrorTable: mirrorTablePlacement(bed.env),
    });
    const paper = papersOf(await snapshot(sourceId))[0] as unknown as MirrorIndexEntry;
    const stub = { id: paper.id, type: 'https://schema.oparl.org/1.1/Paper', deleted: true };
    await own.writeTombstone(
      {
        sourceId,
        type: 'paper',
        id: paper.id,
        object: stub,
        sourceUrl: paper.id,
        fetchedAt: new Date(T0 + 3_600_000).toISOString(),
        hash: contentHash(stub),
        ...(paper.bodyId !== undefined ? { bodyId: paper.bodyId } : {}),
      },
      paper,
    );
    const before = await snapshot(sourceId);
    expect(before.length).toBeGreaterThan(20);
    expect(before.some((i) => i.o !== undefined)).toBe(true);
    // Issue 28: the copies packed — the rebuilt ones byte for byte the sync's (brotli is deterministic).
    expect(before.filter((i) => i.o !== undefined).every((i) => i.o instanceof Uint8Array)).toBe(true);
    expect(before.filter((i) => i.deleted === true)).toHaveLength(1);

    await empty(sourceId);
    expect(await snapshot(sourceId)).toEqual([]);
    const report = await rebuild(sourceId, { pageSize: 7 });
    expect(report.done).toBe(true);
    expect(report.counts).toMatchObject({ written: before.length, unreadable: 0, takenDown: 0 });
    expect(await snapshot(sourceId)).toEqual(before);

    expect((await rebuild(sourceId)).alreadyDone).toBe(true);
    const again = await rebuild(sourceId, { restart: true });
    expect(again.counts.written).toBe(0);
    expect(again.counts.present).toBe(before.length);
  }, 60_000);

  it('OPT-5: a takedown before the rebuild is not revived — the registry is the authority, the item never live', async () => {
    const sourceId = await seeded();
    const [byTombstone, byRegistryOnly, lifted] = papersOf(
      await snapshot(sourceId),
    ) as unknown as MirrorIndexEntry[];
    if (!byTombstone || !byRegistryOnly || !lifted) throw new Error('the council has fewer than 3 papers');
    // A whole takedown (registry, item mark, S3 record an operator's tombstone).
    await tombstoneIds(takedownDeps(), [byTombstone.id, lifted.id], { by: 'test', sourceId });
    // A takedown whose `tombstone` died after its registry item: record and item still live.
    const mark = { at: new Date(T0 + 7_200_000).toISOString(), by: 'test' };
    await new TakedownRegistry(bed.clients.doc, bed.env.STATE_TABLE).record({
      sourceId,
      scope: 'object',
      id: byRegistryOnly.id,
      type: 'paper',
      mark,
    });
    // Lifted: registry item gone, the record stays an operator's tombstone until the next sync.
    const registry = new TakedownRegistry(bed.clients.doc, bed.env.STATE_TABLE);
    for (const recorded of await registry.find(sourceId, [{ scope: 'object', id: lifted.id }])) {
      await registry.remove(recorded);
    }
    const markedBefore = await item(sourceId, 'paper', byTombstone.id);
    expect(markedBefore?.takedown).toBeDefined();
    // `tombstone` takes down what the paper embeds (its files) too: every item marked now stays so.
    const marked = (await snapshot(sourceId)).filter((i) => i.takedown !== undefined && i.id !== lifted.id);

    await empty(sourceId);
    const seen: (Record<string, unknown> | undefined)[] = [];
    const remove = aroundPutOf(indexKey(sourceId, 'paper', byRegistryOnly.id), {
      after: async () => {
        seen.push(await item(sourceId, 'paper', byRegistryOnly.id));
      },
    });
    let report: Awaited<ReturnType<typeof rebuild>>;
    try {
      report = await rebuild(sourceId);
    } finally {
      remove();
    }
    // Those marked before, the one the registry alone knew and what it embeds (covered with it).
    const after = await snapshot(sourceId);
    expect(report.counts.takenDown).toBe(after.filter((i) => i.takedown !== undefined).length);
    expect(report.counts.takenDown).toBeGreaterThan(marked.length);
    for (const was of marked) expect(after.find((i) => i.sk === was.sk && i.pk === was.pk)).toEqual(was);
    // Written marked: at no moment live.
    expect(seen[0]).toMatchObject({ deleted: true, takedown: mark });
    expect(seen[0]?.o).toBeUndefined();
    const record = await records().readKey<MirrorRecord>(mirrorKey(sourceId, 'paper', byRegistryOnly.id));
    expect(record?.meta).toMatchObject({ deleted: true, takedown: mark });
    // The lifted one: deleted as the lift left it, without a mark, so the next sync may commit it.
    const liftedItem = await item(sourceId, 'paper', lifted.id);
    expect(liftedItem).toMatchObject({ deleted: true });
    expect(liftedItem?.takedown).toBeUndefined();
  }, 60_000);

  it('OPT-5: a takedown during the rebuild (after the page was read, before the write) is not revived', async () => {
    const sourceId = await seeded();
    const [paper] = papersOf(await snapshot(sourceId)) as unknown as MirrorIndexEntry[];
    if (!paper) throw new Error('no paper');
    await empty(sourceId);
    const remove = aroundPutOf(indexKey(sourceId, 'paper', paper.id), {
      // `tombstone` while the rebuild holds the page: its registry item, then its lookup finds no item.
      before: async () => {
        await tombstoneIds(takedownDeps(), [paper.id], { by: 'test', sourceId });
      },
    });
    let report: Awaited<ReturnType<typeof rebuild>>;
    try {
      report = await rebuild(sourceId);
    } finally {
      remove();
    }
    // The paper and what it embeds (`tombstone` records its files too).
    expect(report.counts.sealed).toBeGreaterThanOrEqual(1);
    expect(await item(sourceId, 'paper', paper.id)).toMatchObject({
      deleted: true,
      takedown: { by: 'test' },
    });
    const record = await records().readKey<MirrorRecord>(mirrorKey(sourceId, 'paper', paper.id));
    expect(record?.meta).toMatchObject({ deleted: true, takedown: { by: 'test' } });
  }, 60_000);

  it('never over a newer commit: a sync committing during the rebuild keeps its item', async () => {
    const sourceId = await seeded();
    const [paper] = papersOf(await snapshot(sourceId)) as unknown as MirrorIndexEntry[];
    if (!paper) throw new Error('no paper');
    await empty(sourceId);
    const own = new MirrorStore(bed.clients, {
      bucket: bed.env.BUCKET,
      stateTable: bed.env.STATE_TABLE,
      mirrorTable: mirrorTablePlacement(bed.env),
    });
    const newer = { id: paper.id, type: 'https://schema.oparl.org/1.1/Paper', name: 'geändert' };
    const later = new Date(T0 + 86_400_000).toISOString();
    const remove = aroundPutOf(indexKey(sourceId, 'paper', paper.id), {
      before: async () => {
        await own.writeLive({
          sourceId,
          type: 'paper',
          id: paper.id,
          object: newer,
          sourceUrl: paper.id,
          fetchedAt: later,
          hash: contentHash(newer),
          ...(paper.bodyId !== undefined ? { bodyId: paper.bodyId } : {}),
        });
      },
    });
    let report: Awaited<ReturnType<typeof rebuild>>;
    try {
      report = await rebuild(sourceId);
    } finally {
      remove();
    }
    // The record read before the sync's commit is the older one; the sync's item stays.
    expect(report.counts.newer + report.counts.present).toBeGreaterThanOrEqual(1);
    expect(await item(sourceId, 'paper', paper.id)).toMatchObject({
      fetchedAt: later,
      hash: contentHash(newer),
    });
  }, 60_000);

  it('a crash mid-way, then a rerun continues after the last page and gives back the rest', async () => {
    const sourceId = await seeded();
    const before = await snapshot(sourceId);
    await empty(sourceId);
    let puts = 0;
    const name = 'rebuild-crash';
    bed.clients.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { TableName?: string };
        if (/PutItem/.test(context.commandName ?? '') && input.TableName === bed.env.MIRROR_TABLE) {
          puts += 1;
          if (puts === 12) throw new Error('crash: the process died mid-rebuild');
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await expect(rebuild(sourceId, { pageSize: 5 })).rejects.toThrow('crash');
    } finally {
      bed.clients.doc.middlewareStack.remove(name);
    }
    const listed: number[] = [];
    const rerun = await countingLists(listed, () => rebuild(sourceId, { pageSize: 5 }));
    expect(rerun.done).toBe(true);
    const whole = await countingLists(listed, () => rebuild(sourceId, { pageSize: 5, restart: true }));
    expect(whole.counts.written).toBe(0);
    // The rerun began at the last checkpoint, not at the first record.
    expect(listed[0]).toBeLessThan(listed[1] as number);
    expect(await snapshot(sourceId)).toEqual(before);
  }, 60_000);

  it('a restart that dies on its first page is continued by a plain rerun, not reported done', async () => {
    const sourceId = await seeded();
    const before = await snapshot(sourceId);
    expect((await rebuild(sourceId)).done).toBe(true);
    await empty(sourceId);
    const first = before[0] as { pk: string; sk: string };
    const remove = aroundPutOf(first, {
      before: async () => {
        throw new Error('crash: the process died before the rebuild write');
      },
    });
    try {
      await expect(rebuild(sourceId, { restart: true })).rejects.toThrow('crash');
    } finally {
      remove();
    }
    const rerun = await rebuild(sourceId);
    expect(rerun.alreadyDone).toBe(false);
    expect(await snapshot(sourceId)).toEqual(before);
  }, 60_000);

  it('a corrupt record is named with a clear error and costs nothing else', async () => {
    const sourceId = await seeded();
    const before = await snapshot(sourceId);
    const [broken, misplaced] = papersOf(before);
    if (!broken || !misplaced) throw new Error('no papers');
    const put = (key: string, body: string) =>
      bed.clients.s3.send(new PutObjectCommand({ Bucket: bed.env.BUCKET, Key: key, Body: body }));
    await put(String(broken.key), '{"object": {"id": "trunc');
    // A record under another object's key (its meta names the first paper).
    const first = await records().readKey<MirrorRecord>(String(misplaced.key));
    await put(mirrorKey(sourceId, 'paper', 'https://elsewhere.test/paper/9'), JSON.stringify(first));
    await empty(sourceId);
    const report = await rebuild(sourceId);
    expect(report.counts.unreadable).toBe(2);
    expect(report.exitCode).toBe(1);
    expect(report.unreadable.join('\n')).toContain(String(broken.key));
    expect(report.unreadable.join('\n')).toContain('its meta names');
    expect(report.counts.written).toBe(before.length - 1);
    const after = await snapshot(sourceId);
    expect(after).toEqual(before.filter((i) => i.key !== broken.key));
  }, 60_000);

  it('a dry run writes nothing; the rebuild refuses a phase other than own', async () => {
    const sourceId = await seeded();
    const before = await snapshot(sourceId);
    await empty(sourceId);
    const dry = await rebuild(sourceId, { dryRun: true });
    expect(dry.counts.written).toBe(before.length);
    expect(await snapshot(sourceId)).toEqual([]);
    const dual = { env: { ...bed.env, MIRROR_TABLE_PHASE: 'dual' as const }, clients: bed.clients };
    await expect(
      mirrorRebuildCommand(
        dual as LocalRuntime,
        { source: sourceId, rate: 1000, all: false, dryRun: false, restart: false },
        fast,
      ),
    ).rejects.toThrow(MirrorRebuildPhaseError);
  }, 60_000);
});

describe('mirror rebuild, decided (pure)', () => {
  const held = (fields: Record<string, unknown>) => ({ pk: 'p', sk: 's', deleted: false, ...fields });
  it('rebuildDecision: nothing or older is written; same is present; newer stays; a mark is never overwritten', () => {
    const at = (s: number) => new Date(T0 + s * 1000).toISOString();
    const plain = (s: number) => ({ fetchedAt: at(s), marked: false });
    expect(rebuildDecision(plain(2), undefined)).toBe('write');
    expect(rebuildDecision(plain(2), held({ fetchedAt: at(1) }))).toBe('write');
    expect(rebuildDecision(plain(2), held({ fetchedAt: at(2) }))).toBe('present');
    expect(rebuildDecision(plain(2), held({ fetchedAt: at(3) }))).toBe('newer');
    expect(rebuildDecision(plain(2), held({ fetchedAt: at(1), takedown: { at: at(1) } }))).toBe('marked');
    expect(rebuildDecision({ fetchedAt: at(2), marked: true }, held({ fetchedAt: at(3) }))).toBe('mark');
  });
});

/** Runs `run`, appending how many ListObjects pages it read. */
async function countingLists<T>(out: number[], run: () => Promise<T>): Promise<T> {
  let pages = 0;
  const name = 'rebuild-list-pages';
  bed.clients.s3.middlewareStack.add(
    (next, context) => async (args) => {
      if (/ListObjects/.test(context.commandName ?? '')) pages += 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return await run();
  } finally {
    bed.clients.s3.middlewareStack.remove(name);
    out.push(pages);
  }
}
