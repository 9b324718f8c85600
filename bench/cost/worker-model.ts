import { seededRandom } from '../random';

/**
 * Issue 28 "pay per work", as built (shared/sync/worker.ts): what the sync invocations bill for a
 * fleet's run stream. Pure: a run stream in, billed invocation seconds per second of run out.
 *
 * The simulated system, second by second:
 * - every minute the planner admits the due runs (Poisson arrivals at the fleet's mean rate) while SCH-5's
 *   slots allow (runs in flight + runs queued ≤ `slots`); they go to the queue;
 * - the event source starts an invocation with up to `batchSize` queued messages while fewer than
 *   `maxInvocations` are alive (infra: SCH-5's slots ÷ runsAtOnce, at least 2);
 * - a live invocation takes queued messages itself while it has room (< `runsAtOnce` runs) and may still
 *   start one (its start ≤ `startBySeconds` into the invocation) — its long poll is open while runs are
 *   in flight, so it takes them within the same second here;
 * - a run lasting past its invocation's budget (`runBudgetSeconds`) is cut there and its rest queued as a
 *   continuation (SCH-5: the run keeps its lease); an invocation ends when its last run ends and nothing
 *   is queued;
 * - an invocation's runs share its CPU (the function's share at its memory): while their demand (Σ each
 *   run's `cpu`) is above 1, every run advances only 1 ÷ demand of a second per second — runs at once
 *   stop overlapping for free once the CPU, not the hosts' pace, binds (issue 28: the lever's limit).
 * Billed = Σ invocations' wall time. Runs are taken to be of distinct hosts (a host's other sources wait
 * in its lane, one run carrying them); arrivals are spread evenly over the day (the nightly full syncs
 * bunch in reality, which only packs invocations fuller: the figure errs on the dear side).
 */
export interface WorkerModelInput {
  /** Mean runs the planner starts per minute, fleet-wide. */
  runsPerMinute: number;
  /**
   * The run mix: wall seconds of a run alone (its paced requests), weighted by how often it occurs, and
   * `cpu`, the share of the function's CPU it uses over those seconds (its work ÷ its seconds; default 0).
   */
  runs: readonly { seconds: number; weight: number; cpu?: number }[];
  /** Runs in flight per invocation (WORKER_RUNS_AT_ONCE). */
  runsAtOnce: number;
  /** The event source's maximum concurrency. */
  maxInvocations: number;
  /** SCH-5: runs leased at once (in flight or queued). */
  slots: number;
  /** Messages handed to a new invocation (SYNC_BATCH_SIZE; before the worker, what one poller's share held). */
  batchSize: number;
  /** The worker takes queued messages itself (as built); false: the batch-per-invocation before it. */
  refill: boolean;
  /** No run starts later into an invocation than this (timeout − WORKER_START_MIN_MS). */
  startBySeconds: number;
  /** A run's requests end by this far into its invocation (timeout − BUDGET_RESERVE_MS). */
  runBudgetSeconds: number;
  /** Simulated minutes measured, after `warmupMinutes`. */
  minutes: number;
  warmupMinutes: number;
  seed?: number;
}

export interface WorkerModelResult {
  /** Billed invocation seconds ÷ run seconds (< 1: runs overlap in invocations). */
  billedPerRunSecond: number;
  /** Invocations started per run started. */
  invocationsPerRun: number;
  /** Mean runs in flight and mean invocations alive over the measured minutes. */
  meanRunsInFlight: number;
  meanInvocationsAlive: number;
  /** Mean seconds a run waited in the queue (admitted → started). */
  meanQueueWaitSeconds: number;
}

interface Invocation {
  start: number;
  /** Its runs in flight: seconds still to go at full speed, and the CPU share each uses then. */
  runs: { left: number; cpu: number }[];
  /** How far its runs advance this second (1, or less while their CPU demand is above 1). */
  speed: number;
}

/** A queued message: the run seconds still to go, its CPU share, and when it was queued (-1: continuation). */
interface Queued {
  seconds: number;
  cpu: number;
  at: number;
}

function poisson(mean: number, random: () => number): number {
  if (mean > 30) {
    // Normal approximation (Box–Muller) for large means.
    const u = Math.max(1e-12, random());
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  }
  const limit = Math.exp(-mean);
  let k = 0;
  let p = random();
  while (p > limit) {
    k += 1;
    p *= random();
  }
  return k;
}

export function simulateWorker(input: WorkerModelInput): WorkerModelResult {
  const random = seededRandom(input.seed ?? 28);
  const totalWeight = input.runs.reduce((n, r) => n + r.weight, 0);
  const drawRun = () => {
    let x = random() * totalWeight;
    for (const r of input.runs) {
      x -= r.weight;
      if (x <= 0) return r;
    }
    return input.runs[input.runs.length - 1] ?? { seconds: 0, weight: 0 };
  };
  const queue: Queued[] = [];
  let backlog = 0;
  const alive: Invocation[] = [];
  const measureFrom = input.warmupMinutes * 60;
  const endAt = measureFrom + input.minutes * 60;
  let billed = 0;
  let runSeconds = 0;
  let runsStarted = 0;
  let invocationsStarted = 0;
  let inFlightSum = 0;
  let aliveSum = 0;
  let waitSum = 0;
  let waited = 0;
  const inFlight = () => alive.reduce((n, i) => n + i.runs.length, 0);

  const startRun = (inv: Invocation, t: number) => {
    const m = queue.shift() as Queued;
    // Every run lasts at least the second it starts in.
    inv.runs.push({ left: Math.max(m.seconds, 1), cpu: m.cpu });
    if (t >= measureFrom) {
      runsStarted += m.at >= 0 ? 1 : 0;
      waitSum += t - Math.max(0, m.at);
      waited += 1;
    }
  };

  for (let t = 0; t < endAt; t += 1) {
    // The last second's progress; runs that end now, and runs cut at their invocation's budget — a cut
    // run's rest goes back to the queue as its continuation.
    for (const inv of alive) {
      const cut = t >= inv.start + input.runBudgetSeconds;
      inv.runs = inv.runs.filter((r) => {
        r.left -= inv.speed;
        if (r.left <= 1e-9) return false;
        if (!cut) return true;
        queue.push({ seconds: r.left, cpu: r.cpu, at: -1 });
        return false;
      });
    }
    // The planner's tick: due runs admitted while SCH-5's slots allow.
    if (t % 60 === 0) {
      backlog += poisson(input.runsPerMinute, random);
      const free = Math.max(0, input.slots - inFlight() - queue.length);
      const admitted = Math.min(free, backlog);
      backlog -= admitted;
      for (let i = 0; i < admitted; i += 1) {
        const run = drawRun();
        queue.push({ seconds: run.seconds, cpu: run.cpu ?? 0, at: t });
      }
    }
    // Live workers take what is queued while they have room and time to start it.
    if (input.refill) {
      for (const inv of alive) {
        while (
          queue.length > 0 &&
          inv.runs.length < input.runsAtOnce &&
          t - inv.start <= input.startBySeconds
        )
          startRun(inv, t);
      }
    }
    // The event source starts invocations for the rest, up to its maximum concurrency.
    while (queue.length > 0 && alive.length < input.maxInvocations) {
      const inv: Invocation = { start: t, runs: [], speed: 1 };
      alive.push(inv);
      if (t >= measureFrom) invocationsStarted += 1;
      for (let i = 0; i < input.batchSize && queue.length > 0; i += 1) startRun(inv, t);
    }
    // Invocations with nothing in flight end (their last look found the queue empty).
    for (let i = alive.length - 1; i >= 0; i -= 1) if (alive[i]?.runs.length === 0) alive.splice(i, 1);
    for (const inv of alive) {
      const demand = inv.runs.reduce((n, r) => n + r.cpu, 0);
      inv.speed = demand > 1 ? 1 / demand : 1;
    }
    if (t >= measureFrom) {
      billed += alive.length;
      const n = inFlight();
      // Run seconds as a run alone would take them: what the bill's run stream counts.
      runSeconds += alive.reduce((sum, inv) => sum + inv.runs.length * inv.speed, 0);
      inFlightSum += n;
      aliveSum += alive.length;
    }
  }
  const seconds = input.minutes * 60;
  return {
    billedPerRunSecond: runSeconds === 0 ? 1 : billed / runSeconds,
    invocationsPerRun: runsStarted === 0 ? 1 : invocationsStarted / runsStarted,
    meanRunsInFlight: inFlightSum / seconds,
    meanInvocationsAlive: aliveSum / seconds,
    meanQueueWaitSeconds: waited === 0 ? 0 : waitSum / waited,
  };
}
