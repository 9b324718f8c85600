import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { startAwsTestbed } from '../test/support/aws';
import { ALLRIS_DISTRICTS, startFakeRisHtml } from '../test/support/fake-ris-html';
import { api, makeKit } from '../test/support/fetch-kit';
import { scraperHarness } from '../test/support/scraper-harness';
import { startDemoCouncil } from './cost';
import {
  ACK_IP_BYTES,
  acksOnPath,
  type ClientSide,
  clientSideOf,
  TCP_CONNECTION_IP_BYTES,
} from './cost/wire-bytes';
import { startPacketCapture } from './wire-capture';

/**
 * `npm run bench -- wire-bytes` (issue 28): the bytes our fetcher sends a council per request, counted
 * at the IP level as AWS meters transfer out — measured on the loopback with tcpdump (root), the real
 * engines and fetcher against the local fake council (OParl) and the fake ALLRIS site:
 *
 * 1. each kind of run over plain HTTP: its requests, the IP bytes of the packets that carry them, and
 *    the answers' bytes (what the client acknowledges);
 * 2. TLS (councils speak HTTPS) with the real fetcher against a loopback HTTPS server and the same
 *    server in plain HTTP: two connections of 2 and 6 requests each way — the per-request record
 *    overhead and the per-connection handshake are the differences (pure ACKs left out of both).
 *
 * The loopback's MTU is 64 KiB, so its ACK count is not a real path's: the ACKs are derived for a
 * 1,500-byte path from the answers' measured bytes (bench/cost/wire-bytes.ts `acksOnPath`).
 */

const TLS_DIR = new URL('../test/support/tls/', import.meta.url);

interface RunBytes extends ClientSide {
  label: string;
}

async function captureRun(label: string, port: number, run: () => Promise<unknown>): Promise<RunBytes> {
  const capture = await startPacketCapture(`tcp port ${port}`);
  if (!capture) throw Object.assign(new Error('tcpdump missing or not allowed'), { code: 'WIRE_NO_TCPDUMP' });
  await run();
  return { label, ...clientSideOf(await capture.stop(), port) };
}

/** The same answers over HTTP and HTTPS: robots.txt, and a 2 KB JSON page (an incremental page's size). */
function handler(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\n');
  else
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: 'x'.repeat(2_000) }));
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** One new connection of robots.txt and `pages` pages; the client's non-ACK IP bytes. */
async function connectionBytes(scheme: 'http' | 'https', port: number, pages: number, ca: string) {
  const kit = makeKit(scheme === 'https' ? { extraCa: ca } : {});
  const capture = await startPacketCapture(`tcp port ${port}`);
  if (!capture) throw Object.assign(new Error('tcpdump missing or not allowed'), { code: 'WIRE_NO_TCPDUMP' });
  try {
    for (let i = 0; i < pages; i += 1)
      await kit.fetcher.fetch(`${scheme}://ris-tls.test:${port}/page/${i}`, api());
  } finally {
    await kit.close();
  }
  const side = clientSideOf(await capture.stop(), port);
  return { ...side, bytes: side.requestIpBytes + side.controlIpBytes };
}

export async function measureTls(log: (line: string) => void) {
  const cert = readFileSync(new URL('cert.pem', TLS_DIR), 'utf8');
  const key = readFileSync(new URL('key.pem', TLS_DIR), 'utf8');
  const https = createHttpsServer({ key, cert }, handler);
  const http = createHttpServer(handler);
  const [tlsPort, plainPort] = [await listen(https), await listen(http)];
  try {
    const few = 2;
    const many = 6;
    const t2 = await connectionBytes('https', tlsPort, few, cert);
    const t6 = await connectionBytes('https', tlsPort, many, cert);
    const p2 = await connectionBytes('http', plainPort, few, cert);
    const p6 = await connectionBytes('http', plainPort, many, cert);
    log(`tls: ${JSON.stringify({ t2: t2.bytes, t6: t6.bytes, p2: p2.bytes, p6: p6.bytes })}`);
    const tlsPerRequest = (t6.bytes - t2.bytes) / (many - few);
    const plainPerRequest = (p6.bytes - p2.bytes) / (many - few);
    // Fixed part of a connection (its robots.txt request included), TLS minus plain, less that
    // request's own record overhead.
    const fixed = (t: number, perRequest: number) => t - few * perRequest;
    const recordOverhead = tlsPerRequest - plainPerRequest;
    // The fetcher may open two connections to a host (undici `connections: 2`, RATE-4): each its handshake.
    if (t2.connections !== p2.connections || t2.connections !== t6.connections || t2.connections < 1)
      throw Object.assign(new Error(`connections differ: ${JSON.stringify({ t2, t6, p2, p6 })}`), {
        code: 'WIRE_CONNECTIONS_DIFFER',
      });
    const handshake =
      (fixed(t2.bytes, tlsPerRequest) - fixed(p2.bytes, plainPerRequest) - recordOverhead) / t2.connections;
    return {
      requestIpBytesPlain: plainPerRequest,
      requestIpBytesTls: tlsPerRequest,
      recordOverheadPerRequest: recordOverhead,
      handshakeBytesPerConnection: handshake,
      connections: { t2: t2.connections, t6: t6.connections, p2: p2.connections, p6: p6.connections },
    };
  } finally {
    https.close();
    http.close();
  }
}

export async function runWireBytesBench(opts: { log?: (line: string) => void } = {}) {
  const log = opts.log ?? (() => {});
  const tls = await measureTls(log);
  const bed = await startAwsTestbed();
  const runs: RunBytes[] = [];
  try {
    const { clock, fake, h, changePapers } = await startDemoCouncil(bed, 'wire');
    try {
      const port = Number(new URL(fake.systemUrl).port);
      runs.push(await captureRun('oparl first full', port, () => h.sync('full')));
      clock.advance(10 * 60_000);
      runs.push(await captureRun('oparl incremental, unchanged', port, () => h.sync('incremental')));
      clock.advance(10 * 60_000);
      changePapers('Wire');
      clock.advance(60_000);
      runs.push(await captureRun('oparl incremental, changed', port, () => h.sync('incremental')));
    } finally {
      await fake.close();
    }
    const site = await startFakeRisHtml({ districts: [...ALLRIS_DISTRICTS] });
    const s = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'wire' });
    try {
      const port = Number(new URL(site.allrisUrl).port);
      runs.push(await captureRun('scraper first full', port, () => s.scrape('full')));
      s.clock.advance(3_600_000);
      runs.push(await captureRun('scraper incremental, unchanged', port, () => s.scrape()));
    } finally {
      await s.close();
      await site.close();
    }
  } finally {
    await bed.stop();
  }
  const perRun = runs.map((r) => {
    const requests = Math.max(1, r.requests);
    const acks = r.responseBytes.reduce((sum, bytes) => sum + acksOnPath(bytes), 0);
    const plain = r.requestIpBytes / requests;
    return {
      run: r.label,
      requests: r.requests,
      connectionsOnLoopback: r.connections,
      requestIpBytes: round(plain),
      responseBytesPerRequest: round(r.responseBytes.reduce((a, b) => a + b, 0) / requests),
      ackIpBytesPerRequestOn1500: round((acks * ACK_IP_BYTES) / requests),
      // One connection a run: runs are minutes apart, the fetcher's keep-alive is 4 s (shared/net
      // dispatcher.ts) and a run's requests follow each other within it.
      connectionIpBytesPerRequest: round(
        (TCP_CONNECTION_IP_BYTES + tls.handshakeBytesPerConnection) / requests,
      ),
      bytesOutPerRequestHttps: round(
        plain +
          tls.recordOverheadPerRequest +
          (acks * ACK_IP_BYTES) / requests +
          (TCP_CONNECTION_IP_BYTES + tls.handshakeBytesPerConnection) / requests,
      ),
    };
  });
  const result = {
    tls: {
      requestIpBytesPlain: round(tls.requestIpBytesPlain),
      requestIpBytesTls: round(tls.requestIpBytesTls),
      recordOverheadPerRequest: round(tls.recordOverheadPerRequest),
      handshakeBytesPerConnection: round(tls.handshakeBytesPerConnection),
      connections: tls.connections,
    },
    ackIpBytes: ACK_IP_BYTES,
    tcpConnectionIpBytes: TCP_CONNECTION_IP_BYTES,
    runs: perRun,
  };
  console.log(JSON.stringify(result));
  return result;
}

const round = (x: number) => Math.round(x * 10) / 10;
