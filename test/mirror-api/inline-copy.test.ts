import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord, LIST_CATALOGUE } from '../../shared/engine';
import { MirrorStore } from '../../shared/mirror';
import { mirrorItemTables, mirrorTablePlacement, unpackInline } from '../../shared/store';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import {
  mirrorObjectItems,
  type ServedMirror,
  seedServedMirror,
  serveApi,
  stopServer,
} from '../support/mirror-api';

/**
 * Issue 28: the inline copies are stored packed, and the API's answers do not change by a byte — for
 * the demo council synced by the real engine, every answer a client walks to (system, body list,
 * bodies, every page of every list, every object by id) is the same with the copies packed (as the sync
 * writes them now), plain (as written before: a legacy item), or corrupt (the API serves the S3 record
 * instead: nothing lost, nothing guessed).
 */
let bed: AwsTestbed;
let m: ServedMirror;
let table: string;

beforeAll(async () => {
  bed = await startAwsTestbed();
  m = await seedServedMirror(bed, 'inline-copy');
  table = mirrorItemTables(bed.env.STATE_TABLE, mirrorTablePlacement(bed.env)).read;
}, 120_000);
afterAll(async () => {
  await m?.close();
  await bed?.stop();
});

/** Every inline copy rewritten by `to` (a raw Put: the item as another writer would leave it). */
async function rewriteCopies(to: (copy: unknown) => unknown): Promise<number> {
  let n = 0;
  for (const item of await mirrorObjectItems(bed)) {
    if (item.o === undefined) continue;
    await bed.clients.doc.send(new PutCommand({ TableName: table, Item: { ...item, o: to(item.o) } }));
    n += 1;
  }
  return n;
}

/**
 * Every answer a client reaches from the system, by URL, as the raw body text — with a fresh API
 * (its caches empty; its base URL written `BASE`) — and the S3 reads that took.
 */
async function walk(): Promise<{ answers: Map<string, string>; s3Reads: number }> {
  const api = await serveApi(bed);
  const answers = new Map<string, string>();
  const get = async (url: string): Promise<Record<string, unknown>> => {
    const res = await fetch(url);
    const text = await res.text();
    expect(res.status, url).toBe(200);
    // Each walk's API listens on its own port: its base URL is the one difference allowed.
    answers.set(url.replace(api.base, 'BASE'), text.replaceAll(api.base, 'BASE'));
    return JSON.parse(text) as Record<string, unknown>;
  };
  try {
    const system = await get(`${api.base}/oparl/v1/system`);
    const objects: string[] = [];
    let next: string | undefined = String(system.body);
    while (next !== undefined) {
      const page = await get(next);
      for (const body of page.data as Record<string, unknown>[]) {
        objects.push(String(body.id));
        for (const { bodyField } of LIST_CATALOGUE) {
          let list = typeof body[bodyField] === 'string' ? (body[bodyField] as string) : undefined;
          while (list !== undefined) {
            const listPage = await get(list);
            for (const o of listPage.data as unknown[]) if (isRecord(o)) objects.push(String(o.id));
            list = (listPage.links as { next?: string } | undefined)?.next;
          }
        }
      }
      next = (page.links as { next?: string } | undefined)?.next;
    }
    for (const url of objects) await get(url);
    return { answers, s3Reads: api.reader.consumed.objectReads };
  } finally {
    await stopServer(api.server);
  }
}

describe('inline copies packed: the API answers byte-identical (issue 28)', () => {
  it('packed, plain (legacy) and corrupt copies give the same answers; a corrupt one is served from S3 and kept', async () => {
    const items = await mirrorObjectItems(bed);
    const inline = items.filter((i) => i.o !== undefined);
    expect(inline.length).toBeGreaterThan(50);
    // As the sync writes them now: packed, each the object S3 holds.
    const records = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
    for (const item of inline) {
      expect(item.o).toBeInstanceOf(Uint8Array);
      expect(unpackInline(item.o)).toEqual((await records.readKey(String(item.key)))?.object);
    }
    const packed = await walk();
    expect(packed.answers.size).toBeGreaterThan(100);
    // Bodies and list pages from the index items alone.
    expect(packed.s3Reads).toBe(0);

    // Written before issue 28: the plain JSON text.
    expect(await rewriteCopies((copy) => JSON.stringify(unpackInline(copy)))).toBe(inline.length);
    const plain = await walk();
    expect(plain.s3Reads).toBe(0);
    expect([...plain.answers]).toEqual([...packed.answers]);

    // Hostile: bytes that are no brotli stream. Every copy read falls back to its S3 record.
    expect(await rewriteCopies(() => Uint8Array.from([0xde, 0xad, 0xbe, 0xef]))).toBe(inline.length);
    const corrupt = await walk();
    expect(corrupt.s3Reads).toBeGreaterThanOrEqual(inline.length);
    expect([...corrupt.answers]).toEqual([...packed.answers]);
    // Nothing lost: the items (the corrupt copy included) are as they were; the next commit rewrites it.
    expect((await mirrorObjectItems(bed)).length).toBe(items.length);
  }, 180_000);
});
