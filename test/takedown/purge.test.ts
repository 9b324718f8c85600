import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { mirrorKey } from '../../shared/mirror';
import {
  awsPurgeStore,
  type PurgeStore,
  purgeDeleted,
  tombstoneBody,
  tombstoneIds,
} from '../../shared/takedown';
import type { AwsTestbed } from '../support/aws';
import { documentsOf, indexEntries, liveEntries, seededTestbed } from '../support/takedown';

async function exists(bed: AwsTestbed, key: string): Promise<boolean> {
  try {
    await bed.clients.s3.send(new HeadObjectCommand({ Bucket: bed.env.BUCKET, Key: key }));
    return true;
  } catch {
    return false;
  }
}

/** A store that fails like a killed process after `n` deletions (of any kind). */
function interruptAfter(inner: PurgeStore, n: number): PurgeStore & { deletions: number } {
  const wrapped = {
    ...inner,
    deletions: 0,
  } as PurgeStore & { deletions: number };
  const guard =
    <A extends unknown[]>(fn: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      if (wrapped.deletions >= n) throw new Error('simulated crash during purge');
      wrapped.deletions += 1;
      await fn(...args);
    };
  wrapped.deleteKey = guard(inner.deleteKey);
  wrapped.deleteDocument = guard(inner.deleteDocument);
  wrapped.deleteMirrorRecord = guard(inner.deleteMirrorRecord);
  wrapped.deleteIndexEntry = guard(inner.deleteIndexEntry);
  return wrapped;
}

describe('purge-deleted (OPT-3): preview, then physical deletion on request', () => {
  const t = seededTestbed();

  it('OPT-3: the preview deletes nothing and equals exactly what --yes removes — copies and texts included', async () => {
    const { s } = await t.seed('purge');
    const koeln = s.bodies.find((b) => b.slug === 'koeln');
    const other = s.bodies.find((b) => b.slug !== 'koeln');
    const otherLive = await liveEntries(s.h, other?.id);
    await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    const tombstones = await indexEntries(s.h, koeln?.id);
    const docs = await documentsOf(t.bed, s.sourceId, koeln?.id);

    const preview = await purgeDeleted(s.deps, 'koeln', { yes: false, sourceId: s.sourceId });
    // Nothing went.
    expect(await indexEntries(s.h, koeln?.id)).toHaveLength(tombstones.length);
    for (const key of s.copies) expect(await exists(t.bed, key)).toBe(true);

    const byType: Record<string, number> = {};
    for (const e of tombstones) byType[e.type] = (byType[e.type] ?? 0) + 1;
    expect(preview).toMatchObject({ body: 'koeln', dryRun: true, documents: docs.length });
    expect(preview.counts).toMatchObject({
      ...byType,
      files: s.copies.length / 2,
      texts: s.copies.length / 2,
    });

    const done = await purgeDeleted(s.deps, 'koeln', { yes: true, sourceId: s.sourceId });
    expect(done.dryRun).toBe(false);
    expect(done.counts).toEqual(preview.counts);
    expect(done.documents).toBe(preview.documents);

    // All of it is gone: index entries, mirror records, copies, texts, document records …
    expect(await indexEntries(s.h, koeln?.id)).toEqual([]);
    for (const e of tombstones) expect(await exists(t.bed, mirrorKey(s.sourceId, e.type, e.id))).toBe(false);
    for (const key of s.copies) expect(await exists(t.bed, key)).toBe(false);
    expect(await documentsOf(t.bed, s.sourceId, koeln?.id)).toEqual([]);
    // … the other body is untouched, and a new preview finds nothing.
    expect(await liveEntries(s.h, other?.id)).toHaveLength(otherLive.length);
    const after = await purgeDeleted(s.deps, 'koeln', { yes: false, sourceId: s.sourceId });
    expect(Object.values(after.counts).every((n) => n === 0)).toBe(true);
  });

  it('OPT-3: an interrupted purge finishes on the next run (children first, index entries last)', async () => {
    const { s } = await t.seed('purgecrash');
    const koeln = s.bodies.find((b) => b.slug === 'koeln');
    await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    const preview = await purgeDeleted(s.deps, 'koeln', { yes: false, sourceId: s.sourceId });

    const crashing = interruptAfter(awsPurgeStore(s.deps), 7);
    await expect(
      purgeDeleted(s.deps, 'koeln', { yes: true, store: crashing, sourceId: s.sourceId }),
    ).rejects.toThrow('simulated crash during purge');
    expect(crashing.deletions).toBe(7);
    // Part done: the body itself (deleted last) is still there, so the slug still leads to the rest.
    const left = await indexEntries(s.h, koeln?.id);
    expect(left.length).toBeGreaterThan(0);
    expect(left.some((e) => e.type === 'body')).toBe(true);

    const rerun = await purgeDeleted(s.deps, 'koeln', { yes: true, sourceId: s.sourceId });
    expect(rerun.counts.body).toBe(1);
    expect(rerun.counts.file).toBeLessThanOrEqual(preview.counts.file ?? 0);
    expect(await indexEntries(s.h, koeln?.id)).toEqual([]);
    for (const key of s.copies) expect(await exists(t.bed, key)).toBe(false);
    expect(await documentsOf(t.bed, s.sourceId, koeln?.id)).toEqual([]);
  });

  it('OPT-3: only objects marked deleted go — a single tombstoned paper and its files, nothing live', async () => {
    const { s } = await t.seed('purgeone');
    const koeln = s.bodies.find((b) => b.slug === 'koeln');
    const live = await liveEntries(s.h, koeln?.id);
    const paper = live.find((e) => e.type === 'paper');
    const result = await tombstoneIds(s.deps, [paper?.id ?? ''], { by: 'test', sourceId: s.sourceId });
    const tombstoned = Object.values(result.tombstoned).reduce((a, b) => a + b, 0);

    const done = await purgeDeleted(s.deps, 'koeln', { yes: true, sourceId: s.sourceId });

    const removed = Object.entries(done.counts)
      .filter(([k]) => k !== 'files' && k !== 'texts')
      .reduce((a, [, n]) => a + n, 0);
    expect(removed).toBe(tombstoned);
    expect(await liveEntries(s.h, koeln?.id)).toHaveLength(live.length - tombstoned);
    expect(await indexEntries(s.h, koeln?.id)).toHaveLength(live.length - tombstoned);
  });

  it('a slug used by two sources needs --source (slugs are unique per source)', async () => {
    // A second seed within the test: a source of its own next to the first, both with a body koeln.
    const { s: one } = await t.seed('purge-slug-one');
    const { s: two } = await t.seed('purge-slug-two');
    expect(two.sourceId).not.toBe(one.sourceId);
    await expect(purgeDeleted(one.deps, 'koeln', { yes: false })).rejects.toMatchObject({
      code: 'BODY_AMBIGUOUS',
    });
  });
});
