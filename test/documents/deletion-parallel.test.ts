import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../shared/config/env';
import {
  composeDocuments,
  DEL_HOSTS_IN_PARALLEL,
  DEL_SAMPLE_INTERVAL_MS,
  DEL_SERVER_SPACING_MS,
  type DocumentsRuntime,
  deletionSampleFit,
  HOSTS_IN_PARALLEL,
  runDeletionCheck,
  runFilesPass,
} from '../../shared/documents';
import { createTestResolver } from '../../shared/net';
import { createHostSlots } from '../../shared/slots';
import {
  buildScannedPdf,
  type DocumentsBed,
  HOUR,
  putBody,
  putSource,
  recordFile,
  startDocumentsBed,
} from '../support/documents-bed';

/**
 * Issue 28, lever "a deletion check that fits" (DEL-2, RATE-6): many servers are sampled at once, each
 * server's own checks one after the other, ≥ 2 s apart. Twelve council file servers on loopback, each
 * on its own address (127.0.0.2 … 127.0.0.13, one host key each), record the arrival of every request
 * on their own monotonic clock; the spacing and the overlap are asserted from those server-side times.
 *
 * The files are stored on the documents bed's instant clock (virtual time); the deletion check itself
 * runs on the real clock (real pacing sleeps, process-local slots), because the servers' arrival times
 * are real: the test waits one RATE-6 spacing (≈ 2 s) plus the first request's RATE-1 pace.
 */
const SERVERS = 12;
const FILES_PER_SERVER = 2;

interface FileServer {
  address: string;
  port: number;
  /** Server-side arrivals: method, path, `performance.now()` in ms. */
  arrivals: { method: string; path: string; atMs: number }[];
  server: Server;
}

const PDF = buildScannedPdf();
const ETAG = '"v1"';

async function startFileServer(address: string): Promise<FileServer> {
  const arrivals: FileServer['arrivals'] = [];
  const server = createServer((req, res) => {
    arrivals.push({ method: req.method ?? '', path: req.url ?? '', atMs: performance.now() });
    if (!req.url?.startsWith('/files/')) {
      res.writeHead(404).end();
      return;
    }
    if (req.headers['if-none-match'] === ETAG) {
      res.writeHead(304, { etag: ETAG }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF.length, etag: ETAG });
    res.end(req.method === 'HEAD' ? undefined : PDF);
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  return { address, port: (server.address() as AddressInfo).port, arrivals, server };
}

describe('deletion check: many servers at once (issue 28, DEL-2, RATE-6)', () => {
  let bed: DocumentsBed;
  let realTime: DocumentsRuntime;
  const servers: FileServer[] = [];

  beforeAll(async () => {
    bed = await startDocumentsBed();
    for (let i = 0; i < SERVERS; i++) servers.push(await startFileServer(`127.0.0.${i + 2}`));
    for (const [i, s] of servers.entries()) {
      const base = `http://${s.address}:${s.port}`;
      const sourceId = `stadt-parallel-${i}`;
      const bodyId = `${base}/oparl/v1/bodies/1`;
      await putSource(bed, { sourceId, systemUrl: `${base}/oparl/v1/system` });
      await putBody(bed, sourceId, { id: bodyId, listed: true });
      for (let n = 1; n <= FILES_PER_SERVER; n++) {
        await recordFile(bed, { sourceId, bodyId, url: `${base}/files/${n}.pdf` });
      }
    }
    await runFilesPass(bed.deps, { now: bed.now() });
    realTime = await composeDocuments(parseEnv({ ...bed.aws.peers.env, INGESTOR_ALLOW_LOOPBACK: 'true' }), {
      clients: bed.aws.clients,
      resolver: createTestResolver(),
      slots: createHostSlots(),
    });
  });
  afterAll(async () => {
    await realTime?.close();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.server.close(resolve))));
    await bed?.close();
  });

  it('samples every server at once, each server’s HEADs ≥ 2 s apart as the server sees them', async () => {
    expect(SERVERS).toBeGreaterThan(HOSTS_IN_PARALLEL);
    expect(SERVERS).toBeLessThanOrEqual(DEL_HOSTS_IN_PARALLEL);
    for (const s of servers) s.arrivals.length = 0;
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);

    const report = await runDeletionCheck(realTime.deps, { now: bed.now() });

    expect(report.checks).toEqual({ 'sample:unchanged': SERVERS * FILES_PER_SERVER });
    const heads = servers.map((s) =>
      s.arrivals.filter((a) => a.method === 'HEAD' && a.path.startsWith('/files/')),
    );
    for (const h of heads) expect(h).toHaveLength(FILES_PER_SERVER);
    // RATE-6 per server, from the server's own arrival times.
    for (const h of heads) {
      for (let i = 1; i < h.length; i++) {
        expect((h[i]?.atMs ?? 0) - (h[i - 1]?.atMs ?? 0)).toBeGreaterThanOrEqual(DEL_SERVER_SPACING_MS);
      }
    }
    // Many servers at once: every server had its first sample before any server had its second (with
    // four servers at a time, the fifth would wait for the first four to finish both).
    const firstOfAll = Math.max(...heads.map((h) => h[0]?.atMs ?? Number.POSITIVE_INFINITY));
    const secondOfAny = Math.min(...heads.map((h) => h[1]?.atMs ?? Number.NEGATIVE_INFINITY));
    expect(firstOfAll).toBeLessThan(secondOfAny);
  });

  it('computes whether the weekly sample fits an hourly run, and the interval kept when it does not', () => {
    const base = { headSeconds: 0.3, runSeconds: 780, runEveryMs: HOUR };
    // 1,000 servers with 2,000 files each: ≈ 11,900 samples a run, ≈ 11.9 a server × 2.3 s.
    const thousand = deletionSampleFit({ ...base, servers: 1_000, storedFiles: 2_000_000 });
    expect(thousand.samplesPerRun).toBeCloseTo(11_904.8, 1);
    expect(thousand.secondsPerRun).toBeCloseTo((11_904.8 * 2.3) / DEL_HOSTS_IN_PARALLEL, 0);
    expect(thousand.fits).toBe(true);
    expect(thousand.sampleIntervalMs).toBe(DEL_SAMPLE_INTERVAL_MS);
    // Four servers at once (the code before issue 28) cannot keep it: the interval stretches.
    const four = deletionSampleFit({ ...base, servers: 1_000, storedFiles: 2_000_000, serversAtOnce: 4 });
    expect(four.fits).toBe(false);
    expect(four.sampleIntervalMs).toBeCloseTo((DEL_SAMPLE_INTERVAL_MS * four.secondsPerRun) / 780, 0);
    // One server alone: its own chain of samples is the run.
    const one = deletionSampleFit({ ...base, servers: 1, storedFiles: 2_000 });
    expect(one.secondsPerRun).toBeCloseTo((2_000 / 168) * 2.3, 6);
  });
});
