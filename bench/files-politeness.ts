import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FUNCTION_MEMORY_MB } from '../infra/function-sizes';
import { HOSTS_IN_PARALLEL } from '../shared/documents';
import { type DocumentsBed, HOUR, putBody, putSource, recordFile, T0 } from '../test/support/documents-bed';
import { startRedisServer } from '../test/support/redis';
import { buildCouncilPdf } from './council-pdf';
import type { FilesPassDone, FilesPassPrepare } from './files-politeness-pass';
import {
  type Arrival,
  analyse,
  ask,
  cpuPressureTotalUs,
  RECORDER_PRIORITY,
  spawnChild,
  TOLERANCE_MS,
} from './politeness';
import type { RecorderCollect, RecorderStart } from './politeness-recorder';
import { lambdaHeapFlags } from './rss';
import { startRemotePeers } from './support';
import { startWireCapture } from './wire-capture';

/**
 * Issue 28, lever filesHostsAtOnce: is the files pass still polite (RATE-1) with more servers at once?
 * One real files pass (`runFilesPass` as the files function runs it: host slots from the environment
 * through Upstash — redis-server behind the bench's REST adapter, each in a process of its own — the
 * polite fetcher, robots.txt, each download streamed into the local S3, then the text pass) in its own
 * process with the files function's heap bounds (bench/files-politeness-pass.ts), over `hosts` loopback
 * councils on distinct `*.test` hostnames, `filesPerHost` PDFs each (bench/council-pdf.ts, the cost
 * model's 400 KB by default). The councils are the politeness bench's recorder process
 * (bench/politeness-recorder.ts: one server per hostname, 10 % of answers 1.2–1.8 s, at a raised
 * priority); the local DynamoDB/S3 are in a process of their own.
 *
 *   violations        consecutive arrivals at one council closer than 1,000 ms − 5 ms, on the kernel's
 *                     packet time stamps (tcpdump on `lo`, root) — else on the recorder's (arrivalClock)
 *   senderViolations  the same on the times the pass wrote its requests to their sockets
 *   downloadSeconds   from the pass's start to its last download (the text pass follows)
 *   peakRssMb         the pass process's largest RSS, sampled every 50 ms (text pass included)
 *   lateForfeits      slots the pass gave up because it could only have sent after its send allowance
 *                     (each re-timed: one more Upstash call — redisRoundTripsPerRequest counts them all)
 *
 * `npm run bench -- files-politeness`; FILES_POLITENESS_WIDTHS=16,16,16,4,4 (one run each, in turn),
 * FILES_POLITENESS_HOSTS, FILES_POLITENESS_FILES (per host), FILES_POLITENESS_BYTES.
 */
export interface FilesPolitenessOptions {
  hostsAtOnce?: number;
  hosts?: number;
  filesPerHost?: number;
  fileBytes?: number;
  slowShare?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface FilesPolitenessResult {
  hostsAtOnce: number;
  hosts: number;
  filesPerHost: number;
  fileBytes: number;
  /** The machine's 1-minute load average at the start, its CPUs, and the share of the run some task waited for a CPU (PSI). */
  loadAverage: number;
  cpus: number;
  cpuPressure?: number;
  arrivalClock: 'kernel' | 'recorder';
  intervalMs: number;
  toleranceMs: number;
  requests: number;
  recordedRequests: number;
  violations: number;
  minGapMs: number;
  recorderViolations: number;
  recorderMinGapMs: number;
  senderViolations: number;
  senderMinGapMs: number;
  maxInFlightPerHost: number;
  violationSamples: ReturnType<typeof analyse>['samples'];
  outcomes: { files: Record<string, number>; text: Record<string, number> };
  downloadSeconds: number;
  passSeconds: number;
  peakRssMb: number;
  lateForfeits: number;
  /** Requests the Upstash adapter answered during the pass (the ledger's and the slots'), and per arrival. */
  redisRoundTrips: number;
  redisRoundTripsPerRequest: number;
  sendAllowanceMs: number;
  sharedStoreFailures: number;
  loopLagP99Ms: number;
  loopLagMaxMs: number;
  recorderLagP99Ms: number;
  recorderLagMaxMs: number;
}

const INTERVAL_MS = 1_000;
const RECORDER_PATH = fileURLToPath(new URL('./politeness-recorder.ts', import.meta.url));
const ADAPTER_PATH = fileURLToPath(new URL('./politeness-adapter.ts', import.meta.url));
const PASS_PATH = fileURLToPath(new URL('./files-politeness-pass.ts', import.meta.url));
const round1 = (ms: number) => Math.round(ms * 10) / 10;

export async function runFilesPolitenessBench(
  opts: FilesPolitenessOptions = {},
): Promise<FilesPolitenessResult> {
  const {
    hostsAtOnce = HOSTS_IN_PARALLEL,
    hosts = 48,
    filesPerHost = 6,
    fileBytes = 400_000,
    slowShare = 0.1,
    seed = 20_261_204,
    log = () => {},
  } = opts;
  const loadAverage = Math.round(loadavg()[0]! * 100) / 100;
  const dir = mkdtempSync(join(tmpdir(), 'files-politeness-'));
  const pdfPath = join(dir, 'council.pdf');
  // One page: the text pass (after the downloads, from our copy) stays short; the bytes are the download's.
  writeFileSync(pdfPath, buildCouncilPdf({ bytes: fileBytes, pages: 1, textChars: 2_500 }));
  const hostnames = Array.from({ length: hosts }, (_, i) => `council-${String(i).padStart(2, '0')}.test`);
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const recorder = await spawnChild(RECORDER_PATH, 0);
    stops.push(async () => {
      await ask(recorder, { type: 'stop' }, 'stopped');
    });
    const { ports } = await ask<{ ports: Record<string, number> }>(
      recorder,
      {
        type: 'start',
        hostnames,
        seed,
        slowShare,
        priority: RECORDER_PRIORITY,
        filesBody: { path: pdfPath, contentType: 'application/pdf' },
      } satisfies RecorderStart,
      'started',
    );
    const peers = await startRemotePeers();
    stops.push(() => peers.stop());
    const bed = { aws: peers, clock: { now: () => T0 } } as unknown as DocumentsBed;
    for (const host of hostnames) {
      const base = `http://${host}:${ports[host]}`;
      const bodyId = `${base}/oparl/v1/bodies/1`;
      await putSource(bed, { sourceId: host.replace('.test', ''), systemUrl: `${base}/oparl/v1/system` });
      await putBody(bed, host.replace('.test', ''), { id: bodyId, listed: true });
      for (let n = 1; n <= filesPerHost; n++)
        await recordFile(bed, { sourceId: host.replace('.test', ''), bodyId, url: `${base}/files/${n}.pdf` });
    }
    const redisServer = await startRedisServer();
    stops.push(() => redisServer.stop());
    const adapterProcess = await spawnChild(ADAPTER_PATH, 0);
    stops.push(async () => {
      await ask(adapterProcess, { type: 'stop' }, 'stopped');
    });
    const adapter = await ask<{ url: string; token: string }>(
      adapterProcess,
      { type: 'start', redisUrl: redisServer.url, token: 'bench-token' },
      'started',
    );
    // The files function's process: its memory's heap bounds, as Lambda sets them.
    const pass = await spawnChild(PASS_PATH, 0, {
      execArgv: lambdaHeapFlags(FUNCTION_MEMORY_MB.files),
      env: {},
    });
    stops.push(async () => {
      pass.kill();
    });
    const env = Object.fromEntries(
      Object.entries({
        ...peers.env,
        UPSTASH_REDIS_REST_URL: adapter.url,
        UPSTASH_REDIS_REST_TOKEN: adapter.token,
        INGESTOR_ALLOW_LOOPBACK: 'true',
      }).map(([k, v]) => [k, String(v)]),
    );
    await ask(
      pass,
      { type: 'prepare', env, hostsAtOnce, nowMs: T0 + HOUR } satisfies FilesPassPrepare,
      'prepared',
    );
    await ask(recorder, { type: 'reset' }, 'reset');
    const count = async () =>
      (await ask<{ count: number }>(adapterProcess, { type: 'count' }, 'count')).count;
    const roundTripsBefore = await count();
    log(
      `files-politeness: ${hostsAtOnce} at once, ${hosts} councils × ${filesPerHost} files, load ${loadAverage}`,
    );
    const pressureBefore = cpuPressureTotalUs();
    const capture = await startWireCapture();
    const started = performance.now();
    const done = await ask<FilesPassDone>(pass, { type: 'go' }, 'done');
    const passMs = performance.now() - started;
    const wire = await capture?.stop();
    const pressureAfter = cpuPressureTotalUs();
    const collected = await ask<RecorderCollect>(recorder, { type: 'collect' }, 'collected');
    const redisRoundTrips = (await count()) - roundTripsBefore;

    const writtenByHost = new Map<string, number[]>();
    for (const send of done.sends) {
      writtenByHost.set(send.hostname, [...(writtenByHost.get(send.hostname) ?? []), send.writtenMs]);
    }
    for (const list of writtenByHost.values()) list.sort((x, y) => x - y);
    const recorded = new Map<string, Arrival[]>(
      Object.entries(collected.arrivals).map(([host, list]) => [host, list.map(({ atMs }) => ({ atMs }))]),
    );
    const hostOfPort = new Map(Object.entries(ports).map(([host, port]) => [port, host]));
    const arrivals = wire ? new Map<string, Arrival[]>(hostnames.map((host) => [host, []])) : recorded;
    for (const packet of wire ?? []) {
      const host = hostOfPort.get(packet.port);
      if (host) arrivals.get(host)!.push({ atMs: packet.atMs });
    }
    const all = analyse(arrivals, writtenByHost, INTERVAL_MS);
    const byRecorder = wire ? analyse(recorded, writtenByHost, INTERVAL_MS) : all;
    const result: FilesPolitenessResult = {
      hostsAtOnce,
      hosts,
      filesPerHost,
      fileBytes,
      loadAverage,
      cpus: cpus().length,
      ...(pressureBefore === undefined || pressureAfter === undefined
        ? {}
        : { cpuPressure: Math.round(((pressureAfter - pressureBefore) / 1000 / passMs) * 100) / 100 }),
      arrivalClock: wire ? 'kernel' : 'recorder',
      intervalMs: INTERVAL_MS,
      toleranceMs: TOLERANCE_MS,
      requests: all.requests,
      recordedRequests: byRecorder.requests,
      violations: all.violations,
      minGapMs: round1(all.minGapMs),
      recorderViolations: byRecorder.violations,
      recorderMinGapMs: round1(byRecorder.minGapMs),
      senderViolations: all.senderViolations,
      senderMinGapMs: round1(all.senderMinGapMs),
      maxInFlightPerHost: collected.maxInFlight,
      violationSamples: all.samples,
      outcomes: { files: done.files, text: done.text },
      downloadSeconds: Math.round(done.downloadMs) / 1000,
      passSeconds: Math.round(passMs) / 1000,
      peakRssMb: done.peakRssMb,
      lateForfeits: done.lateForfeits,
      redisRoundTrips,
      redisRoundTripsPerRequest: Math.round((redisRoundTrips / Math.max(1, all.requests)) * 1000) / 1000,
      sendAllowanceMs: done.sendAllowanceMs,
      sharedStoreFailures: done.sharedStoreFailures,
      loopLagP99Ms: done.loopLagP99Ms,
      loopLagMaxMs: done.loopLagMaxMs,
      recorderLagP99Ms: collected.lagP99Ms,
      recorderLagMaxMs: collected.lagMaxMs,
    };
    log(`files-politeness: ${JSON.stringify(result)}`);
    return result;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

/** FILES_POLITENESS_WIDTHS=16,16,16,4,4: one run per entry, in turn (default: HOSTS_IN_PARALLEL once). */
export async function runFilesPolitenessRuns(log: (line: string) => void): Promise<FilesPolitenessResult[]> {
  const n = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const widths = (process.env.FILES_POLITENESS_WIDTHS ?? String(HOSTS_IN_PARALLEL)).split(',').map(Number);
  const results: FilesPolitenessResult[] = [];
  for (const hostsAtOnce of widths) {
    results.push(
      await runFilesPolitenessBench({
        hostsAtOnce,
        ...(n('FILES_POLITENESS_HOSTS') ? { hosts: n('FILES_POLITENESS_HOSTS') } : {}),
        ...(n('FILES_POLITENESS_FILES') ? { filesPerHost: n('FILES_POLITENESS_FILES') } : {}),
        ...(n('FILES_POLITENESS_BYTES') ? { fileBytes: n('FILES_POLITENESS_BYTES') } : {}),
        log,
      }),
    );
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runFilesPolitenessRuns((line) => console.error(line))));
}
