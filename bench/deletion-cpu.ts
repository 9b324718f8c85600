import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { composeDocuments, type DeletionReport, runDeletionCheck, runFilesPass } from '../shared/documents';
import { createTestResolver } from '../shared/net';
import { createHostSlots } from '../shared/slots';
import { type DocumentsBed, HOUR, putBody, putSource, recordFile, T0 } from '../test/support/documents-bed';
import { InstantClock } from '../test/support/fetch-kit';
import { countCalls } from '../test/support/write-counter';
import { firstLineOf, startRemotePeers } from './support';

/**
 * Issue 28: the deletion check's own CPU per check, without its peers' CPU. The local DynamoDB/S3 run
 * in one child process (peers-process.ts), the demo councils in another (councils-process.ts); this
 * process runs only the real `runDeletionCheck` (fetcher, host slots in memory, DynamoDB/S3 clients)
 * and counts `process.cpuUsage()` around it. Not counted: the Upstash round trip of each request's
 * slot (in production one more HTTPS call per HEAD; in memory here) — see `slotsNote` in the output.
 *
 * `sources` servers, one listed body each with `filesPerSource` stored files (≤ DEL_SAMPLES_PER_BODY,
 * so one run samples them all); a run a week after the store is warm-up (JIT, connection pools), the
 * runs one and two weeks later are measured, then a quiet run (nothing due) gives the per-source cost.
 */
export interface DeletionCpuResult {
  sources: number;
  samplesMeasured: number;
  cpuSecondsMeasured: number;
  /** CPU seconds per sample on this machine's one core, the quiet run's per-source share taken out. */
  cpuSecondsPerCheck: number;
  /** CPU seconds a run spends per source with nothing due (source load, queue and cursor reads). */
  cpuSecondsPerSourceRun: number;
  warmupCpuSecondsPerCheck: number;
  checks: Record<string, number>;
  /** DynamoDB calls of the measured runs by command (a sample's bookkeeping: its share of them). */
  dynamoCalls: Record<string, number>;
  /** Issue 28: the most live heap and buffers a run added while it ran (MB), of all runs. */
  liveMbAdded: number;
  slotsNote: string;
}

async function startCouncils(
  count: number,
  files: number,
): Promise<{ urls: string[]; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/councils-process.ts', String(count), String(files)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const line = await firstLineOf(child, 'councils');
  const urls = (JSON.parse(line) as { url: string }[]).map((c) => c.url);
  return {
    urls,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      await exited;
    },
  };
}

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

const samplesOf = (report: DeletionReport) =>
  Object.entries(report.checks)
    // Answered samples only: a sample not asked (no slot, deadline) sent nothing.
    .filter(
      ([key]) =>
        key.startsWith('sample:') &&
        !/:(not-asked|not-started|host-busy|server-stopped|source-resting|error)$/.test(key),
    )
    .reduce((sum, [, n]) => sum + n, 0);

export async function runDeletionCpuBench({
  sources = 40,
  filesPerSource = 30,
  log = () => {},
}: {
  sources?: number;
  filesPerSource?: number;
  log?: (line: string) => void;
} = {}): Promise<DeletionCpuResult> {
  const peers = await startRemotePeers();
  const councils = await startCouncils(sources, filesPerSource);
  const clock = new InstantClock(T0);
  const env = { ...peers.env, INGESTOR_ALLOW_LOOPBACK: true };
  // Storing the files is setup: its pacing on an instant clock. The checks run on the real clock: with
  // many servers at once, one shared instant clock would let one server's waits push another's slot past
  // its wait budget (not asked) — a real RATE-6 wait costs no CPU, so the figure is unchanged by it.
  const setup = await composeDocuments(env, {
    clients: peers.clients,
    resolver: createTestResolver(),
    slots: createHostSlots({ clock }),
    clock,
    sleep: clock.sleep,
  });
  // The requests the checks sent, by answer or error and whether a retry (ERR-1): what a sample cost.
  let requests: Record<string, number> = {};
  const runtime = await composeDocuments(env, {
    clients: peers.clients,
    resolver: createTestResolver(),
    onRequest: (event) => {
      const key = `${event.kind}:${event.method}:${event.status ?? event.errorCode ?? '?'}${event.attempt > 1 ? ':retry' : ''}`;
      requests[key] = (requests[key] ?? 0) + 1;
    },
  });
  try {
    // The documents bed's helpers need only the peers and the clock.
    const bed = { aws: peers, clock } as unknown as DocumentsBed;
    for (const [i, url] of councils.urls.entries()) {
      const sourceId = `del-cpu-${i}`;
      const bodyId = `${url}/oparl/v1/bodies/1`;
      await putSource(bed, { sourceId, systemUrl: `${url}/oparl/v1/system` });
      await putBody(bed, sourceId, { id: bodyId, listed: true });
      for (let n = 1; n <= filesPerSource; n++) {
        await recordFile(bed, { sourceId, bodyId, url: `${url}/files/1/${n}.pdf` });
      }
    }
    // Store every file (DOC-1): the files pass takes a bounded share a run.
    for (let pass = 0; pass < 20; pass++) {
      const report = await runFilesPass(setup.deps, { now: new Date(clock.now()) });
      const stored = report.files.stored ?? 0;
      log(`files pass ${pass}: ${JSON.stringify(report.files)}`);
      if (stored === 0 && pass > 0) break;
      clock.advance(HOUR);
    }
    const week = 7 * 24 * HOUR;
    let liveMbAdded = 0;
    const calls = countCalls(peers.clients.dynamo);
    // DELETION_CPU_PROFILE_DIR: a CPU profile of each check run too (where a sample's CPU goes; open in
    // Chrome DevTools or speedscope). The profiler's sampling costs CPU: the figures are of a run without it.
    const profileDir = process.env.DELETION_CPU_PROFILE_DIR;
    const session = profileDir ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
    }
    const checkAt = async (atMs: number) => {
      clock.timeMs = atMs;
      // Issue 28 (lambda-fit): what the run holds — live heap and buffers sampled while it runs, over
      // the figure before it (infra/function-sizes.ts sizes the function from it, with its bundle).
      const liveMb = () => {
        const u = process.memoryUsage();
        return (u.heapUsed + u.external + u.arrayBuffers) / 1024 / 1024;
      };
      const startMb = liveMb();
      let peakMb = startMb;
      // The sampler's own CPU (process.memoryUsage every 5 ms: ≈ 0.27 s of a run's ≈ 6 s in a profile)
      // is the bench's, not the check's: counted and taken out.
      let samplerCpu = 0;
      const sampler = setInterval(() => {
        const at = process.cpuUsage();
        peakMb = Math.max(peakMb, liveMb());
        samplerCpu += cpuSeconds(at);
      }, 5);
      await session?.post('Profiler.start');
      calls.reset();
      requests = {};
      const before = process.cpuUsage();
      const report = await runDeletionCheck(runtime.deps, { now: new Date(clock.now()) });
      const cpu = cpuSeconds(before) - samplerCpu;
      if (session && profileDir) {
        const { profile } = await session.post('Profiler.stop');
        await writeFile(
          join(profileDir, `check-${((atMs - T0) / HOUR).toFixed(0)}h.cpuprofile`),
          JSON.stringify(profile),
        );
      }
      clearInterval(sampler);
      liveMbAdded = Math.max(liveMbAdded, peakMb - startMb);
      log(
        `deletion check at +${((atMs - T0) / HOUR).toFixed(0)} h: ${cpu.toFixed(2)} s CPU (the memory sampler's ${samplerCpu.toFixed(2)} s taken out), ${JSON.stringify(report.checks)}, requests ${JSON.stringify(requests)}`,
      );
      const dynamo: Record<string, number> = {};
      for (const c of calls.calls()) dynamo[c.command] = (dynamo[c.command] ?? 0) + 1;
      return { cpu, samples: samplesOf(report), checks: report.checks, dynamo };
    };
    const warm = await checkAt(T0 + week + 2 * HOUR);
    const measured = [await checkAt(T0 + 2 * week + 2 * HOUR), await checkAt(T0 + 3 * week + 2 * HOUR)];
    // Nothing due an hour later: what a run costs per source apart from its checks.
    const quiet = await checkAt(T0 + 3 * week + 3 * HOUR);
    const cpuSecondsPerSourceRun = quiet.cpu / sources;
    const samplesMeasured = measured.reduce((s, m) => s + m.samples, 0);
    const cpuSecondsMeasured = measured.reduce((s, m) => s + m.cpu, 0);
    const checks: Record<string, number> = {};
    const dynamoCalls: Record<string, number> = {};
    for (const m of measured) {
      for (const [k, n] of Object.entries(m.checks)) checks[k] = (checks[k] ?? 0) + n;
      for (const [k, n] of Object.entries(m.dynamo)) dynamoCalls[k] = (dynamoCalls[k] ?? 0) + n;
    }
    return {
      sources,
      samplesMeasured,
      cpuSecondsMeasured,
      cpuSecondsPerCheck:
        samplesMeasured > 0
          ? (cpuSecondsMeasured - measured.length * quiet.cpu) / samplesMeasured
          : Number.NaN,
      cpuSecondsPerSourceRun,
      warmupCpuSecondsPerCheck: warm.samples > 0 ? warm.cpu / warm.samples : Number.NaN,
      checks,
      dynamoCalls,
      liveMbAdded: Math.round(liveMbAdded),
      slotsNote:
        'host slots in memory: in production each HEAD also makes one Upstash REST call (EVALSHA) — not in this figure',
    };
  } finally {
    await setup.close();
    await runtime.close();
    await councils.stop();
    await peers.stop();
  }
}
