import { CopyObjectCommand, DeleteObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiIdHash,
  backfillListIndex,
  committedAtOfListSort,
  idHash,
  indexPartition,
  legacyMirrorKey,
  listCountKey,
  listPartition,
  listSortOfHash,
  MirrorStore,
  mirrorKey,
  needsRekey,
} from '../../shared/mirror';
import { tombstoneIds } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { getJson, paperWrite, seedListedBody, walkList, withApi } from '../support/mirror-api';
import { takedownDepsOf } from '../support/takedown';

/**
 * Issue 25 point 5: the migration of an existing mirror to keyed ids, part of `ingestor backfill-index`.
 * The mirror "before" is made from one the real store wrote: each index item moved back to the unkeyed
 * hash of its id (sort key and list tie-break) and each S3 record to its unkeyed key — the layout every
 * release before this one wrote. Then the backfill moves it; the API must serve the same objects, with
 * the same counts, and a client's cursor from before goes on without skipping anything.
 */
const SOURCE = 'rekey-src';
const ORIGIN = 'https://ris-rekey.test/oparl';
const BODY = `${ORIGIN}/body/1`;
const T0 = Date.parse('2024-10-01T08:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const PAPERS = 25;
const paper = (n: number, fields: Record<string, unknown> = {}) => paperWrite(SOURCE, BODY, n, at(n), fields);

let bed: AwsTestbed;
let mirror: MirrorStore;
const fast = { ratePerSecond: 1_000_000, sleep: async () => undefined };

async function indexItems(): Promise<Record<string, unknown>[]> {
  const out = await bed.clients.doc.send(
    new QueryCommand({
      TableName: bed.env.STATE_TABLE,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': indexPartition(SOURCE, 'paper') },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

async function exists(key: string): Promise<boolean> {
  try {
    await bed.clients.s3.send(new HeadObjectCommand({ Bucket: bed.env.BUCKET, Key: key }));
    return true;
  } catch {
    return false;
  }
}

/** Moves every keyed item and record of the source's papers back to the unkeyed layout. */
async function toUnkeyedLayout(): Promise<void> {
  for (const item of await indexItems()) {
    const id = String(item.id);
    const old = idHash(id);
    const moved: Record<string, unknown> = { ...item, sk: old };
    if (typeof item.ls === 'string') moved.ls = listSortOfHash(committedAtOfListSort(item.ls), old);
    await bed.clients.doc.send(new PutCommand({ TableName: bed.env.STATE_TABLE, Item: moved }));
    await bed.clients.doc.send(
      new DeleteCommand({ TableName: bed.env.STATE_TABLE, Key: { pk: item.pk, sk: item.sk } }),
    );
    const keyed = mirrorKey(SOURCE, 'paper', id);
    if (await exists(keyed)) {
      await bed.clients.s3.send(
        new CopyObjectCommand({
          Bucket: bed.env.BUCKET,
          CopySource: `${bed.env.BUCKET}/${keyed}`,
          Key: legacyMirrorKey(SOURCE, 'paper', id),
        }),
      );
      await bed.clients.s3.send(new DeleteObjectCommand({ Bucket: bed.env.BUCKET, Key: keyed }));
    }
  }
}

async function counter(): Promise<Record<string, unknown> | undefined> {
  const out = await bed.clients.doc.send(
    new GetCommand({
      TableName: bed.env.STATE_TABLE,
      Key: listCountKey(SOURCE, listPartition(SOURCE, BODY, 'paper')),
      ConsistentRead: true,
    }),
  );
  return out.Item;
}

const names = (objects: Record<string, unknown>[]) => objects.map((o) => String(o.name)).sort();

beforeAll(async () => {
  bed = await startAwsTestbed();
  mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  await seedListedBody(bed, SOURCE, BODY, at(0));
  for (let n = 1; n <= PAPERS; n += 1)
    // Paper 7 is too large to ride inline: the API reads it from S3 by its (moved) key.
    await mirror.writeLive(paper(n, n === 7 ? { text: 'x'.repeat(5000) } : {}));
  await tombstoneIds(takedownDepsOf(bed), [paper(3).id], { by: 'test', sourceId: SOURCE });
}, 60_000);
afterAll(async () => {
  await bed?.stop();
});

describe('migration to keyed ids: ingestor backfill-index (issue 25 point 5, OPT-5)', () => {
  it('moves index items, list order and S3 records to the keyed ids; counters stay right; the API serves the same objects; old ids answer 404; a cursor from before skips nothing; idempotent', async () => {
    const listUrl = (base: string) => `${base}/oparl/v1/${SOURCE}/body/${apiIdHash(BODY)}/paper`;
    const before = await withApi(bed, async (api) => walkList(`${listUrl(api.base)}?limit=20`));
    expect(before.objects).toHaveLength(PAPERS - 1);
    const countsBefore = await counter();
    expect(countsBefore).toMatchObject({ entries: PAPERS, live: PAPERS - 1 });

    await toUnkeyedLayout();
    expect((await indexItems()).every((i) => needsRekey(i as { id: string; sk: string }))).toBe(true);
    // The cursor an API before the keyed ids issued after page 1 (20 entries): `[ls, sk, 2]`.
    const sorted = (await indexItems()).map((i) => ({ ls: String(i.ls), sk: String(i.sk) }));
    sorted.sort((a, b) => (a.ls < b.ls ? -1 : a.ls > b.ls ? 1 : 0));
    const last = sorted[19] as { ls: string; sk: string };
    const oldCursor = Buffer.from(JSON.stringify([last.ls, last.sk, 2])).toString('base64url');

    const dry = await backfillListIndex(
      bed.clients,
      { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
      { sourceIds: [SOURCE], ...fast, dryRun: true },
    );
    expect(dry.rekeyed).toBe(PAPERS);
    expect((await indexItems()).every((i) => needsRekey(i as { id: string; sk: string }))).toBe(true);

    const report = await backfillListIndex(
      bed.clients,
      { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
      { sourceIds: [SOURCE], ...fast },
    );
    expect(report).toMatchObject({ rekeyed: PAPERS, superseded: 0, raced: 0, recounted: 0 });
    const items = await indexItems();
    expect(items).toHaveLength(PAPERS);
    for (const item of items) {
      const id = String(item.id);
      expect(item.sk).toBe(apiIdHash(id));
      expect(String(item.ls).endsWith(apiIdHash(id).slice(0, 12))).toBe(true);
      // Every unkeyed record is gone; live records sit under the keyed key (the taken-down one was purged).
      expect(await exists(legacyMirrorKey(SOURCE, 'paper', id))).toBe(false);
      if (id !== paper(3).id) expect(await exists(mirrorKey(SOURCE, 'paper', id))).toBe(true);
    }
    // Counters are keyed by list, not by object: untouched and right.
    expect(await counter()).toEqual(countsBefore);

    await withApi(bed, async (api) => {
      const after = await walkList(`${listUrl(api.base)}?limit=20`);
      expect(names(after.objects)).toEqual(names(before.objects));
      // The same ids, in the same order (commit time first): a client's copies keep their URLs.
      const path = (o: Record<string, unknown>) => new URL(String(o.id)).pathname;
      expect(after.objects.map(path)).toEqual(before.objects.map(path));
      // The large paper comes from S3 by its moved key.
      const big = await getJson(`${api.base}/oparl/v1/${SOURCE}/paper/${apiIdHash(paper(7).id)}`);
      expect(big.status).toBe(200);
      expect(big.json.name).toBe('Vorlage 7');
      // Old ids answer as ids that never existed: a live paper's, and the taken-down paper's.
      for (const n of [1, 7, 3])
        expect((await fetch(`${api.base}/oparl/v1/${SOURCE}/paper/${idHash(paper(n).id)}`)).status).toBe(404);
      expect((await fetch(`${api.base}/oparl/v1/${SOURCE}/paper/${apiIdHash(paper(3).id)}`)).status).toBe(
        404,
      );
      // The client walking with a cursor from before goes on; together with its first page it has all.
      const rest = await walkList(`${listUrl(api.base)}?limit=20&cursor=${oldCursor}`);
      const firstPage = before.objects.slice(0, 19);
      expect(
        names(
          [...firstPage, ...rest.objects].filter((o, i, all) => all.findIndex((x) => x.id === o.id) === i),
        ),
      ).toEqual(names(before.objects));
    });

    const again = await backfillListIndex(
      bed.clients,
      { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
      { sourceIds: [SOURCE], ...fast },
    );
    expect(again).toMatchObject({ rekeyed: 0, superseded: 0, updated: 0, recounted: 0 });
  });

  it('an object a sync already wrote under its keyed id keeps the sync version: the old item and record are dropped, nothing is copied over it', async () => {
    await toUnkeyedLayout();
    // The sync, after the deploy and before the backfill, commits paper 5 anew under its keyed id.
    const newer = paper(5, { name: 'Vorlage 5 (neu)' });
    await mirror.writeLive({ ...newer, fetchedAt: at(500) });
    const report = await backfillListIndex(
      bed.clients,
      { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
      { sourceIds: [SOURCE], ...fast },
    );
    expect(report).toMatchObject({ rekeyed: PAPERS - 1, superseded: 1 });
    expect(await indexItems()).toHaveLength(PAPERS);
    expect((await mirror.read(SOURCE, 'paper', newer.id))?.object).toMatchObject({ name: 'Vorlage 5 (neu)' });
    expect(await exists(legacyMirrorKey(SOURCE, 'paper', newer.id))).toBe(false);
    // The sync counted its write as a new entry; the recount put the counter right.
    expect(await counter()).toMatchObject({ entries: PAPERS, live: PAPERS - 1 });
  });
});
