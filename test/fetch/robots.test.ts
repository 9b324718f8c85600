import { describe, expect, it } from 'vitest';
import { type FakeCouncil, type RobotsScript, robotsScripts, startFakeCouncil } from '../../demo';
import { createMemoryRobotsStore, type RobotsCacheStore, robotsAgentKey } from '../../shared/fetch';
import { createHostSlots } from '../../shared/slots';
import {
  api,
  closeAfterEach,
  InstantClock,
  ok,
  recordingSlots,
  rejectionOf,
  routes,
  SOURCE,
  startTestServer,
  status,
} from '../support/fetch-kit';

const HOUR = 60 * 60 * 1000;
const { cleanups, kit } = closeAfterEach();

async function council(robots?: RobotsScript | string): Promise<FakeCouncil> {
  const c = await startFakeCouncil({ hostname: 'ris-a.test', ...(robots === undefined ? {} : { robots }) });
  cleanups.push(() => c.close());
  return c;
}

const paths = (c: FakeCouncil) => c.requests.map((r) => r.path);

describe('robots.txt gate (ROB)', () => {
  it('ROB-8 / ROB-4: a disallowed request is not made — the server only ever sees /robots.txt', async () => {
    const c = await council(robotsScripts.disallowIngestor);
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api()));

    expect(error).toMatchObject({ code: 'ROBOTS_DISALLOWED', retryable: false });
    expect(paths(c)).toEqual(['/robots.txt']);
    expect(k.events.at(-1)).toMatchObject({ kind: 'refused', errorCode: 'ROBOTS_DISALLOWED' });
  });

  it('ROB-4: /robots.txt itself is always allowed, even under Disallow: /', async () => {
    const c = await council(robotsScripts.disallowAll);
    const k = kit();

    const result = await k.fetcher.fetch(`${c.url}/robots.txt`, api({ purpose: 'scraper' }));

    expect(result.status).toBe(200);
    expect(result.body.toString()).toContain('Disallow: /');
  });

  it.each([401, 403, 404, 406, 410])(
    'ROB-6: robots.txt answering %i means "absent": everything allowed',
    async (code) => {
      const c = await council({ status: code, body: 'nope' });
      const k = kit();

      const result = await k.fetcher.fetch(c.systemUrl, api());

      expect(result.status).toBe(200);
      expect(paths(c)).toEqual(['/robots.txt', '/oparl/v1/system']);
    },
  );

  it.each([
    ['HTTP 503', { status: 503, body: 'down' }],
    ['HTTP 500', { status: 500, body: 'boom' }],
    ['HTTP 408', { status: 408, body: '' }],
    ['HTTP 429', { status: 429, body: '' }],
  ])(
    'ROB-7: robots.txt %s without a previous copy defers the fetch: nothing else is requested',
    async (_, script) => {
      const c = await council(script);
      const k = kit();
      const start = k.clock.now();

      const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api()));

      expect(error).toMatchObject({ code: 'ROBOTS_UNREACHABLE', retryable: true });
      expect(error.retryAt as number).toBeGreaterThanOrEqual(start + 15 * 60 * 1000);
      expect(paths(c)).toEqual(['/robots.txt']);
    },
  );

  it('ROB-7: a network error on robots.txt defers too', async () => {
    const c = await council();
    c.setFault('/robots.txt', { kind: 'hangup' });
    const k = kit();

    await expect(k.fetcher.fetch(c.systemUrl, api())).rejects.toMatchObject({ code: 'ROBOTS_UNREACHABLE' });
    expect(paths(c).filter((p) => p !== '/robots.txt')).toEqual([]);
  });

  it('ROB-7: unreachable robots.txt is not asked again for 15 minutes, then it is', async () => {
    const c = await council(robotsScripts.unavailable);
    const k = kit();
    await expect(k.fetcher.fetch(c.systemUrl, api())).rejects.toMatchObject({ code: 'ROBOTS_UNREACHABLE' });

    k.clock.advance(14 * 60 * 1000);
    await expect(k.fetcher.fetch(c.systemUrl, api())).rejects.toMatchObject({ code: 'ROBOTS_UNREACHABLE' });
    expect(paths(c)).toEqual(['/robots.txt']);

    // robotsScripts.unavailable carries Retry-After: 120 — shorter than 15 min, so 15 min apply.
    k.clock.advance(2 * 60 * 1000);
    c.setRobots(robotsScripts.allowAll);
    await k.fetcher.fetch(c.systemUrl, api());
    expect(paths(c)).toEqual(['/robots.txt', '/robots.txt', '/oparl/v1/system']);
  });

  it('ROB-7: with a previous valid copy, an unreachable robots.txt keeps that copy in force', async () => {
    const c = await council('User-agent: *\nDisallow: /oparl/v1/bodies\n');
    const k = kit();
    await k.fetcher.fetch(c.systemUrl, api());

    k.clock.advance(25 * HOUR); // ROB-5: due for refresh
    c.setRobots(robotsScripts.unavailable);
    const allowed = await k.fetcher.fetch(c.systemUrl, api());
    const disallowed = await rejectionOf(k.fetcher.fetch(c.bodyListUrl, api()));

    expect(allowed.status).toBe(200);
    expect(disallowed).toMatchObject({ code: 'ROBOTS_DISALLOWED' });
    expect(paths(c)).toEqual(['/robots.txt', '/oparl/v1/system', '/robots.txt', '/oparl/v1/system']);
    const entry = await k.store.get('ris-a.test', 'mandari-ingestor');
    expect(entry).toMatchObject({ kind: 'unreachable', lastGood: { kind: 'rules' } });
  });

  it('ROB-5: scheme-less variants — port and case of the host share one robots.txt, loaded from the first port', async () => {
    const robots = 'User-agent: *\nDisallow: /private\n';
    const first = await startTestServer(routes({ '/a': ok(), '/b': ok() }, robots));
    const second = await startTestServer(
      routes({ '/a': ok(), '/private': ok() }, 'User-agent: *\nAllow: /\n'),
    );
    cleanups.push(
      () => first.close(),
      () => second.close(),
    );
    const k = kit();

    await k.fetcher.fetch(first.url('/a', 'RIS-A.test'), api());
    await k.fetcher.fetch(second.url('/a', 'ris-a.test'), api());
    const refused = await rejectionOf(k.fetcher.fetch(second.url('/private', 'Ris-A.Test'), api()));

    expect(first.callsTo('/robots.txt')).toHaveLength(1);
    expect(second.callsTo('/robots.txt')).toHaveLength(0);
    expect(refused).toMatchObject({ code: 'ROBOTS_DISALLOWED' });
    expect(second.callsTo('/private')).toHaveLength(0);
  });

  it('ROB-5: two fetcher instances sharing the store fetch robots.txt once; after 24 h it is fetched again', async () => {
    const c = await council();
    const clock = new InstantClock();
    const store = createMemoryRobotsStore();
    const one = kit({ clock, store });
    const two = kit({ clock, store });

    await one.fetcher.fetch(c.systemUrl, api());
    await two.fetcher.fetch(c.bodyListUrl, api());
    expect(paths(c).filter((p) => p === '/robots.txt')).toHaveLength(1);

    clock.advance(24 * HOUR);
    await two.fetcher.fetch(c.systemUrl, api());
    expect(paths(c).filter((p) => p === '/robots.txt')).toHaveLength(2);
  });

  it('ROB-5: two concurrent callers in one process fetch robots.txt once, even when the second read of the store answers after the first load stored its copy', async () => {
    const c = await council();
    // The shared store (S3 in production) as a slow peer for the second reader: its read starts while
    // nothing is stored yet and its answer arrives only after the first caller's load has stored the
    // copy — an old answer, as a read that crosses a write may give.
    const memory = createMemoryRobotsStore();
    let reads = 0;
    let stored!: () => void;
    const putDone = new Promise<void>((resolve) => {
      stored = resolve;
    });
    const store: RobotsCacheStore = {
      async get(host, agent) {
        reads += 1;
        const read = reads;
        const answer = await memory.get(host, agent);
        if (read === 2) {
          await Promise.race([putDone, new Promise((resolve) => setTimeout(resolve, 2_000))]);
          // The answer travels back on a later network event than the write's.
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return answer;
      },
      async put(host, agent, entry) {
        await memory.put(host, agent, entry);
        stored();
      },
    };
    const k = kit({ store });

    const results = await Promise.all([
      k.fetcher.fetch(c.systemUrl, api()),
      k.fetcher.fetch(c.bodyListUrl, api()),
    ]);

    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(paths(c).filter((p) => p === '/robots.txt')).toHaveLength(1);
  });

  it('ROB-5: the cache is per agent — a source with its own agent gets its own robots.txt entry', async () => {
    const c = await council();
    const k = kit();

    await k.fetcher.fetch(c.systemUrl, api());
    await k.fetcher.fetch(c.systemUrl, api({ source: { ...SOURCE, userAgent: 'StadtBot/1.0' } }));

    const robotsAgents = c.requests.filter((r) => r.path === '/robots.txt').map((r) => r.userAgent);
    expect(robotsAgents).toHaveLength(2);
    expect(robotsAgents[1]).toBe('StadtBot/1.0');
    expect(robotsAgentKey('StadtBot/1.0')).toBe('stadtbot');
  });

  it('B-1: the refresh after 24 h is conditional; a 304 keeps the copy and renews its freshness', async () => {
    const c = await council('User-agent: *\nDisallow: /oparl/v1/bodies\n');
    const k = kit();
    await k.fetcher.fetch(c.systemUrl, api());
    const firstRobots = c.requests[0];
    expect(firstRobots?.conditional).toBe(false);

    k.clock.advance(24 * HOUR + 1);
    await k.fetcher.fetch(c.systemUrl, api());
    const refresh = c.requests.filter((r) => r.path === '/robots.txt')[1];
    expect(refresh?.ifNoneMatch).toBeDefined();
    expect(refresh?.status).toBe(304);
    await expect(k.fetcher.fetch(c.bodyListUrl, api())).rejects.toMatchObject({ code: 'ROBOTS_DISALLOWED' });

    k.clock.advance(23 * HOUR);
    await k.fetcher.fetch(c.systemUrl, api());
    expect(c.requests.filter((r) => r.path === '/robots.txt')).toHaveLength(2);
  });

  it('ROB-9: an approved exception with a note lets API requests through; without a note robots.txt applies', async () => {
    const c = await council(robotsScripts.disallowIngestor);
    const k = kit();
    const approved = {
      ...SOURCE,
      robotsException: { scope: 'api' as const, approvalNote: 'Stadt X, Mail 2026-01-12' },
    };
    const noNote = { ...SOURCE, robotsException: { scope: 'api' as const, approvalNote: ' ' } };
    const filesOnly = { ...SOURCE, robotsException: { scope: 'files' as const, approvalNote: 'ok' } };

    await expect(k.fetcher.fetch(c.systemUrl, api({ source: noNote }))).rejects.toMatchObject({
      code: 'ROBOTS_DISALLOWED',
    });
    await expect(k.fetcher.fetch(c.systemUrl, api({ source: filesOnly }))).rejects.toMatchObject({
      code: 'ROBOTS_DISALLOWED',
    });
    const result = await k.fetcher.fetch(c.systemUrl, api({ source: approved }));

    expect(result.status).toBe(200);
    expect(paths(c)).toEqual(['/robots.txt', '/oparl/v1/system']);
  });

  it('ROB-10 / RATE-1 / B-2: Crawl-delay raises the host interval (capped at 60 s) and is noted with the slots', async () => {
    const c = await council(robotsScripts.crawlDelay(5));
    const clock = new InstantClock();
    const slots = recordingSlots(createHostSlots({ clock }));
    const k = kit({ clock, slots });

    await k.fetcher.fetch(c.systemUrl, api());
    await k.fetcher.fetch(c.bodyListUrl, api());

    const acquires = slots.calls.filter((call) => call.op === 'acquire');
    // robots.txt (its own slot, RATE-1), then two API requests at the Crawl-delay pace.
    expect(acquires.map((a) => a.intervalMs)).toEqual([1000, 5000, 5000]);
    expect(slots.calls).toContainEqual({ op: 'crawlDelay', host: 'ris-a.test', delayMs: 5000 });
    expect(clock.slotSleeps.some((ms) => ms >= 4990)).toBe(true);
  });

  it('ROB-10: a Crawl-delay above 60 s counts as 60 s', async () => {
    const c = await council(robotsScripts.crawlDelay(600));
    const slots = recordingSlots(createHostSlots({ clock: new InstantClock() }));
    const k = kit({ slots });

    await k.fetcher.fetch(c.systemUrl, api());

    expect(slots.calls.filter((call) => call.op === 'acquire').at(-1)).toMatchObject({ intervalMs: 60_000 });
  });

  it('ROB-5: only the first 500 KiB are evaluated — a rule beyond them does not count, and nothing fails', async () => {
    const padding = `# ${'x'.repeat(1000)}\n`.repeat(520);
    const robots = `User-agent: *\nDisallow: /early\n${padding}Disallow: /late\n`;
    const server = await startTestServer(routes({ '/late': ok(), '/early': ok() }, robots));
    cleanups.push(() => server.close());
    const k = kit();

    const late = await k.fetcher.fetch(server.url('/late'), api());
    const early = await rejectionOf(k.fetcher.fetch(server.url('/early'), api()));

    expect(late.status).toBe(200);
    expect(early).toMatchObject({ code: 'ROBOTS_DISALLOWED' });
  });

  it('ROB-7: more than five robots.txt redirects make it unreachable; five are followed', async () => {
    let hops = 6;
    const server = await startTestServer((req, res) => {
      const match = /^\/robots(\d*)\.txt$/.exec(req.url ?? '');
      if (req.url === '/x') return ok()(req, res, undefined as never);
      const n = match ? Number(match[1] || 0) : 0;
      if (n < hops) {
        res.writeHead(301, { location: `/robots${n + 1}.txt` });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
    });
    cleanups.push(() => server.close());
    const k = kit();

    await expect(k.fetcher.fetch(server.url('/x'), api())).rejects.toMatchObject({
      code: 'ROBOTS_UNREACHABLE',
    });
    expect(server.callsTo('/x')).toHaveLength(0);
    expect(server.calls).toHaveLength(6);

    hops = 5;
    k.clock.advance(15 * 60 * 1000);
    await expect(k.fetcher.fetch(server.url('/x'), api())).resolves.toMatchObject({ status: 200 });
  });

  it('RATE-1: robots.txt redirects to another host take a slot there too', async () => {
    const target = await startTestServer(routes({}, 'User-agent: *\nDisallow: /secret\n'));
    const origin = await startTestServer(
      routes({
        '/robots.txt': status(301, { location: target.url('/robots.txt', 'cdn.test') }),
        '/secret': ok(),
      }),
    );
    cleanups.push(
      () => origin.close(),
      () => target.close(),
    );
    const slots = recordingSlots(createHostSlots({ clock: new InstantClock() }));
    const k = kit({ slots });

    await expect(k.fetcher.fetch(origin.url('/secret'), api())).rejects.toMatchObject({
      code: 'ROBOTS_DISALLOWED',
    });

    expect(slots.calls.map((call) => call.op + ' ' + ('host' in call ? call.host : ''))).toEqual([
      'acquire ris-a.test',
      'moveTo cdn.test',
      'release cdn.test',
    ]);
    expect(origin.callsTo('/secret')).toHaveLength(0);
  });
});
