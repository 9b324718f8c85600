import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { seededRandom } from './random';

/**
 * The loopback "RIS servers" of bench/politeness.ts, one per test hostname, in a process of their own:
 * they are the measuring instrument — the council's servers — and must not share an event loop (or a
 * scheduling slot) with the bench's orchestration. Each records when a request arrived (epoch ms,
 * comparable across the bench's processes to ~1 ms), its id (x-bench-id) and the requests in flight.
 */

export interface RecorderStart {
  type: 'start';
  hostnames: string[];
  seed: number;
  /** Share of responses that take 1.2–1.8 s (so two requests are really in flight at once). */
  slowShare: number;
  /** OS priority of this process (root only; failure is reported, not fatal). */
  priority: number;
  /**
   * bench/files-politeness.ts: `GET /files/…` answers this file's bytes as a council's PDF (the files
   * pass stores what it downloads); without it every page answers a short text.
   */
  filesBody?: { path: string; contentType: string };
}

export interface RecordedArrival {
  atMs: number;
  id: string;
}

export interface RecorderCollect {
  type: 'collected';
  arrivals: Record<string, RecordedArrival[]>;
  maxInFlight: number;
  lagP99Ms: number;
  lagMaxMs: number;
}

const arrivals = new Map<string, RecordedArrival[]>();
const inFlight = new Map<string, number>();
const servers: Server[] = [];
let maxInFlight = 0;
let total = 0;
const lag = monitorEventLoopDelay({ resolution: 5 });

async function start(message: RecorderStart): Promise<{ ports: Record<string, number>; priority: number }> {
  let priority = 0;
  if (message.priority !== 0) {
    try {
      setPriority(message.priority);
      priority = message.priority;
    } catch {
      // not root: measured at normal priority, and the result says so
    }
  }
  const random = seededRandom(message.seed);
  const filesBody = message.filesBody && readFileSync(message.filesBody.path);
  const ports: Record<string, number> = {};
  for (const hostname of message.hostnames) {
    arrivals.set(hostname, []);
    inFlight.set(hostname, 0);
    const server = createServer((req, res) => {
      // First thing: the time stamp. Everything else may wait.
      const atMs = performance.timeOrigin + performance.now();
      // robots.txt has no x-bench-id: its connection's port joins it to its sender's record.
      const benchId = req.headers['x-bench-id'] ?? `port:${req.socket.remotePort}`;
      arrivals.get(hostname)!.push({ atMs, id: `${benchId} ${req.url ?? ''}` });
      total += 1;
      const current = inFlight.get(hostname)! + 1;
      inFlight.set(hostname, current);
      maxInFlight = Math.max(maxInFlight, current);
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        inFlight.set(hostname, inFlight.get(hostname)! - 1);
      };
      res.on('finish', finish);
      res.on('close', finish);
      const delayMs = random() < message.slowShare ? 1_200 + random() * 600 : 5 + random() * 35;
      setTimeout(() => {
        const target = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
        if (req.url === '/robots.txt') {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('none'); // ROB-6: all allowed
        } else if (req.url?.startsWith('/redirect') && target) {
          res.writeHead(302, { location: `http://${target}/landing` }).end();
        } else if (filesBody && message.filesBody && req.url?.startsWith('/files/')) {
          res
            .writeHead(200, {
              'content-type': message.filesBody.contentType,
              'content-length': String(filesBody.length),
            })
            .end(filesBody);
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        }
      }, delayMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports[hostname] = (server.address() as AddressInfo).port;
    servers.push(server);
  }
  return { ports, priority };
}

process.on('message', (message: RecorderStart | { type: 'total' | 'reset' | 'collect' | 'stop' }) => {
  switch (message.type) {
    case 'start':
      start(message).then(
        (started) => process.send?.({ type: 'started', ...started }),
        (error: Error) => process.send?.({ type: 'failed', error: error.stack ?? String(error) }),
      );
      break;
    case 'total':
      process.send?.({ type: 'total', total });
      break;
    case 'reset':
      for (const list of arrivals.values()) list.length = 0;
      maxInFlight = 0;
      total = 0;
      lag.reset();
      lag.enable();
      process.send?.({ type: 'reset' });
      break;
    case 'collect': {
      lag.disable();
      const reply: RecorderCollect = {
        type: 'collected',
        arrivals: Object.fromEntries(arrivals),
        maxInFlight,
        lagP99Ms: Math.round(lag.percentile(99) / 1e6),
        lagMaxMs: Math.round(lag.max / 1e6),
      };
      process.send?.(reply);
      break;
    }
    case 'stop':
      for (const server of servers) server.closeAllConnections();
      Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))).then(() =>
        process.send?.({ type: 'stopped' }, () => process.exit(0)),
      );
      break;
  }
});
process.send?.({ type: 'ready' });
