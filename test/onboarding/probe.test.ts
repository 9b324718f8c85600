import { afterEach, describe, expect, it } from 'vitest';
import { type FakeCouncil, robotsScripts, startFakeCouncil } from '../../demo';
import type { FakeCouncilOptions } from '../../demo/types';
import {
  oparlLinksFrom,
  PROBE_MAX_REQUESTS_PER_BODY,
  PROBE_PAUSE_BETWEEN_BODIES_MS,
  probeBodies,
  systemFrom,
} from '../../shared/onboarding';
import { makeProbeKit, type ProbeKit } from '../support/probe-kit';

const councils: FakeCouncil[] = [];
const kits: ProbeKit[] = [];

async function council(options: FakeCouncilOptions = {}): Promise<FakeCouncil> {
  const c = await startFakeCouncil({ hostname: 'ris-a.test', ...options });
  councils.push(c);
  return c;
}

function kit(): ProbeKit {
  const k = makeProbeKit();
  kits.push(k);
  return k;
}

afterEach(async () => {
  await Promise.all(councils.splice(0).map((c) => c.close()));
  await Promise.all(kits.splice(0).map((k) => k.close()));
});

/** What the server saw, as "path [user-agent?]". */
const seen = (c: FakeCouncil) => c.requests.map((r) => r.path);

describe('probe (ONB-1): at most 5 requests per body, counted where they are made', () => {
  it('ONB-1: robots.txt allows all — robots.txt, home page, the System linked there: 3 requests, OParl found', async () => {
    const c = await council({ vendor: 'sternberg' });
    const k = kit();
    const { bodies } = await probeBodies([`${c.url}/`], { ...k, sleep: k.sleep });
    const [b] = bodies;
    expect(b).toMatchObject({
      url: `${c.url}/`,
      requests: 3,
      robots: { host: 'ris-a.test', state: 'rules', status: 200, disallowed: [] },
      oparl: { systemUrl: c.systemUrl, version: '1.1' },
      comparison403: null,
      stoppedBy: 'found',
    });
    expect(b?.oparl?.vendor).toEqual(expect.any(String));
    expect(seen(c)).toEqual(['/robots.txt', '/', '/oparl/v1/system']);
  });

  it('ONB-1 / ROB-1: a group disallowing mandari-ingestor — only robots.txt is requested, every path is refused', async () => {
    const c = await council({ robots: robotsScripts.disallowIngestor });
    const k = kit();
    const { bodies } = await probeBodies([`${c.url}/`], { ...k, sleep: k.sleep });
    expect(bodies[0]).toMatchObject({ requests: 1, oparl: null, robots: { state: 'rules' } });
    // The home page and all four usual addresses were judged and not asked.
    expect(bodies[0]?.robots.disallowed).toHaveLength(5);
    expect(seen(c)).toEqual(['/robots.txt']);
  });

  it('ONB-1 / ROB-6: robots.txt 404 means "all allowed"', async () => {
    const c = await council({ robots: robotsScripts.notFound });
    const k = kit();
    const { bodies } = await probeBodies([`${c.url}/`], { ...k, sleep: k.sleep });
    expect(bodies[0]).toMatchObject({
      requests: 3,
      robots: { state: 'absent', status: 404 },
      stoppedBy: 'found',
    });
  });

  it('ONB-1 / ROB-7: robots.txt 503 ends the probe after that one request', async () => {
    const c = await council({ robots: robotsScripts.unavailable });
    const k = kit();
    const { bodies } = await probeBodies([`${c.url}/`], { ...k, sleep: k.sleep });
    expect(bodies[0]).toMatchObject({
      requests: 1,
      robots: { state: 'unreachable', status: 503 },
      oparl: null,
      stoppedBy: 'robots-unreachable',
    });
    expect(seen(c)).toEqual(['/robots.txt']);
  });

  it('ONB-1 / RED-2: a redirect to another server counts the hop and that server’s robots.txt — 5 in all', async () => {
    const a = await council();
    const b = await council({ hostname: 'ris-b.test' });
    a.setFault('/', { kind: 'redirect', location: `${b.url}/`, status: 302 });
    const k = kit();
    const { bodies } = await probeBodies([`${a.url}/`], { ...k, sleep: k.sleep });
    expect(bodies[0]).toMatchObject({
      requests: PROBE_MAX_REQUESTS_PER_BODY,
      oparl: { systemUrl: b.systemUrl },
      otherHosts: [{ host: 'ris-b.test', state: 'rules', status: 200 }],
      stoppedBy: 'found',
    });
    expect(seen(a)).toEqual(['/robots.txt', '/']);
    expect(seen(b)).toEqual(['/robots.txt', '/', '/oparl/v1/system']);
  });

  it('ONB-1 / RED-1: a redirect chain is cut at the fifth request, not at the sixth redirect', async () => {
    const c = await council();
    c.setFault('/', { kind: 'redirectChain', hops: 5 });
    const k = kit();
    const { bodies } = await probeBodies([`${c.url}/`], { ...k, sleep: k.sleep });
    expect(bodies[0]).toMatchObject({ requests: 5, oparl: null, stoppedBy: 'budget' });
    expect(c.requests).toHaveLength(5);
  });

  it('ONB-1: with no System anywhere, the usual addresses are tried until the fifth request', async () => {
    const c = await council({ basePath: '/api' });
    c.setFault('/', { kind: 'status', status: 404 });
    const k = kit();
    const { bodies } = await probeBodies([`${c.url}/`], { ...k, sleep: k.sleep });
    expect(bodies[0]).toMatchObject({ requests: 5, oparl: null, stoppedBy: 'budget' });
    expect(seen(c)).toEqual([
      '/robots.txt',
      '/',
      '/oparl/v1/system',
      '/oparl/system',
      '/bi/oparl/1.0/system.asp',
    ]);
  });

  it('ID-4 / ONB-1: 403 on the home page for our agent only — exactly one comparison, 2xx = blocked, probe ends', async () => {
    const c = await council();
    c.setFault('/', { kind: 'status', status: 403 }, { userAgentIncludes: 'mandari-ingestor' });
    const k = kit();
    const { bodies } = await probeBodies([`${c.url}/`], { ...k, sleep: k.sleep });
    expect(bodies[0]).toMatchObject({
      requests: 3,
      comparison403: { state: 'blocked', status: 200 },
      stoppedBy: 'user-agent-blocked',
    });
    const comparisons = c.requests.filter((r) => r.userAgent === undefined);
    expect(comparisons.map((r) => r.path)).toEqual(['/']);
  });

  it('ID-4 / ONB-1: 403 for everyone — the comparison is not conclusive and the usual addresses follow', async () => {
    const c = await council();
    c.setFault('/', { kind: 'status', status: 403 });
    const k = kit();
    const { bodies } = await probeBodies([`${c.url}/`], { ...k, sleep: k.sleep });
    expect(bodies[0]).toMatchObject({
      requests: 4,
      comparison403: { state: 'open', status: 403 },
      oparl: { systemUrl: c.systemUrl },
      stoppedBy: 'found',
    });
    expect(c.requests.filter((r) => r.userAgent === undefined)).toHaveLength(1);
  });

  it('ONB-1: 2 s between two bodies, on an injected sleep (no real wait)', async () => {
    const a = await council();
    const b = await council({ hostname: 'ris-b.test' });
    const k = kit();
    const started = Date.now();
    const { bodies } = await probeBodies([`${a.url}/`, `${b.url}/`], { ...k, sleep: k.sleep });
    expect(bodies.map((x) => x.requests)).toEqual([3, 3]);
    expect(k.pauses).toEqual([PROBE_PAUSE_BETWEEN_BODIES_MS]);
    expect(Date.now() - started).toBeLessThan(PROBE_PAUSE_BETWEEN_BODIES_MS);
  });

  it('rejects an invalid URL before any request', async () => {
    const k = kit();
    await expect(probeBodies(['ftp://x.test/'], { ...k, sleep: k.sleep })).rejects.toMatchObject({
      code: 'PROBE_INVALID_URL',
    });
    expect(k.meter.used).toBe(0);
  });
});

describe('probe parsing (pure)', () => {
  it('finds OParl links on a home page, the JSON alternate first', () => {
    const html = `<a href="/impressum">Impressum</a><a href="/bi/oparl/">OParl-Schnittstelle</a>
      <link rel="alternate" type="application/json" title="OParl" href="https://ris.example.de/oparl/v1/system">`;
    expect(oparlLinksFrom(html, 'https://ris.example.de/')).toEqual([
      'https://ris.example.de/oparl/v1/system',
      'https://ris.example.de/bi/oparl/',
    ]);
  });

  it('reads version and vendor from a System, and nothing from other JSON', () => {
    const system = JSON.stringify({
      id: 'https://ris.example.de/oparl/system',
      type: 'https://schema.oparl.org/1.0/System',
      oparlVersion: 'https://schema.oparl.org/1.0/',
      body: 'https://ris.example.de/oparl/bodies',
      vendor: 'https://www.somacos.de',
      product: 'https://www.somacos.de/loesungen/sitzungsmanagement/session/',
    });
    expect(systemFrom(system, 'https://ris.example.de/oparl/system')).toEqual({
      systemUrl: 'https://ris.example.de/oparl/system',
      version: '1.0',
      vendor: 'https://www.somacos.de',
      product: 'https://www.somacos.de/loesungen/sitzungsmanagement/session/',
      bodyListUrl: 'https://ris.example.de/oparl/bodies',
    });
    expect(systemFrom('{"data":[]}', 'https://x.test/')).toBeNull();
    expect(systemFrom('<html>', 'https://x.test/')).toBeNull();
  });
});
