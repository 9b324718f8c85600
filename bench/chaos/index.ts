import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { FakeCouncilOptions } from '../../demo';
import { startRedisPeer } from '../../test/support/redis';
import { startWireCapture } from '../wire-capture';
import type { CouncilHost } from './councils';
import { startCouncilHost } from './councils';
import { type MirrorSnapshot, snapshotMirror } from './observe';
import {
  type ChaosFigures,
  type Scenario,
  ScenarioContext,
  type ScenarioResult,
  STANDARD_COUNCIL,
  syncUntilComplete,
} from './scenario';
import { SCENARIOS } from './scenarios';
import { type ChaosStack, startChaosStack } from './stack';

/**
 * Chaos bench (issue 13): the fault catalogue of docs/reliability.md as one scripted campaign on
 * loopback. Hostile council servers (demo/) and faults injected into our own
 * stack — instances that die at a page boundary, duplicate and re-ordered SQS deliveries, DynamoDB and
 * S3 errors through SDK middleware around the real local peers, one instance's Redis path stalled or
 * killed through a TCP proxy, clock jumps in the `now` the code takes — all through the production
 * front doors (planner tick, the sync function's body, the operator commands, the document passes,
 * the preview handler). The pace is real (1 request per second per host), so each scenario makes a
 * handful of requests to a council on its own `.test` host, and scenarios run side by side.
 *
 * Last line: one JSON object with the headline figures, summed (maxInFlightPerHost: the maximum), and
 * every scenario's result. Goal: all zero but maxInFlightPerHost ≤ 2, over ≥ 40 scenarios.
 */
export interface ChaosResult extends ChaosFigures {
  scenarios: number;
  passed: number;
  failed: string[];
  seconds: number;
  /** Whose stamps the spacing was judged on. */
  arrivalClock: string;
  eventLoopLagMaxMs: number;
  results: ScenarioResult[];
}

export interface ChaosOptions {
  /** Only scenarios whose name contains one of these. */
  only?: string[];
  concurrency?: number;
  log?: (line: string) => void;
}

const SCENARIO_TIMEOUT_MS = 150_000;

export async function runChaosBench(opts: ChaosOptions = {}): Promise<ChaosResult> {
  const log = opts.log ?? (() => {});
  const started = performance.now();
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const redis = await startRedisPeer();
  const [stack, councils] = await Promise.all([startChaosStack(redis), startCouncilHost()]);
  const clean = cleanRuns(stack, councils, log);
  // The reference most scenarios compare with: started at once, in parallel with the first scenarios;
  // awaited before teardown (a scenario that needs none may end first — its council then closed late).
  const reference = clean({}).catch(() => undefined);
  const selected = SCENARIOS.filter(
    (s) => opts.only === undefined || opts.only.length === 0 || opts.only.some((o) => s.name.includes(o)),
  );
  const results: ScenarioResult[] = [];
  const contexts = new Map<string, ScenarioContext>();
  // Arrival times by the kernel (tcpdump on lo), when it can capture: the council process's own stamps
  // are late by its event-loop delay on a loaded machine, which would report gaps that never happened.
  const capture = await startWireCapture();
  let wire: Map<number, { at: number; path: string }[]> | undefined;
  try {
    const together = selected.filter((s) => !s.alone);
    const alone = selected.filter((s) => s.alone);
    await pool(together, opts.concurrency ?? 6, async (s, i) => {
      const ctx = new ScenarioContext(s.name, stack, councils, clean, i + 1);
      contexts.set(s.name, ctx);
      results.push(await runScenario(s, ctx, log));
    });
    for (const [i, s] of alone.entries()) {
      const ctx = new ScenarioContext(s.name, stack, councils, clean, 1000 + i);
      contexts.set(s.name, ctx);
      results.push(await runScenario(s, ctx, log));
    }
  } finally {
    await reference;
    const packets = await capture?.stop();
    if (packets) {
      wire = new Map();
      for (const p of packets) wire.set(p.port, [...(wire.get(p.port) ?? []), { at: p.atMs, path: p.path }]);
    }
    await stack.stop();
    await councils.stop();
    await redis.stop();
    lag.disable();
  }
  for (const r of results) {
    const ctx = contexts.get(r.name) as ScenarioContext;
    ctx.measureSpacing(wire);
    Object.assign(r, ctx.figures);
    r.passed = r.violations.length === 0 && meetsGoals(ctx.figures);
    log(
      `${r.passed ? 'PASS' : 'FAIL'} ${r.name}${r.passed ? '' : ` ${JSON.stringify({ ...ctx.figures, violations: r.violations })}`}`,
    );
  }
  const order = new Map(SCENARIOS.map((s, i) => [s.name, i]));
  results.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  const sum = (k: keyof ChaosFigures) => results.reduce((n, r) => n + r[k], 0);
  return {
    scenarios: results.length,
    passed: results.filter((r) => r.passed).length,
    failed: results.filter((r) => !r.passed).map((r) => r.name),
    forbiddenRequests: sum('forbiddenRequests'),
    spacingViolations: sum('spacingViolations'),
    maxInFlightPerHost: Math.max(0, ...results.map((r) => r.maxInFlightPerHost)),
    lostObjects: sum('lostObjects'),
    duplicatedObjects: sum('duplicatedObjects'),
    revivedTakedowns: sum('revivedTakedowns'),
    lostFeedEvents: sum('lostFeedEvents'),
    sourcesPausedForOurFaults: sum('sourcesPausedForOurFaults'),
    seconds: Math.round((performance.now() - started) / 1000),
    arrivalClock: wire ? 'kernel (tcpdump on lo)' : 'council process',
    eventLoopLagMaxMs: Math.round(lag.max / 1e6),
    results,
  };
}

async function runScenario(
  s: Scenario,
  ctx: ScenarioContext,
  log: (line: string) => void,
): Promise<ScenarioResult> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      s.run(ctx),
      new Promise<void>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`did not finish within ${SCENARIO_TIMEOUT_MS / 1000} s`)),
          SCENARIO_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (err) {
    ctx.violations.push(`scenario aborted: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    clearTimeout(timer);
  }
  await ctx.measureServers();
  await ctx.close();
  const result: ScenarioResult = {
    name: s.name,
    rules: s.rules,
    ...(s.defect !== undefined ? { defect: s.defect } : {}),
    passed: false,
    ...ctx.figures,
    violations: ctx.violations,
    notes: ctx.notes,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
  };
  log(`done ${s.name} (${result.seconds} s)`);
  return result;
}

/** The goals of issue 13: every figure zero, at most two requests in flight per host. */
function meetsGoals(f: ChaosFigures): boolean {
  return (
    f.maxInFlightPerHost <= 2 &&
    f.forbiddenRequests +
      f.spacingViolations +
      f.lostObjects +
      f.duplicatedObjects +
      f.revivedTakedowns +
      f.lostFeedEvents +
      f.sourcesPausedForOurFaults ===
      0
  );
}

/** One clean sync per council configuration, on its own host and deployment, memoised. */
function cleanRuns(stack: ChaosStack, councils: CouncilHost, log: (line: string) => void) {
  const runs = new Map<string, Promise<MirrorSnapshot>>();
  let n = 0;
  return (options: FakeCouncilOptions): Promise<MirrorSnapshot> => {
    const key = JSON.stringify({ ...STANDARD_COUNCIL, ...options });
    let run = runs.get(key);
    if (!run) {
      n += 1;
      const name = `clean-${n}`;
      run = (async () => {
        const council = await councils.start({ ...STANDARD_COUNCIL, ...options, hostname: `${name}.test` });
        const d = await stack.deploy(name);
        try {
          await d.addSource({ sourceId: name, systemUrl: council.systemUrl });
          const instance = await d.instance();
          const done = await syncUntilComplete(d, instance, name, { maxTicks: 1 });
          if (!done.complete) throw new Error(`the clean run ${name} did not complete`);
          log(`clean run ${name}: ${council.requests.length} requests`);
          return await snapshotMirror(d, name, council.url);
        } finally {
          await council.close();
        }
      })();
      runs.set(key, run);
    }
    return run;
  };
}

async function pool<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next;
      next += 1;
      await work(items[i] as T, i);
    }
  });
  await Promise.all(lanes);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const only = process.argv.slice(2);
  const result = await runChaosBench({ only, log: (line) => console.error(line) });
  console.log(JSON.stringify(result));
}
