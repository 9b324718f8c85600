import { seededRandom } from '../random';

/**
 * Issue 28 "pay per work", as built (shared/sync/worker.ts): what the sync invocations bill for a
 * fleet's run stream. Pure: a run stream in, billed invocation seconds per second of run out.
 *
 * The simulated system, second by second:
 * - every minute the planner admits the due runs (Poisson arrivals at the fleet's mean rate) while SCH-5's
 *   slots allow (runs in flight + runs queued ≤ `slots`); they go to the queue — at once, or visible one
 *   after another over `spreadSeconds` (the handout's SQS delays; still leased, so they hold slots);
 * - the event source starts an invocation with up to `batchSize` queued messages while fewer than
 *   `maxInvocations` are alive (infra: SCH-5's slots ÷ runsAtOnce, at least 2);
 * - a live invocation takes queued messages itself while it has room (< `runsAtOnce` runs) and may still
 *   start one (its start ≤ `startBySeconds` into the invocation) — its long poll is open while runs are
 *   in flight, so it takes them within the same second here. With `eventSourcePollers`, the event
 *   source's pollers long-poll the same queue beside them: while fewer than `maxInvocations` are alive, a
 *   message that becomes visible goes to one of them (a new invocation) with the odds of their number
 *   among all polls open — SQS hands a message to any waiting receive;
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
  /**
   * The planner's handout spreads a tick's messages over this many seconds (SQS DelaySeconds, message i of
   * n delayed ⌊i × spread ÷ n⌋ s); 0 or absent: one burst at the tick.
   */
  spreadSeconds?: number;
  /**
   * The event source's pollers competing with the live workers' long polls (see above); 0 or absent:
   * live workers take first, the event source the rest.
   */
  eventSourcePollers?: number;
  /**
   * Who starts invocations: the SQS event source (as built: `maxInvocations`, `batchSize`,
   * `eventSourcePollers`), or the planner (issue 28): at each tick, when messages wait, it starts as many
   * workers as ⌈(runs in flight + queued) ÷ runsAtOnce⌉ (at most `maxInvocations`, which has no SQS
   * floor of 2 here) less every one alive; a worker takes from the queue itself and ends when it holds
   * nothing. No invocation starts between ticks: what is queued then waits for a live worker's room or
   * the next tick.
   */
  trigger?: 'eventSource' | 'planner';
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
  /** Mean seconds a run waited in the queue (admitted → started; the handout's delay included). */
  meanQueueWaitSeconds: number;
  /** The most runs in flight in one second: what the invocations alive must hold. */
  maxRunsInFlight: number;
  /**
   * Issue 28 (provisioned concurrency): measured seconds with exactly i invocations alive, at index i —
   * the distribution a count of always-on instances is priced against (bench/cost/provisioned.ts).
   */
  aliveSeconds: number[];
}

interface Invocation {
  start: number;
  /** Its runs in flight: seconds still to go at full speed, and the CPU share each uses then. */
  runs: { left: number; cpu: number }[];
  /** How far its runs advance this second (1, or less while their CPU demand is above 1). */
  speed: number;
}

/**
 * A queued message: the run seconds still to go, its CPU share, when it was queued (-1: continuation)
 * and from when it is visible (its delay).
 */
interface Queued {
  seconds: number;
  cpu: number;
  at: number;
  visibleAt: number;
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
  // Visible messages, in order; and the delayed ones, in the order they become visible (a tick's delays
  // rise and stay below the next tick: the spread is at most the tick's interval).
  const queue: Queued[] = [];
  const delayed: Queued[] = [];
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

  let maxInFlight = 0;
  const aliveSeconds: number[] = [];
  const pollers = input.eventSourcePollers ?? 0;
  const spread = input.spreadSeconds ?? 0;
  const byPlanner = input.trigger === 'planner';
  const startRun = (inv: Invocation, t: number) => {
    const m = queue.shift() as Queued;
    // Every run lasts at least the second it starts in.
    inv.runs.push({ left: Math.max(m.seconds, 1), cpu: m.cpu });
    // A continuation (at -1) is no new run and waited for no tick: neither counts.
    if (t >= measureFrom && m.at >= 0) {
      runsStarted += 1;
      waitSum += t - m.at;
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
        queue.push({ seconds: r.left, cpu: r.cpu, at: -1, visibleAt: t });
        return false;
      });
    }
    // The planner's tick: due runs admitted while SCH-5's slots allow.
    if (t % 60 === 0) {
      backlog += poisson(input.runsPerMinute, random);
      const free = Math.max(0, input.slots - inFlight() - queue.length - delayed.length);
      const admitted = Math.min(free, backlog);
      backlog -= admitted;
      for (let i = 0; i < admitted; i += 1) {
        const run = drawRun();
        const delay = Math.floor((i * spread) / admitted);
        delayed.push({ seconds: run.seconds, cpu: run.cpu ?? 0, at: t, visibleAt: t + delay });
      }
    }
    while (delayed.length > 0 && (delayed[0] as Queued).visibleAt <= t) queue.push(delayed.shift() as Queued);
    const hasRoom = (inv: Invocation) =>
      inv.runs.length < input.runsAtOnce && t - inv.start <= input.startBySeconds;
    // A new invocation of the event source's, filled up to its batch before the next is started.
    let opened: Invocation | undefined;
    const toEventSource = () => {
      if (opened === undefined || opened.runs.length >= input.batchSize) {
        opened = { start: t, runs: [], speed: 1 };
        alive.push(opened);
        if (t >= measureFrom) invocationsStarted += 1;
      }
      startRun(opened, t);
    };
    if (byPlanner && t % 60 === 0) {
      // The planner's tick: workers for what runs and waits (⌈n ÷ width⌉, at most `maxInvocations`),
      // less every worker alive — one past its last start still counts (the planner sees its wake
      // message in flight), so what waits for it waits until it ends and the next tick.
      const waiting = queue.length + delayed.length;
      const wanted =
        waiting === 0
          ? 0
          : Math.min(Math.ceil((inFlight() + waiting) / input.runsAtOnce), input.maxInvocations) -
            alive.length;
      for (let i = 0; i < wanted; i += 1) {
        alive.push({ start: t, runs: [], speed: 1 });
        if (t >= measureFrom) invocationsStarted += 1;
      }
    }
    if (byPlanner) {
      // Live workers take what is visible while they have room; nothing else starts an invocation.
      for (const inv of alive) while (queue.length > 0 && hasRoom(inv)) startRun(inv, t);
    } else if (input.refill && pollers > 0) {
      // Every visible message to one open poll: a live worker's (one with room; an invocation opened
      // this second polls from the next) or one of the event source's pollers.
      const workers = alive.filter(hasRoom);
      while (queue.length > 0) {
        const sourceOpen =
          (opened !== undefined && opened.runs.length < input.batchSize) ||
          alive.length < input.maxInvocations;
        if (!sourceOpen && workers.length === 0) break;
        if (sourceOpen && (workers.length === 0 || random() < pollers / (pollers + workers.length))) {
          toEventSource();
          continue;
        }
        const i = Math.floor(random() * workers.length);
        const worker = workers[i] as Invocation;
        startRun(worker, t);
        if (!hasRoom(worker)) workers.splice(i, 1);
      }
    } else {
      // Live workers take what is queued while they have room and time to start it.
      if (input.refill) {
        for (const inv of alive) while (queue.length > 0 && hasRoom(inv)) startRun(inv, t);
      }
      // The event source starts invocations for the rest, up to its maximum concurrency.
      while (queue.length > 0 && alive.length < input.maxInvocations) {
        opened = undefined;
        toEventSource();
        for (let i = 1; i < input.batchSize && queue.length > 0; i += 1) toEventSource();
      }
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
      maxInFlight = Math.max(maxInFlight, n);
      // Run seconds as a run alone would take them: what the bill's run stream counts.
      runSeconds += alive.reduce((sum, inv) => sum + inv.runs.length * inv.speed, 0);
      inFlightSum += n;
      aliveSum += alive.length;
      aliveSeconds[alive.length] = (aliveSeconds[alive.length] ?? 0) + 1;
    }
  }
  const seconds = input.minutes * 60;
  return {
    billedPerRunSecond: runSeconds === 0 ? 1 : billed / runSeconds,
    invocationsPerRun: runsStarted === 0 ? 1 : invocationsStarted / runsStarted,
    meanRunsInFlight: inFlightSum / seconds,
    meanInvocationsAlive: aliveSum / seconds,
    meanQueueWaitSeconds: waited === 0 ? 0 : waitSum / waited,
    maxRunsInFlight: maxInFlight,
    aliveSeconds: Array.from(aliveSeconds, (n) => n ?? 0),
  };
}
