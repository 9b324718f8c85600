import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestVersion, ListDigest, listPartition, listTime, MirrorStore } from '../../shared/mirror';
import { ListDigestRepository } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';

/**
 * Issue 28: the list digests' repository against the real local peers (s3rver, dynalite), and the size
 * that decided S3 over DynamoDB items: a list of 14,000 papers, each with two files and a consultation
 * embedded (56,000 entries).
 */
describe('issue 28: ListDigestRepository', () => {
  const bed = useAwsTestbed();
  const repo = () =>
    new ListDigestRepository(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  const key = { sourceId: 'digest-size', bodyKey: 'b1', list: 'paper' };

  it('a digest of 14,000 papers with their embedded objects is one S3 object of ≈ 1.1 MB gzipped (2.2 MB JSON): more than five DynamoDB items hold (400 KB each)', async () => {
    const digest = ListDigest.empty();
    // Content hashes as the engine makes them (hex of SHA-256): they compress as random hex does.
    const hash = (n: number, i: number) => createHash('sha256').update(`${n}:${i}`).digest('hex');
    for (let n = 0; n < 14_000; n += 1) {
      digest.record('paper', `https://ris.example/paper/${n}`, digestVersion(hash(n, 0), false));
      digest.record('file', `https://ris.example/file/${n}-1`, digestVersion(hash(n, 1), true));
      digest.record('file', `https://ris.example/file/${n}-2`, digestVersion(hash(n, 2), true));
      digest.record('consultation', `https://ris.example/consultation/${n}`, digestVersion(hash(n, 3), true));
    }
    expect(digest.size).toBe(56_000);
    const data = digest.toData('stamp-1', '2026-12-01T02:00:00.000Z');
    const json = Buffer.byteLength(JSON.stringify(data));
    const stored = await repo().write(key, data);
    console.info(`digest of 56,000 entries: ${json} B JSON, ${stored} B stored (gzip)`);
    expect(json).toBeGreaterThan(5 * 400 * 1024);
    expect(stored).toBeLessThan(json);
    const back = ListDigest.open(await repo().read(key), 'stamp-1');
    expect(back).toBeInstanceOf(ListDigest);
    const opened = back as ListDigest;
    expect(opened.size).toBe(56_000);
    const paper7 = 'https://ris.example/paper/7';
    expect(opened.trusts('paper', paper7, digestVersion(hash(7, 0), false))).toBe(true);
    // Another content, or the same content embedded (other rules decide it): not known.
    expect(opened.trusts('paper', paper7, digestVersion(hash(7, 9), false))).toBe(false);
    expect(opened.trusts('paper', paper7, digestVersion(hash(7, 0), true))).toBe(false);
  });

  it('a digest is trusted only under the stamp the list mark names; none stored reads as absent', async () => {
    const digest = ListDigest.empty();
    digest.record('paper', 'https://ris.example/paper/1', 'v1');
    await repo().write({ ...key, list: 'stamped' }, digest.toData('stamp-a', '2026-12-01T02:00:00.000Z'));
    const stored = await repo().read({ ...key, list: 'stamped' });
    expect(ListDigest.open(stored, 'stamp-b')).toBe('stamp-mismatch');
    expect(ListDigest.open(stored, undefined)).toBe('stamp-mismatch');
    expect(ListDigest.open(await repo().read({ ...key, list: 'none' }), 'stamp-a')).toBe('absent');
  });

  it('committedAfter finds the index items of a list committed after a basis — a sync write and a takedown mark — by the byList index', async () => {
    const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
    const base = {
      sourceId: 'digest-commits',
      type: 'paper',
      object: { name: 'x' },
      sourceUrl: 'https://ris.example/paper',
      bodyId: 'https://ris.example/body/1',
      hash: 'h',
    };
    await mirror.writeLive({ ...base, id: 'p-old', fetchedAt: '2026-12-01T01:00:00.000Z' });
    const late = await mirror.writeLive({ ...base, id: 'p-late', fetchedAt: '2026-12-01T03:00:00.000Z' });
    const marked = await mirror.writeLive({ ...base, id: 'p-marked', fetchedAt: '2026-12-01T01:00:00.000Z' });
    await mirror.markTakenDown(marked, { at: '2026-12-01T04:00:00.000Z' });
    const lp = listPartition('digest-commits', base.bodyId, 'paper');
    const found = await repo().committedAfter([lp], listTime('2026-12-01T02:00:00.000Z'));
    expect(found.map((f) => f.pk)).toEqual(['MIRROR#digest-commits#paper', 'MIRROR#digest-commits#paper']);
    expect(found.map((f) => f.ls.slice(0, 13))).toEqual([
      listTime(late.fetchedAt),
      listTime('2026-12-01T04:00:00.000Z'),
    ]);
    // A digest decided against p-late's commit keeps it; the takedown mark is news and is forgotten.
    const digest = ListDigest.empty();
    digest.record('paper', 'p-late', 'v', late.fetchedAt);
    digest.record('paper', 'p-marked', 'v', marked.fetchedAt);
    expect(digest.forgetCommitted(found)).toBe(1);
    expect(digest.trusts('paper', 'p-late', 'v')).toBe(true);
    expect(digest.trusts('paper', 'p-marked', 'v')).toBe(false);
  });
});
