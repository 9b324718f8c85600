import { describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { COLD_START_SEND_ALLOWANCE_MS, createHostSlots } from '../../shared/slots';
import { api, closeAfterEach, InstantClock, rejectionOf } from '../support/fetch-kit';

const { cleanups, kit } = closeAfterEach();

async function council(options: Parameters<typeof startFakeCouncil>[0] = {}): Promise<FakeCouncil> {
  const c = await startFakeCouncil({ hostname: 'ris-a.test', ...options });
  cleanups.push(() => c.close());
  return c;
}

describe('wait budget (PRV-1: place, robots.txt and slot within maxWaitMs)', () => {
  it('a slow robots.txt ends the wait with HOST_SLOT_TIMEOUT; its answer is still stored for the next fetch', async () => {
    const c = await council({ robots: { body: 'User-agent: *\nAllow: /\n', delayMs: 800 } });
    const k = kit();

    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api({ purpose: 'file', maxWaitMs: 200 })));
    expect(error).toMatchObject({ code: 'HOST_SLOT_TIMEOUT', retryable: true });
    await expect.poll(() => c.requests.map((r) => r.path)).toEqual(['/robots.txt']);

    await expect.poll(() => k.store.get('ris-a.test', 'mandari-ingestor'), { timeout: 3000 }).toBeDefined();
    // The robots.txt request took this second's slot, and a fresh process's send allowance after it.
    k.clock.advance(1_000 + COLD_START_SEND_ALLOWANCE_MS);
    await expect(k.fetcher.fetch(c.systemUrl, api({ maxWaitMs: 50 }))).resolves.toMatchObject({
      status: 200,
    });
    expect(c.requests.filter((r) => r.path === '/robots.txt')).toHaveLength(1);
  });

  it('RATE-1: a host slot further away than maxWaitMs is HOST_SLOT_TIMEOUT and nothing is sent', async () => {
    const c = await council();
    const clock = new InstantClock();
    const k = kit({ clock, slots: createHostSlots({ clock }) });
    await k.fetcher.fetch(c.systemUrl, api());
    const sent = c.requests.length;

    // A 30 s source interval: the next slot is 30 s away, the budget 5 s.
    const slow = { sourceId: 'slow', requestIntervalSeconds: 30 };
    await k.fetcher.fetch(c.systemUrl, api({ source: slow }));
    const error = await rejectionOf(k.fetcher.fetch(c.systemUrl, api({ source: slow, maxWaitMs: 5_000 })));

    expect(error).toMatchObject({ code: 'HOST_SLOT_TIMEOUT' });
    expect(c.requests.length).toBe(sent + 1);
  });
});

describe('onRequest events', () => {
  it('one event per exchange and per refusal, with host, purpose, status or code, attempt, hop — no headers', async () => {
    const c = await council({ robots: 'User-agent: *\nDisallow: /oparl/v1/bodies\n' });
    const k = kit();

    await k.fetcher.fetch(c.systemUrl, api());
    await k.fetcher.fetch(c.bodyListUrl, api()).catch(() => {});

    expect(k.events.map(({ durationMs: _d, ...rest }) => rest)).toEqual([
      {
        kind: 'request',
        sourceId: 'test-source',
        host: 'ris-a.test',
        url: `${c.url}/robots.txt`,
        purpose: 'robots',
        method: 'GET',
        attempt: 1,
        hop: 0,
        status: 200,
      },
      {
        kind: 'request',
        sourceId: 'test-source',
        host: 'ris-a.test',
        url: c.systemUrl,
        purpose: 'api',
        method: 'GET',
        attempt: 1,
        hop: 0,
        status: 200,
      },
      {
        kind: 'refused',
        sourceId: 'test-source',
        host: 'ris-a.test',
        url: c.bodyListUrl,
        purpose: 'api',
        method: 'GET',
        attempt: 1,
        hop: 0,
        errorCode: 'ROBOTS_DISALLOWED',
      },
    ]);
  });

  it('a throwing listener does not change what is fetched', async () => {
    const c = await council();
    const k = kit();
    k.events.push = () => {
      throw new Error('logger broken');
    };

    await expect(k.fetcher.fetch(c.systemUrl, api())).resolves.toMatchObject({ status: 200 });
  });
});
