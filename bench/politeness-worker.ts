import { subscribe } from 'node:diagnostics_channel';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createPoliteFetcher, type PoliteFetcher, type RobotsCacheStore } from '../shared/fetch';
import { createGuardedAgent, createTestResolver } from '../shared/net';
import {
  createHostSlots,
  createSlotRedisClient,
  type PacedHostSlots,
  RELEASE_LINGER_MS,
} from '../shared/slots';

/**
 * One bench worker process (forked by bench/politeness.ts), like one function instance: the production
 * polite fetcher — robots.txt, host slots in the shared Redis (via the Upstash adapter), redirects by
 * hand, the guarded agent — fetching from the loopback RIS servers.
 */

export interface WorkerStream {
  host: string;
  requests: number;
  /** Every n-th request asks for a page that redirects to `redirectTo` (RATE-5); 0 = never. */
  redirectEvery: number;
  redirectTo: string;
}

export interface WorkerConfig {
  redisUrl: string;
  redisToken: string;
  maxInstances: number;
  intervalMs: number;
  /** Hostname → loopback port (the test resolver maps every `*.test` name to 127.0.0.1). */
  ports: Record<string, number>;
  streams: WorkerStream[];
  /** A folder all workers share for robots.txt, as every instance shares the S3 robots store (ROB-5). */
  robotsDir: string;
}

/** One request as its sender wrote it: undici's `sendHeaders`, in the tick the head goes to the socket. */
export interface SendRecord {
  hostname: string;
  /** The request's x-bench-id (robots.txt, which has none: `port:<local port>`) and path. */
  id: string;
  /** Epoch ms. */
  writtenMs: number;
  pid: number;
}

export interface WorkerReport {
  sends: SendRecord[];
  grants: number;
  busyAnswers: number;
  sharedStoreCalls: number;
  sharedStoreFailures: number;
  fetchErrors: number;
  lateForfeits: number;
  sendAllowanceMs: number;
  loopLagP99Ms: number;
  loopLagMaxMs: number;
}

const now = () => performance.timeOrigin + performance.now();
const sends: SendRecord[] = [];
/**
 * POLITENESS_STALLS=1 (diagnosis, stderr): the fetcher checks a request's slot is on time in undici's
 * onRequestStart, then undici builds and writes the head in the same synchronous call. Time spent
 * between the two (a GC pause, the process preempted) makes a send late past its check. Stamped by a
 * handler right inside the fetcher's check; only the RIS servers' requests (the slot client's calls to
 * the adapter go through undici too, without a check).
 */
let checkedMs: number | undefined;
const stalls: { id: string; stallMs: number; writtenMs: number }[] = [];
subscribe('undici:client:sendHeaders', (message) => {
  const { request, headers, socket } = message as {
    request: { origin: string; path: string };
    headers: string;
    socket: { localPort?: number };
  };
  // robots.txt is sent without the x-bench-id of the request that needed it (its own fetch, its own
  // headers): it is told apart by its connection — this side's port is the server's remote port.
  const benchId = /\r\nx-bench-id: ([^\r]+)\r\n/i.exec(headers)?.[1] ?? `port:${socket.localPort}`;
  const id = `${benchId} ${request.path}`;
  const writtenMs = now();
  const hostname = new URL(request.origin).hostname;
  sends.push({ hostname, id, writtenMs, pid: process.pid });
  if (!hostname.endsWith('.test')) return;
  if (checkedMs !== undefined && writtenMs - checkedMs > 1) {
    stalls.push({ id, stallMs: writtenMs - checkedMs, writtenMs });
  }
  checkedMs = undefined;
});

/** The production robots store's role (one copy for all instances) played by files in one folder. */
function sharedRobotsStore(dir: string): RobotsCacheStore {
  const file = (host: string, agent: string) => join(dir, `${encodeURIComponent(`${host} ${agent}`)}.json`);
  return {
    async get(host, agent) {
      try {
        return JSON.parse(await readFile(file(host, agent), 'utf8'));
      } catch {
        return undefined;
      }
    },
    async put(host, agent, entry) {
      const target = file(host, agent);
      const temporary = `${target}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(entry));
      await rename(temporary, target); // whole or not at all
    },
  };
}

interface Prepared {
  config: WorkerConfig;
  slots: PacedHostSlots;
  fetcher: PoliteFetcher;
  close(): Promise<void>;
}

/** Built on "prepare", like a function instance's init phase: clients, slots, a warm Redis connection. */
async function prepare(config: WorkerConfig): Promise<Prepared> {
  const slots = createHostSlots({
    redis: createSlotRedisClient({ url: config.redisUrl, token: config.redisToken }),
    maxInstances: config.maxInstances,
    // As the sync function runs them: a release rides with the next reservation of its host.
    releaseLingerMs: RELEASE_LINGER_MS,
    onEvent: (event) => {
      if (!process.env.BENCH_DEBUG) return;
      if (event.type === 'slot-forfeited') {
        console.error(
          `forfeit@${Math.round(performance.timeOrigin + performance.now()) % 100000} ${event.host} late ${event.wokeLateMs.toFixed(1)} uncertainty ${event.uncertaintyMs.toFixed(1)}`,
        );
      } else if (event.type === 'shared-store-failed') {
        console.error(`worker ${process.pid}: shared store failed: ${(event.error as Error).message}`);
      }
    },
  });
  await slots.warmUp();
  const agent = createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true });
  const dispatcher = agent.compose(
    (dispatch) => (opts, handler) =>
      dispatch(opts, {
        ...handler,
        onRequestStart(controller, context) {
          checkedMs = now();
          try {
            handler.onRequestStart?.(controller, context);
          } catch (error) {
            checkedMs = undefined; // found late: not sent, re-timed
            throw error;
          }
        },
        onRequestUpgrade: (c, st, h, so) => handler.onRequestUpgrade?.(c, st, h, so),
        onResponseStart: (c, st, h, m) => handler.onResponseStart?.(c, st, h, m),
        onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
        onResponseEnd: (c, t) => handler.onResponseEnd?.(c, t),
        onResponseError: (c, e) => handler.onResponseError?.(c, e),
      }),
  );
  const fetcher = createPoliteFetcher({
    slots,
    robotsStore: sharedRobotsStore(config.robotsDir),
    dispatcher,
    addressPolicy: { allowLoopback: true },
  });
  return { config, slots, fetcher, close: () => agent.close() };
}

async function run({ config, slots, fetcher, close }: Prepared): Promise<WorkerReport> {
  let fetchErrors = 0;
  let sequence = 0;
  const source = { sourceId: 'bench', requestIntervalSeconds: config.intervalMs / 1_000 };

  const runStream = async (stream: WorkerStream, index: number) => {
    // Syncs start when their messages arrive, not all in one millisecond: spread over the first interval.
    await new Promise((resolve) => setTimeout(resolve, (index * config.intervalMs) / config.streams.length));
    const base = `http://${stream.host}:${config.ports[stream.host]}`;
    for (let k = 0; k < stream.requests; k += 1) {
      const redirect = stream.redirectEvery > 0 && k % stream.redirectEvery === stream.redirectEvery - 1;
      const target = `${stream.redirectTo}:${config.ports[stream.redirectTo]}`;
      const url = redirect ? `${base}/redirect?to=${target}` : `${base}/page/${k}`;
      sequence += 1;
      try {
        await fetcher.fetch(url, {
          purpose: 'api',
          source,
          headers: { 'x-bench-id': `${process.pid}-${sequence}` },
        });
      } catch (error) {
        fetchErrors += 1;
        if (process.env.BENCH_DEBUG) console.error(`fetch ${url}: ${(error as Error).message}`);
      }
    }
  };

  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  await Promise.all(config.streams.map(runStream));
  await slots.flushReleases();
  lag.disable();
  await close();
  if (process.env.POLITENESS_STALLS) console.error(`stalls ${process.pid} ${JSON.stringify(stalls)}`);
  const stats = slots.stats();
  return {
    sends,
    grants: stats.grants,
    busyAnswers: stats.busyAnswers,
    sharedStoreCalls: stats.sharedStoreCalls,
    sharedStoreFailures: stats.sharedStoreFailures,
    fetchErrors,
    lateForfeits: stats.lateForfeits,
    sendAllowanceMs: stats.sendAllowanceMs,
    loopLagP99Ms: Math.round(lag.percentile(99) / 1e6),
    loopLagMaxMs: Math.round(lag.max / 1e6),
  };
}

let prepared: Prepared | undefined;
process.on('message', (message: { type: 'prepare'; config: WorkerConfig } | { type: 'go' }) => {
  if (message.type === 'prepare') {
    prepare(message.config).then(
      (ready) => {
        prepared = ready;
        process.send?.({ type: 'prepared' });
      },
      (error: Error) => process.send?.({ type: 'failed', error: error.stack ?? String(error) }),
    );
  } else if (message.type === 'go' && prepared) {
    run(prepared).then(
      (report) => process.send?.({ type: 'done', report }),
      (error: Error) => process.send?.({ type: 'failed', error: error.stack ?? String(error) }),
    );
  }
});
process.send?.({ type: 'ready' });
