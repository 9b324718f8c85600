import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeCouncil,
  ROBOTS_ALLOW_ALL,
  type RobotsScript,
  robotsScripts,
  startFakeCouncil,
} from '../../demo';
import { get, OUR_AGENT } from './http';

describe('fake council: robots.txt', () => {
  let council: FakeCouncil;
  let robotsUrl: string;
  beforeAll(async () => {
    council = await startFakeCouncil({ objectsPerList: 2 });
    robotsUrl = `${council.url}/robots.txt`;
  });
  afterAll(() => council.close());
  beforeEach(() => {
    council.setRobots(robotsScripts.allowAll);
    council.clearRequests();
  });

  it('ROB-5 / B-1: allows everything by default, with an ETag that revalidates to 304', async () => {
    const first = await get(robotsUrl, { headers: { accept: 'text/plain' } });
    const body = await first.text();
    const etag = first.headers.get('etag');

    const second = await get(robotsUrl, { headers: { accept: 'text/plain', 'if-none-match': String(etag) } });
    await second.arrayBuffer();

    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(body).toBe(ROBOTS_ALLOW_ALL);
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(second.status).toBe(304);
    expect(council.requests.map((r) => [r.conditional, r.ifNoneMatch, r.status])).toEqual([
      [false, undefined, 200],
      [true, etag, 304],
    ]);
  });

  it('ID-1 / ID-2: records the User-Agent and Accept header sent', async () => {
    const res = await get(robotsUrl, { headers: { accept: 'text/plain' } });
    await res.arrayBuffer();

    expect(council.requests[0]).toMatchObject({
      method: 'GET',
      path: '/robots.txt',
      userAgent: OUR_AGENT,
      accept: 'text/plain',
    });
  });

  it('a changed robots.txt gets a new ETag, so revalidation returns 200', async () => {
    const first = await get(robotsUrl);
    await first.arrayBuffer();

    council.setRobots(robotsScripts.disallowIngestor);
    const second = await get(robotsUrl, { headers: { 'if-none-match': String(first.headers.get('etag')) } });

    expect(second.status).toBe(200);
    expect(await second.text()).toContain('User-agent: mandari-ingestor\nDisallow: /');
  });

  it.each<[string, RobotsScript, number, Record<string, string | RegExp>]>([
    ['ROB-6: 404', robotsScripts.notFound, 404, {}],
    ['ROB-7: 503 with Retry-After', robotsScripts.unavailable, 503, { 'retry-after': '120' }],
    ['HTML instead of text', robotsScripts.html, 200, { 'content-type': /^text\/html/ }],
    [
      'RED: redirect to another host',
      robotsScripts.redirect('http://ris-b.test/robots.txt'),
      301,
      {
        location: 'http://ris-b.test/robots.txt',
      },
    ],
    ['403', { status: 403, body: 'Forbidden' }, 403, {}],
  ])('%s', async (_name, script, status, headers) => {
    council.setRobots(script);

    const res = await get(robotsUrl, { redirect: 'manual' });
    await res.arrayBuffer();

    expect(res.status).toBe(status);
    for (const [name, value] of Object.entries(headers)) expect(res.headers.get(name)).toMatch(value);
  });

  it('ROB-10: crawl-delay preset', async () => {
    council.setRobots(robotsScripts.crawlDelay(5));

    expect(await (await get(robotsUrl)).text()).toBe(
      'User-agent: mandari-ingestor\nCrawl-delay: 5\nAllow: /\n',
    );
  });

  it('a plain string sets a 200 text/plain body; delayMs holds the answer back', async () => {
    council.setRobots({ body: 'User-agent: *\nDisallow: /files/\n', delayMs: 60 });
    const started = performance.now();

    const res = await get(robotsUrl);

    expect(await res.text()).toBe('User-agent: *\nDisallow: /files/\n');
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    council.setRobots('User-agent: *\nAllow: /\n');
    expect(await (await get(robotsUrl)).text()).toBe('User-agent: *\nAllow: /\n');
  });
});

describe('fake council: conditional requests for files', () => {
  let council: FakeCouncil;
  let fileUrl: string;
  beforeAll(async () => {
    council = await startFakeCouncil({ objectsPerList: 2 });
    fileUrl = `${council.url}/files/1/1.pdf`;
  });
  afterAll(() => council.close());

  it('DEL-1: If-None-Match with the current ETag → 304, recorded as conditional', async () => {
    const first = await get(fileUrl);
    await first.arrayBuffer();

    const second = await get(fileUrl, { headers: { 'if-none-match': String(first.headers.get('etag')) } });
    const body = await second.arrayBuffer();

    expect(second.status).toBe(304);
    expect(body.byteLength).toBe(0);
    expect(council.requests.at(-1)).toMatchObject({ conditional: true, status: 304 });
  });

  it('DEL-1: If-Modified-Since at or after Last-Modified → 304; before → 200', async () => {
    const first = await get(fileUrl);
    await first.arrayBuffer();
    const lastModified = String(first.headers.get('last-modified'));
    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();

    const same = await get(fileUrl, { headers: { 'if-modified-since': lastModified } });
    await same.arrayBuffer();
    const older = await get(fileUrl, { headers: { 'if-modified-since': earlier } });
    await older.arrayBuffer();

    expect([same.status, older.status]).toEqual([304, 200]);
    expect(council.requests.at(-1)?.ifModifiedSince).toBe(earlier);
  });

  it('DEL-2: HEAD answers with headers only', async () => {
    const res = await get(fileUrl, { method: 'HEAD' });

    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(500);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });
});
