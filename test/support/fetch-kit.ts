import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import {
  createMemoryRobotsStore,
  createPoliteFetcher,
  type FetchEvent,
  type FetchOptions,
  type FetchSource,
  type HostSlotLease,
  type HostSlots,
  type PoliteFetcher,
  type RobotsCacheStore,
} from '../../shared/fetch';
import { createGuardedAgent, createTestResolver, type HostResolver } from '../../shared/net';
import { createHostSlots, type SlotClock } from '../../shared/slots';

/**
 * Test kit for the polite fetcher: an instant clock (sleeps advance time at once and are recorded),
 * process-local slots from shared/slots on that clock, the guarded agent with the explicit test
 * resolver (`*.test` → 127.0.0.1; loopback allowed, as in local mode), a recording node:http server.
 */

/** Time that moves only by sleeping: `sleep(ms)` adds `ms` at once and records it. */
export class InstantClock implements SlotClock {
  timeMs: number;
  /** Every sleep asked for by the slots (pace waits). */
  readonly slotSleeps: number[] = [];
  /** Every ERR-1 pause asked for by the fetcher. */
  readonly retryPauses: number[] = [];

  constructor(startMs = Date.UTC(2026, 9, 16, 8, 0, 0)) {
    this.timeMs = startMs;
  }

  now = (): number => this.timeMs;

  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw signal.reason;
    if (ms > 0) {
      this.slotSleeps.push(ms);
      this.timeMs += ms;
    }
  };

  /** The fetcher's ERR-1 sleep. */
  retrySleep = async (ms: number): Promise<void> => {
    this.retryPauses.push(ms);
    this.timeMs += ms;
  };

  advance(ms: number): void {
    this.timeMs += ms;
  }
}

export interface RecordedCall {
  method: string;
  path: string;
  host: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface TestServer {
  port: number;
  /** `http://<host>:<port><path>`; host defaults to ris-a.test. */
  url(path?: string, host?: string): string;
  readonly calls: RecordedCall[];
  /** TCP connections the server accepted (keep-alive reuse shows as fewer connections than calls). */
  readonly connections: number;
  /** Calls to one path (without query), robots.txt excluded unless asked for. */
  callsTo(path: string): RecordedCall[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, call: RecordedCall) => void | Promise<void>;

/** A node:http server on 127.0.0.1, port 0, recording every request before the handler runs. */
export async function startTestServer(handler: Handler): Promise<TestServer> {
  const calls: RecordedCall[] = [];
  const server = createServer((req, res) => {
    const call: RecordedCall = {
      method: req.method ?? '',
      path: req.url ?? '',
      host: String(req.headers.host ?? ''),
      headers: { ...req.headers },
    };
    calls.push(call);
    Promise.resolve(handler(req, res, call)).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path = '/', host = 'ris-a.test') => `http://${host}:${port}${path}`,
    calls,
    get connections() {
      return connections;
    },
    callsTo: (path) => calls.filter((c) => c.path.split('?')[0] === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** robots.txt from a map, everything else from `routes` (path → handler), 404 otherwise. */
export function routes(
  table: Record<string, Handler>,
  robots:
    | string
    | { status: number; body?: string; headers?: Record<string, string> } = 'User-agent: *\nAllow: /\n',
): Handler {
  return (req, res, call) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/robots.txt' && !table['/robots.txt']) {
      const script = typeof robots === 'string' ? { status: 200, body: robots } : robots;
      res.writeHead(script.status, { 'content-type': 'text/plain', ...(script.headers ?? {}) });
      res.end(script.body ?? '');
      return;
    }
    const route = table[path];
    if (route) return route(req, res, call);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  };
}

export const ok =
  (body = '{"ok":true}', headers: Record<string, string> = { 'content-type': 'application/json' }): Handler =>
  (_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  };

export const status =
  (code: number, headers: Record<string, string> = {}, body = ''): Handler =>
  (_req, res) => {
    res.writeHead(code, headers);
    res.end(body);
  };

export interface Kit {
  fetcher: PoliteFetcher;
  clock: InstantClock;
  slots: HostSlots;
  store: RobotsCacheStore;
  events: FetchEvent[];
  close(): Promise<void>;
}

export interface KitOptions {
  /** Resolver answers besides `*.test` → 127.0.0.1. */
  resolverMap?: Record<string, string | string[]>;
  /** Replaces the test resolver (e.g. one whose lookups take virtual time). */
  resolver?: HostResolver;
  /** A CA to trust besides the system's (the loopback HTTPS server's certificate). */
  extraCa?: string;
  allowLoopback?: boolean;
  clock?: InstantClock;
  store?: RobotsCacheStore;
  slots?: HostSlots;
  userAgent?: string;
}

/**
 * A fetcher wired for tests. Slots: shared/slots in process-local mode on the instant clock (the
 * real pacing code, virtual time), unless a test passes its own.
 */
export function makeKit(options: KitOptions = {}): Kit {
  const clock = options.clock ?? new InstantClock();
  const slots = options.slots ?? createHostSlots({ clock });
  const store = options.store ?? createMemoryRobotsStore();
  const allowLoopback = options.allowLoopback ?? true;
  const dispatcher = createGuardedAgent({
    resolver: options.resolver ?? createTestResolver(options.resolverMap ? { map: options.resolverMap } : {}),
    allowLoopback,
    ...(options.extraCa ? { extraCa: options.extraCa } : {}),
  });
  const events: FetchEvent[] = [];
  const fetcher = createPoliteFetcher({
    slots,
    robotsStore: store,
    dispatcher,
    addressPolicy: { allowLoopback },
    clock,
    sleep: clock.retrySleep,
    ...(options.userAgent ? { userAgent: { userAgent: options.userAgent } } : {}),
    onRequest: (event) => events.push(event),
  });
  return { fetcher, clock, slots, store, events, close: () => dispatcher.close() };
}

export const SOURCE: FetchSource = { sourceId: 'test-source', requestIntervalSeconds: 1 };

export function api(extra: Partial<FetchOptions> = {}): FetchOptions {
  return { purpose: 'api', source: SOURCE, ...extra };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection, got a result');
}

export type SlotCall =
  | { op: 'acquire'; host: string; intervalMs: number; maxWaitMs: number }
  | { op: 'moveTo'; from: string; host: string; intervalMs: number }
  | { op: 'release'; host: string }
  | { op: 'retime'; host: string }
  | { op: 'retryAfter'; host: string; delayMs: number }
  | { op: 'crawlDelay'; host: string; delayMs: number };

/** Wraps slots (the real local ones by default) and records every call, in order. */
export function recordingSlots(inner: HostSlots): HostSlots & { calls: SlotCall[] } {
  const calls: SlotCall[] = [];
  const wrap = (lease: HostSlotLease): HostSlotLease => ({
    granted: true,
    host: lease.host,
    async moveTo(host, request) {
      calls.push({ op: 'moveTo', from: lease.host, host, intervalMs: request.intervalMs });
      const next = await lease.moveTo(host, request);
      return next.granted ? wrap(next) : next;
    },
    onTime: () => lease.onTime(),
    async retime(request) {
      calls.push({ op: 'retime', host: lease.host });
      const next = await lease.retime(request);
      return next.granted ? wrap(next) : next;
    },
    async release() {
      calls.push({ op: 'release', host: lease.host });
      await lease.release();
    },
  });
  return {
    calls,
    async acquire(host, request) {
      calls.push({ op: 'acquire', host, intervalMs: request.intervalMs, maxWaitMs: request.maxWaitMs });
      const result = await inner.acquire(host, request);
      return result.granted ? wrap(result) : result;
    },
    async noteRetryAfter(host, delayMs) {
      calls.push({ op: 'retryAfter', host, delayMs });
      await inner.noteRetryAfter(host, delayMs);
    },
    async noteCrawlDelay(host, delayMs, validForMs) {
      calls.push({ op: 'crawlDelay', host, delayMs });
      await inner.noteCrawlDelay?.(host, delayMs, validForMs);
    },
  };
}

/**
 * Call at a test file's top level: whatever is tracked (kits, servers, fake councils) is closed after
 * each test, the last opened first.
 */
export function closeAfterEach() {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });
  const track = <T extends { close(): Promise<void> }>(resource: T): T => {
    cleanups.push(() => resource.close());
    return resource;
  };
  return {
    cleanups,
    track,
    kit: (options: KitOptions = {}) => track(makeKit(options)),
    /** The fake council the fetch tests talk to, as `ris-a.test` on loopback. */
    council: async (): Promise<FakeCouncil> => track(await startFakeCouncil({ hostname: 'ris-a.test' })),
  };
}
