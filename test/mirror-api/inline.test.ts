import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiIdHash,
  INLINE_ITEM_MAX_BYTES,
  indexPartition,
  MirrorStore,
  type MirrorWrite,
} from '../../shared/mirror';
import { sealTakenDown } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { getJson, paperWrite, seedListedBody, serveApi, stopServer } from '../support/mirror-api';

/**
 * Issue 16 bench goal: a list page is one Query, and objects come from the index item itself (inline,
 * within one read unit per item — a typical paper of 2.6 KB too) instead of one S3 read each; large
 * ones still from S3.
 */
const SOURCE = 'inline-src';
const ORIGIN = 'https://ris-inline.test/oparl';
const BODY = `${ORIGIN}/body/1`;
const at = (n: number) => new Date(Date.parse('2024-06-01T08:00:00Z') + n * 1000).toISOString();

function paper(n: number, extra: Record<string, unknown> = {}): MirrorWrite {
  return paperWrite(SOURCE, BODY, n, at(n), extra);
}

let bed: AwsTestbed;
let api: Awaited<ReturnType<typeof serveApi>>;
let mirror: MirrorStore;

beforeAll(async () => {
  bed = await startAwsTestbed();
  await seedListedBody(bed, SOURCE, BODY);
  mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  for (let n = 1; n <= 29; n += 1) await mirror.writeLive(paper(n));
  // As large as the OParl specification's example paper (2.6 KB): beyond the former 1 KB bound.
  await mirror.writeLive(paper(30, { text: 'Begründung. '.repeat(200) }));
  await mirror.writeLive(paper(31, { text: 'ä'.repeat(INLINE_ITEM_MAX_BYTES) }));
  api = await serveApi(bed);
}, 60_000);
afterAll(async () => {
  await stopServer(api.server);
  await bed.stop();
});

const list = () => `${api.base}/oparl/v1/${SOURCE}/body/${apiIdHash(BODY)}/paper?limit=100`;

describe('small objects inline in the list index (issue 16)', () => {
  it('a page of small objects: one Query, no S3 read; the one too large for an item comes from S3', async () => {
    const before = { ...api.reader.consumed };
    const page = await getJson(list());
    const data = page.json.data as Record<string, unknown>[];
    expect(data).toHaveLength(31);
    expect(api.reader.consumed.queries - before.queries).toBe(1);
    expect(api.reader.consumed.objectReads - before.objectReads).toBe(1);
    expect(data[0]).toMatchObject({ name: 'Vorlage 1', 'mandari:originId': `${ORIGIN}/paper/1` });
    expect(String(data[30]?.text)).toHaveLength(INLINE_ITEM_MAX_BYTES);
  });

  it('the inline copy keeps every index item within one read unit (4 KB); by id it needs no S3 read either', async () => {
    for (const n of [1, 30, 31]) {
      const out = await bed.clients.doc.send(
        new GetCommand({
          TableName: bed.env.STATE_TABLE,
          Key: { pk: indexPartition(SOURCE, 'paper'), sk: apiIdHash(paper(n).id) },
        }),
      );
      expect(Buffer.byteLength(JSON.stringify(out.Item))).toBeLessThanOrEqual(INLINE_ITEM_MAX_BYTES);
      expect(out.Item?.o === undefined).toBe(n === 31);
      if (n === 30) expect(Buffer.byteLength(String(out.Item?.o))).toBeGreaterThan(2500);
    }
    const before = api.reader.consumed.objectReads;
    const one = await getJson(`${api.base}/oparl/v1/${SOURCE}/paper/${apiIdHash(paper(2).id)}`);
    expect(one.json).toMatchObject({ name: 'Vorlage 2' });
    expect(api.reader.consumed.objectReads).toBe(before);
  });

  it('a takedown removes the inline copy with the content (OPT-2)', async () => {
    const [entry] = (await mirror.lookup(SOURCE, [paper(3)])).values();
    if (!entry) throw new Error('no entry');
    await sealTakenDown(
      { clients: bed.clients, bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
      entry,
      { at: at(100), by: 'test' },
    );
    const out = await bed.clients.doc.send(
      new GetCommand({
        TableName: bed.env.STATE_TABLE,
        Key: { pk: indexPartition(SOURCE, 'paper'), sk: apiIdHash(paper(3).id) },
      }),
    );
    expect(out.Item?.o).toBeUndefined();
    expect(out.Item?.takedown).toBeDefined();
    const page = await getJson(list());
    expect(JSON.stringify(page.json)).not.toContain('Vorlage 3"');
  });
});
