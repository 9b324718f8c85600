import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CACHE_MAX_FILE_BYTES,
  fetchFileToS3,
  UPLOAD_PART_BYTES,
  UPLOAD_QUEUE_SIZE,
} from '../shared/documents';
import { createMemoryRobotsStore, createPoliteFetcher } from '../shared/fetch';
import { fileKey } from '../shared/mirror';
import { createGuardedAgent, createTestResolver } from '../shared/net';
import { createHostSlots } from '../shared/slots';

/**
 * Files bench (issue 6): one 80 MB file streamed from a loopback server through the polite fetcher
 * (robots.txt, host slot, limits) into the local S3 peer (s3rver, multipart `Upload`), the way the
 * document cache stores every file.
 *
 *   peakRssOverBaselineMb   peak resident memory during the transfer minus the settled process
 *                           before it; goal < 64 (never the whole file in memory)
 *   mbPerSecond             file bytes / wall time of the transfer (10^6 bytes per MB)
 *
 * The S3 peer (s3rver) and the file server run in a child process — the "remote side", as S3 and the
 * council server are for the Lambda — so the figure is the memory of the fetcher and the upload alone.
 */
export interface FilesBenchOptions {
  bytes?: number;
  /**
   * Issue 28 (lever filesHostsAtOnce): transfers at once, each from its own host (the files pass works
   * FILES_HOSTS_IN_PARALLEL servers at once); default 1. The peak is that of all of them together.
   */
  streams?: number;
  sampleEveryMs?: number;
  log?: (line: string) => void;
}

export interface FilesBenchResult {
  bytes: number;
  streams: number;
  seconds: number;
  mbPerSecond: number;
  baselineRssMb: number;
  peakRssMb: number;
  peakRssOverBaselineMb: number;
  /** Resident memory over the baseline after the transfers, collected (the text pass starts there). */
  settledRssOverBaselineMb: number;
  goalOverBaselineMb: number;
  withinGoal: boolean;
  partSizeMb: number;
  queueSize: number;
  sha256: string;
  storedBytes: number;
}

const MB = 1024 * 1024;

/**
 * The remote side in a child process: s3rver on a temporary folder and a file server that makes its
 * bytes on the fly, honouring backpressure (nothing big in memory). Prints its ports as one JSON line.
 */
const REMOTE_SCRIPT = `
import { createServer } from 'node:http';
import S3rver from 's3rver';
const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.argv[1] });
const s3Address = await s3.run();
const chunk = Buffer.alloc(64 * 1024, 0x41);
chunk.write('%PDF-1.7\\n');
const files = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/robots.txt') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('User-agent: *\\nAllow: /\\n'); return; }
  const m = /^\\/file-(\\d+)\\.pdf$/.exec(path);
  if (!m) { res.writeHead(404).end(); return; }
  const total = Number(m[1]);
  res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(total) });
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      if (!res.write(piece)) { res.once('drain', pump); return; }
    }
    res.end();
  };
  pump();
});
await new Promise((r) => files.listen(0, '127.0.0.1', r));
console.log(JSON.stringify({ s3Port: s3Address.port, filePort: files.address().port }));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

interface RemoteSide {
  s3Endpoint: string;
  /** A file of `total` bytes on host `files-bench-<host>.test` (every host the same loopback server). */
  fileUrl(total: number, host?: number): string;
  close(): Promise<void>;
}

async function startRemoteSide(): Promise<RemoteSide> {
  const dir = await mkdtemp(join(tmpdir(), 'ingestor-files-bench-'));
  const root = fileURLToPath(new URL('..', import.meta.url));
  const child = spawn(process.execPath, ['--input-type=module', '-e', REMOTE_SCRIPT, dir], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`remote side exited with ${code}`)));
  });
  const ports = JSON.parse(line) as { s3Port: number; filePort: number };
  return {
    s3Endpoint: `http://127.0.0.1:${ports.s3Port}`,
    fileUrl: (total, host = 0) => `http://files-bench-${host}.test:${ports.filePort}/file-${total}.pdf`,
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function settle(): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  return new Promise((resolve) => setTimeout(resolve, 200));
}

export async function runFilesBench(options: FilesBenchOptions = {}): Promise<FilesBenchResult> {
  const bytes = options.bytes ?? CACHE_MAX_FILE_BYTES;
  const streams = options.streams ?? 1;
  const log = options.log ?? (() => {});
  const remote = await startRemoteSide();
  const s3 = new S3Client({
    region: 'eu-central-1',
    endpoint: remote.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const bucket = 'files-bench';
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const dispatcher = createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true });
  const fetcher = createPoliteFetcher({
    slots: createHostSlots(),
    robotsStore: createMemoryRobotsStore(),
    dispatcher,
    addressPolicy: { allowLoopback: true },
  });
  const ctx = { fetcher, s3, bucket, source: { sourceId: 'bench', requestIntervalSeconds: 1 } };
  try {
    // Warm-up: modules, sockets, robots.txt and the S3 client loaded before the baseline is taken.
    await fetchFileToS3(ctx, remote.fileUrl(2 * MB), fileKey('bench', 'warmup'), {
      maxBytes: CACHE_MAX_FILE_BYTES,
    });
    await settle();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, options.sampleEveryMs ?? 10);
    log(
      `streaming ${streams} × ${(bytes / 1e6).toFixed(0)} MB into s3rver (baseline RSS ${(baseline / MB).toFixed(1)} MiB)`,
    );
    const started = performance.now();
    let outcomes: Awaited<ReturnType<typeof fetchFileToS3>>[];
    try {
      outcomes = await Promise.all(
        Array.from({ length: streams }, (_, i) =>
          fetchFileToS3(ctx, remote.fileUrl(bytes, i), fileKey('bench', `big-${i}`), {
            maxBytes: CACHE_MAX_FILE_BYTES,
          }),
        ),
      );
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    const seconds = (performance.now() - started) / 1000;
    const failed = outcomes.find((o) => o.kind !== 'stored');
    const outcome = outcomes[0];
    if (failed || outcome?.kind !== 'stored')
      throw new Error(`bench transfer failed: ${JSON.stringify(failed ?? outcome)}`);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: fileKey('bench', 'big-0') }));
    const over = (peak - baseline) / MB;
    // What the transfers leave resident once collected: the text pass that follows starts from it
    // (its process bound, TEXT_MAX_PROCESS_RSS_BYTES, counts the whole process).
    await settle();
    const settledRss = process.memoryUsage().rss;
    return {
      bytes,
      streams,
      seconds: Number(seconds.toFixed(2)),
      mbPerSecond: Number(((streams * bytes) / 1e6 / seconds).toFixed(1)),
      baselineRssMb: Number((baseline / MB).toFixed(1)),
      peakRssMb: Number((peak / MB).toFixed(1)),
      peakRssOverBaselineMb: Number(over.toFixed(1)),
      settledRssOverBaselineMb: Number(((settledRss - baseline) / MB).toFixed(1)),
      // Per stream: never a whole file in memory.
      goalOverBaselineMb: 64 * streams,
      withinGoal: over < 64 * streams,
      partSizeMb: UPLOAD_PART_BYTES / MB,
      queueSize: UPLOAD_QUEUE_SIZE,
      sha256: outcome.sha256,
      storedBytes: head.ContentLength ?? 0,
    };
  } finally {
    await dispatcher.close();
    s3.destroy();
    await remote.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runFilesBench({ log: (line) => console.error(line) });
  console.log(JSON.stringify(result));
}
