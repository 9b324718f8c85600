import { describe, expect, it } from 'vitest';
import { startFakeCouncil } from '../../demo';
import { GEO_ERROR_TEXTS, geoObjectKey, refreshGeoSource } from '../../shared/geo';
import { OTHER_FETCH_ERROR_TEXTS } from '../../shared/other-fetch';
import { useAwsTestbed } from '../support/aws';
import { closeAfterEach, type Handler, ok, routes, startTestServer, status } from '../support/fetch-kit';
import { collection, geoDeps, geoSource, planFeature, readJsonObject } from './support';

/**
 * OTH-4 against loopback geoportals (the demo council's own, and scripted ones for the faults) and
 * the real local AWS peers (dynalite, s3rver): one test per robustness case of issue 17.
 */

const { cleanups, kit } = closeAfterEach();
const testbed = useAwsTestbed();

/** Path and query parameters of a recorded request. */
function split(path: string): { path: string; query: Record<string, string> } {
  const url = new URL(path, 'http://x');
  return { path: url.pathname, query: Object.fromEntries(url.searchParams) };
}

/** The demo council system (and its geoportal) with one body on ris-a.test. */
async function musterstadtCouncil() {
  const council = await startFakeCouncil({
    hostname: 'ris-a.test',
    bodies: [{ name: 'Stadt Musterstadt', ags: '09162000' }],
  });
  cleanups.push(() => council.close());
  return council;
}

/** A scripted geoportal whose answer the test changes between runs. */
async function scriptedPortal(first: Handler) {
  const state = { handler: first };
  const server = await startTestServer(
    routes({ '/items': (req, res, call) => state.handler(req, res, call) }),
  );
  cleanups.push(() => server.close());
  return { server, url: server.url('/items', 'geo.test'), set: (h: Handler) => (state.handler = h) };
}

describe('OTH-4: OGC API Features and WFS from the demo council geoportal (same host as the council)', () => {
  it('OGC API Features: f=json, limit, links[rel=next] followed; plans numbered, filtered, stored in S3 and as items', async () => {
    const k = kit();
    const council = await musterstadtCouncil();
    const deps = geoDeps(testbed, k);
    const source = geoSource({
      url: `${council.url}/geo/ogc`,
      layer: 'bplan',
      params: { body: '1' },
      pageSize: 2,
      ags: '09162000',
      filter: { property: 'planart', values: ['1000'] },
    });

    const report = await refreshGeoSource(deps, source);

    expect(report).toMatchObject({ fetched: 3, stored: 3, created: 3, updated: 0, deleted: 0 });
    expect(report.skipped).toEqual({ filtered: 1, 'not-polygon': 1 });
    const geoCalls = council.requests.filter((r) => r.path.startsWith('/geo/')).map((r) => split(r.path));
    expect(geoCalls[0]?.path).toBe('/geo/ogc/collections/bplan/items');
    expect(geoCalls[0]?.query).toMatchObject({ f: 'json', limit: '2', body: '1' });
    expect(geoCalls.map((r) => r.query.offset ?? '0')).toEqual(['0', '2', '4']);
    const plans = await deps.store.plans(source.sourceId);
    expect(plans.map((p) => p.planId).sort()).toEqual([
      'DE_09162000__12__1',
      'DE_09162000__45a',
      'DE_09162000__47',
    ]);
    expect(plans.find((p) => p.key === '45a')).toMatchObject({ label: '45 a', title: 'Gewerbegebiet Nord' });
    expect(plans.find((p) => p.key === '12')).toMatchObject({
      change: '1',
      link: 'https://www.example.org/bplan/12-1.pdf',
    });
    const stored = await readJsonObject(testbed, geoObjectKey(source.sourceId));
    expect(stored.type).toBe('FeatureCollection');
    expect((stored.features as unknown[]).length).toBe(3);
  });

  it('WFS 2.0: GetFeature with TYPENAMES, SRSNAME=EPSG:4326 and outputFormat; the latitude/longitude answer is repaired', async () => {
    const k = kit();
    const council = await musterstadtCouncil();
    const deps = geoDeps(testbed, k);
    const source = geoSource({
      kind: 'wfs',
      url: `${council.url}/geo/wfs`,
      layer: 'bplan',
      outputFormat: 'application/json; subtype=geojson',
      params: { body: '1' },
      pageSize: 3,
      filter: { property: 'planart', values: ['1000'] },
    });

    const report = await refreshGeoSource(deps, source);

    expect(report).toMatchObject({
      fetched: 2,
      stored: 3,
      created: 3,
      repaired: { axesSwapped: 3, linksDropped: 0 },
    });
    const first = council.requests.map((r) => split(r.path)).find((r) => r.path === '/geo/wfs');
    expect(first?.query).toMatchObject({
      SERVICE: 'WFS',
      VERSION: '2.0.0',
      REQUEST: 'GetFeature',
      TYPENAMES: 'bplan',
      SRSNAME: 'EPSG:4326',
      outputFormat: 'application/json; subtype=geojson',
      COUNT: '3',
      STARTINDEX: '0',
    });
    const stored = await readJsonObject(testbed, geoObjectKey(source.sourceId));
    const [lon, lat] =
      (stored.features as { geometry: { coordinates: number[][][] } }[])[0]?.geometry.coordinates[0]?.[0] ??
      [];
    expect(lon).toBeGreaterThan(11);
    expect(lon).toBeLessThan(12);
    expect(lat).toBeGreaterThan(48);
  });
});

describe('OTH-4: counts per run and robustness', () => {
  it('plans numbered in the NRW form (Münster-style planid, INSPIRE id DE_<AGS>_…) are stored, not skipped as no-number', async () => {
    const k = kit();
    const nrw = (planid: string, x: number, name: string) =>
      planFeature('', x, 51.96, { planid, name, nummer: undefined });
    const portal = await scriptedPortal(
      ok(
        collection([
          nrw('DE_05515000_Albachten_7_A_', 7.52, 'Nördlich der B 51'),
          nrw('DE_05515000_Albachten_7_B_', 7.521, 'Nördlich der B 51'),
          nrw('DE_05515000__579__1', 7.62, 'Hafen, 1. Änderung'),
          nrw('DE_05515000_St. Mauritz_8__2', 7.65, 'St. Mauritz 8, 2. Änderung'),
          nrw('DE_05515000_Albachten__7_A_', 7.53, 'five fields: no number'),
        ]),
      ),
    );
    const deps = geoDeps(testbed, k);
    const source = geoSource({ url: portal.url, numberProperty: 'planid', ags: '05515000' });

    const report = await refreshGeoSource(deps, source);

    expect(report).toMatchObject({ stored: 4, created: 4 });
    expect(report.skipped).toEqual({ 'no-number': 1 });
    const plans = await deps.store.plans(source.sourceId);
    const byId = Object.fromEntries(plans.map((p) => [p.planId, p]));
    expect(Object.keys(byId).sort()).toEqual([
      'DE_05515000__579__1',
      'DE_05515000__albachten7a',
      'DE_05515000__albachten7b',
      'DE_05515000__st-mauritz8__2',
    ]);
    expect(byId.DE_05515000__albachten7a).toMatchObject({ label: 'Albachten 7 A', key: 'albachten7a' });
    expect(byId.DE_05515000__albachten7a?.change).toBeUndefined();
    expect(byId.DE_05515000__579__1).toMatchObject({ label: '579', key: '579', change: '1' });
    expect(byId['DE_05515000__st-mauritz8__2']).toMatchObject({ label: 'St. Mauritz 8', change: '2' });
    const stored = await readJsonObject(testbed, geoObjectKey(source.sourceId));
    expect((stored.features as unknown[]).length).toBe(4);
  });

  it('a second run counts nothing new; a changed plan is updated, a vanished one deleted, a new one created', async () => {
    const k = kit();
    const portal = await scriptedPortal(
      ok(collection([planFeature('1'), planFeature('2'), planFeature('3')])),
    );
    const deps = geoDeps(testbed, k);
    const source = geoSource({ url: portal.url });

    expect(await refreshGeoSource(deps, source)).toMatchObject({ created: 3, updated: 0, deleted: 0 });
    expect(await refreshGeoSource(deps, source)).toMatchObject({
      created: 0,
      updated: 0,
      deleted: 0,
      stored: 3,
    });
    portal.set(
      ok(
        collection([
          planFeature('1'),
          planFeature('2', 11.58, 48.14, { name: 'Neuer Titel' }),
          planFeature('4'),
        ]),
      ),
    );
    expect(await refreshGeoSource(deps, source)).toMatchObject({
      created: 1,
      updated: 1,
      deleted: 1,
      stored: 3,
    });
    expect((await deps.store.plans(source.sourceId)).map((p) => p.key).sort()).toEqual(['1', '2', '4']);
    expect(await deps.store.runState(source.sourceId)).toMatchObject({
      plans: 3,
      failuresInRow: 0,
      lastCounts: { created: 1, updated: 1, deleted: 1 },
    });
  });

  it('an empty answer from a service that had plans keeps the stock and records an error', async () => {
    const k = kit();
    const portal = await scriptedPortal(ok(collection([planFeature('1'), planFeature('2')])));
    const deps = geoDeps(testbed, k);
    const source = geoSource({ url: portal.url });
    await refreshGeoSource(deps, source);

    portal.set(ok(collection([])));
    const report = await refreshGeoSource(deps, source);

    expect(report).toMatchObject({ error: GEO_ERROR_TEXTS.emptyAnswer, stored: 2, deleted: 0 });
    expect((await deps.store.plans(source.sourceId)).map((p) => p.key).sort()).toEqual(['1', '2']);
    expect((await readJsonObject(testbed, geoObjectKey(source.sourceId))).features).toHaveLength(2);
    expect(await deps.store.runState(source.sourceId)).toMatchObject({
      lastError: { text: GEO_ERROR_TEXTS.emptyAnswer },
      failuresInRow: 1,
    });
  });

  it.each([
    [
      'HTTP 503',
      status(503, { 'content-type': 'text/html' }, '<h1>Error at geo-internal-7.intra:8080</h1>'),
      'Dienst antwortete mit HTTP 503',
    ],
    ['HTTP 404', status(404, {}, 'no such layer'), 'Dienst antwortete mit HTTP 404'],
    [
      'an HTML page',
      ok('<html><body>Wartung</body></html>', { 'content-type': 'text/html' }),
      'Antwort ist kein gültiges GeoJSON',
    ],
    [
      'JSON that is no FeatureCollection',
      ok('{"type":"Feature","geometry":null}'),
      'Antwort ist kein gültiges GeoJSON',
    ],
    // RED-1 through the geo path: the same text a broadcast poll records (test/broadcasts/pass.test.ts).
    ['a redirect loop', status(302, { location: '/items' }), OTHER_FETCH_ERROR_TEXTS.tooManyRedirects],
  ])('errors are fixed texts without internals (%s); the stock stays', async (_, failing, text) => {
    const k = kit();
    const portal = await scriptedPortal(ok(collection([planFeature('1')])));
    const deps = geoDeps(testbed, k);
    const source = geoSource({ url: portal.url });
    await refreshGeoSource(deps, source);
    portal.set(failing);

    const report = await refreshGeoSource(deps, source);

    expect(report.error).toBe(text);
    const state = await deps.store.runState(source.sourceId);
    expect(state.lastError?.text).toBe(text);
    expect(JSON.stringify(state)).not.toMatch(/geo\.test|intra|127\.0\.0\.1|Error:|at /);
    expect(await deps.store.plans(source.sourceId)).toHaveLength(1);
  });

  it('invalid geometries are rejected per feature: unclosed and too short rings, points, lines, projected coordinates', async () => {
    const k = kit();
    const bad = (nummer: string, geometry: unknown) => ({
      type: 'Feature',
      geometry,
      properties: { nummer },
    });
    const portal = await scriptedPortal(
      ok(
        collection([
          planFeature('1'),
          bad('2', {
            type: 'Polygon',
            coordinates: [
              [
                [11.5, 48.1],
                [11.6, 48.1],
                [11.6, 48.2],
                [11.5, 48.2],
              ],
            ],
          }),
          bad('3', {
            type: 'Polygon',
            coordinates: [
              [
                [11.5, 48.1],
                [11.6, 48.1],
                [11.5, 48.1],
              ],
            ],
          }),
          bad('4', { type: 'Point', coordinates: [11.5, 48.1] }),
          bad('5', {
            type: 'LineString',
            coordinates: [
              [11.5, 48.1],
              [11.6, 48.1],
            ],
          }),
          bad('6', {
            type: 'Polygon',
            coordinates: [
              [
                [691000, 5334000],
                [692000, 5334000],
                [692000, 5335000],
                [691000, 5334000],
              ],
            ],
          }),
          bad('7', null),
          { type: 'Feature', geometry: planFeature('x').geometry, properties: { nummer: 'ohne Nummer' } },
        ]),
      ),
    );
    const report = await refreshGeoSource(geoDeps(testbed, k), geoSource({ url: portal.url }));

    expect(report.stored).toBe(1);
    expect(report.skipped).toEqual({
      'ring-not-closed': 1,
      'ring-too-short': 1,
      'not-polygon': 3,
      'projected-coordinates': 1,
      'no-number': 1,
    });
  });

  it('latitude/longitude swapped by the service is detected and repaired', async () => {
    const k = kit();
    const swapped = planFeature('1', 48.137, 11.575); // lat, lon — Munich read the wrong way round
    const portal = await scriptedPortal(ok(collection([swapped, planFeature('2')])));
    const deps = geoDeps(testbed, k);
    const source = geoSource({ url: portal.url });

    const report = await refreshGeoSource(deps, source);

    expect(report).toMatchObject({ stored: 2, repaired: { axesSwapped: 1 } });
    const stored = (await readJsonObject(testbed, geoObjectKey(source.sourceId))).features as {
      id: string;
      geometry: { coordinates: number[][][] };
    }[];
    for (const f of stored) expect(f.geometry.coordinates[0]?.[0]?.[0]).toBeCloseTo(11.573, 2);
  });

  it('features far outside the body area are skipped and counted (configured area, and without one the middle of all plans)', async () => {
    const k = kit();
    const hamburg = planFeature('9', 9.99, 53.55);
    const portal = await scriptedPortal(
      ok(collection([planFeature('1'), planFeature('2', 11.6, 48.15), hamburg])),
    );
    const deps = geoDeps(testbed, k);

    const withArea = await refreshGeoSource(
      deps,
      geoSource({ url: portal.url, area: [11.36, 48.06, 11.72, 48.25] }),
    );
    const withoutArea = await refreshGeoSource(deps, geoSource({ url: portal.url }));

    for (const report of [withArea, withoutArea]) {
      expect(report.stored).toBe(2);
      expect(report.skipped).toEqual({ 'outside-area': 1 });
    }
  });

  it('only http(s) document links are kept', async () => {
    const k = kit();
    const withLink = (n: string, dokument: unknown) => planFeature(n, 11.575, 48.137, { dokument });
    const portal = await scriptedPortal(
      ok(
        collection([
          withLink('1', 'https://geo.example.org/plan1.pdf'),
          withLink('2', 'javascript:alert(1)'),
          withLink('3', 'file:///etc/passwd'),
          withLink('4', '/relative/plan4.pdf'),
          withLink('5', 'https://user:pw@geo.example.org/p.pdf'),
          withLink('6', 'http://geo.example.org/plan6.pdf'),
        ]),
      ),
    );
    const deps = geoDeps(testbed, k);
    const source = geoSource({ url: portal.url });

    const report = await refreshGeoSource(deps, source);

    expect(report.repaired.linksDropped).toBe(4);
    const links = Object.fromEntries((await deps.store.plans(source.sourceId)).map((p) => [p.key, p.link]));
    expect(links).toEqual({
      '1': 'https://geo.example.org/plan1.pdf',
      '2': undefined,
      '3': undefined,
      '4': undefined,
      '5': undefined,
      '6': 'http://geo.example.org/plan6.pdf',
    });
  });

  it('a page cap guards against endless next links; the stock stays', async () => {
    const k = kit();
    let served = 0;
    const endless: Handler = (req, res) => {
      served += 1;
      const url = new URL(req.url ?? '/', 'http://geo.test');
      const offset = Number(url.searchParams.get('offset') ?? 0);
      res.writeHead(200, { 'content-type': 'application/geo+json' });
      res.end(
        collection([planFeature(String(offset + 1))], [{ rel: 'next', href: `/items?offset=${offset + 1}` }]),
      );
    };
    const portal = await scriptedPortal(ok(collection([planFeature('1')])));
    const deps = geoDeps(testbed, k);
    const source = geoSource({ url: portal.url, maxPages: 4 });
    await refreshGeoSource(deps, source);
    portal.set(endless);

    const report = await refreshGeoSource(deps, source);

    expect(served).toBe(4);
    expect(report).toMatchObject({ fetched: 4, error: GEO_ERROR_TEXTS.pageCap, created: 0, deleted: 0 });
    expect(await deps.store.plans(source.sourceId)).toHaveLength(1);
  });

  it('a next link that points back to a page already read ends the walk like the cap', async () => {
    const k = kit();
    const portal = await scriptedPortal(
      ok(collection([planFeature('1')], [{ rel: 'next', href: '/items?f=json&limit=500' }])),
    );
    const report = await refreshGeoSource(geoDeps(testbed, k), geoSource({ url: portal.url }));
    expect(report).toMatchObject({ fetched: 1, error: GEO_ERROR_TEXTS.pageCap });
  });
});
