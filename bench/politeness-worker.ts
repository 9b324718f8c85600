import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  type AcquireResult,
  createHostSlots,
  createSlotRedisClient,
  type PacedHostSlots,
  type SlotLease,
} from '../shared/slots';

/**
 * One bench worker process (forked by bench/politeness.ts): runs its request streams through the real
 * slot code against the shared Redis (via the Upstash adapter), like one function instance would.
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
  /** Hostname → loopback port: the bench's stand-in for DNS. */
  ports: Record<string, number>;
  streams: WorkerStream[];
}

export interface WorkerReport {
  grants: number;
  busyAnswers: number;
  sharedStoreCalls: number;
  sharedStoreFailures: number;
  httpErrors: number;
  lateForfeits: number;
  sendAllowanceMs: number;
  /** How late acquire resolved after the slot's send time (timer and event-loop lag of this process). */
  wakeLateMaxMs: number;
  wakeLateOver10Ms: number;
}

/** Built on "prepare", like a function instance's init phase: client, slots, a warm connection. */
async function prepare(config: WorkerConfig): Promise<PacedHostSlots> {
  const slots = createHostSlots({
    redis: createSlotRedisClient({ url: config.redisUrl, token: config.redisToken }),
    maxInstances: config.maxInstances,
    onEvent: (event) => {
      if (event.type === 'slot-forfeited' && process.env.BENCH_DEBUG) {
        console.error(
          `forfeit ${event.host} woke late ${event.wokeLateMs.toFixed(1)} answer delay ${event.answerDelayMs.toFixed(1)}`,
        );
      }
      if (event.type === 'shared-store-failed' && process.env.BENCH_DEBUG) {
        console.error(`worker ${process.pid}: shared store failed: ${(event.error as Error).message}`);
      }
    },
  });
  await slots.warmUp();
  return slots;
}

async function run(config: WorkerConfig, slots: PacedHostSlots): Promise<WorkerReport> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let httpErrors = 0;

  // The slot time and the moment the request is handed to the socket travel along, so the recorder
  // can tell a late sender from its own delays when it finds two arrivals too close.
  const get = (url: URL, lease: SlotLease) =>
    new Promise<{ status: number; location?: string }>((resolve) => {
      const port = config.ports[url.hostname];
      const trace = `${lease.sendAtMs.toFixed(1)};${(performance.timeOrigin + performance.now()).toFixed(1)};${process.pid}`;
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: url.pathname + url.search,
          headers: { host: url.host, 'x-bench-slot': trace },
          agent,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
        },
      );
      req.on('error', () => {
        httpErrors += 1;
        resolve({ status: 0 });
      });
      req.end();
    });

  let wakeLateMaxMs = 0;
  let wakeLateOver10Ms = 0;
  const granted = (result: AcquireResult): SlotLease => {
    if (!result.granted) throw new Error(`no slot for ${result.host}`);
    const lateMs = performance.timeOrigin + performance.now() - result.sendAtMs;
    wakeLateMaxMs = Math.max(wakeLateMaxMs, lateMs);
    if (lateMs > 10) wakeLateOver10Ms += 1;
    return result;
  };

  const runStream = async (stream: WorkerStream) => {
    for (let k = 0; k < stream.requests; k += 1) {
      const redirect = stream.redirectEvery > 0 && k % stream.redirectEvery === stream.redirectEvery - 1;
      const url = new URL(
        redirect
          ? `http://${stream.host}/redirect?to=${stream.redirectTo}`
          : `http://${stream.host}/page/${k}`,
      );
      let lease = granted(await slots.acquire(url, { intervalMs: config.intervalMs }));
      const answer = await get(url, lease);
      if (answer.status === 302 && answer.location) {
        const target = new URL(answer.location, url);
        lease = granted(await lease.moveTo(target, { intervalMs: config.intervalMs }));
        await get(target, lease);
      }
      await lease.release();
    }
  };

  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const cpuBefore = process.cpuUsage();
  await Promise.all(config.streams.map(runStream));
  lag.disable();
  if (process.env.BENCH_DEBUG) {
    const cpu = process.cpuUsage(cpuBefore);
    console.error(
      `worker ${process.pid}: loop lag p99 ${(lag.percentile(99) / 1e6).toFixed(1)} max ${(lag.max / 1e6).toFixed(1)} ms, cpu ${((cpu.user + cpu.system) / 1e3).toFixed(0)} ms`,
    );
  }
  agent.destroy();
  const stats = slots.stats();
  return {
    grants: stats.grants,
    busyAnswers: stats.busyAnswers,
    sharedStoreCalls: stats.sharedStoreCalls,
    sharedStoreFailures: stats.sharedStoreFailures,
    httpErrors,
    lateForfeits: stats.lateForfeits,
    sendAllowanceMs: stats.sendAllowanceMs,
    wakeLateMaxMs: Math.round(wakeLateMaxMs),
    wakeLateOver10Ms,
  };
}

let prepared: { config: WorkerConfig; slots: PacedHostSlots } | undefined;
process.on('message', (message: { type: 'prepare'; config: WorkerConfig } | { type: 'go' }) => {
  if (message.type === 'prepare') {
    const { config } = message;
    prepare(config).then(
      (slots) => {
        prepared = { config, slots };
        process.send?.({ type: 'prepared' });
      },
      (error: Error) => process.send?.({ type: 'failed', error: error.stack ?? String(error) }),
    );
  } else if (message.type === 'go' && prepared) {
    run(prepared.config, prepared.slots).then(
      (report) => process.send?.({ type: 'done', report }),
      (error: Error) => process.send?.({ type: 'failed', error: error.stack ?? String(error) }),
    );
  }
});
process.send?.({ type: 'ready' });
