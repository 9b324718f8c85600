import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { LIST_KEYS } from '../../demo';
import type { SyncReport } from '../../shared/engine';
import { purgeDeleted, tombstoneBody, tombstoneIds } from '../../shared/takedown';
import { storeDigest } from '../support/store-snapshot';
import { liveEntries, seededTestbed } from '../support/takedown';

/**
 * The takedown files seed each test from a snapshot of one fresh seed (`seededTestbed`,
 * test/support/takedown.ts): this proves that a restored seed is the fresh one — the same stored
 * items and objects (bodies, metadata, tags), the same council, fetcher and request log — whatever the
 * test before it changed, and that a sync on it ends where a sync on the fresh seed ends.
 */

const t = seededTestbed();

/** What the first test saw right after its fresh seed, and after one full sync on it. */
let fresh:
  | {
      digest: string;
      sourceId: string;
      source: unknown;
      council: unknown;
      paths: string[];
      fetched: { count: number; urls: string[] };
      clockMs: number;
      synced: { digest: string; report: SyncReport };
    }
  | undefined;

function councilObjects(council: { objects(list: (typeof LIST_KEYS)[number], o: object): unknown[] }) {
  return [1, 2].flatMap((body) =>
    LIST_KEYS.map((list) => council.objects(list, { body, includeDeleted: true })),
  );
}

describe('a seed restored from the snapshot equals a fresh seed', { timeout: 90_000 }, () => {
  it('the first seed syncs afresh; then everything changes (takedown, purge, council edits, stray items and objects)', async () => {
    const { s } = await t.seed('snap-fresh');
    const { digest, items, objects } = await storeDigest(t.bed);
    expect(items).toBeGreaterThan(100);
    expect(objects).toBeGreaterThan(50);
    const before = {
      digest,
      sourceId: s.sourceId,
      source: structuredClone(s.h.source),
      council: councilObjects(s.council),
      paths: s.council.requests.map((r) => `${r.method} ${r.path}`),
      fetched: { count: s.h.fetcher.count, urls: [...s.h.fetcher.urls] },
      clockMs: s.h.clock.ms,
    };
    const report = await s.h.sync('full', { runId: 'snapshot-check' });
    fresh = {
      ...before,
      synced: { digest: (await storeDigest(t.bed)).digest, report },
    };

    // The other body's paper taken down and kept: its record rewritten with takedown metadata and tags.
    const other = s.bodies.find((b) => b.slug !== 'koeln');
    const paper = (await liveEntries(s.h, other?.id)).find((e) => e.type === 'paper');
    if (!paper) throw new Error('no paper');
    await tombstoneIds(s.deps, [paper.id], { by: 'test', sourceId: s.sourceId });
    await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    await purgeDeleted(s.deps, 'koeln', { sourceId: s.sourceId, yes: true });
    s.council.mutate([
      { op: 'update', body: 2, list: 'paper', n: 1, set: { name: 'Geändert' } },
      { op: 'add', body: 2, list: 'paper', set: { name: 'Neu' } },
    ]);
    await s.h.sync('full');
    await t.bed.clients.doc.send(
      new PutCommand({ TableName: t.bed.env.SOURCES_TABLE, Item: { sourceId: 'stray', active: false } }),
    );
    await t.bed.clients.s3.send(
      new PutObjectCommand({ Bucket: t.bed.env.BUCKET, Key: 'stray/object.json', Body: '{}' }),
    );
    expect((await storeDigest(t.bed)).digest).not.toBe(digest);
  });

  it('the next seed is restored: the same items, objects, source, council, fetcher, request log and clock — and a full sync on it ends in the same state with the same report', async () => {
    if (!fresh) throw new Error('the first test did not run');
    const { s } = await t.seed('snap-restored');
    expect((await storeDigest(t.bed)).digest).toBe(fresh.digest);
    expect(s.sourceId).toBe(fresh.sourceId);
    expect(s.h.source).toEqual(fresh.source);
    expect(councilObjects(s.council)).toEqual(fresh.council);
    expect(s.council.requests.map((r) => `${r.method} ${r.path}`)).toEqual(fresh.paths);
    expect({ count: s.h.fetcher.count, urls: s.h.fetcher.urls }).toEqual(fresh.fetched);
    expect(s.h.clock.ms).toBe(fresh.clockMs);

    const report = await s.h.sync('full', { runId: 'snapshot-check' });
    expect(report).toEqual(fresh.synced.report);
    expect((await storeDigest(t.bed)).digest).toBe(fresh.synced.digest);
  });

  it('a second seed within one test syncs a source of its own and leaves the first in place', async () => {
    if (!fresh) throw new Error('the first test did not run');
    const { s: first } = await t.seed('snap-one');
    const { s: second } = await t.seed('snap-two');
    expect(second.sourceId).not.toBe(first.sourceId);
    expect(second.council.port).not.toBe(first.council.port);
    // The first seed's council still answers and its stored mirror is still there.
    expect((await fetch(first.council.systemUrl)).status).toBe(200);
    expect(await first.h.mirror.readLive(first.sourceId, 'body', first.bodies[0]?.id ?? '')).toBeDefined();
  });
});
