import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { get, getJson, type ListPage, OUR_AGENT, testAgent } from './http';

const enc = encodeURIComponent;

describe('fake council: faults', () => {
  let council: FakeCouncil;
  let other: FakeCouncil;
  beforeAll(async () => {
    [council, other] = await Promise.all([
      startFakeCouncil({ hostname: 'ris-a.test', objectsPerList: 7, pageSize: 3 }),
      startFakeCouncil({ hostname: 'ris-b.test', objectsPerList: 1 }),
    ]);
  });
  afterAll(() => Promise.all([council.close(), other.close()]));
  beforeEach(() => {
    council.clearFaults();
    council.clearRequests();
  });

  describe('status', () => {
    it('RATE-8: 503 with Retry-After for the next request only', async () => {
      council.setFault(
        '*/system',
        { kind: 'status', status: 503, headers: { 'retry-after': '2' } },
        { times: 1 },
      );

      const first = await get(council.systemUrl);
      const second = await get(council.systemUrl);

      expect(first.status).toBe(503);
      expect(first.headers.get('retry-after')).toBe('2');
      expect(await first.json()).toEqual({ error: 'HTTP 503' });
      expect(second.status).toBe(200);
      await second.arrayBuffer();
      expect(council.requests.map((r) => r.faults)).toEqual([['status'], []]);
    });

    it.each([500, 429])('%i for every matching request until removed', async (status) => {
      const handle = council.setFault(/\/meeting(\?|$)/, { kind: 'status', status });

      const statuses: number[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await get(council.listUrl('meeting'));
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      handle.remove();
      const after = await get(council.listUrl('meeting'));
      await after.arrayBuffer();

      expect([...statuses, after.status]).toEqual([status, status, 200]);
      expect(handle.hits).toBe(2);
      expect(handle.remaining).toBeUndefined();
    });

    it('ID-4: 403 only for a User-Agent containing mandari-ingestor', async () => {
      council.setFault(
        '*',
        { kind: 'status', status: 403, body: 'Forbidden' },
        { userAgentIncludes: 'Mandari-Ingestor' },
      );

      const ours = await get(council.systemUrl);
      await ours.arrayBuffer();
      const plain = await request(council.systemUrl, {
        dispatcher: testAgent,
        headers: { 'user-agent': 'undici' },
      });
      await plain.body.dump();

      expect([ours.status, plain.statusCode]).toEqual([403, 200]);
      expect(ours.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    });

    it('SCH-11: SD.NET answers a missing list with 404 and []', async () => {
      council.setFault('*/membership', { kind: 'status', status: 404, body: '[]' });

      const res = await get(council.listUrl('membership'));

      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual([]);
    });

    it('DOC-5: a bot wall answers a file with an HTML page and 200', async () => {
      const wall = '<html><body>Bitte bestätigen Sie, dass Sie ein Mensch sind.</body></html>';
      council.setFault('/files/*', { kind: 'status', status: 200, body: wall });

      const res = await get(`${council.url}/files/1/1.pdf`);

      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toBe(wall);
    });
  });

  it('ERR-1: hangup closes the connection without an answer', async () => {
    council.setFault('*/system', { kind: 'hangup' }, { times: 1 });

    await expect(get(council.systemUrl)).rejects.toThrow();
    expect(council.requests[0]?.faults).toEqual(['hangup']);
    expect(council.requests[0]?.status).toBeUndefined();
  });

  it('delay holds back the headers', async () => {
    council.setFault('*/system', { kind: 'delay', delayMs: 80 });
    const started = performance.now();

    const res = await get(council.systemUrl);
    const headersAfter = performance.now() - started;
    await res.arrayBuffer();

    expect(headersAfter).toBeGreaterThanOrEqual(75);
  });

  it('slowBody trickles the body after prompt headers (slowloris)', async () => {
    council.setFault('/robots.txt', { kind: 'slowBody', chunkBytes: 8, intervalMs: 50 });
    const started = performance.now();

    const res = await get(`${council.url}/robots.txt`);
    const headersAfter = performance.now() - started;
    const text = await res.text();
    const bodyAfter = performance.now() - started;

    expect(text).toBe('User-agent: *\nAllow: /\n');
    // 23 bytes in 3 chunks → 2 pauses of 50 ms, all after the headers.
    expect(bodyAfter - headersAfter).toBeGreaterThanOrEqual(95);
  });

  it('contentType declares text/html for the unchanged JSON', async () => {
    council.setFault('*/bodies', { kind: 'contentType', contentType: 'text/html' });

    const res = await get(council.bodyListUrl);

    expect(res.headers.get('content-type')).toBe('text/html');
    expect(JSON.parse(await res.text())).toHaveProperty('data');
  });

  describe('redirects', () => {
    it('RED-2: redirect to another host', async () => {
      council.setFault('*/system', { kind: 'redirect', location: other.systemUrl, status: 301 });

      const hop = await get(council.systemUrl, { redirect: 'manual' });
      await hop.arrayBuffer();
      const followed = await getJson(council.systemUrl);

      expect(hop.status).toBe(301);
      expect(hop.headers.get('location')).toBe(`http://ris-b.test:${other.port}/oparl/v1/system`);
      expect(followed.id).toBe(other.systemUrl);
    });

    it('RED-1: a chain of 3 redirects ends at the resource itself', async () => {
      council.setFault('*/meeting', { kind: 'redirectChain', hops: 3, status: 307 });
      const start = `${council.listUrl('meeting')}?page=2`;

      const locations: string[] = [];
      let res = await get(start, { redirect: 'manual' });
      while (res.status === 307) {
        await res.arrayBuffer();
        const location = res.headers.get('location') ?? '';
        locations.push(location);
        res = await get(new URL(location, council.url).href, { redirect: 'manual' });
      }
      const page = (await res.json()) as ListPage;

      expect(locations).toEqual([
        '/__hop/2/307/oparl/v1/bodies/1/meeting?page=2',
        '/__hop/1/307/oparl/v1/bodies/1/meeting?page=2',
        '/__hop/0/307/oparl/v1/bodies/1/meeting?page=2',
      ]);
      expect(page.pagination.currentPage).toBe(2);
      expect(page.data[0]?.id).toBe(council.objectUrl('meeting', 4));
    });

    it('RED-1: a redirect loop never ends while the fault lasts', async () => {
      council.setFault('*/system', { kind: 'redirectLoop' });

      const locations: string[] = [];
      let url = council.systemUrl;
      for (let i = 0; i < 6; i++) {
        const res = await get(url, { redirect: 'manual' });
        await res.arrayBuffer();
        locations.push(res.headers.get('location') ?? '');
        url = new URL(locations.at(-1) ?? '', council.url).href;
      }

      expect(locations).toEqual(Array(3).fill(['/__loop/302/oparl/v1/system', '/oparl/v1/system']).flat());
    });
  });

  it('contentLengthMismatch: the connection closes before the promised length', async () => {
    council.setFault('*/system', { kind: 'contentLengthMismatch', extraBytes: 50 });

    const res = await get(council.systemUrl);

    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('gzip: encoded whether asked for or not', async () => {
    council.setFault('*/system', { kind: 'gzip' });

    const raw = await request(council.systemUrl, {
      dispatcher: testAgent,
      headers: { 'user-agent': OUR_AGENT },
    });
    const bytes = Buffer.from(await raw.body.arrayBuffer());

    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(bytes).toString('utf8')).id).toBe(council.systemUrl);
  });

  it('gzipBomb: a few KiB that inflate to the configured size', async () => {
    council.setFault('*/bodies', { kind: 'gzipBomb', inflatedBytes: 4 * 1024 * 1024 });

    const raw = await request(council.bodyListUrl, { dispatcher: testAgent });
    const bytes = Buffer.from(await raw.body.arrayBuffer());

    expect(Number(raw.headers['content-length'])).toBe(bytes.length);
    expect(bytes.length).toBeLessThan(16 * 1024);
    expect(gunzipSync(bytes).length).toBe(4 * 1024 * 1024);
  });

  it('controlChars: raw control characters make the JSON invalid', async () => {
    council.setFault('*/meeting/*', { kind: 'controlChars' });

    const text = await (await get(council.objectUrl('meeting', 1))).text();

    expect(text).toContain('"name":"\t\n\u0007');
    expect(() => JSON.parse(text)).toThrow();
  });

  it('nestingBomb: a ~20 KB page of valid JSON nested 10,000 deep in its first item', async () => {
    const plain = await (await get(council.listUrl('paper'))).text();
    council.setFault('*/paper', { kind: 'nestingBomb' });

    const text = await (await get(council.listUrl('paper'))).text();

    // the bomb adds 20 KB of brackets and its field name
    expect(text.length - plain.length).toBe(20_000 + '"nested":,'.length);
    const page = JSON.parse(text) as { data: { nested: unknown }[] };
    let depth = 0;
    for (let v: unknown = page.data[0]?.nested; Array.isArray(v); v = v[0]) depth += 1;
    expect(depth).toBe(10_000);
  });

  it('placeholders: "N/A" instead of values, as CC e-gov systems send', async () => {
    council.setFault('*/system', { kind: 'placeholders' });
    council.setFault('*/paper', { kind: 'placeholders', fields: ['date', 'reference'], value: '' });

    const system = await getJson(council.systemUrl);
    const papers = await getJson<ListPage>(council.listUrl('paper'));

    expect(system).toMatchObject({ name: 'N/A', website: 'N/A', created: 'N/A' });
    expect(papers.data[0]).toMatchObject({ date: '', reference: '' });
  });

  describe('filters and links', () => {
    const future = `modified_since=${enc('2099-01-01T00:00:00+01:00')}`;

    it('SCH-10: ignoreFilters returns everything regardless of modified_since', async () => {
      council.setFault('*/meeting', { kind: 'ignoreFilters' });

      const page = await getJson<ListPage>(`${council.listUrl('meeting')}?${future}`);

      expect(page.pagination.totalElements).toBe(7);
      expect(page.links.next).toContain('modified_since=');
    });

    it('SCH-10: rejectFilters answers any filter with 400', async () => {
      council.setFault('*/meeting', { kind: 'rejectFilters' });

      const filtered = await get(`${council.listUrl('meeting')}?${future}`);
      await filtered.arrayBuffer();
      const plain = await get(council.listUrl('meeting'));
      await plain.arrayBuffer();

      expect([filtered.status, plain.status]).toEqual([400, 200]);
    });

    it('dropFilterFromNext: links.next loses the filter', async () => {
      council.setFault('*/meeting', { kind: 'dropFilterFromNext' });
      const since = `modified_since=${enc('2000-01-01T00:00:00+01:00')}`;

      const page = await getJson<ListPage>(`${council.listUrl('meeting')}?${since}`);

      expect(page.links.next).toBe(`${council.listUrl('meeting')}?page=2`);
      expect(page.links.self).toContain('modified_since=');
    });

    it('nextCycle: from page 2 on, links.next points back to page 1', async () => {
      council.setFault('*/meeting', { kind: 'nextCycle' });

      const one = await getJson<ListPage>(council.listUrl('meeting'));
      const two = await getJson<ListPage>(String(one.links.next));

      expect(one.links.next).toBe(`${council.listUrl('meeting')}?page=2`);
      expect(two.links.next).toBe(`${council.listUrl('meeting')}?page=1`);
    });

    it('bodyAsSingleObject: the body list URL answers with one Body', async () => {
      council.setFault('*/bodies', { kind: 'bodyAsSingleObject' });

      const doc = await getJson(council.bodyListUrl);

      expect(doc).toMatchObject({ id: council.bodyUrl(1), type: 'https://schema.oparl.org/1.1/Body' });
      expect(doc).not.toHaveProperty('data');
    });
  });

  describe('matching', () => {
    it('a pattern with ? matches path and query; faults combine', async () => {
      council.setFault('*/meeting?page=2', { kind: 'status', status: 500 });
      council.setFault('*/meeting*', { kind: 'delay', delayMs: 1 });

      const one = await get(council.listUrl('meeting'));
      await one.arrayBuffer();
      const two = await get(`${council.listUrl('meeting')}?page=2`);
      await two.arrayBuffer();

      expect([one.status, two.status]).toEqual([200, 500]);
      expect(council.requests.map((r) => r.faults)).toEqual([['delay'], ['status', 'delay']]);
    });

    it('a predicate sees the recorded request; faults given at start apply', async () => {
      const scripted = await startFakeCouncil({
        objectsPerList: 1,
        faults: [
          { match: (r) => r.accept === 'application/json', fault: { kind: 'status', status: 406 }, times: 2 },
        ],
      });
      try {
        const statuses: number[] = [];
        for (const accept of ['application/json', 'text/plain', 'application/json', 'application/json']) {
          const res = await get(scripted.systemUrl, { headers: { accept } });
          await res.arrayBuffer();
          statuses.push(res.status);
        }

        expect(statuses).toEqual([406, 200, 406, 200]);
      } finally {
        await scripted.close();
      }
    });

    it('hold: the next matching request waits for its release (answered with the data as it is then); others pass', async () => {
      const list = council.listUrl('paper', 1);
      const held = council.hold(new URL(list).pathname);
      const paper = getJson<ListPage>(list);
      const arrived = await held.arrived;
      // While it is held, other requests are answered.
      expect(await getJson(council.systemUrl)).toMatchObject({ id: council.systemUrl });
      const [renamed] = council.mutate({ op: 'update', body: 1, list: 'paper', n: 1, set: { name: 'Neu' } });
      held.release();

      const page = await paper;
      expect(arrived.path).toBe(new URL(list).pathname);
      expect(page.data.find((p) => p.id === renamed)).toMatchObject({ name: 'Neu' });
      // Used up: the next request of the list is not held.
      expect((await getJson<ListPage>(list)).data.length).toBeGreaterThan(0);
    });

    it('rejects invalid faults up front', () => {
      expect(() => council.setFault('*', { kind: 'status', status: 42 })).toThrow(/status/);
      expect(() => council.setFault('*', { kind: 'redirectChain', hops: 0 })).toThrow(/hops/);
      expect(() => council.setFault('*', { kind: 'hangup' }, { times: 0 })).toThrow(/times/);
    });
  });
});
