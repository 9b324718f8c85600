import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Redis as IORedis } from 'ioredis';
import { startFakeCouncil } from '../demo';
import { FUNCTION_MEMORY_MB } from '../infra/function-sizes';
import { WORKER_RUNS_AT_ONCE } from '../shared/sync';
import { startRedisPeer } from '../test/support/redis';
import { buildFunctionBundle, FUNCTIONS } from './bundle';

/**
 * `npm run bench -- rss` (issue 18): the peak resident memory each function needs, to size it
 * (infra/function-sizes.ts). Two measurements per function, each in a fresh Node process:
 * - `bundleImportMb`: importing the function's bundle as the stack builds it (what a cold start holds);
 * - for the sync and the planner, `workMb`: what the work adds on top of the imports — ten full syncs of
 *   the demo council side by side (a batch of SYNC_BATCH_SIZE; 150 objects per list, 10 per page), or
 *   two planner ticks over 10,000 sources — measured as the resident set sampled every 5 ms while the
 *   work runs minus the set after the imports once collected (`--expose-gc`; issue 28: the peak after
 *   the work minus the peak after the imports hid the work under tsx's transpiling high-water mark).
 * A function needs about `bundleImportMb + workMb`; the local peers run in processes of their own.
 */

/** Scripts (EVAL, EVALSHA) the server has run since it started, from INFO commandstats. */
async function redisScripts(url: string): Promise<number> {
  const client = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  await client.connect();
  try {
    const stats = await client.info('commandstats');
    let total = 0;
    for (const m of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      if (/^eval(sha)?(_ro)?$/.test(m[1] as string)) total += Number(m[2]);
    return total;
  } finally {
    client.disconnect();
  }
}

/** What bench/rss-child.ts prints (the worker scenario adds its runs). */
interface ChildFigures {
  importsMb: number;
  peakMb: number;
  settledMb: number;
  workPeakMb: number;
  settledLiveMb: number;
  workLivePeakMb: number;
  /** The work's CPU time in the child (ms), beside the memory: what a smaller size's CPU share stretches. */
  workCpuMs?: number;
  runs?: number;
  ok?: number;
  maxInFlight?: number;
  seconds?: number;
  /** Issue 28: the worker scenario's Redis commands per request, counted at the server. */
  upstash?: {
    requests: number;
    commands: number;
    scripts: number;
    commandsPerRequest: number;
    bodyBytesPerCommand: number;
  };
}

const execFileAsync = promisify(execFile);

/**
 * Issue 28: the heap bounds Lambda's Node runtime gives a function of `memoryMb` (its bootstrap: a
 * tenth of the memory for the young generation, half of it per semi-space, the rest for the old
 * space), so a child measured with RSS_LAMBDA_MB collects as the function would — under pressure —
 * instead of late (without them V8 grows the heap first and the resident set overstates the need).
 * A child that does not fit dies of a heap limit: the bench fails rather than print a figure.
 */
export function lambdaHeapFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

const lambdaMb = Number(process.env.RSS_LAMBDA_MB ?? 0);

/**
 * Issue 28 (function memory): what the function's own configuration would add to its process, applied
 * to the measured children only (the councils and Redis in this process keep theirs) —
 * `RSS_CHILD_ENV='MALLOC_MMAP_THRESHOLD_=32768'` (glibc's malloc tunables, set as a function's
 * environment) and `RSS_NODE_FLAGS='--max-semi-space-size=4'` (after the Lambda heap bounds, so it wins
 * as a flag the function adds would). Unset: the runtime's defaults, as before.
 */
export function childEnvOf(spec = process.env.RSS_CHILD_ENV ?? ''): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of spec.split(/\s+/).filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`RSS_CHILD_ENV: ${pair} is not NAME=value`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}
const childEnv = childEnvOf();
const extraNodeFlags = (process.env.RSS_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

/** A measured scenario of bench/rss-child.ts in its own Node process (`--expose-gc`, tsx). */
const script = (scenario: string, url = '') => [
  '--expose-gc',
  ...(lambdaMb > 0 ? lambdaHeapFlags(lambdaMb) : []),
  ...extraNodeFlags,
  '--import',
  'tsx',
  'bench/rss-child.ts',
  scenario,
  url,
];

/**
 * Every function the stack deploys (issue 28, lambda-fit): the bundle bench's six and the three it
 * leaves out — each sized from its figure here (infra/function-sizes.ts).
 */
const RSS_FUNCTIONS = [...FUNCTIONS, 'broadcasts', 'geo', 'mirror-api'];

/**
 * The work each function's worst realistic invocation adds (bench/rss-child.ts): ten full syncs side by
 * side, two planner ticks over 10,000 sources, list pages of 100 papers of the mirror API (inline and
 * from S3), the geo function's largest answer (50 MiB of plan boundaries), an hour of broadcast passes.
 */
const WORK_SCENARIOS = ['sync', 'planner', 'mirrorApi', 'geo', 'broadcasts'];

/** A council's own answer time (issue 28: OParl pages often take 1–3 s): runs stay in flight side by side. */
const WORKER_COUNCIL_ANSWER_MS = 1_500;

/**
 * The last line of a Node child's output, as JSON of the shape its script prints. Asynchronous: the
 * councils and Redis the child works against live in this process, and must answer meanwhile (a
 * synchronous spawn would leave every request of the child unanswered until it gave up).
 */
async function child<T>(args: string[], extraEnv: Record<string, string> = {}): Promise<T> {
  const { stdout: out } = await execFileAsync(process.execPath, args, {
    encoding: 'utf8',
    // The child's log lines come back with it (its stderr is not shown): room for a chatty run.
    maxBuffer: 256 * 1024 * 1024,
    env: {
      ...process.env,
      AWS_REGION: 'eu-central-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...childEnv,
      ...extraEnv,
    },
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string) as T;
}

export async function runRssBench(opts: { log?: (line: string) => void } = {}) {
  const log = opts.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'rss-bench-'));
  const bundleImportMb: Record<string, number> = {};
  // RSS_ONLY=sync (or a list, RSS_ONLY=planner,geo): those functions' bundles and work only.
  const onlyList = process.env.RSS_ONLY?.split(',');
  const picked = (name: string) => onlyList === undefined || onlyList.includes(name);
  try {
    for (const name of RSS_FUNCTIONS.filter(picked)) {
      const outfile = join(dir, name, 'index.mjs');
      await buildFunctionBundle(name, outfile);
      const url = pathToFileURL(outfile).href;
      // The preview streams its answer through Lambda's `awslambda` global: a stand-in for the import.
      const script = `globalThis.awslambda ??= { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } }; await import(${JSON.stringify(url)}); console.log(JSON.stringify({ importsMb: 0, peakMb: process.resourceUsage().maxRSS / 1024 }));`;
      bundleImportMb[name] = Math.round(
        (
          await child<{ peakMb: number }>([
            ...(lambdaMb > 0 ? lambdaHeapFlags(lambdaMb) : []),
            ...extraNodeFlags,
            '--input-type=module',
            '-e',
            script,
          ])
        ).peakMb,
      );
      log(`${name}: bundle import ${bundleImportMb[name]} MB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Issue 28 (sizing the sync): RSS_PAGE_SIZE=100 RSS_OBJECTS_PER_LIST=100 serves real pages of 100
  // objects; RSS_SYNC_RUNS runs that many full syncs side by side (default a batch, SYNC_BATCH_SIZE).
  const fake = await startFakeCouncil({
    now: () => new Date(),
    bodies: 1,
    objectsPerList: Number(process.env.RSS_OBJECTS_PER_LIST ?? 150),
    pageSize: Number(process.env.RSS_PAGE_SIZE ?? 10),
  });
  const work: Record<string, ChildFigures & { workMb: number }> = {};
  // What the work holds above the collected imports (sampled every 5 ms while it runs): the larger of
  // the resident set's and the live heap's (+ buffers) growth.
  const measured = (r: ChildFigures) => ({
    ...r,
    workMb: Math.max(r.workPeakMb - r.settledMb, r.workLivePeakMb - r.settledLiveMb),
  });
  try {
    // RSS_WORK=0: the bundles' imports alone (a few seconds each) — e.g. to compare RSS_CHILD_ENV settings.
    for (const scenario of WORK_SCENARIOS.filter((s) => picked(s) && process.env.RSS_WORK !== '0')) {
      work[scenario] = measured(await child<ChildFigures>(script(scenario, fake.systemUrl)));
      log(`${scenario}: ${JSON.stringify(work[scenario])}`);
    }
  } finally {
    await fake.close();
  }
  if (picked('worker')) {
    for (const runs of workerWidths()) {
      work[`worker-${runs}`] = measured(await workerChild(runs, log));
      log(`worker, ${runs} runs: ${JSON.stringify(work[`worker-${runs}`])}`);
    }
  }
  return {
    bundleImportMb,
    work,
    syncMemoryMb: FUNCTION_MEMORY_MB.sync,
    workerRunsAtOnce: WORKER_RUNS_AT_ONCE,
    // What the children ran with (RSS_LAMBDA_MB, RSS_CHILD_ENV, RSS_NODE_FLAGS): a figure names its setup.
    childSetup: { lambdaMb, env: childEnv, nodeFlags: extraNodeFlags },
  };
}

/** RSS_WORKER_RUNS=20,40,50: the widths measured (default today's WORKER_RUNS_AT_ONCE and 50). */
function workerWidths(): number[] {
  const asked = process.env.RSS_WORKER_RUNS?.split(',')
    .map(Number)
    .filter((n) => n > 0);
  return asked && asked.length > 0 ? asked : [...new Set([WORKER_RUNS_AT_ONCE, 50])];
}

/**
 * Issue 28: the sync worker with `runs` full syncs in flight, one per council on a host of its own
 * (`*.test` on loopback), every answer paced like a council's (WORKER_COUNCIL_ANSWER_MS before its
 * head), real pages of 100 objects (four lists). Councils and Redis live in this process, the peers in theirs: the
 * child holds only the function's work.
 */
async function workerChild(runs: number, log: (line: string) => void): Promise<ChildFigures> {
  const redis = await startRedisPeer();
  const councils = await Promise.all(
    Array.from({ length: runs }, (_, i) =>
      startFakeCouncil({
        now: () => new Date(),
        bodies: 1,
        objectsPerList: 100,
        pageSize: 100,
        // Four lists of one real page each: every run holds pages of 100 objects, and 50 runs' writes
        // stay within what the local peers take in a few minutes.
        missingLists: ['legislativeTerm', 'agendaItem', 'membership', 'consultation', 'file', 'locationList'],
        hostname: `rss-worker-${i}.test`,
        faults: [{ match: () => true, fault: { kind: 'delay', delayMs: WORKER_COUNCIL_ANSWER_MS } }],
      }),
    ),
  );
  try {
    const bed = {
      systemUrls: councils.map((c) => c.systemUrl),
      redisUrl: redis.adapter.url,
      redisToken: redis.adapter.token,
    };
    const before = await redisScripts(redis.redisServer.url);
    const bytesBefore = redis.adapter.bodyBytes();
    const commandsBefore = redis.adapter.commandCount();
    const r = await child<ChildFigures>(script('worker'), { RSS_WORKER: JSON.stringify(bed) });
    const requests = councils.reduce((n, c) => n + c.requests.length, 0);
    // Issue 28: the host slots' Redis commands per polite request, as Upstash bills them (every command
    // its REST endpoint receives), and the scripts the real redis-server ran (INFO commandstats), which
    // must be nearly all of them: a reservation and the release riding along are one script.
    const commands = redis.adapter.commandCount() - commandsBefore;
    const scripts = (await redisScripts(redis.redisServer.url)) - before;
    const bytesAfter = redis.adapter.bodyBytes();
    const bodyBytes = bytesAfter.received - bytesBefore.received + bytesAfter.sent - bytesBefore.sent;
    const upstash = {
      requests,
      commands,
      scripts,
      commandsPerRequest: Number((commands / requests).toFixed(3)),
      bodyBytesPerCommand: Math.round(bodyBytes / Math.max(1, commands)),
    };
    log(`worker, ${runs} runs: ${JSON.stringify(upstash)}`);
    return { ...r, upstash };
  } finally {
    await Promise.all(councils.map((c) => c.close()));
    await redis.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runRssBench({ log: (l) => console.error(l) })));
}
