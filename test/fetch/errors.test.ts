import { describe, expect, it } from 'vitest';
import type { FakeCouncil } from '../../demo';
import { createRunContext, parseRetryAfter } from '../../shared/fetch';
import { createHostSlots } from '../../shared/slots';
import {
  api,
  closeAfterEach,
  InstantClock,
  ok,
  recordingSlots,
  rejectionOf,
  routes,
  startTestServer,
  status,
} from '../support/fetch-kit';

const { cleanups, kit, council } = closeAfterEach();

const apiRequests = (c: FakeCouncil) => c.requests.filter((r) => r.path !== '/robots.txt');

describe('ERR-1: retries within the run', () => {
  it('5xx twice, then 200: three attempts with pauses of 1 s and 2 s, each in its own slot', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'status', status: 500 }, { times: 2 });
    const slots = recordingSlots(createHostSlots({ clock: new InstantClock() }));
    const k = kit({ slots });

    const result = await k.fetcher.fetch(c.systemUrl, api());

    expect(result.status).toBe(200);
    expect(result.attempts).toBe(3);
    expect(k.clock.retryPauses).toEqual([1000, 2000]);
    expect(apiRequests(c)).toHaveLength(3);
    // robots.txt + three attempts, each reserving its own slot.
    expect(slots.calls.filter((call) => call.op === 'acquire')).toHaveLength(4);
  });

  it('three 5xx: the fetch fails after the third attempt with HTTP_STATUS', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'status', status: 503 });
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api()));

    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: 503, retryable: true });
    expect(apiRequests(c)).toHaveLength(3);
    expect(k.clock.retryPauses).toEqual([1000, 2000]);
  });

  it('a network error (connection closed without answer) is retried', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'hangup' }, { times: 1 });
    const k = kit();

    const result = await k.fetcher.fetch(c.systemUrl, api());

    expect(result.attempts).toBe(2);
    expect(k.clock.retryPauses).toEqual([1000]);
  });

  it('a headers timeout is retried and reported as TIMEOUT (phase headers)', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'delay', delayMs: 400 });
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api({ headersTimeoutMs: 100 })));

    expect(error).toMatchObject({ code: 'TIMEOUT', phase: 'headers', retryable: true });
    expect(apiRequests(c)).toHaveLength(3);
  });

  it.each([403, 404, 410, 429, 400])('HTTP %i is not retried', async (code) => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'status', status: code });
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api()));

    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: code });
    expect(apiRequests(c).filter((r) => r.userAgent?.startsWith('mandari-ingestor'))).toHaveLength(1);
    expect(k.clock.retryPauses).toEqual([]);
  });

  it('DOC-4: files are not retried within the run (their ladder is the caller’s)', async () => {
    const c = await council();
    c.setFault('/files/*', { kind: 'status', status: 500 });
    const k = kit();

    await expect(k.fetcher.fetch(`${c.url}/files/1/1.pdf`, api({ purpose: 'file' }))).rejects.toMatchObject({
      code: 'HTTP_STATUS',
      status: 500,
    });
    expect(apiRequests(c)).toHaveLength(1);
  });
});

describe('ERR-2: circuit breaker per source run', () => {
  it('after 5 failed attempts at a server, no request for 60 s (CIRCUIT_OPEN); then requests go again', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'status', status: 500 });
    const k = kit();
    const run = createRunContext('src-a');

    // attempts 1–3 (first fetch) and 4–5 (second fetch); the breaker opens on the fifth.
    await expect(k.fetcher.fetch(c.systemUrl, api({ runContext: run }))).rejects.toMatchObject({
      code: 'HTTP_STATUS',
    });
    const second = await rejectionOf(k.fetcher.fetch(c.systemUrl, api({ runContext: run })));
    expect(second).toMatchObject({ code: 'CIRCUIT_OPEN', retryable: true });
    expect(apiRequests(c)).toHaveLength(5);

    await expect(k.fetcher.fetch(c.bodyListUrl, api({ runContext: run }))).rejects.toMatchObject({
      code: 'CIRCUIT_OPEN',
    });
    expect(apiRequests(c)).toHaveLength(5);
    expect(run.summary().hosts[0]).toMatchObject({ host: 'ris-a.test', breakerOpenings: 1 });

    k.clock.advance(60_000);
    await expect(k.fetcher.fetch(c.bodyListUrl, api({ runContext: run }))).resolves.toMatchObject({
      status: 200,
    });
  });

  it('404 does not count; another source run has its own breaker', async () => {
    const c = await council();
    const k = kit();
    const run = createRunContext('src-a');

    for (let i = 0; i < 6; i += 1) {
      await expect(k.fetcher.fetch(`${c.url}/missing-${i}`, api({ runContext: run }))).rejects.toMatchObject({
        status: 404,
      });
    }
    await expect(k.fetcher.fetch(c.systemUrl, api({ runContext: run }))).resolves.toMatchObject({
      status: 200,
    });
    expect(run.breakerOpenUntil('ris-a.test', k.clock.now())).toBeUndefined();

    c.setFault('/oparl/v1/system', { kind: 'status', status: 403 });
    for (let i = 0; i < 5; i += 1)
      await k.fetcher.fetch(c.systemUrl, api({ runContext: run })).catch(() => {});
    await expect(k.fetcher.fetch(c.systemUrl, api({ runContext: run }))).rejects.toMatchObject({
      code: 'CIRCUIT_OPEN',
    });
    c.clearFaults();
    await expect(
      k.fetcher.fetch(c.systemUrl, api({ runContext: createRunContext('src-b') })),
    ).resolves.toMatchObject({ status: 200 });
  });
});

describe('ERR-3: 5xx series', () => {
  it('five server errors in a row at one server are a series; an answer in between breaks the row', async () => {
    const c = await council();
    const k = kit();
    const run = createRunContext('src-a');
    const once = (n: number) => c.setFault('/oparl/v1/system', { kind: 'status', status: 502 }, { times: n });

    once(4);
    await k.fetcher.fetch(c.systemUrl, api({ runContext: run, maxAttempts: 1 })).catch(() => {});
    for (let i = 0; i < 3; i += 1)
      await k.fetcher.fetch(c.systemUrl, api({ runContext: run, maxAttempts: 1 })).catch(() => {});
    await k.fetcher.fetch(c.systemUrl, api({ runContext: run, maxAttempts: 1 })); // 200 breaks the row
    expect(run.hasServerErrorSeries('ris-a.test')).toBe(false);

    k.clock.advance(60_000); // the breaker may have opened; ERR-3 is about the row, not the breaker
    const fresh = createRunContext('src-a');
    once(5);
    for (let i = 0; i < 5; i += 1)
      await k.fetcher.fetch(c.systemUrl, api({ runContext: fresh, maxAttempts: 1 })).catch(() => {});
    expect(fresh.hasServerErrorSeries('ris-a.test')).toBe(true);
    expect(fresh.summary().serverErrorSeriesHosts).toEqual(['ris-a.test']);
  });
});

describe('ID-4: the 403 comparison request', () => {
  it('exactly one comparison per server and run, without our agent, same URL; 2xx → our agent is blocked', async () => {
    const c = await council();
    c.setFault('/oparl/v1/*', { kind: 'status', status: 403 }, { userAgentIncludes: 'mandari-ingestor' });
    const k = kit();
    const run = createRunContext('src-a');

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api({ runContext: run })));
    await k.fetcher.fetch(c.bodyListUrl, api({ runContext: run })).catch(() => {});

    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: 403 });
    const comparisons = c.requests.filter((r) => r.userAgent === undefined);
    expect(comparisons).toHaveLength(1);
    expect(comparisons[0]?.path).toBe('/oparl/v1/system');
    expect(run.comparison('ris-a.test')).toMatchObject({ state: 'blocked', status: 200 });
    expect(run.summary().userAgentBlockedHosts).toEqual(['ris-a.test']);
    expect(k.events.filter((e) => e.purpose === 'comparison')).toHaveLength(1);
  });

  it('a 403 for everyone leaves it open; a comparison follows no redirect', async () => {
    const c = await council();
    c.setFault('/oparl/v1/system', { kind: 'status', status: 403 });
    const k = kit();
    const run = createRunContext('src-a');

    await k.fetcher.fetch(c.systemUrl, api({ runContext: run })).catch(() => {});
    expect(run.comparison('ris-a.test')).toMatchObject({ state: 'open', status: 403 });

    const server = await startTestServer((req, res) => {
      if (req.url === '/robots.txt')
        return ok('', { 'content-type': 'text/plain' })(req, res, undefined as never);
      if (req.headers['user-agent']) return status(403)(req, res, undefined as never);
      return status(302, { location: '/elsewhere' })(req, res, undefined as never);
    });
    cleanups.push(() => server.close());
    const other = createRunContext('src-b');
    await k.fetcher.fetch(server.url('/x', 'ris-b.test'), api({ runContext: other })).catch(() => {});
    expect(other.comparison('ris-b.test')).toMatchObject({ state: 'open', status: 302 });
    expect(server.callsTo('/elsewhere')).toHaveLength(0);
  });

  it('the comparison keeps robots.txt for `*` too, since it carries no agent of ours', async () => {
    const server = await startTestServer(
      routes(
        { '/x': (req, res) => status(req.headers['user-agent'] ? 403 : 200)(req, res, undefined as never) },
        'User-agent: mandari-ingestor\nAllow: /\n\nUser-agent: *\nDisallow: /\n',
      ),
    );
    cleanups.push(() => server.close());
    const k = kit();
    const run = createRunContext('src-a');

    await k.fetcher.fetch(server.url('/x'), api({ runContext: run })).catch(() => {});

    expect(server.callsTo('/x')).toHaveLength(1);
    expect(run.comparison('ris-a.test')).toMatchObject({ state: 'skipped', reason: 'ROBOTS_DISALLOWED' });
  });
});

describe('RATE-8: Retry-After', () => {
  it('parses seconds and HTTP dates, caps at 24 h, ignores junk', () => {
    const now = Date.UTC(2026, 9, 16, 8, 0, 0);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Fri, 16 Oct 2026 08:10:00 GMT', now)).toBe(600_000);
    expect(parseRetryAfter('Thu, 15 Oct 2026 08:10:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(24 * 60 * 60 * 1000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('429 with Retry-After is recorded as a host floor: the next request waits for it or gives up', async () => {
    const server = await startTestServer(
      routes({ '/busy': status(429, { 'retry-after': '120' }), '/x': ok() }),
    );
    cleanups.push(() => server.close());
    const slots = recordingSlots(createHostSlots({ clock: new InstantClock() }));
    const k = kit({ slots });

    const error = await rejectionOf(k.fetcher.fetch(server.url('/busy'), api()));
    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: 429, retryAfterMs: 120_000 });
    expect(slots.calls).toContainEqual({ op: 'retryAfter', host: 'ris-a.test', delayMs: 120_000 });

    const refused = await rejectionOf(k.fetcher.fetch(server.url('/x'), api({ maxWaitMs: 5_000 })));
    expect(refused).toMatchObject({ code: 'HOST_SLOT_TIMEOUT', retryable: true });
    expect(server.callsTo('/x')).toHaveLength(0);
  });

  it('503 with a Retry-After longer than the ERR-1 pause is not retried within the run', async () => {
    const date = new Date(Date.UTC(2026, 9, 16, 8, 5, 0)).toUTCString(); // 5 min after the test clock's start
    const server = await startTestServer(routes({ '/x': status(503, { 'retry-after': date }) }));
    cleanups.push(() => server.close());
    const slots = recordingSlots(createHostSlots({ clock: new InstantClock() }));
    const k = kit({ slots });

    const error = await rejectionOf(k.fetcher.fetch(server.url('/x'), api()));

    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: 503 });
    expect(server.callsTo('/x')).toHaveLength(1);
    const noted = slots.calls.find((call) => call.op === 'retryAfter');
    expect(noted && 'delayMs' in noted ? noted.delayMs : 0).toBeGreaterThan(290_000);
  });
});
