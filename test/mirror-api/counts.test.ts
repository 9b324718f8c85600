import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillListIndex, LIST_COUNT_PREFIX } from '../../shared/mirror';
import { liftTakedown, purgeDeleted, tombstoneIds } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { injectAwsFaults } from '../support/aws-faults';
import { getJson, type ServedMirror, seedServedMirror, walkList, withApi } from '../support/mirror-api';
import { takedownDepsOf } from '../support/takedown';

type Obj = Record<string, unknown>;

/**
 * Issue 16: `pagination.totalElements` / `totalPages` of the API's lists come from one counter per list
 * that the mirror store keeps at its commits — never from reading the list. After each change of the
 * mirror (sync, origin deletion, takedown, lift, purge) a fresh API instance (cold caches) must report
 * what walking the list finds: as many objects as it shows, as many pages as it walks.
 */
let bed: AwsTestbed;
let m: ServedMirror;

beforeAll(async () => {
  bed = await startAwsTestbed();
  m = await seedServedMirror(bed, 'counts', { objectsPerList: { paper: 20 }, pageSize: 10 });
}, 120_000);

afterAll(async () => {
  await m?.close();
  await bed?.stop();
});

/** The listed body's list URLs (field → URL) as a fresh API instance serves them. */
async function bodyLists(base: string): Promise<Record<string, string>> {
  const bodies = await getJson(`${base}/oparl/v1/body`);
  const body = (bodies.json.data as Obj[])[0] as Obj;
  const lists: Record<string, string> = {};
  for (const [k, v] of Object.entries(body))
    if (
      typeof v === 'string' &&
      /\/(paper|meeting|person|organization|file|agendaItem|consultation|membership|location|legislativeTerm)$/.test(
        v,
      )
    )
      lists[k] = v;
  return lists;
}

/** Per list: the counts on its first page, and what walking it found. */
async function countsAndWalks(): Promise<Record<string, { counts: unknown; walked: unknown }>> {
  return withApi(bed, async (api) => {
    const out: Record<string, { counts: unknown; walked: unknown }> = {};
    for (const [field, url] of Object.entries(await bodyLists(api.base))) {
      const first = await getJson(`${url}?limit=20`);
      const { totalElements, totalPages } = first.json.pagination as Obj;
      const walk = await walkList(`${url}?limit=20`);
      out[field] = {
        counts: { totalElements, totalPages },
        walked: { totalElements: walk.objects.length, totalPages: walk.pages },
      };
    }
    return out;
  });
}

async function expectCountsMatchWalks(): Promise<Record<string, { counts: unknown; walked: unknown }>> {
  const all = await countsAndWalks();
  expect(Object.keys(all)).toEqual(expect.arrayContaining(['paper', 'meeting', 'person', 'organization']));
  for (const [field, { counts, walked }] of Object.entries(all)) expect(counts, field).toEqual(walked);
  return all;
}

const papers = async () =>
  (await countsAndWalks()).paper?.counts as { totalElements: number; totalPages: number };

async function sync(kind: 'incremental' | 'full' = 'incremental') {
  m.clock.advance(10 * 60_000);
  const report = await m.h.sync(kind);
  expect(report.complete).toBe(true);
  return report;
}

function backfill() {
  return backfillListIndex(
    bed.clients,
    { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
    { sourceIds: [m.h.source.sourceId], ratePerSecond: 1000 },
  );
}

describe('OParl pagination counts of the API lists (issue 16)', () => {
  it('after the seed sync: every list reports what walking it finds; filtered pages report no counts', async () => {
    const all = await expectCountsMatchWalks();
    expect(all.paper?.counts).toEqual({ totalElements: 20, totalPages: 1 });
    await withApi(bed, async (api) => {
      const url = (await bodyLists(api.base)).paper as string;
      const filtered = await getJson(`${url}?modified_since=2000-01-01T00:00:00Z`);
      expect(filtered.json.pagination).toEqual({ elementsPerPage: 50, currentPage: 1 });
    });
  });

  it('a new object at the origin: one more element, and a page more once it overflows one', async () => {
    m.council.mutate({ op: 'add', list: 'paper' });
    await sync();
    await expectCountsMatchWalks();
    expect(await papers()).toEqual({ totalElements: 21, totalPages: 2 });
  });

  it('a deletion at the origin (tombstone): one element less, the same pages (the tombstone still fills a page)', async () => {
    m.council.mutate({ op: 'delete', list: 'paper', n: 1 });
    await sync();
    await expectCountsMatchWalks();
    expect(await papers()).toEqual({ totalElements: 20, totalPages: 2 });
  });

  it('an operator takedown: one element less (the marked entry stays in the list partition); a lift changes nothing until the next sync brings the object back', async () => {
    const deps = takedownDepsOf(bed);
    const shown = await withApi(bed, async (api) => walkList((await bodyLists(api.base)).paper as string));
    const id = (shown.objects[0] as Obj)['mandari:originId'] as string;
    const down = await tombstoneIds(deps, [id], { sourceId: m.h.source.sourceId, by: 'test' });
    expect(down.tombstoned.paper).toBe(1);
    await expectCountsMatchWalks();
    expect(await papers()).toEqual({ totalElements: 19, totalPages: 2 });
    await liftTakedown(deps, { ids: [id], sourceId: m.h.source.sourceId, by: 'test' }, () => {});
    await expectCountsMatchWalks();
    expect(await papers()).toEqual({ totalElements: 19, totalPages: 2 });
    await sync('full');
    await expectCountsMatchWalks();
    expect(await papers()).toEqual({ totalElements: 20, totalPages: 2 });
  });

  it('a purge: the deleted entries leave the list partition — fewer pages once they filled one, the same elements', async () => {
    const before = await countsAndWalks();
    await purgeDeleted(takedownDepsOf(bed), 'koeln', { sourceId: m.h.source.sourceId, yes: true });
    const after = await expectCountsMatchWalks();
    // The origin's deleted paper was the 21st entry: one page again.
    expect(after.paper?.counts).toEqual({ totalElements: 20, totalPages: 1 });
    // Every list lost exactly its hidden entries: the elements stay.
    for (const [field, { counts }] of Object.entries(after))
      expect((counts as Obj).totalElements, field).toBe(
        (before[field]?.counts as Obj | undefined)?.totalElements,
      );
  });

  it('a counter write lost after its commit (a crash in between): the count lags by one until backfill-index recounts it', async () => {
    // First a clean sync: the origin still lists its deleted paper's stub, but its entry was purged — a stub
    // of an object the mirror no longer holds is no change (issue 26 point 2), so no tombstone comes back.
    await sync();
    await expectCountsMatchWalks();
    const faults = injectAwsFaults(bed.clients);
    const lost = faults.fail({
      service: 'dynamodb',
      command: /UpdateItem/,
      when: (input) => JSON.stringify(input.Key ?? {}).includes(`${LIST_COUNT_PREFIX}#`),
      kind: 'server-error',
    });
    try {
      m.council.mutate({ op: 'add', list: 'paper' });
      await sync();
    } finally {
      lost.remove();
    }
    expect(lost.hits).toBeGreaterThan(0);
    const drifted = await countsAndWalks();
    expect(drifted.paper).toEqual({
      counts: { totalElements: 20, totalPages: 1 },
      walked: { totalElements: 21, totalPages: 2 },
    });
    const report = await backfill();
    expect(report.recounted).toBeGreaterThanOrEqual(1);
    await expectCountsMatchWalks();
    expect(await papers()).toEqual({ totalElements: 21, totalPages: 2 });
    // Idempotent: a second run finds every counter right.
    expect((await backfill()).recounted).toBe(0);
  });
});
