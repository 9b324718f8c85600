import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRobotsStore, createPoliteFetcher } from '../../shared/fetch';
import { createGuardedAgent, createTestResolver } from '../../shared/net';
import { createHostSlots, MIN_INTERVAL_MS, type PacedHostSlots } from '../../shared/slots';
import { api, closeAfterEach, ok, routes, startTestServer } from '../support/fetch-kit';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';

const TLS_DIR = new URL('../support/tls/', import.meta.url);
const cert = readFileSync(new URL('cert.pem', TLS_DIR), 'utf8');
const key = readFileSync(new URL('key.pem', TLS_DIR), 'utf8');

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

/** Every request written to `hostname`, stamped in the tick undici writes its head (see above). */
function recordWrites(hostname: string, track: (r: { close(): Promise<void> }) => unknown) {
  const writes: { path: string; atMs: number }[] = [];
  const onWrite = (message: unknown) => {
    const { request } = message as { request: { origin: string; path: string } };
    if (new URL(request.origin).hostname === hostname)
      writes.push({ path: request.path, atMs: performance.now() });
  };
  subscribe('undici:client:sendHeaders', onWrite);
  track({
    close: async () => {
      unsubscribe('undici:client:sendHeaders', onWrite);
    },
  });
  return writes;
}

const gapsOf = (writes: { atMs: number }[]) => writes.slice(1).map((w, i) => w.atMs - writes[i]!.atMs);

/**
 * An HTTPS server (test/support/tls) whose first connection waits `delayMs` before its TLS handshake
 * begins — a slow accept or handshake, as a busy council server or a long network path gives.
 */
async function startSlowHandshakeServer(delayMs: number) {
  const https = createHttpsServer({ key, cert }, (req, res) => {
    res.writeHead(200, { 'content-type': req.url === '/robots.txt' ? 'text/plain' : 'application/json' });
    res.end(req.url === '/robots.txt' ? 'User-agent: *\nAllow: /\n' : '{"ok":true}');
  });
  const sockets = new Set<Socket>();
  let accepted = 0;
  const front = createTcpServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    accepted += 1;
    // The client's hello waits in the socket until the TLS server takes it.
    setTimeout(() => https.emit('connection', socket), accepted === 1 ? delayMs : 0);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    port: (front.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  };
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
    const writes = recordWrites('ris-a.test', track);
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
    for (const gap of gapsOf(writes)) expect(gap).toBeGreaterThanOrEqual(MIN_INTERVAL_MS);
  });

  it('a TLS handshake that outlasts the slot comes before the check: the late request is re-timed, not written close to the next instance', async () => {
    // undici calls onRequestStart (the check) from its write step, once the socket is connected and,
    // for HTTPS, its handshake done — so connection set-up can only make a request late at the check.
    const server = track(await startSlowHandshakeServer(300));
    const writes = recordWrites('ris-tls.test', track);
    const instance = async () => {
      const slots = createHostSlots({
        redis: createTestRedisClient(peer.adapter),
        maxInstances: 4,
        keyPrefix: 'send-handshake:',
      });
      await slots.warmUp();
      const agent = track(
        createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true, extraCa: cert }),
      );
      const fetcher = createPoliteFetcher({
        slots,
        robotsStore: createMemoryRobotsStore(),
        dispatcher: agent,
        addressPolicy: { allowLoopback: true },
      });
      return { slots, fetcher };
    };
    const [a, b] = [await instance(), await instance()];
    const url = (path: string) => `https://ris-tls.test:${server.port}${path}`;

    // A takes the host's first slot and meets the slow handshake; B reserves the slot after it.
    const first = a.fetcher.fetch(url('/a'), api());
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([first, b.fetcher.fetch(url('/b'), api())]);

    expect(writes.map((w) => w.path).sort()).toEqual(['/a', '/b', '/robots.txt', '/robots.txt']);
    for (const gap of gapsOf(writes)) expect(gap).toBeGreaterThanOrEqual(MIN_INTERVAL_MS);
    // A found its slot passed once the handshake was done, and gave it up.
    expect(a.slots.stats().lateForfeits).toBeGreaterThanOrEqual(1);
  });
});
