import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeDocuments, runFilesPass, TextExtractor } from '../shared/documents';
import type { HostSlots } from '../shared/fetch';
import { createTestResolver } from '../shared/net';
import { createHostSlots } from '../shared/slots';
import { type DocumentsBed, HOUR, putBody, putSource, recordFile, T0 } from '../test/support/documents-bed';
import { buildCouncilPdf, type CouncilPdfShape } from './council-pdf';
import { firstLineOf, startRemotePeers } from './support';

/**
 * Issue 28: what bills the files function's time — measured, not assumed. One real files pass
 * (`runFilesPass`, as the hourly Lambda runs it: the cache's downloads streamed into S3, then text
 * extraction in the bounded pdf.js worker from our copy) over `hosts` loopback councils with
 * `filesPerHost` council documents each (bench/council-pdf.ts, default the cost model's 400 KB with
 * 20,000 characters of text on 8 pages). The local DynamoDB/S3 run in a child process
 * (peers-process.ts), the councils in another, so this process's CPU is the pass's own (worker
 * threads included: `process.cpuUsage` counts the whole process).
 *
 *   wallSecondsPerFile        the pass's wall time ÷ files (what Lambda bills, at this machine's CPU)
 *   cpuSecondsPerFile         the process's CPU ÷ files, split into the download phase and the text phase
 *   slotWaitSecondsPerFile    time spent inside HostSlots.acquire (RATE-1 pacing; each host's requests
 *                             one after the other, 4 hosts at once) ÷ files — wall time, not CPU
 *   extractSecondsPerFile     time inside TextExtractor.extract ÷ files (the worker's start included)
 *   cpuSecondsPerSourceRun    a pass an hour later with nothing due: its CPU ÷ sources (the loads of
 *                             each source's config, state, bodies, takedowns and queues — every run)
 *
 * Host slots in memory on the real clock: in production each request's slot is one Upstash REST call
 * (not counted here, as in `deletion-cpu`). The councils answer at once unless `answerMs` is given.
 */
export interface FilesCostOptions {
  hosts?: number;
  filesPerHost?: number;
  shape?: CouncilPdfShape;
  answerMs?: number;
  log?: (line: string) => void;
}

export interface FilesCostResult {
  hosts: number;
  files: number;
  fileBytes: number;
  pages: number;
  outcomes: { files: Record<string, number>; text: Record<string, number> };
  wallSeconds: number;
  downloadPhaseSeconds: number;
  textPhaseSeconds: number;
  cpuSeconds: { total: number; download: number; text: number };
  perFile: {
    wallSeconds: number;
    cpuSeconds: number;
    downloadCpuSeconds: number;
    textCpuSeconds: number;
    slotWaitSeconds: number;
    extractSeconds: number;
  };
  /** CPU seconds a pass spends per source with nothing due (loads and queue reads; every hourly run). */
  cpuSecondsPerSourceRun: number;
  slotsNote: string;
}

/** The councils: one server on loopback, one hostname per council (host keys ignore the port). */
const COUNCILS_SCRIPT = `
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const pdf = readFileSync(process.argv[1]);
const answerMs = Number(process.argv[2] ?? 0);
const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/robots.txt') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('User-agent: *\\nAllow: /\\n'); return; }
  if (!/^\\/files\\/\\d+\\.pdf$/.test(path)) { res.writeHead(404).end(); return; }
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(pdf.length), etag: '"v1"' });
    res.end(pdf);
  }, answerMs);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
console.log(JSON.stringify({ port: server.address().port }));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

async function startCouncils(pdfPath: string, answerMs: number) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--input-type=module', '-e', COUNCILS_SCRIPT, pdfPath, String(answerMs)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const line = await firstLineOf(child, 'councils');
  const { port } = JSON.parse(line) as { port: number };
  return {
    urlOf: (host: string) => `http://${host}:${port}`,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      await exited;
    },
  };
}

/** Time inside `acquire` (the host slot's wait), summed over requests. */
function timedSlots(slots: HostSlots, waited: { ms: number }): HostSlots {
  return {
    acquire: async (host, request) => {
      const t = performance.now();
      try {
        return await slots.acquire(host, request);
      } finally {
        waited.ms += performance.now() - t;
      }
    },
    noteRetryAfter: (host, delayMs) => slots.noteRetryAfter(host, delayMs),
    ...(slots.noteCrawlDelay
      ? {
          noteCrawlDelay: (host: string, delayMs: number, validForMs?: number) =>
            slots.noteCrawlDelay?.(host, delayMs, validForMs) ?? Promise.resolve(),
        }
      : {}),
  };
}

/** Time inside TextExtractor.extract, summed (the bench's own wrapper around the real method). */
function timeExtraction(): { ms: number; restore(): void } {
  const original = TextExtractor.prototype.extract;
  const timed = {
    ms: 0,
    restore: () => {
      TextExtractor.prototype.extract = original;
    },
  };
  TextExtractor.prototype.extract = async function (this: TextExtractor, ...args) {
    const t = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      timed.ms += performance.now() - t;
    }
  };
  return timed;
}

const cpuOf = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

export async function runFilesCostBench(options: FilesCostOptions = {}): Promise<FilesCostResult> {
  const hosts = options.hosts ?? 20;
  const filesPerHost = options.filesPerHost ?? 5;
  const shape = options.shape ?? { bytes: 400_000, pages: 8, textChars: 20_000 };
  const log = options.log ?? (() => {});
  const dir = await mkdtemp(join(tmpdir(), 'files-cost-'));
  const pdf = buildCouncilPdf(shape);
  await writeFile(join(dir, 'council.pdf'), pdf);
  const peers = await startRemotePeers();
  const councils = await startCouncils(join(dir, 'council.pdf'), options.answerMs ?? 0);
  const waited = { ms: 0 };
  const runtime = await composeDocuments(
    { ...peers.env, INGESTOR_ALLOW_LOOPBACK: true },
    { clients: peers.clients, resolver: createTestResolver(), slots: timedSlots(createHostSlots(), waited) },
  );
  const extraction = timeExtraction();
  try {
    // The documents bed's helpers need only the peers and a clock (the files are recorded at T0).
    const bed = { aws: peers, clock: { now: () => T0 } } as unknown as DocumentsBed;
    const addCouncil = async (name: string, files: number) => {
      const url = councils.urlOf(`${name}.test`);
      const bodyId = `${url}/oparl/v1/bodies/1`;
      await putSource(bed, { sourceId: name, systemUrl: `${url}/oparl/v1/system` });
      await putBody(bed, name, { id: bodyId, listed: true });
      for (let n = 1; n <= files; n++)
        await recordFile(bed, { sourceId: name, bodyId, url: `${url}/files/${n}.pdf` });
    };
    // Warm-up (modules, sockets, the S3 and DynamoDB clients): one council's one file.
    await addCouncil('files-cost-warm', 1);
    const warm = await runFilesPass(runtime.deps, { now: new Date(T0 + HOUR) });
    log(`warm-up: ${JSON.stringify(warm.files)} ${JSON.stringify(warm.text)}`);
    for (let i = 0; i < hosts; i++) await addCouncil(`files-cost-${i}`, filesPerHost);
    waited.ms = 0;
    extraction.ms = 0;
    let downloadsDone = { at: 0, cpu: process.cpuUsage() };
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    const report = await runFilesPass(runtime.deps, {
      now: new Date(T0 + 2 * HOUR),
      onProgress: (p) => {
        if (p.stage === 'files') downloadsDone = { at: performance.now(), cpu: process.cpuUsage() };
      },
    });
    const wall = (performance.now() - started) / 1000;
    const cpuEnd = process.cpuUsage();
    const files = hosts * filesPerHost;
    const downloadCpu = cpuOf({
      user: downloadsDone.cpu.user - cpuStart.user,
      system: downloadsDone.cpu.system - cpuStart.system,
    });
    const totalCpu = cpuOf({ user: cpuEnd.user - cpuStart.user, system: cpuEnd.system - cpuStart.system });
    const downloadPhase = (downloadsDone.at - started) / 1000;
    log(`pass: ${JSON.stringify(report.files)} ${JSON.stringify(report.text)}`);
    // Nothing due an hour later: what a pass costs per source apart from its files (the sources' loads,
    // each source's cache and text queue reads) — paid every hourly run by every source.
    const quietStart = process.cpuUsage();
    const quiet = await runFilesPass(runtime.deps, { now: new Date(T0 + 3 * HOUR) });
    const quietCpu = cpuOf(process.cpuUsage(quietStart));
    log(
      `quiet pass: ${JSON.stringify(quiet.files)} ${JSON.stringify(quiet.text)} ${quietCpu.toFixed(3)} s CPU`,
    );
    return {
      hosts,
      files,
      fileBytes: pdf.length,
      pages: shape.pages,
      outcomes: { files: report.files, text: report.text },
      wallSeconds: r3(wall),
      downloadPhaseSeconds: r3(downloadPhase),
      textPhaseSeconds: r3(wall - downloadPhase),
      cpuSeconds: { total: r3(totalCpu), download: r3(downloadCpu), text: r3(totalCpu - downloadCpu) },
      perFile: {
        wallSeconds: r3(wall / files),
        cpuSeconds: r3(totalCpu / files),
        downloadCpuSeconds: r3(downloadCpu / files),
        textCpuSeconds: r3((totalCpu - downloadCpu) / files),
        slotWaitSeconds: r3(waited.ms / 1000 / files),
        extractSeconds: r3(extraction.ms / 1000 / files),
      },
      cpuSecondsPerSourceRun: r3(quietCpu / (hosts + 1)),
      slotsNote:
        'host slots in memory: in production each request also makes one Upstash REST call (EVALSHA) — not in this figure',
    };
  } finally {
    extraction.restore();
    await runtime.close();
    await councils.stop();
    await peers.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
