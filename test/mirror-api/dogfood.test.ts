import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIRROR_TYPES } from '../../shared/mirror';
import { listBodies, setBodyListed } from '../../shared/onboarding';
import { LIST_CATALOGUE } from '../../shared/oparl/constants';
import { putSourceItem } from '../../shared/store/sources';
import { harness } from '../oparl/support';
import { scraperHarness } from '../scraper/support';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { corpusDescribe, oparlSchema, risHtml } from '../support/corpora';
import { type FakeRisHtml, startFakeRisHtml } from '../support/fake-ris-html';
import { oparlValidator } from '../support/oparl-validator';
import { liveEntries } from '../takedown/support';
import { getJson, type ServedMirror, seedServedMirror, walkList } from './support';

const HOUR = 60 * 60_000;
/** Types reached through a body's lists (the System and the Body itself are compared apart). */
const OBJECT_TYPES = MIRROR_TYPES.filter((t) => t !== 'system' && t !== 'body');

describe('dogfood: the ingestor mirrors its own mirror through the API (issue 16)', () => {
  let bed: AwsTestbed;
  let a: ServedMirror;

  beforeAll(async () => {
    bed = await startAwsTestbed();
    a = await seedServedMirror(bed, 'dog-a');
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await bed?.stop();
  });

  it("B's sync of A's System URL holds the same objects per type, same content apart from rewritten URLs; B's unchanged incremental costs one page per list", async () => {
    // Instance B: the real OParl engine, its own source id, reading A's API as if it were a council.
    a.clock.advance(3 * HOUR);
    const b = harness(bed, a.systemUrl, a.clock, 'dog-b');
    const full = await b.sync('full');
    expect(full.failures).toEqual([]);
    expect(full.complete).toBe(true);

    const aBodies = await listBodies(bed.clients.doc, a.tables, a.h.source.sourceId);
    const listed = aBodies.find((r) => r.listed);
    const aLive = await liveEntries(a.h, listed?.id);
    const bLive = await liveEntries(b);
    const count = (entries: { type: string }[]) =>
      Object.fromEntries(OBJECT_TYPES.map((t) => [t, entries.filter((e) => e.type === t).length]));
    expect(count(bLive)).toEqual(count(aLive));
    expect(count(bLive).paper).toBe(45);

    // Same content: B's copy of each object is what A served for it (A's URLs are B's origin ids).
    const byOrigin = new Map(aLive.map((e) => [`${e.type} ${e.id}`, e]));
    for (const entry of bLive.filter((e) => e.type === 'paper' || e.type === 'meeting')) {
      const record = await b.mirror.read(b.source.sourceId, entry.type, entry.id);
      const copy = record?.object as Record<string, unknown>;
      expect(byOrigin.has(`${entry.type} ${copy['mandari:originId']}`)).toBe(true);
      const served = await getJson(entry.id);
      expect(copy).toEqual(served.json);
      const original = await a.h.mirror.read(
        a.h.source.sourceId,
        entry.type,
        copy['mandari:originId'] as string,
      );
      expect(copy.name).toBe((original?.object as Record<string, unknown> | undefined)?.name);
    }

    // Unchanged incremental: A honours modified_since, so every list answers one page.
    a.clock.advance(HOUR);
    const before = b.fetcher.urls.length;
    const incremental = await b.sync('incremental');
    expect(incremental.complete).toBe(true);
    expect(incremental.changed).toBe(false);
    const urls = b.fetcher.urls.slice(before);
    const listUrls = urls.filter((u) => /\/body\/[0-9a-f]{40}\/[A-Za-z]+(\?|$)/.test(u));
    const lists = LIST_CATALOGUE.filter((l) =>
      listUrls.some((u) => new URL(u).pathname.endsWith(`/${l.list}`)),
    );
    expect(lists.length).toBeGreaterThanOrEqual(4);
    expect(listUrls).toHaveLength(lists.length);
    expect(listUrls.every((u) => new URL(u).searchParams.has('modified_since'))).toBe(true);
  }, 120_000);
});

corpusDescribe(risHtml())('a scraped ALLRIS source read through the API (issue 16)', () => {
  let bed: AwsTestbed;
  let site: FakeRisHtml;
  let close: () => Promise<void> = async () => {};

  beforeAll(async () => {
    [bed, site] = await Promise.all([startAwsTestbed(), startFakeRisHtml()]);
  }, 60_000);

  afterAll(async () => {
    await close();
    await Promise.all([bed?.stop(), site?.close()]);
  });

  it.skipIf(!oparlSchema().present)(
    'validates as OParl 1.1: body, every list page and every object',
    async () => {
      const h = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'allris-api' });
      close = () => h.close();
      const report = await h.scrape();
      expect(report.complete).toBe(true);
      const tables = {
        sources: bed.env.SOURCES_TABLE,
        state: bed.env.STATE_TABLE,
        documents: bed.env.DOCUMENTS_TABLE,
      };
      await putSourceItem(bed.clients.doc, tables.sources, {
        sourceId: h.source.sourceId,
        systemUrl: h.source.systemUrl,
        kind: 'scraper',
        adapter: 'allris',
      });
      const [row] = await listBodies(bed.clients.doc, tables, h.source.sourceId);
      await setBodyListed(bed.clients.doc, tables, row?.slug ?? '', true, {
        sourceId: h.source.sourceId,
        by: 'test',
      });

      const { serveApi } = await import('./support');
      const api = await serveApi(bed);
      const prior = close;
      close = async () => {
        await prior();
        await new Promise<void>((resolve) => api.server.close(() => resolve()));
        api.server.closeAllConnections();
      };
      const v = oparlValidator();
      const system = await getJson(`${api.base}/oparl/v1/system`);
      const bodies = await getJson(system.json.body as string);
      const problems = [...v.object(system.json), ...v.listPage(bodies.json, 'bodies')];
      const body = (bodies.json.data as Record<string, unknown>[])[0] as Record<string, unknown>;
      expect(body['mandari:source']).toBe(h.source.sourceId);
      let objects = 0;
      for (const l of LIST_CATALOGUE.filter((x) => typeof body[x.bodyField] === 'string')) {
        const { objects: data } = await walkList(body[l.bodyField] as string);
        problems.push(...v.listPage({ data, links: {} }, l.list));
        objects += data.length;
        for (const o of data.slice(0, 5))
          problems.push(...v.object((await getJson(o.id as string)).json, `${l.list} by id`));
      }
      expect(objects).toBeGreaterThan(5);
      expect(problems.slice(0, 20)).toEqual([]);
    },
    120_000,
  );
});
