import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../shared/config';
import {
  composeDocuments,
  type DocumentsRuntime,
  FILES_HOSTS_IN_PARALLEL,
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
 * Issue 28, lever filesHostsAtOnce (DOC-3): the files pass downloads from FILES_HOSTS_IN_PARALLEL servers
 * at once, each server's requests one after the other. More council file servers than that width, each
 * on its own loopback address (127.0.0.2 …, one host key each), in a process of their own, record when
 * every request arrived and when its answer was sent, on their own monotonic clock.
 *
 * The interval between one server's requests (RATE-1) is the host slots' and is measured where it can
 * be trusted, on the kernel clock (`npm run bench -- files-politeness`, 16 and 4 at once): a handler in
 * a process on a loaded machine reads a later time when it runs late, so gaps seem shorter than they came.
 */
const SERVERS = FILES_HOSTS_IN_PARALLEL + 2;
const FILES_PER_SERVER = 2;

/** The servers: argv[1] the PDF (base64), argv[2] how many. `GET /__arrivals` answers what came. */
const SERVERS_SCRIPT = `
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
const pdf = Buffer.from(process.argv[1], 'base64');
const ports = await Promise.all(Array.from({ length: Number(process.argv[2]) }, (_, i) => {
  const arrivals = [];
  const server = createServer((req, res) => {
    if (req.url === '/__arrivals') { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(arrivals)); return; }
    const arrival = { path: req.url ?? '', atMs: performance.now(), doneMs: 0 };
    arrivals.push(arrival);
    res.on('finish', () => { arrival.doneMs = performance.now(); });
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

interface Arrival {
  path: string;
  atMs: number;
  doneMs: number;
}

interface FileServer {
  base: string;
  /** Server-side: path, arrival and answer sent, the servers' `performance.now()` in ms. */
  arrivals(): Promise<Arrival[]>;
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
      arrivals: async () => (await (await fetch(`${base}/__arrivals`)).json()) as Arrival[],
    };
  });
  return { servers, child };
}

describe('files pass: many servers at once, each one request after the other (issue 28, DOC-3)', () => {
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

  it(`stores every file, ${FILES_HOSTS_IN_PARALLEL} servers at a time, each server's requests one after the other`, async () => {
    const report = await runFilesPass(realTime.deps, { now: bed.now() });

    expect(report.files).toEqual({ stored: SERVERS * FILES_PER_SERVER });
    const arrivals = await Promise.all(servers.map((s) => s.arrivals()));
    const gets = arrivals.map((a) => a.filter((x) => x.path.startsWith('/files/')));
    for (const g of gets) expect(g).toHaveLength(FILES_PER_SERVER);
    // Within one server, sequential: each request (robots.txt included) came after the last was answered.
    for (const [n, a] of arrivals.entries()) {
      for (let i = 1; i < a.length; i++) {
        expect(a[i]?.atMs ?? 0, `server ${n}: ${a[i - 1]?.path} → ${a[i]?.path}`).toBeGreaterThanOrEqual(
          a[i - 1]?.doneMs ?? Number.POSITIVE_INFINITY,
        );
      }
    }
    // The width: the servers begun first all had their first file before any of them had its second …
    const byStart = [...gets].sort((a, b) => (a[0]?.atMs ?? 0) - (b[0]?.atMs ?? 0));
    const widest = byStart.slice(0, FILES_HOSTS_IN_PARALLEL);
    const firstOfWidest = Math.max(...widest.map((g) => g[0]?.atMs ?? Number.POSITIVE_INFINITY));
    const secondOfAny = Math.min(...gets.map((g) => g[1]?.atMs ?? Number.NEGATIVE_INFINITY));
    expect(firstOfWidest, 'the first servers at once').toBeLessThan(secondOfAny);
    // … and no more: the servers beyond the width began only after some server was done with both.
    const beyond = byStart.slice(FILES_HOSTS_IN_PARALLEL);
    const firstDone = Math.min(...gets.map((g) => g[FILES_PER_SERVER - 1]?.atMs ?? Number.POSITIVE_INFINITY));
    for (const g of beyond) expect(g[0]?.atMs ?? 0, 'no more at once').toBeGreaterThanOrEqual(firstDone);
    // Every server paced at 1 s (robots.txt and two files each): a loaded machine stretches the pass.
  }, 90_000);
});
