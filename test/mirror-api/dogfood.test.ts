import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentId, fileUrl, isRecord, LIST_CATALOGUE } from '../../shared/engine';
import { apiIdHash, MIRROR_TYPES } from '../../shared/mirror';
import { ORIGIN_MODIFIED_PROPERTY, typeOfUrl, VENDOR_PREFIX } from '../../shared/mirror-api';
import { listBodies, setBodyListed } from '../../shared/onboarding';
import { putSourceItem } from '../../shared/store/sources';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { corpusDescribe, oparlSchema, risHtml } from '../support/corpora';
import { type FakeRisHtml, startFakeRisHtml } from '../support/fake-ris-html';
import { getJson, type ServedMirror, seedServedMirror, walkList } from '../support/mirror-api';
import { harness } from '../support/oparl-harness';
import { oparlValidator } from '../support/oparl-validator';
import { scraperHarness } from '../support/scraper-harness';
import { liveEntries } from '../support/takedown';

const HOUR = 60 * 60_000;
/** Types reached through a body's lists (the System and the Body itself are compared apart). */
const OBJECT_TYPES = MIRROR_TYPES.filter((t) => t !== 'system' && t !== 'body');

/** URL-valued properties the API keeps as received (not references): compared verbatim. */
const KEPT_URLS = new Set(['web', 'license']);
/** Lists the API drops (docs/mirror-api.md “What is rewritten”), per type. */
const DROPPED_LISTS: Record<string, string[]> = { organization: ['meeting', 'consultation'] };

/**
 * The content of an object as the API must carry it, either side of the API: every URL reduced to what
 * it names and the API's own additions removed, so that what A served (`served`) and what the council
 * gave A (`origin`) compare equal exactly when no content field was lost or changed.
 * - An API URL → the id hash of the object it names (`obj:<hash>`), a document URL → its document id
 *   (`doc:<id>`, its download link `download:<id>`), a list URL → its body hash and list; on the origin
 *   side a council URL in a reference → the hash of that id, a file's `accessUrl` → the id of its one
 *   stored document (of `accessUrl`, else `downloadUrl`: docs/mirror-api.md) and its `downloadUrl` → the
 *   download of that document. A council URL left in a served reference is kept as it is — and then
 *   differs.
 * - `mandari:*` vendor properties are dropped; a served object's `modified` is our commit time, so
 *   the origin's (`mandari:originModified`) stands in for it (embedded objects keep the origin's).
 * - `type` → the type's name (1.0 and 1.1 origins alike); lists the API drops are dropped at the origin,
 *   a body's lists and System are the API's (`list:<body hash>:<list>`, `system`).
 */
function servedContent(
  value: unknown,
  apiBase: string,
  councilOrigin: string,
  side: 'served' | 'origin',
  key = '',
  top = true,
): unknown {
  if (Array.isArray(value))
    return value.map((v) => servedContent(v, apiBase, councilOrigin, side, key, false));
  if (typeof value === 'string') return urlToken(value, apiBase, councilOrigin, side, key);
  if (!isRecord(value)) return value;
  const type = typeOfUrl(value.type) ?? String(value.type);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith(VENDOR_PREFIX) || (side === 'origin' && DROPPED_LISTS[type]?.includes(k))) continue;
    out[k] = k === 'type' ? type : servedContent(v, apiBase, councilOrigin, side, k, false);
  }
  if (side === 'origin' && type === 'body' && typeof value.id === 'string') {
    // A body's list URLs and its System: the API's own (and only the lists it serves are shown).
    for (const l of LIST_CATALOGUE)
      if (typeof out[l.bodyField] === 'string') out[l.bodyField] = `list:${apiIdHash(value.id)}:${l.list}`;
    if (out.system !== undefined) out.system = 'system';
  }
  const file = side === 'origin' && type === 'file' ? fileUrl(value) : undefined;
  if (file !== undefined) {
    // Both point to the one stored document of the file's URL (accessUrl, else downloadUrl): shown, and
    // as a download.
    out.accessUrl = `doc:${documentId(file)}`;
    if (out.downloadUrl !== undefined) out.downloadUrl = `download:${documentId(file)}`;
  }
  if (side === 'served' && top) {
    const originModified = value[ORIGIN_MODIFIED_PROPERTY];
    if (typeof originModified === 'string') out.modified = originModified;
    else delete out.modified;
  }
  return out;
}

function urlToken(s: string, apiBase: string, councilOrigin: string, side: string, key: string): string {
  if (s.startsWith(`${apiBase}/`)) {
    const path = s.slice(apiBase.length);
    const doc = /^\/documents\/([0-9a-f]{64})$/.exec(path);
    if (doc) return `doc:${doc[1]}`;
    const download = /^\/documents\/([0-9a-f]{64})\?download=1$/.exec(path);
    if (download) return `download:${download[1]}`;
    const list = /^\/oparl\/v1\/[^/]+\/body\/([0-9a-f]{40})\/([A-Za-z]+)$/.exec(path);
    if (list) return `list:${list[1]}:${list[2]}`;
    const object = /^\/oparl\/v1\/[^/]+\/[a-z]+\/([0-9a-f]{40})$/.exec(path);
    if (object) return `obj:${object[1]}`;
    return path === '/oparl/v1/system' ? 'system' : s;
  }
  if (side !== 'origin' || KEPT_URLS.has(key) || !URL.canParse(s) || new URL(s).origin !== councilOrigin)
    return s;
  return `obj:${apiIdHash(s)}`;
}

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

    // Same content, every type: B's copy of each object is exactly what A served for it, and that is
    // A's original (what the council gave A) apart from what the API rewrites (docs/mirror-api.md).
    const byOrigin = new Map(aLive.map((e) => [`${e.type} ${e.id}`, e]));
    const councilOrigin = new URL(a.council.systemUrl).origin;
    const compared: Record<string, number> = {};
    for (const entry of bLive) {
      if (entry.type === 'system') {
        // A's System is A's own (its name, its body list), not a council's: B holds it as served.
        const record = await b.mirror.read(b.source.sourceId, 'system', entry.id);
        expect(record?.object).toEqual((await getJson(entry.id)).json);
        continue;
      }
      const record = await b.mirror.read(b.source.sourceId, entry.type, entry.id);
      const copy = record?.object as Record<string, unknown>;
      const originId = copy['mandari:originId'] as string;
      expect(byOrigin.has(`${entry.type} ${originId}`), `${entry.type} ${originId}`).toBe(true);
      const served = await getJson(entry.id);
      expect(copy).toEqual(served.json);
      const original = (await a.h.mirror.read(a.h.source.sourceId, entry.type, originId))?.object;
      expect(servedContent(copy, a.base, councilOrigin, 'served'), `${entry.type} ${originId}`).toEqual(
        servedContent(original, a.base, councilOrigin, 'origin'),
      );
      compared[entry.type] = (compared[entry.type] ?? 0) + 1;
    }
    expect(compared).toEqual({ ...count(bLive), body: 1 });

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
      await setBodyListed(bed.clients.doc, tables, row?.slug ?? '', {
        listed: true,
        sourceId: h.source.sourceId,
        by: 'test',
      });

      const { serveApi } = await import('../support/mirror-api');
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
