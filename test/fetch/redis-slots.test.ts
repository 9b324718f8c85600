import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import {
  createMemoryRobotsStore,
  createPoliteFetcher,
  type PoliteFetcher,
  type RobotsCacheStore,
} from '../../shared/fetch';
import { createGuardedAgent, createTestResolver } from '../../shared/net';
import { createHostSlots } from '../../shared/slots';
import { api } from '../support/fetch-kit';
import { type RedisPeer, startRedisPeer } from '../support/redis';

// Integration with the real shared slots: redis-server behind the Upstash REST adapter, two
// fetchers standing for two function instances (each with its own slots client and robots memory,
// one shared robots store), real time. RATE-1's 1 s floor has no test override, so this waits ~2 s.
describe('polite fetcher with Redis-backed slots (RATE-1, RATE-4, RATE-8 across instances)', () => {
  let peer: RedisPeer;
  let council: FakeCouncil;
  const agents: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    peer = await startRedisPeer();
    council = await startFakeCouncil({ hostname: 'ris-redis.test' });
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await council?.close();
    await peer?.stop();
  });

  /** One "function instance": its own slots client and dispatcher; the robots store is passed in. */
  function instance(keyPrefix: string, robotsStore: RobotsCacheStore): PoliteFetcher {
    const dispatcher = createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true });
    agents.push(dispatcher);
    return createPoliteFetcher({
      slots: createHostSlots({ redis: peer.redis, maxInstances: 4, keyPrefix }),
      robotsStore,
      dispatcher,
      addressPolicy: { allowLoopback: true },
    });
  }

  it('RATE-1: concurrent requests from two instances (robots.txt included) reach the server ≥ 1 s apart', async () => {
    const store = createMemoryRobotsStore();
    const [a, b] = [instance('fetch-test:pace:', store), instance('fetch-test:pace:', store)];
    council.clearRequests();

    await Promise.all([a.fetch(council.systemUrl, api()), b.fetch(council.bodyListUrl, api())]);

    const paths = council.requests.map((r) => r.path);
    expect(paths).toContain('/oparl/v1/system');
    expect(paths).toContain('/oparl/v1/bodies');
    const arrivals = council.requests.map((r) => r.at).sort((x, y) => x - y);
    for (let i = 1; i < arrivals.length; i += 1) {
      // Slots pace departures (+10 ms margin); arrival adds connect time and event-loop jitter of a
      // loaded test process, so allow 50 ms. The slots' own tests check the exact spacing.
      expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(950);
    }
  });

  it('RATE-8 / B-2: a Retry-After seen by one instance holds the other back (HOST_SLOT_TIMEOUT, nothing sent)', async () => {
    const store = createMemoryRobotsStore();
    const [a, b] = [instance('fetch-test:ra:', store), instance('fetch-test:ra:', store)];
    const busy = await startFakeCouncil({ hostname: 'ris-busy.test', robots: { status: 404, body: '' } });
    try {
      busy.setFault('/oparl/v1/system', { kind: 'status', status: 429, headers: { 'retry-after': '600' } });

      await expect(a.fetch(busy.systemUrl, api())).rejects.toMatchObject({
        code: 'HTTP_STATUS',
        status: 429,
      });
      const before = busy.requests.length;
      await expect(b.fetch(busy.bodyListUrl, api({ maxWaitMs: 2_000 }))).rejects.toMatchObject({
        code: 'HOST_SLOT_TIMEOUT',
      });
      expect(busy.requests.length).toBe(before);
    } finally {
      await busy.close();
    }
  });
});
