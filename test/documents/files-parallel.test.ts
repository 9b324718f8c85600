import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv, REQUEST_INTERVAL_MIN_SECONDS } from '../../shared/config';
import {
  composeDocuments,
  type DocumentsRuntime,
  HOSTS_IN_PARALLEL,
  runFilesPass,
} from '../../shared/documents';
import { createTestResolver } from '../../shared/net';
import { createHostSlots } from '../../shared/slots';
import {
  buildScannedPdf,
  type DocumentsBed,
  putBody,
  putSource,
  recordFile,
  startDocumentsBed,
} from '../support/documents-bed';

/**
 * Issue 28, lever filesHostsAtOnce (DOC-3, RATE-1): the files pass downloads from HOSTS_IN_PARALLEL
 * servers at once, each server's files one after the other at its own pace — the test the what-if
 * (16 at once, bench/cost/levers.ts) must pass before it is built.
 * More council file servers than that width, each on its own loopback address (127.0.0.2 …, one host
 * key each), record every request's arrival on their own monotonic clock; the width and the pace are
 * asserted from those server-side times. The servers live in a process of their own, so a busy pass
 * cannot delay the servers' own clock readings (in one process, a handler run late reads a later
 * time and two requests seem closer than they came). The pass runs on the real clock (real pacing,
 * process-local slots); the items are recorded on the bed's instant clock.
 */
const SERVERS = HOSTS_IN_PARALLEL + 2;
const FILES_PER_SERVER = 2;
const INTERVAL_MS = REQUEST_INTERVAL_MIN_SECONDS * 1000;

/** The servers: argv[1] the PDF (base64), argv[2] how many. `GET /__arrivals` answers what came. */
const SERVERS_SCRIPT = `
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
const pdf = Buffer.from(process.argv[1], 'base64');
const ports = await Promise.all(Array.from({ length: Number(process.argv[2]) }, (_, i) => {
  const arrivals = [];
  const server = createServer((req, res) => {
    if (req.url === '/__arrivals') { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(arrivals)); return; }
    arrivals.push({ path: req.url ?? '', atMs: performance.now() });
    if (!req.url?.startsWith('/files/')) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length });
    res.end(pdf);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.' + (i + 2), () => resolve(server.address().port)));
}));
console.log(JSON.stringify(ports));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

interface FileServer {
  base: string;
  /** Server-side arrivals: path and the servers' `performance.now()` in ms. */
  arrivals(): Promise<{ path: string; atMs: number }[]>;
}

async function startFileServers(count: number): Promise<{ servers: FileServer[]; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', SERVERS_SCRIPT, buildScannedPdf().toString('base64'), String(count)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`file servers exited with ${code}`)));
  });
  const ports = JSON.parse(line) as number[];
  const servers = ports.map((port, i) => {
    const base = `http://127.0.0.${i + 2}:${port}`;
    return {
      base,
      arrivals: async () =>
        (await (await fetch(`${base}/__arrivals`)).json()) as { path: string; atMs: number }[],
    };
  });
  return { servers, child };
}

describe('files pass: many servers at once, each at its own pace (issue 28, DOC-3, RATE-1)', () => {
  let bed: DocumentsBed;
  let realTime: DocumentsRuntime;
  let servers: FileServer[] = [];
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    bed = await startDocumentsBed();
    ({ servers, child } = await startFileServers(SERVERS));
    for (const [i, s] of servers.entries()) {
      const base = s.base;
      const sourceId = `stadt-files-parallel-${i}`;
      const bodyId = `${base}/oparl/v1/bodies/1`;
      await putSource(bed, { sourceId, systemUrl: `${base}/oparl/v1/system` });
      await putBody(bed, sourceId, { id: bodyId, listed: true });
      for (let n = 1; n <= FILES_PER_SERVER; n++) {
        await recordFile(bed, { sourceId, bodyId, url: `${base}/files/${n}.pdf` });
      }
    }
    realTime = await composeDocuments(parseEnv({ ...bed.aws.peers.env, INGESTOR_ALLOW_LOOPBACK: 'true' }), {
      clients: bed.aws.clients,
      resolver: createTestResolver(),
      slots: createHostSlots(),
    });
  });
  afterAll(async () => {
    await realTime?.close();
    if (child) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.stdin?.end();
      await exited;
    }
    await bed?.close();
  });

  it(`stores every file, ${HOSTS_IN_PARALLEL} servers at a time, each server's requests ≥ its interval apart`, async () => {
    const report = await runFilesPass(realTime.deps, { now: bed.now() });

    expect(report.files).toEqual({ stored: SERVERS * FILES_PER_SERVER });
    const arrivals = await Promise.all(servers.map((s) => s.arrivals()));
    const gets = arrivals.map((a) => a.filter((x) => x.path.startsWith('/files/')));
    for (const g of gets) expect(g).toHaveLength(FILES_PER_SERVER);
    // RATE-1 per server, from the server's own arrival times (robots.txt included: it is a request too).
    for (const a of arrivals) {
      for (let i = 1; i < a.length; i++) {
        expect((a[i]?.atMs ?? 0) - (a[i - 1]?.atMs ?? 0)).toBeGreaterThanOrEqual(INTERVAL_MS);
      }
    }
    // The width: the servers begun first all had their first file before any of them had its second …
    const byStart = [...gets].sort((a, b) => (a[0]?.atMs ?? 0) - (b[0]?.atMs ?? 0));
    const widest = byStart.slice(0, HOSTS_IN_PARALLEL);
    const firstOfWidest = Math.max(...widest.map((g) => g[0]?.atMs ?? Number.POSITIVE_INFINITY));
    const secondOfAny = Math.min(...gets.map((g) => g[1]?.atMs ?? Number.NEGATIVE_INFINITY));
    expect(firstOfWidest).toBeLessThan(secondOfAny);
    // … and no more: the servers beyond the width began only after some server was done with both.
    const beyond = byStart.slice(HOSTS_IN_PARALLEL);
    const firstDone = Math.min(...gets.map((g) => g[FILES_PER_SERVER - 1]?.atMs ?? Number.POSITIVE_INFINITY));
    for (const g of beyond) expect(g[0]?.atMs ?? 0).toBeGreaterThanOrEqual(firstDone);
  });
});
