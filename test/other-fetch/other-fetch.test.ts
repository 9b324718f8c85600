import { describe, expect, it } from 'vitest';
import { createRunContext } from '../../shared/fetch';
import { createHostIntervalIndex, HOST_INTERVAL_REFRESH_MS } from '../../shared/fetch-runtime';
import {
  type CouncilHostIntervals,
  createOtherFetch,
  OTHER_FETCH_INTERVAL_SECONDS,
} from '../../shared/other-fetch';
import { putSourceItem } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';
import {
  api,
  closeAfterEach,
  type Handler,
  type Kit,
  ok,
  rejectionOf,
  routes,
  startTestServer,
  status,
  type TestServer,
} from '../support/fetch-kit';

/**
 * Other fetches (OTH-1…3) through the polite fetcher's `service` mode, against loopback servers
 * (`*.test` → 127.0.0.1) and the real process-local slot store on a virtual clock: every spacing
 * below is the time the server saw between two requests, on that clock.
 */

const { cleanups, kit } = closeAfterEach();

/** Council intervals per host, as the Sources table would give them (ms). */
function fixedIntervals(byHost: Record<string, number> = {}): CouncilHostIntervals & { refreshes: number } {
  const intervals = {
    refreshes: 0,
    async refresh() {
      intervals.refreshes += 1;
    },
    forHost: (host: string) => byHost[host],
  };
  return intervals;
}

/** A server that notes the virtual time of each request (path without query). */
async function timedServer(
  k: Kit,
  table: Record<string, Handler>,
  robots?: Parameters<typeof routes>[1],
): Promise<TestServer & { times: { path: string; host: string; at: number }[] }> {
  const times: { path: string; host: string; at: number }[] = [];
  const inner = routes(table, robots);
  const server = await startTestServer((req, res, call) => {
    times.push({
      path: (req.url ?? '').split('?')[0] ?? '',
      host: call.host.split(':')[0] ?? '',
      at: k.clock.now(),
    });
    return inner(req, res, call);
  });
  cleanups.push(() => server.close());
  return Object.assign(server, { times });
}

const gaps = (times: { at: number }[]) => times.slice(1).map((t, i) => t.at - (times[i]?.at ?? 0));

describe('OTH-1: identity of other fetches', () => {
  it('OTH-1: a service fetch carries the fixed agent of council fetches, never a source override', async () => {
    const k = kit();
    const server = await timedServer(k, { '/collections/plans/items': ok('{"type":"FeatureCollection"}') });
    const other = createOtherFetch({ fetcher: k.fetcher, hostIntervals: fixedIntervals() });
    await other.fetch(server.url('/collections/plans/items', 'geo.test'), { sourceId: 'geo:demo' });
    // Even a FetchSource with an override (as a council source may carry) is ignored in service mode.
    await k.fetcher.fetch(server.url('/collections/plans/items', 'geo.test'), {
      purpose: 'service',
      source: { sourceId: 'geo:demo', requestIntervalSeconds: 1, userAgent: 'SomethingElse/1.0' },
    });

    const agents = server.calls.map((c) => c.headers['user-agent']);
    // Word for word as the published rules state it: no version, not the operator's agent.
    expect(agents).toEqual([
      'mandari-ingestor (+https://mandari.de/ingestor/; support@mandari.de)',
      'mandari-ingestor (+https://mandari.de/ingestor/; support@mandari.de)',
    ]);
    expect(server.calls[0]?.headers.accept).toContain('application/geo+json');
  });
});

describe('OTH-3: robots.txt is not evaluated', () => {
  it('OTH-3: a robots.txt that disallows everything neither stops a service fetch nor is requested', async () => {
    const k = kit();
    const server = await timedServer(
      k,
      { '/wfs': ok('{"type":"FeatureCollection","features":[]}') },
      'User-agent: mandari-ingestor\nDisallow: /\n\nUser-agent: *\nDisallow: /\n',
    );
    const other = createOtherFetch({ fetcher: k.fetcher, hostIntervals: fixedIntervals() });

    const result = await other.fetch(server.url('/wfs?SERVICE=WFS', 'geo.test'), { sourceId: 'geo:demo' });

    expect(result.status).toBe(200);
    expect(server.calls.map((c) => c.path.split('?')[0])).toEqual(['/wfs']);
    // Control: a council fetch to the same server is refused by that robots.txt (ROB).
    await expect(k.fetcher.fetch(server.url('/wfs', 'geo.test'), api())).rejects.toMatchObject({
      code: 'ROBOTS_DISALLOWED',
    });
  });
});

describe('OTH-2: pace of other fetches through the shared slot store', () => {
  it('OTH-2: without a council source on the host, a service keeps its own pace (1 request per second)', async () => {
    const k = kit();
    const server = await timedServer(k, { '/items': ok() });
    const other = createOtherFetch({ fetcher: k.fetcher, hostIntervals: fixedIntervals() });
    for (let i = 0; i < 4; i += 1) await other.fetch(server.url('/items', 'geo.test'), { sourceId: 'geo:a' });

    const ownMs = OTHER_FETCH_INTERVAL_SECONDS * 1000;
    expect(gaps(server.times)).toHaveLength(3);
    // The slot store's own small safety margin sits on top of the interval, never a second interval.
    for (const gap of gaps(server.times)) expect(gap).toSatisfy((g: number) => g >= ownMs && g < 2 * ownMs);
  });

  it('OTH-2: a geoportal on the host of a council system shares its pace — spacing ≥ the larger interval across both kinds', async () => {
    const k = kit();
    const server = await timedServer(k, { '/oparl/papers': ok(), '/geo/items': ok() });
    const councilMs = 3000;
    const other = createOtherFetch({
      fetcher: k.fetcher,
      hostIntervals: fixedIntervals({ 'ris-a.test': councilMs }),
    });
    const council = { sourceId: 'ris-a', requestIntervalSeconds: councilMs / 1000 };
    // First the geoportal alone: no council request has told the slot store about the 3 s yet, so
    // only the council interval of the host (the Sources table's, here fixed) can hold it.
    await other.fetch(server.url('/geo/items'), { sourceId: 'geo:ris-a' });
    await other.fetch(server.url('/geo/items'), { sourceId: 'geo:ris-a' });
    // Then interleaved, both orders: service after council and council after service.
    for (let i = 0; i < 3; i += 1) {
      await k.fetcher.fetch(server.url('/oparl/papers'), {
        purpose: 'api',
        source: council,
        hostIntervalMs: councilMs,
      });
      await other.fetch(server.url('/geo/items'), { sourceId: 'geo:ris-a' });
      await other.fetch(server.url('/geo/items'), { sourceId: 'geo:ris-a' });
    }

    const requests = server.times.filter((t) => t.path !== '/robots.txt');
    expect(requests.filter((t) => t.path === '/geo/items')).toHaveLength(8);
    // The robots.txt of the council fetch takes its place in the same pace as well.
    for (const gap of gaps(server.times)) expect(gap).toBeGreaterThanOrEqual(councilMs);
  });

  it('OTH-2: a redirect is paced at its target host, whose council interval applies to the hop', async () => {
    const k = kit();
    const server = await timedServer(k, { '/target': ok() });
    // The redirect goes to ris-b.test (another name for the same loopback server).
    const redirecting = routes({
      '/start': (_req, res) => {
        res.writeHead(302, { location: server.url('/target', 'ris-b.test') });
        res.end();
      },
      '/target': ok(),
    });
    const entry = await startTestServer((req, res, call) => {
      server.times.push({
        path: (req.url ?? '').split('?')[0] ?? '',
        host: call.host.split(':')[0] ?? '',
        at: k.clock.now(),
      });
      return redirecting(req, res, call);
    });
    cleanups.push(() => entry.close());
    const councilMs = 7000;
    const other = createOtherFetch({
      fetcher: k.fetcher,
      hostIntervals: fixedIntervals({ 'ris-b.test': councilMs }),
    });
    // Two service fetches, each redirected to ris-b.test (no council request anywhere): the second
    // hop there waits the council interval of ris-b.test, not the geo service's own second.
    const first = await other.fetch(entry.url('/start', 'geo.test'), { sourceId: 'geo:b' });
    await other.fetch(entry.url('/start', 'geo.test'), { sourceId: 'geo:b' });

    expect(first.redirects).toHaveLength(1);
    const hops = server.times.filter((t) => t.path === '/target');
    expect(hops).toHaveLength(2);
    expect((hops[1]?.at ?? 0) - (hops[0]?.at ?? 0)).toBeGreaterThanOrEqual(councilMs);
  });

  describe('OTH-2 with the Sources table (dynalite): an inactive council source counts, a change within 5 minutes', () => {
    const testbed = useAwsTestbed();

    it('OTH-2: the larger interval of an inactive council source on the same hostname applies, and a change takes effect within 5 minutes', async () => {
      const bed = testbed;
      const k = kit();
      const server = await timedServer(k, { '/geo/items': ok() });
      const councilItem = {
        sourceId: 'ris-shared',
        systemUrl: server.url('/oparl/v1/system', 'shared.test'),
        active: false,
        requestIntervalSeconds: 5,
      };
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, councilItem);
      const other = createOtherFetch({
        fetcher: k.fetcher,
        hostIntervals: createHostIntervalIndex(bed.clients, bed.env, k.clock.now),
      });
      const fetchGeo = () => other.fetch(server.url('/geo/items', 'shared.test'), { sourceId: 'geo:shared' });

      await fetchGeo();
      await fetchGeo();
      expect(gaps(server.times)).toHaveLength(1);
      expect(gaps(server.times)[0]).toSatisfy((g: number) => g >= 5000 && g < 9000);

      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        ...councilItem,
        requestIntervalSeconds: 9,
      });
      k.clock.advance(HOST_INTERVAL_REFRESH_MS);
      await fetchGeo();
      await fetchGeo();
      expect(gaps(server.times).at(-1)).toBeGreaterThanOrEqual(9000);
    });
  });
});

describe('OTH: every other safeguard stays', () => {
  it('RED-2 on every hop: a service redirect to a private address is refused before connecting', async () => {
    const k = kit({ resolverMap: { 'intranet.test': '10.0.0.1' } });
    const server = await timedServer(k, { '/go': status(302, { location: 'http://intranet.test/wfs' }) });
    const other = createOtherFetch({ fetcher: k.fetcher, hostIntervals: fixedIntervals() });

    const error = await rejectionOf(other.fetch(server.url('/go', 'geo.test'), { sourceId: 'geo:x' }));

    expect(error).toMatchObject({ code: 'ADDRESS_NOT_PUBLIC' });
  });

  it('size limit: a body above maxBytes ends as RESPONSE_TOO_LARGE', async () => {
    const k = kit();
    const server = await timedServer(k, { '/big': ok('x'.repeat(5000)) });
    const other = createOtherFetch({ fetcher: k.fetcher, hostIntervals: fixedIntervals() });

    await expect(
      other.fetch(server.url('/big', 'geo.test'), { sourceId: 'geo:x', maxBytes: 1000 }),
    ).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
  });

  it('RATE-8: a Retry-After of a geoportal holds every later request to that host, council ones too', async () => {
    const k = kit();
    const server = await timedServer(k, { '/busy': status(429, { 'retry-after': '40' }), '/x': ok() });
    const other = createOtherFetch({ fetcher: k.fetcher, hostIntervals: fixedIntervals() });

    await expect(other.fetch(server.url('/busy', 'geo.test'), { sourceId: 'geo:x' })).rejects.toMatchObject({
      status: 429,
    });
    await other.fetch(server.url('/x', 'geo.test'), { sourceId: 'geo:x' });

    expect(gaps(server.times)).toHaveLength(1);
    expect(gaps(server.times)[0]).toBeGreaterThanOrEqual(40_000);
  });

  it('ERR-1/ERR-2: 5xx is retried with pauses, and after 5 failures the run stops asking that server', async () => {
    const k = kit();
    const server = await timedServer(k, { '/down': status(503) });
    const other = createOtherFetch({ fetcher: k.fetcher, hostIntervals: fixedIntervals() });
    const runContext = createRunContext('geo:x');

    await expect(
      other.fetch(server.url('/down', 'geo.test'), { sourceId: 'geo:x', runContext }),
    ).rejects.toMatchObject({ status: 503 });
    expect(k.clock.retryPauses).toEqual([1000, 2000]);
    await expect(
      other.fetch(server.url('/down', 'geo.test'), { sourceId: 'geo:x', runContext }),
    ).rejects.toMatchObject({ code: 'CIRCUIT_OPEN' });
    expect(server.calls).toHaveLength(5);
  });

  it('the council host intervals are re-read before every fetch (the index itself limits it to every 5 minutes)', async () => {
    const k = kit();
    const server = await timedServer(k, { '/x': ok() });
    const intervals = fixedIntervals();
    const other = createOtherFetch({ fetcher: k.fetcher, hostIntervals: intervals });
    await other.fetch(server.url('/x', 'geo.test'), { sourceId: 'geo:x' });
    await other.fetch(server.url('/x', 'geo.test'), { sourceId: 'geo:x' });
    expect(intervals.refreshes).toBe(2);
  });
});
