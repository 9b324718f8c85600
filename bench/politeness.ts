import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startRedisServer } from '../test/support/redis';
import type { WorkerConfig, WorkerReport, WorkerStream } from './politeness-worker';

/**
 * Politeness bench: many worker processes share one real Redis (through the Upstash adapter) and
 * fetch from loopback "RIS servers", one per test hostname. The servers, not the clients, record
 * arrivals, so the figures are what a council's server would see. Interval 1 s — the real rule.
 *
 * Phase "shared": Redis up throughout. Phase "fallback": redis-server is SIGKILLed when half the
 * requests have arrived; the workers carry on alone (RATE-7).
 *
 *   violations      pairs of consecutive arrivals at one host closer than interval − 5 ms
 *   senderViolations  the same, timed where the workers handed the requests to their sockets
 *   utilization     arrivals ÷ (hosts × (window ÷ interval + 1)), window = first to last arrival:
 *                   1.0 = every host used at exactly one request per interval throughout
 *   redisRoundTripsPerRequest   HTTP requests the adapter answered ÷ arrivals
 *   rate7WindowViolations       windows of maxInstances × interval at one host holding more than
 *                   maxInstances arrivals (the global bound RATE-7 promises without Redis)
 */

export interface PolitenessBenchOptions {
  hosts?: number;
  workers?: number;
  /** Concurrent sequential request streams per host, each in a different worker (like two sources). */
  streamsPerHost?: number;
  requestsPerHostShared?: number;
  requestsPerHostFallback?: number;
  intervalMs?: number;
  /** Every n-th request of a stream is redirected to the next host (RATE-5). */
  redirectEvery?: number;
  /** Share of responses that take 1.2–1.8 s (so two requests are really in flight at once). */
  slowShare?: number;
  seed?: number;
  /**
   * Run the bench's processes (workers, recorder, redis-server) at this OS priority (e.g. -10; needs
   * root). On a machine shared with CPU-heavy jobs, scheduling delays of tens of ms otherwise make
   * workers give up slots they woke too late for (politeness holds, utilization drops) and blur the
   * recorder's arrival times. Production instances do not share their CPU like that.
   */
  priority?: number;
  log?: (line: string) => void;
}

export interface PhaseResult {
  phase: 'shared' | 'fallback';
  hosts: number;
  workers: number;
  requests: number;
  durationMs: number;
  violations: number;
  minGapMs: number;
  maxInFlightPerHost: number;
  utilization: number;
  redisRoundTrips: number;
  redisRoundTripsPerRequest: number;
  busyAnswers: number;
  httpErrors: number;
  fallbackSwitches: number;
  /** Slots given up because a worker could only have sent later than their send allowance. */
  lateForfeits: number;
  /** Largest send allowance a worker asked for at the end (PACE_MARGIN_MS when it kept time). */
  sendAllowanceMaxMs: number;
  wakeLateMaxMs: number;
  wakeLateOver10Ms: number;
  /** Event-loop delay of the process recording arrivals (measurement noise), ms. */
  recorderLagP99Ms: number;
  recorderLagMaxMs: number;
  /** Share of the phase in which some task on the machine waited for a CPU (Linux PSI), 0…1. */
  cpuPressure?: number;
  /**
   * The same check on the times the workers handed each request to its socket (from a header; the
   * processes' clocks agree to ~1 ms): what the slot code controls, without the transit to and the
   * event loop of the recording server.
   */
  senderViolations: number;
  senderMinGapMs: number;
  /** Up to five of the violations, with where the time went (see ViolationSample). */
  violationSamples: ViolationSample[];
  /** Fallback phase only: the same figures split at the moment Redis was killed. */
  beforeKill?: { requests: number; violations: number; senderViolations: number; utilization: number };
  afterKill?: {
    requests: number;
    violations: number;
    senderViolations: number;
    utilization: number;
    rate7WindowViolations: number;
  };
}

export interface PolitenessBenchResult {
  intervalMs: number;
  toleranceMs: number;
  /** OS priority the bench ran at (0 = normal) and the machine's 1-minute load average at the start. */
  priority: number;
  loadAverage: number;
  cpus: number;
  shared: PhaseResult;
  fallback: PhaseResult;
}

const TOLERANCE_MS = 5;
const WORKER_PATH = fileURLToPath(new URL('./politeness-worker.ts', import.meta.url));
const ADAPTER_PATH = fileURLToPath(new URL('./politeness-adapter.ts', import.meta.url));

/** Linux PSI: total µs some task waited for a CPU; undefined where not available. */
function cpuPressureTotalUs(): number | undefined {
  try {
    const match = /some .*total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

interface Arrival {
  /** Epoch ms (performance.timeOrigin + now), comparable across the bench's processes to ~1 ms. */
  atMs: number;
  /** From the worker: its slot time, when it handed the request to the socket, its pid. */
  trace: string;
}

/** The loopback RIS servers: one per hostname, recording arrivals and requests in flight. */
async function startRisServers(hostnames: string[], random: () => number, slowShare: number) {
  const arrivals = new Map<string, Arrival[]>();
  const inFlight = new Map<string, number>();
  let maxInFlight = 0;
  const ports: Record<string, number> = {};
  const servers: Server[] = [];

  for (const hostname of hostnames) {
    arrivals.set(hostname, []);
    inFlight.set(hostname, 0);
    const server = createServer((req, res) => {
      arrivals.get(hostname)!.push({
        atMs: performance.timeOrigin + performance.now(),
        trace: String(req.headers['x-bench-slot'] ?? ''),
      });
      const current = inFlight.get(hostname)! + 1;
      inFlight.set(hostname, current);
      maxInFlight = Math.max(maxInFlight, current);
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        inFlight.set(hostname, inFlight.get(hostname)! - 1);
      };
      res.on('finish', finish);
      res.on('close', finish);
      const delayMs = random() < slowShare ? 1_200 + random() * 600 : 5 + random() * 35;
      setTimeout(() => {
        const target = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
        if (req.url?.startsWith('/redirect') && target) {
          res.writeHead(302, { location: `http://${target}/landing` }).end();
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        }
      }, delayMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports[hostname] = (server.address() as AddressInfo).port;
    servers.push(server);
  }

  return {
    ports,
    arrivals,
    maxInFlight: () => maxInFlight,
    total: () => [...arrivals.values()].reduce((n, list) => n + list.length, 0),
    reset() {
      for (const list of arrivals.values()) list.length = 0;
      maxInFlight = 0;
    },
    async stop() {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/** Forks `path` under tsx and resolves once it says "ready". */
function spawnChild(path: string, priority: number): Promise<ChildProcess> {
  const child = fork(path, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (priority !== 0 && child.pid) setPriority(child.pid, priority);
  return new Promise((resolve, reject) => {
    child.once('message', (m: { type: string }) => (m.type === 'ready' ? resolve(child) : reject(m)));
    child.once('exit', (code) => reject(new Error(`${path} exited early (${code})`)));
  });
}

/** Sends `message` and resolves with the first answer of type `answer`. */
function ask<T>(child: ChildProcess, message: object, answer: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string; error?: string }) => {
      if (m.type === answer) {
        child.off('message', onMessage);
        resolve(m as T);
      } else if (m.type === 'failed') {
        child.off('message', onMessage);
        reject(new Error(m.error));
      }
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/** Streams per worker: host h's streams go to workers h, h+1, … (mod workers), never two in one. */
function planStreams(
  hostnames: string[],
  workers: number,
  streamsPerHost: number,
  requestsPerHost: number,
  redirectEvery: number,
) {
  const plan: WorkerStream[][] = Array.from({ length: workers }, () => []);
  hostnames.forEach((host, h) => {
    for (let s = 0; s < streamsPerHost; s += 1) {
      const requests =
        Math.floor(requestsPerHost / streamsPerHost) + (s < requestsPerHost % streamsPerHost ? 1 : 0);
      const redirectTo = hostnames[(h + 1) % hostnames.length]!;
      plan[(h + s) % workers]!.push({ host, requests, redirectEvery, redirectTo });
    }
  });
  return plan;
}

interface ViolationSample {
  gapMs: number;
  /** Difference of the two slot times the workers were given (the pace as reserved). */
  slotGapMs: number;
  /** Per arrival: handed to the socket after its slot; arrived (recorded) after being handed over. */
  first: { sentLateMs: number; transitMs: number; pid: string };
  second: { sentLateMs: number; transitMs: number; pid: string };
}

function describeArrival(a: Arrival) {
  const [slot, sent, pid] = a.trace.split(';');
  return { slot: Number(slot), sent: Number(sent), pid: pid ?? '?' };
}

function analyse(
  arrivals: Map<string, Arrival[]>,
  intervalMs: number,
  fromMs = Number.NEGATIVE_INFINITY,
  toMs = Number.POSITIVE_INFINITY,
) {
  let violations = 0;
  let minGapMs = Number.POSITIVE_INFINITY;
  let requests = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const samples: ViolationSample[] = [];
  let senderViolations = 0;
  let senderMinGapMs = Number.POSITIVE_INFINITY;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  for (const list of arrivals.values()) {
    const sorted = list.filter((a) => a.atMs >= fromMs && a.atMs < toMs).sort((x, y) => x.atMs - y.atMs);
    requests += sorted.length;
    // The same pairs, timed where the workers handed the requests to their sockets.
    const sent = sorted.map((a) => describeArrival(a).sent).sort((x, y) => x - y);
    for (let i = 1; i < sent.length; i += 1) {
      const gap = sent[i]! - sent[i - 1]!;
      senderMinGapMs = Math.min(senderMinGapMs, gap);
      if (gap < intervalMs - TOLERANCE_MS) senderViolations += 1;
    }
    for (let i = 1; i < sorted.length; i += 1) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      const gap = b.atMs - a.atMs;
      minGapMs = Math.min(minGapMs, gap);
      if (gap >= intervalMs - TOLERANCE_MS) continue;
      violations += 1;
      if (samples.length < 5) {
        const [da, db] = [describeArrival(a), describeArrival(b)];
        samples.push({
          gapMs: round(gap),
          slotGapMs: round(db.slot - da.slot),
          first: { sentLateMs: round(da.sent - da.slot), transitMs: round(a.atMs - da.sent), pid: da.pid },
          second: { sentLateMs: round(db.sent - db.slot), transitMs: round(b.atMs - db.sent), pid: db.pid },
        });
      }
    }
    if (sorted.length) {
      first = Math.min(first, sorted[0]!.atMs);
      last = Math.max(last, sorted.at(-1)!.atMs);
    }
  }
  const windowMs = Math.max(0, last - first);
  const utilization = requests / (arrivals.size * (windowMs / intervalMs + 1));
  return { requests, violations, minGapMs, windowMs, utilization, samples, senderViolations, senderMinGapMs };
}

/** RATE-7's promise without Redis: in any window of maxInstances × interval, at most maxInstances arrivals. */
function rate7WindowViolations(
  arrivals: Map<string, Arrival[]>,
  intervalMs: number,
  maxInstances: number,
  fromMs: number,
) {
  const windowMs = maxInstances * intervalMs - TOLERANCE_MS;
  let violations = 0;
  for (const list of arrivals.values()) {
    const times = list
      .map((a) => a.atMs)
      .filter((t) => t >= fromMs)
      .sort((x, y) => x - y);
    for (let i = 0; i + maxInstances < times.length; i += 1) {
      if (times[i + maxInstances]! - times[i]! < windowMs) violations += 1;
    }
  }
  return violations;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export async function runPolitenessBench(opts: PolitenessBenchOptions = {}): Promise<PolitenessBenchResult> {
  const {
    hosts = 40,
    workers = 4,
    streamsPerHost = 2,
    requestsPerHostShared = 20,
    requestsPerHostFallback = 14,
    intervalMs = 1_000,
    redirectEvery = 8,
    slowShare = 0.1,
    seed = 20_261_130,
    priority: requestedPriority = 0,
    log = () => {},
  } = opts;
  const loadAverage = Math.round(loadavg()[0]! * 100) / 100;
  let priority = 0;
  if (requestedPriority !== 0) {
    try {
      setPriority(requestedPriority);
      priority = requestedPriority;
    } catch (error) {
      log(`priority ${requestedPriority} not applied: ${(error as Error).message}`);
    }
  }
  if (streamsPerHost > workers) throw new Error('streamsPerHost must not exceed workers');
  const hostnames = Array.from({ length: hosts }, (_, i) => `ris-${String(i).padStart(2, '0')}.test`);
  const ris = await startRisServers(hostnames, mulberry32(seed), slowShare);

  const runPhase = async (phase: 'shared' | 'fallback', requestsPerHost: number): Promise<PhaseResult> => {
    ris.reset();
    const redisServer = await startRedisServer();
    if (priority !== 0) setPriority(redisServer.pid, priority);
    const adapterProcess = await spawnChild(ADAPTER_PATH, priority);
    const adapter = await ask<{ url: string; token: string }>(
      adapterProcess,
      { type: 'start', redisUrl: redisServer.url, token: 'bench-token' },
      'started',
    );
    const children = await Promise.all(
      Array.from({ length: workers }, () => spawnChild(WORKER_PATH, priority)),
    );
    const plan = planStreams(hostnames, workers, streamsPerHost, requestsPerHost, redirectEvery);
    const expected = plan
      .flat()
      .reduce((n, s) => n + s.requests + Math.floor(s.requests / (redirectEvery || Infinity)), 0);
    log(`${phase}: ${workers} workers, ${hosts} hosts, ~${expected} requests`);

    let killedAtMs: number | undefined;
    let watcher: NodeJS.Timeout | undefined;
    if (phase === 'fallback') {
      watcher = setInterval(() => {
        if (killedAtMs === undefined && ris.total() >= expected / 2) {
          killedAtMs = performance.timeOrigin + performance.now();
          log(`fallback: killing redis-server after ${ris.total()} requests`);
          void redisServer.stop();
        }
      }, 20);
    }
    // Like function instances after their init phase: client built, connection warm (see warmUp).
    await Promise.all(
      children.map((child, i) =>
        ask(
          child,
          {
            type: 'prepare',
            config: {
              redisUrl: adapter.url,
              redisToken: adapter.token,
              maxInstances: workers,
              intervalMs,
              ports: ris.ports,
              streams: plan[i]!,
            } satisfies WorkerConfig,
          },
          'prepared',
        ),
      ),
    );
    const roundTripsBefore = (await ask<{ count: number }>(adapterProcess, { type: 'count' }, 'count')).count;
    const pressureBefore = cpuPressureTotalUs();
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    const startedMs = performance.now();
    const reports = await Promise.all(
      children.map((child) =>
        ask<{ report: WorkerReport }>(child, { type: 'go' }, 'done').then((m) => m.report),
      ),
    );
    const durationMs = performance.now() - startedMs;
    clearInterval(watcher);
    lag.disable();
    for (const child of children) child.kill();
    const redisRoundTrips =
      (await ask<{ count: number }>(adapterProcess, { type: 'count' }, 'count')).count - roundTripsBefore;
    await ask(adapterProcess, { type: 'stop' }, 'stopped');
    await redisServer.stop();
    const pressureUs = cpuPressureTotalUs();
    const cpuPressure =
      pressureBefore === undefined || pressureUs === undefined
        ? undefined
        : Math.round(((pressureUs - pressureBefore) / 1000 / durationMs) * 100) / 100;

    const all = analyse(ris.arrivals, intervalMs);
    const sum = (pick: (r: WorkerReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
    const result: PhaseResult = {
      phase,
      hosts,
      workers,
      requests: all.requests,
      durationMs: Math.round(durationMs),
      violations: all.violations,
      senderViolations: all.senderViolations,
      senderMinGapMs: Math.round(all.senderMinGapMs * 10) / 10,
      violationSamples: all.samples,
      minGapMs: Math.round(all.minGapMs * 10) / 10,
      maxInFlightPerHost: ris.maxInFlight(),
      utilization: Math.round(all.utilization * 1000) / 1000,
      redisRoundTrips,
      redisRoundTripsPerRequest: Math.round((redisRoundTrips / all.requests) * 1000) / 1000,
      busyAnswers: sum((r) => r.busyAnswers),
      httpErrors: sum((r) => r.httpErrors),
      fallbackSwitches: sum((r) => r.sharedStoreFailures),
      lateForfeits: sum((r) => r.lateForfeits),
      sendAllowanceMaxMs: Math.max(...reports.map((r) => r.sendAllowanceMs)),
      wakeLateMaxMs: Math.max(...reports.map((r) => r.wakeLateMaxMs)),
      wakeLateOver10Ms: sum((r) => r.wakeLateOver10Ms),
      recorderLagP99Ms: Math.round(lag.percentile(99) / 1e6),
      recorderLagMaxMs: Math.round(lag.max / 1e6),
      cpuPressure,
    };
    if (killedAtMs !== undefined) {
      const before = analyse(ris.arrivals, intervalMs, Number.NEGATIVE_INFINITY, killedAtMs);
      result.beforeKill = {
        requests: before.requests,
        violations: before.violations,
        senderViolations: before.senderViolations,
        utilization: Math.round(before.utilization * 1000) / 1000,
      };
      const after = analyse(ris.arrivals, intervalMs, killedAtMs);
      result.afterKill = {
        requests: after.requests,
        violations: after.violations,
        senderViolations: after.senderViolations,
        utilization: Math.round(after.utilization * 1000) / 1000,
        rate7WindowViolations: rate7WindowViolations(ris.arrivals, intervalMs, workers, killedAtMs),
      };
    }
    log(`${phase}: ${JSON.stringify(result)}`);
    return result;
  };

  try {
    const shared = await runPhase('shared', requestsPerHostShared);
    const fallback = await runPhase('fallback', requestsPerHostFallback);
    return {
      intervalMs,
      toleranceMs: TOLERANCE_MS,
      priority,
      loadAverage,
      cpus: cpus().length,
      shared,
      fallback,
    };
  } finally {
    await ris.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `--priority=-10` (root only): see PolitenessBenchOptions.priority.
  const priorityArg = process.argv.find((a) => a.startsWith('--priority='));
  const result = await runPolitenessBench({
    priority: priorityArg ? Number(priorityArg.split('=')[1]) : 0,
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(result));
}
