import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from '@upstash/redis';
import { startUpstashAdapter, type UpstashAdapter } from './upstash-adapter';

/** A throwaway `redis-server` on loopback: no persistence, own working directory. */
export interface RedisServer {
  port: number;
  pid: number;
  url: string;
  /** SIGKILLs the server (a crash, as far as clients can tell) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const START_TIMEOUT_MS = 5_000;

/** A port that was free a moment ago. Racy in theory; on a test machine it is good enough. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

/**
 * `port` lets a test bring a server back where the old one was (clients reconnect to the same URL).
 * The server runs under a small shell watchdog holding a pipe to this process: when this process ends
 * without calling `stop()` (a killed test worker), the pipe closes and the server goes with it.
 */
export async function startRedisServer(opts: { port?: number } = {}): Promise<RedisServer> {
  const port = opts.port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), 'ingestor-redis-'));
  const logFile = join(dir, 'redis.log');
  const args = [
    '--save',
    '',
    '--appendonly',
    'no',
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
  ];
  const watchdog = spawn(
    'sh',
    [
      '-c',
      '"$0" "$@" & echo $!; cat >/dev/null; kill -9 $! 2>/dev/null',
      REDIS_SERVER_BIN,
      ...args,
      '--logfile',
      logFile,
    ],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
  const pid = await new Promise<number>((resolve, reject) => {
    watchdog.stdout?.once('data', (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
    watchdog.once('error', reject);
  });

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (!isAlive(pid) || Date.now() > deadline) {
      const output = await readFile(logFile, 'utf8').catch(() => '');
      await killAndClean(pid, watchdog, exited, dir);
      throw new Error(`redis-server did not start on port ${port}: ${output.trim().slice(-2_000)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }

  let stopped: Promise<void> | undefined;
  return {
    port,
    pid,
    url: `redis://127.0.0.1:${port}`,
    stop() {
      stopped ??= killAndClean(pid, watchdog, exited, dir);
      return stopped;
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function killAndClean(pid: number, watchdog: ChildProcess, exited: Promise<void>, dir: string) {
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  watchdog.stdin?.end(); // the watchdog's `cat` ends, and so does the watchdog
  await exited;
  await rm(dir, { recursive: true, force: true });
}

/** Raw RESP PING, so start-up polling does not need a client that logs reconnect noise. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/** redis-server + Upstash-REST adapter + an @upstash/redis client pointing at the adapter. */
export interface RedisPeer {
  /** Returns strings as stored (`automaticDeserialization: false`): `'42'` stays `'42'`. */
  redis: Redis;
  /** The current server (replaced by `restartRedis`). */
  redisServer: RedisServer;
  adapter: UpstashAdapter;
  /** A fresh, empty server on the same port, after `redisServer.stop()`; the adapter reconnects. */
  restartRedis(): Promise<RedisServer>;
  stop(): Promise<void>;
}

export async function startRedisPeer(): Promise<RedisPeer> {
  const redisServer = await startRedisServer();
  const adapter = await startUpstashAdapter({ redisUrl: redisServer.url, token: 'test-token' });
  const peer: RedisPeer = {
    redis: createTestRedisClient(adapter),
    redisServer,
    adapter,
    async restartRedis() {
      await peer.redisServer.stop();
      peer.redisServer = await startRedisServer({ port: redisServer.port });
      return peer.redisServer;
    },
    async stop() {
      await adapter.stop();
      await peer.redisServer.stop();
    },
  };
  return peer;
}

/**
 * A client as production builds one, except that a dead peer is reported at once: the SDK's own
 * network retries (≈ 4 s of backoff by default) would only slow down tests of the fallback.
 */
export function createTestRedisClient(adapter: Pick<UpstashAdapter, 'url' | 'token'>): Redis {
  return new Redis({
    url: adapter.url,
    token: adapter.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: { retries: 0 },
  });
}
