import { describe, expect, it } from 'vitest';
import type { FakeCouncil } from '../../demo';
import { type BodyRecord, SyncStateStore } from '../../shared/engine';
import { putSourceItem } from '../../shared/store/sources';
import { liftTakedown, purgeDeleted, tombstoneIds } from '../../shared/takedown';
import { useAwsTestbed } from '../support/aws';
import { councilOnClock, type Harness, harness } from '../support/oparl-harness';
import { takedownDepsOf } from '../support/takedown';
import { countIndexKeysRead, countWrites } from '../support/write-counter';

const T0 = Date.parse('2026-12-02T09:00:00+01:00');
const TEN_MINUTES = 10 * 60_000;
const NIGHT = 86_400_000;

/**
 * Issue 28: the body list's page — the body and the legislative terms it embeds — is read by every
 * run, every 10 minutes by day. Its digest (shared/oparl body-page-digest.ts, in the body's `BODY#`
 * item) lets an incremental run skip the index items of the embedded objects it decided before.
 * Real local peers (dynalite, s3rver) through counting middleware on the real SDK clients.
 */
describe('issue 28: the body page digest of incremental runs', () => {
  const bed = useAwsTestbed();
  const withCouncil = councilOnClock(T0, { bodies: 1, objectsPerList: 4, pageSize: 4 });

  async function counted<T>(fn: () => Promise<T>) {
    const index = countIndexKeysRead(bed.clients.dynamo);
    const writes = countWrites(bed.clients.dynamo);
    const result = await fn();
    return { result, types: index.types(), bodyWrites: writes.families().BODY ?? 0 };
  }

  const incremental = (h: Harness) => {
    h.clock.advance(TEN_MINUTES);
    return h.sync('incremental');
  };

  const bodyOf = async (h: Harness): Promise<BodyRecord> => {
    const [body] = await new SyncStateStore(bed.clients, bed.env.STATE_TABLE, h.source.sourceId).getBodies();
    return body as BodyRecord;
  };

  const termName = async (h: Harness, fake: FakeCouncil, n: number) => {
    const id = String(fake.objects('legislativeTerm')[n - 1]?.id);
    const record = await h.mirror.readLive(h.source.sourceId, 'legislativeterm', id);
    return (record?.object as { name?: string } | undefined)?.name;
  };

  it('an unchanged incremental run reads the body index item only, none of the terms it embeds (without the digest: all of them)', async () => {
    await withCouncil({}, async (fake, clock) => {
      const terms = fake.objects('legislativeTerm').length;
      expect(terms).toBeGreaterThan(1);
      const h = harness(bed, fake.systemUrl, clock, 'body-digest');
      await h.sync('full');
      // The full sync's term list committed the terms after the body page: news to the first run.
      await incremental(h);
      const steady = await counted(() => incremental(h));
      expect(steady.result).toMatchObject({ complete: true, changed: false });
      expect(steady.types).toEqual(['body']);
      // Nothing learnt: the digest is not written again.
      expect(steady.bodyWrites).toBe(0);

      // The same runs without digests (the code before): the body and every embedded term, each run.
      const off = harness(bed, fake.systemUrl, clock, 'body-digest-off');
      off.deps.listDigests = false;
      await off.sync('full');
      await incremental(off);
      const before = await counted(() => incremental(off));
      expect(before.result.requests).toBe(steady.result.requests);
      expect(before.types.sort()).toEqual(['body', ...new Array(terms).fill('legislativeterm')]);

      // A nightly full sync reads the page whole (trusts no digest) and, learning nothing, writes
      // none: as many BODY writes as without digests (SCH-9's completion marks).
      clock.advance(NIGHT);
      const night = await counted(() => h.sync('full'));
      const nightOff = await counted(() => off.sync('full'));
      expect(night.types.filter((t) => t === 'legislativeterm').length).toBeGreaterThanOrEqual(terms);
      expect(night.bodyWrites).toBe(nightOff.bodyWrites);
    });
  }, 120_000);

  it('a term changed at the source is written by the next incremental run, and a change back too', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'body-digest-change');
      await h.sync('full');
      await incremental(h);
      await incremental(h);
      const original = await termName(h, fake, 1);
      fake.mutate([{ op: 'update', list: 'legislativeTerm', n: 1, set: { name: 'Wahlperiode neu' } }]);
      const changed = await incremental(h);
      expect(changed.objects.modified).toBeGreaterThanOrEqual(1);
      expect(await termName(h, fake, 1)).toBe('Wahlperiode neu');
      fake.mutate([{ op: 'update', list: 'legislativeTerm', n: 1, set: { name: original } }]);
      await incremental(h);
      expect(await termName(h, fake, 1)).toBe(original);
    });
  }, 120_000);

  it('a commit of a term by another run after the digest (a tombstone through its own list) is read again, never hidden', async () => {
    await withCouncil({ listDeleted: 'always' }, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'body-digest-stale');
      await h.sync('full');
      await incremental(h);
      const id = String(fake.objects('legislativeTerm')[1]?.id);
      // Another writer's commit of an embedded term, as a deletion elsewhere would make it: the
      // digest still names the live version the body page embeds.
      const entry = (await h.mirror.lookup(h.source.sourceId, [{ type: 'legislativeterm', id }])).get(
        `legislativeterm\n${id}`,
      );
      expect(entry).toBeDefined();
      clock.advance(60_000);
      await h.mirror.writeTombstone(
        {
          sourceId: h.source.sourceId,
          type: 'legislativeterm',
          id,
          object: { id, deleted: true },
          sourceUrl: fake.bodyListUrl,
          fetchedAt: new Date(clock.ms).toISOString(),
          hash: 'tombstone',
          ...(entry?.bodyId !== undefined ? { bodyId: entry.bodyId } : {}),
        },
        entry,
      );
      expect(await h.mirror.readLive(h.source.sourceId, 'legislativeterm', id)).toBeUndefined();
      // The body page still embeds it live: decided as before the digest — the live copy written.
      const next = await counted(() => incremental(h));
      expect(next.types).toContain('legislativeterm');
      expect(await h.mirror.readLive(h.source.sourceId, 'legislativeterm', id)).toBeDefined();
    });
  }, 120_000);

  /** A source whose runs a takedown finds (the Sources item), synced to a steady body page digest. */
  async function steady(fake: FakeCouncil, clock: Harness['clock'], prefix: string): Promise<Harness> {
    const h = harness(bed, fake.systemUrl, clock, prefix);
    await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
      sourceId: h.source.sourceId,
      systemUrl: fake.systemUrl,
      active: true,
    });
    await h.sync('full');
    await incremental(h);
    await incremental(h);
    expect((await bodyOf(h)).pageDigest).toBeDefined();
    return h;
  }

  it('OPT-5: a term taken down stays down through incremental runs, and comes back when lifted', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = await steady(fake, clock, 'body-digest-takedown');
      const id = String(fake.objects('legislativeTerm')[0]?.id);
      const deps = takedownDepsOf(bed);
      await tombstoneIds(deps, [id], { by: 'test', sourceId: h.source.sourceId });
      expect(await h.mirror.readLive(h.source.sourceId, 'legislativeterm', id)).toBeUndefined();
      await incremental(h);
      await incremental(h);
      expect(await h.mirror.readLive(h.source.sourceId, 'legislativeterm', id)).toBeUndefined();
      await liftTakedown(deps, { ids: [id], by: 'test' });
      await incremental(h);
      expect(await h.mirror.readLive(h.source.sourceId, 'legislativeterm', id)).toBeDefined();
    });
  }, 120_000);

  it('OPT-3/OPT-5: taken down, purged and lifted with no run in between, a term still published comes back', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = await steady(fake, clock, 'body-digest-purge');
      const id = String(fake.objects('legislativeTerm')[0]?.id);
      const deps = takedownDepsOf(bed);
      await tombstoneIds(deps, [id], { by: 'test', sourceId: h.source.sourceId });
      // The entry's removal is no commit the digest's Query sees: the purge and the lift drop the digest.
      await purgeDeleted(deps, (await bodyOf(h)).slug, { sourceId: h.source.sourceId, yes: true });
      expect((await h.mirror.lookup(h.source.sourceId, [{ type: 'legislativeterm', id }])).size).toBe(0);
      await liftTakedown(deps, { ids: [id], by: 'test' });
      expect((await bodyOf(h)).pageDigest).toBeUndefined();
      const back = await incremental(h);
      expect(back.objects.new).toBeGreaterThanOrEqual(1);
      expect(await h.mirror.readLive(h.source.sourceId, 'legislativeterm', id)).toBeDefined();
    });
  }, 120_000);
});
