import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SYNC_MALLOC } from '../infra/function-sizes';
import { startRedisServer } from '../test/support/redis';
import type { RecorderCollect, RecorderStart } from './politeness-recorder';
import type { SendRecord, WorkerConfig, WorkerReport, WorkerStream } from './politeness-worker';
import { lambdaHeapFlags } from './rss';
import { startWireCapture } from './wire-capture';

/**
 * Politeness bench: many worker processes, each running the production polite fetcher (robots.txt,
 * host slots in one real Redis through the Upstash adapter, redirects by hand, the guarded agent),
 * fetch from loopback "RIS servers", one per test hostname, in a recorder process of their own. The
 * servers, not the clients, record arrivals, so the figures are what a council's server would see.
 * Interval 1 s — the real rule. Each host has two request streams in two workers (like two sources),
 * every 8th request redirects to the next host (a third party there, RATE-5), 10 % of the answers
 * take 1.2–1.8 s (two really in flight); streams start spread over the first interval.
 *
 * Phase "shared": Redis up throughout. Phase "fallback": redis-server is SIGKILLed when half the
 * requests have arrived; the workers carry on alone (RATE-7).
 *
 *   violations      pairs of consecutive arrivals at one host closer than interval − 5 ms, on the
 *                   kernel's packet time stamps when tcpdump can capture on `lo` (root, `apt-get
 *                   install tcpdump`), else on the recorder's (arrivalClock says which)
 *   senderViolations  the same, timed where the workers wrote the requests to their sockets
 *                   (undici's sendHeaders, robots.txt included)
 *   utilization     arrivals ÷ (hosts × (window ÷ interval + 1)), window = first to last arrival:
 *                   1.0 = every host used at exactly one request per interval throughout
 *   utilizationPerHost  the same over each host's own first to last arrival
 *   utilizationSteady   arrivals ÷ slots while every host is running (ramp-up and tail left out)
 *   redisRoundTripsPerRequest   HTTP requests the adapter answered ÷ arrivals: a reservation each (a
 *                   release rides along with the next reservation of its host, as in the sync
 *                   function, or goes alone after RELEASE_LINGER_MS; a redirect frees its place in the
 *                   target's reservation), plus polls of requesters that found both places taken
 *                   (busyAnswers), plus re-timed slots (lateForfeits)
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
  /**
   * Where arrivals were timed: `kernel` — tcpdump's packet time stamps on the loopback interface (the
   * wire, what a council's server receives); `recorder` — the RIS servers' request handlers (their
   * event loop adds its own delays). `violations` and `minGapMs` use this clock.
   */
  arrivalClock: 'kernel' | 'recorder';
  violations: number;
  /** The same check on the recorder's time stamps (equal to `violations` without a capture). */
  recorderViolations: number;
  recorderMinGapMs: number;
  /** Requests the recorder answered (`requests` counts the captured ones; a kernel drop shows here). */
  recordedRequests: number;
  minGapMs: number;
  maxInFlightPerHost: number;
  utilization: number;
  /**
   * Requests ÷ slots of each host between its own first and last arrival: 1.0 = no slot of a host went
   * unused while it had work. (`utilization` also counts the hosts' different start and end times.)
   */
  utilizationPerHost: number;
  /**
   * Arrivals ÷ (hosts × window ÷ interval) over the steady state — from the moment every host has had
   * its first request until the first host is done (`steadyMs` long): ramp-up and tail left out.
   */
  utilizationSteady: number;
  steadyMs: number;
  redisRoundTrips: number;
  redisRoundTripsPerRequest: number;
  busyAnswers: number;
  fetchErrors: number;
  fallbackSwitches: number;
  /** Slots given up because a worker could only have sent later than their send allowance. */
  lateForfeits: number;
  /** Largest send allowance a worker asked for at the end (PACE_MARGIN_MS when it kept time). */
  sendAllowanceMaxMs: number;
  /** Event-loop delay of the worker processes: the largest p99 and the largest single delay, ms. */
  workerLagP99MaxMs: number;
  workerLagMaxMs: number;
  /** Hosts' first arrivals lie this far apart; their last ones this far (utilization lost at the edges). */
  startSpreadMs: number;
  endSpreadMs: number;
  /** Gaps between consecutive arrivals at one host longer than 1.1 intervals, and their excess per host. */
  idleGaps: number;
  idleMsPerHost: number;
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
  /** OS priority of the recording servers' process (RECORDER_PRIORITY when root, else 0). */
  recorderPriority: number;
  loadAverage: number;
  cpus: number;
  shared: PhaseResult;
  fallback: PhaseResult;
}

export const TOLERANCE_MS = 5;
export const RECORDER_PRIORITY = -15;
const WORKER_PATH = fileURLToPath(new URL('./politeness-worker.ts', import.meta.url));
const ADAPTER_PATH = fileURLToPath(new URL('./politeness-adapter.ts', import.meta.url));
const RECORDER_PATH = fileURLToPath(new URL('./politeness-recorder.ts', import.meta.url));

/** Linux PSI: total µs some task waited for a CPU; undefined where not available. */
export function cpuPressureTotalUs(): number | undefined {
  try {
    const match = /some .*total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

export interface Arrival {
  /** Epoch ms at the recording server (performance.timeOrigin + now), comparable across processes to ~1 ms. */
  atMs: number;
  /** The sender's record of it (joined by request id — robots.txt: its connection's port — and host). */
  send?: SendRecord;
}

/** The recorder process (bench/politeness-recorder.ts): the RIS servers, one per hostname. */
async function startRecorder(hostnames: string[], seed: number, slowShare: number, priority: number) {
  const child = await spawnChild(RECORDER_PATH, 0);
  const started = await ask<{ ports: Record<string, number>; priority: number }>(
    child,
    { type: 'start', hostnames, seed, slowShare, priority } satisfies RecorderStart,
    'started',
  );
  return {
    ports: started.ports,
    priority: started.priority,
    total: async () => (await ask<{ total: number }>(child, { type: 'total' }, 'total')).total,
    reset: () => ask(child, { type: 'reset' }, 'reset'),
    collect: () => ask<RecorderCollect>(child, { type: 'collect' }, 'collected'),
    stop: () => ask(child, { type: 'stop' }, 'stopped'),
  };
}

/**
 * Issue 28 (function memory): the workers as the sync function runs them — POLITENESS_WORKER_MB gives
 * them the heap bounds Lambda sets at that size (bench/rss.ts lambdaHeapFlags), and the sync's glibc
 * malloc setting (infra/function-sizes.ts SYNC_MALLOC) in their environment (POLITENESS_WORKER_MALLOC=0:
 * the bounds alone, to tell the two apart). Unset: plain Node.
 */
function workerProcess(): { execArgv: string[]; env: Record<string, string> } {
  const mb = Number(process.env.POLITENESS_WORKER_MB ?? 0);
  if (!(mb > 0)) return { execArgv: [], env: {} };
  const malloc = process.env.POLITENESS_WORKER_MALLOC !== '0';
  return { execArgv: lambdaHeapFlags(mb), env: malloc ? { ...SYNC_MALLOC.env } : {} };
}

/** Forks `path` under tsx and resolves once it says "ready". */
export function spawnChild(
  path: string,
  priority: number,
  as: { execArgv: string[]; env: Record<string, string> } = { execArgv: [], env: {} },
): Promise<ChildProcess> {
  const child = fork(path, [], {
    execArgv: [...as.execArgv, '--import', 'tsx'],
    env: { ...process.env, ...as.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (priority !== 0 && child.pid) setPriority(child.pid, priority);
  return new Promise((resolve, reject) => {
    child.once('message', (m: { type: string }) => (m.type === 'ready' ? resolve(child) : reject(m)));
    child.once('exit', (code) => reject(new Error(`${path} exited early (${code})`)));
  });
}

/** Sends `message` and resolves with the first answer of type `answer`. */
export function ask<T>(child: ChildProcess, message: object, answer: string): Promise<T> {
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
  /** The same two requests' gap where their workers wrote them to the socket. */
  writtenGapMs: number;
  /** Per arrival: from written (worker) to recorded (server); the worker's pid. */
  first: { transitMs: number; sender: string; request: string };
  second: { transitMs: number; sender: string; request: string };
}

export function analyse(
  arrivals: Map<string, Arrival[]>,
  writtenByHost: Map<string, number[]>,
  intervalMs: number,
  fromMs = Number.NEGATIVE_INFINITY,
  toMs = Number.POSITIVE_INFINITY,
) {
  let violations = 0;
  let minGapMs = Number.POSITIVE_INFINITY;
  let requests = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const firsts: number[] = [];
  const lasts: number[] = [];
  let idleGaps = 0;
  let idleMs = 0;
  let busySlots = 0;
  const samples: ViolationSample[] = [];
  let senderViolations = 0;
  let senderMinGapMs = Number.POSITIVE_INFINITY;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const describe = (a: Arrival) => ({
    transitMs: a.send ? round(a.atMs - a.send.writtenMs) : Number.NaN,
    sender: a.send ? String(a.send.pid) : '?',
    request: a.send?.id ?? '?',
  });
  for (const [host, list] of arrivals) {
    const sorted = list.filter((a) => a.atMs >= fromMs && a.atMs < toMs).sort((x, y) => x.atMs - y.atMs);
    requests += sorted.length;
    // Every request the workers wrote to this host (robots.txt included), timed at the socket.
    const written = (writtenByHost.get(host) ?? []).filter((t) => t >= fromMs && t < toMs);
    for (let i = 1; i < written.length; i += 1) {
      const gap = written[i]! - written[i - 1]!;
      senderMinGapMs = Math.min(senderMinGapMs, gap);
      if (gap < intervalMs - TOLERANCE_MS) senderViolations += 1;
    }
    for (let i = 1; i < sorted.length; i += 1) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      const gap = b.atMs - a.atMs;
      minGapMs = Math.min(minGapMs, gap);
      if (gap > intervalMs * 1.1) {
        idleGaps += 1;
        idleMs += gap - intervalMs;
      }
      if (gap >= intervalMs - TOLERANCE_MS) continue;
      violations += 1;
      if (samples.length < 5) {
        samples.push({
          gapMs: round(gap),
          writtenGapMs: round((b.send?.writtenMs ?? Number.NaN) - (a.send?.writtenMs ?? Number.NaN)),
          first: describe(a),
          second: describe(b),
        });
      }
    }
    if (sorted.length) {
      busySlots += (sorted.at(-1)!.atMs - sorted[0]!.atMs) / intervalMs + 1;
      firsts.push(sorted[0]!.atMs);
      lasts.push(sorted.at(-1)!.atMs);
      first = Math.min(first, sorted[0]!.atMs);
      last = Math.max(last, sorted.at(-1)!.atMs);
    }
  }
  const windowMs = Math.max(0, last - first);
  const utilization = requests / (arrivals.size * (windowMs / intervalMs + 1));
  // Steady state: from when every host has begun until the first one is done.
  const steadyFrom = Math.max(...firsts);
  const steadyTo = Math.min(...lasts);
  let steadyRequests = 0;
  for (const list of arrivals.values()) {
    steadyRequests += list.filter((a) => a.atMs >= steadyFrom && a.atMs < steadyTo).length;
  }
  const steadyMs = steadyTo - steadyFrom;
  return {
    utilizationSteady: steadyMs > 0 ? steadyRequests / (arrivals.size * (steadyMs / intervalMs)) : 0,
    steadyMs: Math.max(0, Math.round(steadyMs)),
    // The same, each host over its own first to last arrival: slots lost while it had work waiting.
    utilizationPerHost: busySlots > 0 ? requests / busySlots : 0,
    requests,
    violations,
    minGapMs,
    windowMs,
    utilization,
    samples,
    senderViolations,
    senderMinGapMs,
    // Where utilization goes: hosts starting or finishing at different times, and gaps within a host.
    startSpreadMs: Math.round(Math.max(...firsts) - Math.min(...firsts)),
    endSpreadMs: Math.round(Math.max(...lasts) - Math.min(...lasts)),
    idleGaps,
    idleMsPerHost: Math.round(idleMs / Math.max(1, firsts.length)),
  };
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
  // The instrument stands apart: on a shared 2-core box a recorder waiting for a CPU would stamp
  // arrivals late and report gaps that never happened on the wire. (Root only; reported.)
  const ris = await startRecorder(hostnames, seed, slowShare, RECORDER_PRIORITY);

  const runPhase = async (phase: 'shared' | 'fallback', requestsPerHost: number): Promise<PhaseResult> => {
    await ris.reset();
    const robotsDir = mkdtempSync(join(tmpdir(), 'politeness-robots-'));
    const redisServer = await startRedisServer();
    if (priority !== 0) setPriority(redisServer.pid, priority);
    const adapterProcess = await spawnChild(ADAPTER_PATH, priority);
    const adapter = await ask<{ url: string; token: string }>(
      adapterProcess,
      { type: 'start', redisUrl: redisServer.url, token: 'bench-token' },
      'started',
    );
    const children = await Promise.all(
      Array.from({ length: workers }, () => spawnChild(WORKER_PATH, priority, workerProcess())),
    );
    const plan = planStreams(hostnames, workers, streamsPerHost, requestsPerHost, redirectEvery);
    const expected = plan
      .flat()
      .reduce((n, s) => n + s.requests + Math.floor(s.requests / (redirectEvery || Infinity)), 0);
    log(`${phase}: ${workers} workers, ${hosts} hosts, ~${expected} requests`);

    let killedAtMs: number | undefined;
    let watcher: NodeJS.Timeout | undefined;
    if (phase === 'fallback') {
      let asking = false;
      watcher = setInterval(() => {
        if (killedAtMs !== undefined || asking) return;
        asking = true;
        void ris.total().then((total) => {
          asking = false;
          if (killedAtMs !== undefined || total < expected / 2) return;
          killedAtMs = performance.timeOrigin + performance.now();
          log(`fallback: killing redis-server after ${total} requests`);
          void redisServer.stop();
        });
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
              robotsDir,
            } satisfies WorkerConfig,
          },
          'prepared',
        ),
      ),
    );
    const roundTripsBefore = (await ask<{ count: number }>(adapterProcess, { type: 'count' }, 'count')).count;
    const pressureBefore = cpuPressureTotalUs();
    const capture = await startWireCapture();
    const startedMs = performance.now();
    const reports = await Promise.all(
      children.map((child) =>
        ask<{ report: WorkerReport }>(child, { type: 'go' }, 'done').then((m) => m.report),
      ),
    );
    const durationMs = performance.now() - startedMs;
    const wire = await capture?.stop();
    clearInterval(watcher);
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

    const collected = await ris.collect();
    const allSends = reports.flatMap((r) => r.sends);
    const sends = new Map(allSends.map((x) => [`${x.id}@${x.hostname}`, x]));
    const writtenByHost = new Map<string, number[]>();
    for (const send of allSends) {
      const list = writtenByHost.get(send.hostname) ?? [];
      list.push(send.writtenMs);
      writtenByHost.set(send.hostname, list);
    }
    for (const list of writtenByHost.values()) list.sort((x, y) => x - y);
    const recorded = new Map<string, Arrival[]>(
      Object.entries(collected.arrivals).map(([host, list]) => [
        host,
        list.map(({ atMs, id }) => ({ atMs, send: sends.get(`${id}@${host}`) })),
      ]),
    );
    // Judged on the kernel's time stamps when tcpdump could capture; else on the recorder's.
    const hostOfPort = new Map(Object.entries(ris.ports).map(([host, port]) => [port, host]));
    const arrivals = wire ? new Map<string, Arrival[]>(hostnames.map((host) => [host, []])) : recorded;
    for (const packet of wire ?? []) {
      const host = hostOfPort.get(packet.port);
      if (!host) continue;
      arrivals.get(host)!.push({ atMs: packet.atMs, send: sends.get(`${packet.id} ${packet.path}@${host}`) });
    }
    if (wire && process.env.BENCH_DEBUG) {
      const seen = new Set(wire.map((p) => `${p.id} ${p.path}@${hostOfPort.get(p.port)}`));
      for (const [host, list] of Object.entries(collected.arrivals)) {
        for (const a of list)
          if (!seen.has(`${a.id}@${host}`)) console.error(`not captured: ${a.id}@${host} at ${a.atMs}`);
      }
    }
    const all = analyse(arrivals, writtenByHost, intervalMs);
    const byRecorder = wire ? analyse(recorded, writtenByHost, intervalMs) : all;
    const sum = (pick: (r: WorkerReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
    const result: PhaseResult = {
      phase,
      hosts,
      workers,
      requests: all.requests,
      durationMs: Math.round(durationMs),
      arrivalClock: wire ? 'kernel' : 'recorder',
      violations: all.violations,
      recorderViolations: byRecorder.violations,
      recorderMinGapMs: Math.round(byRecorder.minGapMs * 10) / 10,
      recordedRequests: byRecorder.requests,
      senderViolations: all.senderViolations,
      senderMinGapMs: Math.round(all.senderMinGapMs * 10) / 10,
      violationSamples: all.samples,
      minGapMs: Math.round(all.minGapMs * 10) / 10,
      maxInFlightPerHost: collected.maxInFlight,
      utilization: Math.round(all.utilization * 1000) / 1000,
      utilizationPerHost: Math.round(all.utilizationPerHost * 1000) / 1000,
      utilizationSteady: Math.round(all.utilizationSteady * 1000) / 1000,
      steadyMs: all.steadyMs,
      redisRoundTrips,
      redisRoundTripsPerRequest: Math.round((redisRoundTrips / all.requests) * 1000) / 1000,
      busyAnswers: sum((r) => r.busyAnswers),
      fetchErrors: sum((r) => r.fetchErrors),
      fallbackSwitches: sum((r) => r.sharedStoreFailures),
      lateForfeits: sum((r) => r.lateForfeits),
      sendAllowanceMaxMs: Math.max(...reports.map((r) => r.sendAllowanceMs)),
      workerLagP99MaxMs: Math.max(...reports.map((r) => r.loopLagP99Ms)),
      workerLagMaxMs: Math.max(...reports.map((r) => r.loopLagMaxMs)),
      recorderLagP99Ms: collected.lagP99Ms,
      recorderLagMaxMs: collected.lagMaxMs,
      startSpreadMs: all.startSpreadMs,
      endSpreadMs: all.endSpreadMs,
      idleGaps: all.idleGaps,
      idleMsPerHost: all.idleMsPerHost,
      cpuPressure,
    };
    if (killedAtMs !== undefined) {
      const before = analyse(arrivals, writtenByHost, intervalMs, Number.NEGATIVE_INFINITY, killedAtMs);
      result.beforeKill = {
        requests: before.requests,
        violations: before.violations,
        senderViolations: before.senderViolations,
        utilization: Math.round(before.utilization * 1000) / 1000,
      };
      const after = analyse(arrivals, writtenByHost, intervalMs, killedAtMs);
      result.afterKill = {
        requests: after.requests,
        violations: after.violations,
        senderViolations: after.senderViolations,
        utilization: Math.round(after.utilization * 1000) / 1000,
        rate7WindowViolations: rate7WindowViolations(arrivals, intervalMs, workers, killedAtMs),
      };
    }
    log(`${phase}: ${JSON.stringify(result)}`);
    rmSync(robotsDir, { recursive: true, force: true });
    return result;
  };

  try {
    const shared = await runPhase('shared', requestsPerHostShared);
    const fallback = await runPhase('fallback', requestsPerHostFallback);
    return {
      intervalMs,
      toleranceMs: TOLERANCE_MS,
      priority,
      recorderPriority: ris.priority,
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
