import type { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { FakeCouncil } from '../../demo';
import { LIST_INDEX } from '../../shared/store';
import { putSourceItem } from '../../shared/store/sources';
import { tombstoneIds } from '../../shared/takedown';
import { useAwsTestbed } from '../support/aws';
import { councilOnClock, type Harness, harness, SimulatedCrash } from '../support/oparl-harness';
import { takedownDepsOf } from '../support/takedown';
import { countCalls, countIndexKeysRead, countWrites } from '../support/write-counter';

const T0 = Date.parse('2026-11-30T03:00:00+01:00');
const NIGHT = 86_400_000;

/**
 * Issue 28: a full sync reads one digest per list (id hash → version, S3) instead of one index item
 * per object. Real local peers (dynalite, s3rver) through counting middleware on the real SDK clients
 * (test/support/write-counter.ts): index lookups are the State table's BatchGets.
 */
describe('issue 28: full syncs with a per-list digest', () => {
  const bed = useAwsTestbed();
  const withCouncil = councilOnClock(T0, { bodies: 1, objectsPerList: 12, pageSize: 4 });

  /** Index lookups (BatchGet on the State table) and `byList` Queries the sync makes while `fn` runs. */
  async function counted<T>(fn: () => Promise<T>) {
    const calls = countCalls(bed.clients.dynamo);
    const writes = countWrites(bed.clients.dynamo);
    const puts = countS3Puts(bed.clients.s3);
    const index = countIndexKeysRead(bed.clients.dynamo);
    const result = await fn();
    const all = calls.calls();
    return {
      result,
      lookups: all.filter((c) => c.command.startsWith('BatchGet')).length,
      indexItemsAsked: index.keys(),
      indexTypesAsked: index.types(),
      staleQueries: all.filter((c) => c.command === 'Query' && c.index === LIST_INDEX).length,
      mirrorWrites: writes.families().batch ?? 0,
      indexWrites: Object.entries(writes.families())
        .filter(([family]) => /^[0-9a-f]{40}$/.test(family))
        .reduce((s, [, n]) => s + n, 0),
      digestPuts: puts.keys().filter((k) => k.startsWith('digest/')).length,
    };
  }

  const nightly = (h: Harness, runId?: string) => {
    h.clock.advance(NIGHT);
    return h.sync('full', runId ? { runId } : {});
  };

  const paperName = async (h: Harness, fake: FakeCouncil, n: number) => {
    const id = String(fake.objects('paper')[n - 1]?.id);
    const record = await h.mirror.readLive(h.source.sourceId, 'paper', id);
    return (record?.object as { name?: string } | undefined)?.name;
  };

  it('FULL-1: an unchanged nightly full sync reads 0 index items (without the digest: one BatchGet per page) and writes nothing', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'digest-unchanged');
      const first = await counted(() => h.sync('full'));
      expect(first.result.complete).toBe(true);
      expect(first.indexItemsAsked).toBeGreaterThan(0);
      expect(first.digestPuts).toBeGreaterThan(0);

      const unchanged = await counted(() => nightly(h));
      expect(unchanged.result).toMatchObject({ complete: true, changed: false });
      // What is left is the body list's page (every run's, not a list's: the system, the body and the
      // legislative terms it embeds), none of the lists' pages.
      expect(listItemsAsked(unchanged.indexTypesAsked, fake)).toEqual([]);
      expect(unchanged.indexWrites).toBe(0);
      // Nothing learnt: no digest written again.
      expect(unchanged.digestPuts).toBe(0);
      expect(unchanged.staleQueries).toBeGreaterThan(0);

      // The same run without the digest (the code before issue 28) looks every page up.
      const before = harness(bed, fake.systemUrl, clock, 'digest-off');
      await before.sync('full');
      before.deps.listDigests = false;
      const off = await counted(() => nightly(before));
      expect(off.result.requests).toBe(unchanged.result.requests);
      expect(listItemsAsked(off.indexTypesAsked, fake).length).toBeGreaterThan(100);
    });
  }, 120_000);

  it('FULL-1: a changed and a new object are found and written; the rest of the list is not read', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'digest-changed');
      await h.sync('full');
      await nightly(h);
      fake.mutate([
        { op: 'update', list: 'paper', n: 7, set: { name: 'Geändert in der Nacht' } },
        { op: 'add', list: 'paper', set: { name: 'Neu in der Nacht' } },
      ]);
      const changed = await counted(() => nightly(h));
      expect(changed.result.objects.modified).toBeGreaterThanOrEqual(1);
      expect(changed.result.objects.new).toBeGreaterThanOrEqual(1);
      expect(await paperName(h, fake, 7)).toBe('Geändert in der Nacht');
      // Only the pages holding the changed and the new paper were looked up (of 3 + 1 paper pages).
      // The body list's page, and of the lists' pages the two holding the changed and the new paper.
      expect(changed.lookups).toBe(2 + 2);
      // Of those pages only the two papers the digest does not know: no other object of theirs.
      expect(listItemsAsked(changed.indexTypesAsked, fake)).toEqual(['paper', 'paper']);
      // And learnt: the next night reads nothing again.
      const after = await counted(() => nightly(h));
      expect(listItemsAsked(after.indexTypesAsked, fake)).toEqual([]);
    });
  }, 120_000);

  it('a commit after the digest was written (an incremental sync by day) is never hidden by it: a change back is written', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'digest-stale');
      await h.sync('full');
      await nightly(h);
      const original = await paperName(h, fake, 2);
      clock.advance(NIGHT / 2);
      fake.mutate([{ op: 'update', list: 'paper', n: 2, set: { name: 'Tagsüber geändert' } }]);
      clock.advance(60_000);
      const day = await h.sync('incremental');
      expect(day.objects.modified).toBeGreaterThanOrEqual(1);
      expect(await paperName(h, fake, 2)).toBe('Tagsüber geändert');
      // Back to the version the digest recorded: only the basis Query tells it is stale.
      fake.mutate([{ op: 'update', list: 'paper', n: 2, set: { name: original } }]);
      const night = await nightly(h);
      expect(night.objects.modified).toBeGreaterThanOrEqual(1);
      expect(await paperName(h, fake, 2)).toBe(original);
    });
  }, 120_000);

  it('OPT-2: a deleted object listed as a stub becomes a tombstone through a full sync with the digest', async () => {
    await withCouncil({ listDeleted: 'always' }, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'digest-deleted');
      await h.sync('full');
      await nightly(h);
      const [id] = fake.mutate([{ op: 'delete', list: 'paper', n: 5 }]);
      const night = await nightly(h);
      expect(night.objects.deleted).toBeGreaterThanOrEqual(1);
      const entry = (await h.mirror.lookup(h.source.sourceId, [{ type: 'paper', id: String(id) }])).get(
        `paper\n${id}`,
      );
      expect(entry?.deleted).toBe(true);
      expect(await h.mirror.readLive(h.source.sourceId, 'paper', String(id))).toBeUndefined();
      // The stub again: unchanged, read from the digest.
      const again = await counted(() => nightly(h));
      expect(again.result.objects.deleted).toBe(0);
      expect(listItemsAsked(again.indexTypesAsked, fake)).toEqual([]);
    });
  }, 120_000);

  it('a run killed between pages resumes right, and a change it committed before the kill is not hidden by the old digest', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'digest-crash');
      await h.sync('full');
      await nightly(h);
      const original = await paperName(h, fake, 1);
      fake.mutate([{ op: 'update', list: 'paper', n: 1, set: { name: 'Vor dem Absturz' } }]);
      clock.advance(NIGHT);
      // Killed at the second paper page: the first (with paper 1) is committed, the digest not written.
      const paperPage2 = fake.listUrl('paper');
      let pages = 0;
      h.fetcher.onRequest = (url) => {
        if (url.startsWith(paperPage2)) pages += 1;
        if (pages === 2) h.fetcher.crashAfter = 0;
      };
      await expect(h.sync('full', { runId: 'killed' })).rejects.toBeInstanceOf(SimulatedCrash);
      expect(await paperName(h, fake, 1)).toBe('Vor dem Absturz');
      h.fetcher.onRequest = undefined;
      delete h.fetcher.crashAfter;
      const resumed = await h.sync('full', { runId: 'killed' });
      expect(resumed.complete).toBe(true);
      // Paper 1 back to the version the old digest holds: the killed run's commit is found, it is written.
      fake.mutate([{ op: 'update', list: 'paper', n: 1, set: { name: original } }]);
      const night = await nightly(h);
      expect(night.objects.modified).toBeGreaterThanOrEqual(1);
      expect(await paperName(h, fake, 1)).toBe(original);
    });
  }, 120_000);

  it('duplicate delivery does nothing twice: the same run again fetches, reads and writes nothing', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'digest-dup');
      await h.sync('full');
      fake.mutate([{ op: 'update', list: 'paper', n: 3, set: { name: 'Einmal' } }]);
      const first = await nightly(h, 'night-2');
      expect(first.objects.modified).toBeGreaterThanOrEqual(1);
      const requests = h.fetcher.count;
      const again = await counted(() => h.sync('full', { runId: 'night-2' }));
      expect(again.result.objects).toEqual(first.objects);
      expect(h.fetcher.count).toBe(requests);
      expect(again.indexItemsAsked).toBe(0);
      expect(again.indexWrites).toBe(0);
      expect(again.digestPuts).toBe(0);
    });
  }, 120_000);

  it('OPT-5: a takedown stays down through full syncs with the digest — the object unchanged at the source, or changed', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock, 'digest-takedown');
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId: h.source.sourceId,
        systemUrl: fake.systemUrl,
        active: true,
      });
      await h.sync('full');
      await nightly(h);
      const id = String(fake.objects('paper')[5]?.id);
      await tombstoneIds(takedownDepsOf(bed), [id], { by: 'test', sourceId: h.source.sourceId });
      expect(await h.mirror.readLive(h.source.sourceId, 'paper', id)).toBeUndefined();
      // The digest still names the live version the source still publishes.
      const same = await nightly(h);
      expect(same.complete).toBe(true);
      expect(await h.mirror.readLive(h.source.sourceId, 'paper', id)).toBeUndefined();
      fake.mutate([{ op: 'update', list: 'paper', n: 6, set: { name: 'Nach der Sperre geändert' } }]);
      const changed = await nightly(h);
      expect(changed.complete).toBe(true);
      expect(await h.mirror.readLive(h.source.sourceId, 'paper', id)).toBeUndefined();
      const entry = (await h.mirror.lookup(h.source.sourceId, [{ type: 'paper', id }])).get(`paper\n${id}`);
      expect(entry).toMatchObject({ deleted: true });
      expect(entry?.takedown).toBeDefined();
    });
  }, 120_000);
});

/**
 * The types of the index items asked for lists' pages: all asked but the body list page's (the system,
 * the body and the legislative terms the body embeds — every run reads those).
 */
function listItemsAsked(types: readonly string[], fake: FakeCouncil): string[] {
  const embeddedInBody = fake.objects('legislativeTerm').length;
  let terms = 0;
  return types.filter((t) => {
    if (t === 'system' || t === 'body') return false;
    if (t === 'legislativeterm' && terms < embeddedInBody) {
      terms += 1;
      return false;
    }
    return true;
  });
}

/** S3 keys written (PutObject) through the client from now on. */
function countS3Puts(s3: S3Client): { keys(): string[] } {
  const keys: string[] = [];
  const name = `countS3Puts-${Math.random()}`;
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutObjectCommand') keys.push(String((args.input as { Key?: string }).Key));
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { keys: () => [...keys] };
}
