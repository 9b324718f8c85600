import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRobotsStore, createPoliteFetcher, createRunContext } from '../../shared/fetch';
import { createGuardedAgent, createTestResolver } from '../../shared/net';
import { createHostSlots, isSlotLease } from '../../shared/slots';
import { api, closeAfterEach, ok, rejectionOf, routes, startTestServer } from '../support/fetch-kit';
import { type RedisPeer, startRedisPeer } from '../support/redis';

/**
 * Issue 13 (2): a tarpit answer — status and headers at once, then one byte every 150 ms — must not
 * hold a socket past the request's deadline, whatever the status. Real loopback servers that
 * trickle, real time, short deadlines.
 */

const TRICKLE_EVERY_MS = 150;
/** The tarpit gives up on its own after this long (so an unfixed fetcher's test still ends). */
const TRICKLE_FOR_MS = 25_000;

const { cleanups, kit } = closeAfterEach();

/** Writes the head, then one byte every 150 ms until the client goes away; `closed` is when it did. */
function trickle(res: ServerResponse, status: number, headers: Record<string, string> = {}) {
  const socketClosed = new Promise<number>((resolve) => res.once('close', () => resolve(Date.now())));
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.flushHeaders();
  const timer = setInterval(() => res.write('x'), TRICKLE_EVERY_MS);
  const stop = setTimeout(() => res.end(), TRICKLE_FOR_MS);
  void socketClosed.then(() => {
    clearInterval(timer);
    clearTimeout(stop);
  });
  return socketClosed;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('RATE-4 / ERR-1: every byte of every answer is under a deadline (issue 13, tarpits)', () => {
  let peer: RedisPeer;

  beforeAll(async () => {
    peer = await startRedisPeer();
  });
  afterAll(async () => peer?.stop());

  it('RATE-4: a trickling 404 body ends at the body deadline, and its place is held until the socket is closed (a third request cannot start)', async () => {
    const arrived = deferred<number>();
    const closed = deferred<number>();
    const server = await startTestServer(
      routes({
        '/tarpit': (_req, res) => {
          arrived.resolve(Date.now());
          void trickle(res, 404).then(closed.resolve);
        },
      }),
    );
    cleanups.push(() => server.close());
    const keyPrefix = `deadlines:${Date.now()}:`;
    const dispatcher = createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true });
    cleanups.push(() => dispatcher.close());
    // Two "function instances" on one Redis: the fetcher's and another one's slots.
    const fetcher = createPoliteFetcher({
      slots: createHostSlots({ redis: peer.redis, maxInstances: 4, keyPrefix }),
      robotsStore: createMemoryRobotsStore(),
      dispatcher,
      addressPolicy: { allowLoopback: true },
    });
    const other = createHostSlots({ redis: peer.redis, maxInstances: 4, keyPrefix });

    const fetching = rejectionOf(
      fetcher.fetch(
        server.url('/tarpit'),
        api({ headersTimeoutMs: 1_000, bodyTimeoutMs: 300, maxAttempts: 1 }),
      ),
    );
    await arrived.promise;
    // The other instance takes the host's second place…
    const second = await other.acquire('ris-a.test', { intervalMs: 1_000, maxWaitMs: 5_000 });
    expect(second.granted).toBe(true);
    // …so a third request may start only once the tarpit's place is free.
    const third = other
      .acquire('ris-a.test', { intervalMs: 1_000, maxWaitMs: TRICKLE_FOR_MS + 5_000 })
      .then((result) => ({ result, at: Date.now() }));

    const error = await fetching;
    const settledAt = Date.now();
    const socketClosedAt = await closed.promise;
    const { result: thirdResult, at: thirdAt } = await third;

    // RATE-4: the third request started only after the socket had been closed (the tarpit's lease
    // did not expire under an open socket).
    expect(thirdResult.granted).toBe(true);
    expect(thirdAt).toBeGreaterThanOrEqual(socketClosedAt);
    // The status is the finding; the tarpit's body was cut at its deadline (0.3 s), not read for 25 s.
    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: 404 });
    expect(socketClosedAt - (await arrived.promise)).toBeLessThan(2_000);
    expect(settledAt - (await arrived.promise)).toBeLessThan(2_500);
    for (const lease of [second, thirdResult]) if (isSlotLease(lease)) await lease.release();
  }, 40_000);

  it('RATE-4 / RED: a redirect whose body trickles is closed within the deadline before the next hop is sent', async () => {
    const closed = deferred<number>();
    const targetArrivals: number[] = [];
    const target = ok();
    const server = await startTestServer(
      routes({
        '/moved': (_req, res) => {
          void trickle(res, 302, { location: '/target' }).then(closed.resolve);
        },
        '/target': (req, res, call) => {
          targetArrivals.push(Date.now());
          return target(req, res, call);
        },
      }),
    );
    cleanups.push(() => server.close());
    const k = kit();
    const started = Date.now();

    const result = await k.fetcher.fetch(
      server.url('/moved'),
      api({ headersTimeoutMs: 1_000, bodyTimeoutMs: 300, maxAttempts: 1 }),
    );

    expect(result.status).toBe(200);
    const socketClosedAt = await closed.promise;
    expect(socketClosedAt - started).toBeLessThan(2_000);
    // The place moved on (and the next hop left) only after the tarpit's socket was closed.
    expect(targetArrivals).toHaveLength(1);
    expect(targetArrivals[0]).toBeGreaterThanOrEqual(socketClosedAt);
  }, 40_000);
});

describe("issue 13 (10): no request outlives the run's end (RunContext.endsAtMs)", () => {
  it('a slow answer is cut at the run end (RUN_DEADLINE, not counted against the server); later requests are not sent', async () => {
    const closed = deferred<number>();
    const server = await startTestServer(
      routes({
        '/slow': (_req, res) => {
          void trickle(res, 200).then(closed.resolve);
        },
        '/next': ok(),
      }),
    );
    cleanups.push(() => server.close());
    const k = kit();
    // robots.txt at the kit clock's start, /slow one (virtual) interval later; the run ends 0.4 s after.
    const runContext = createRunContext('test-source', { endsAtMs: k.clock.now() + 1_400 });
    const started = Date.now();

    const error = await rejectionOf(k.fetcher.fetch(server.url('/slow'), api({ runContext })));

    expect(error).toMatchObject({ code: 'RUN_DEADLINE' });
    expect((await closed.promise) - started).toBeLessThan(2_000);
    expect(runContext.summary().hosts.find((h) => h.host === 'ris-a.test')).toMatchObject({
      failedAttempts: 0,
    });
    // Past the end nothing leaves: refused before robots.txt, slot or socket.
    k.clock.advance(1_000);
    const calls = server.calls.length;
    await expect(k.fetcher.fetch(server.url('/next'), api({ runContext }))).rejects.toMatchObject({
      code: 'RUN_DEADLINE',
    });
    expect(server.calls).toHaveLength(calls);
  }, 40_000);

  it('a slot that lies beyond the run end is not waited for: RUN_DEADLINE, nothing sent', async () => {
    const server = await startTestServer(routes({ '/a': ok(), '/b': ok() }));
    cleanups.push(() => server.close());
    const k = kit();
    await k.fetcher.fetch(server.url('/a'), api());
    const calls = server.calls.length;
    // The host's next slot is one interval away; the run ends before it.
    const runContext = createRunContext('test-source', { endsAtMs: k.clock.now() + 500 });

    const error = await rejectionOf(k.fetcher.fetch(server.url('/b'), api({ runContext })));

    expect(error).toMatchObject({ code: 'RUN_DEADLINE' });
    expect(server.calls).toHaveLength(calls);
    expect(k.events.at(-1)).toMatchObject({ kind: 'refused', errorCode: 'RUN_DEADLINE' });
  });
});
