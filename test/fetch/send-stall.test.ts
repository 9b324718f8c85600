import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRobotsStore, createPoliteFetcher } from '../../shared/fetch';
import { createGuardedAgent, createTestResolver } from '../../shared/net';
import { createHostSlots, MIN_INTERVAL_MS, type PacedHostSlots } from '../../shared/slots';
import { api, closeAfterEach, ok, routes, startTestServer } from '../support/fetch-kit';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';

// RATE-1 where the server sees it, when the process stalls between the send-time check and the write.
// The fetcher checks its slot in undici's onRequestStart; undici then builds the head and writes it in
// the same synchronous call. A GC pause or a preempted process in between (measured at a cold start:
// 21.2 ms, bench/politeness with POLITENESS_STALLS=1) writes the request later than the check saw it,
// and a send later than its slot's allowance comes closer than the interval to the host's next slot.
// Real redis-server (behind the Upstash REST adapter), a real loopback server, real time. Each request
// is stamped where undici writes its head (diagnostics channel `undici:client:sendHeaders`, in the tick
// of the socket write, which on loopback is the server's arrival): a server in this process would stamp
// it only when its event loop reads it, late by whatever else runs on a loaded test machine.

/** Like a cold start's worst measured stall, and more: 30 ms of CPU held right after the check. */
const STALL_MS = 30;

const { track } = closeAfterEach();

/**
 * An interceptor on the fetcher's dispatcher whose onRequestStart runs the fetcher's check (and the
 * request's own handler) first, then holds the CPU for `stallMs` when `shouldStall` says so — the
 * stall lands between the check and undici's write of the head.
 */
function stallAfterCheck(stallMs: number, shouldStall: (origin: string, path: string) => boolean) {
  return (dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] =>
    (opts, handler) =>
      dispatch(opts, {
        onRequestStart(controller, context) {
          handler.onRequestStart?.(controller, context);
          if (!shouldStall(String(opts.origin), opts.path)) return;
          const until = performance.now() + stallMs;
          while (performance.now() < until) {
            // busy: the event loop and the write wait, as in a GC pause
          }
        },
        onRequestUpgrade: (c, st, h, so) => handler.onRequestUpgrade?.(c, st, h, so),
        onResponseStart: (c, st, h, m) => handler.onResponseStart?.(c, st, h, m),
        onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
        onResponseEnd: (c, t) => handler.onResponseEnd?.(c, t),
        onResponseError: (c, e) => handler.onResponseError?.(c, e),
      });
}

describe('a stall between the send-time check and the write (RATE-1)', () => {
  let peer: RedisPeer;

  beforeAll(async () => {
    peer = await startRedisPeer();
  });
  afterAll(async () => {
    await peer?.stop();
  });

  it(`a cold instance whose first request is written ${STALL_MS} ms after its check still keeps the interval to the next request`, async () => {
    const server = track(await startTestServer(routes({ '/a': ok(), '/b': ok() })));
    const writes: { path: string; atMs: number }[] = [];
    const onWrite = (message: unknown) => {
      const { request } = message as { request: { origin: string; path: string } };
      if (request.origin.includes('ris-a.test')) writes.push({ path: request.path, atMs: performance.now() });
    };
    subscribe('undici:client:sendHeaders', onWrite);
    track({
      close: async () => {
        unsubscribe('undici:client:sendHeaders', onWrite);
      },
    });
    // A fresh instance as at a function's cold start: warmed up against Redis, no sends yet.
    const slots: PacedHostSlots = createHostSlots({
      redis: createTestRedisClient(peer.adapter),
      maxInstances: 4,
      keyPrefix: 'send-stall:',
    });
    await slots.warmUp();
    let checked = 0;
    const agent = track(createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true }));
    const dispatcher = agent.compose(
      // Only the host's first written request (robots.txt) stalls; the slot client's calls do not.
      stallAfterCheck(STALL_MS, (origin) => {
        if (!origin.includes('ris-a.test')) return false;
        checked += 1;
        return checked === 1;
      }),
    );
    const fetcher = createPoliteFetcher({
      slots,
      robotsStore: createMemoryRobotsStore(),
      dispatcher,
      addressPolicy: { allowLoopback: true },
    });

    await fetcher.fetch(server.url('/a'), api());
    await fetcher.fetch(server.url('/b'), api());

    expect(server.calls.map((c) => c.path)).toEqual(['/robots.txt', '/a', '/b']);
    expect(writes.map((w) => w.path)).toEqual(['/robots.txt', '/a', '/b']);
    const gaps = writes.slice(1).map((w, i) => w.atMs - writes[i]!.atMs);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(MIN_INTERVAL_MS);
  });
});
