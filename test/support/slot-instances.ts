import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from '@upstash/redis';
import {
  type AcquireResult,
  createHostSlots,
  isSlotLease,
  type PacedHostSlots,
  type SlotLease,
} from '../../shared/slots';
import { createTestRedisClient, type RedisPeer } from './redis';

export const KEY_PREFIX = 'test:slots:';

/** One "instance": its own client and in-process state, as a separate function instance would have. */
export function instance(
  peer: RedisPeer,
  opts: { maxInstances?: number; releaseLingerMs?: number } = {},
): PacedHostSlots {
  return createHostSlots({
    redis: createTestRedisClient(peer.adapter),
    maxInstances: opts.maxInstances ?? 4,
    keyPrefix: KEY_PREFIX,
    ...(opts.releaseLingerMs ? { releaseLingerMs: opts.releaseLingerMs } : {}),
  });
}

let warmups = 0;
/**
 * An instance that has talked to Redis a few times, as a long-lived function instance has. Until then
 * it can bound how long an answer travelled only by the whole round trip, and on a loaded test machine
 * that alone makes it give up slots as possibly late (beyond their send allowance) — correct, but slow to test.
 */
export async function warmInstance(peer: RedisPeer): Promise<PacedHostSlots> {
  const slots = instance(peer);
  for (let i = 0; i < 4; i += 1) {
    warmups += 1;
    // maxWaitMs 0: a slot given up during warm-up is not waited for.
    const result = await slots.acquire(`warmup-${warmups}.test`, { intervalMs: 1_000, maxWaitMs: 0 });
    if (result.granted) await result.release();
  }
  return slots;
}

export function granted(result: AcquireResult): SlotLease {
  if (!isSlotLease(result)) throw new Error(`expected a lease, got ${JSON.stringify(result)}`);
  return result;
}

/**
 * Every slot key with its value and absolute expiry (PEXPIRETIME, so the snapshot does not drift as
 * TTLs count down): equal snapshots mean nothing was written.
 */
export async function snapshot(redis: Redis, host?: string): Promise<string[]> {
  const pattern = host ? `${KEY_PREFIX}{${host}}*` : `${KEY_PREFIX}*`;
  return redis.eval<string[], string[]>(
    `local out = {}
     for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
       local kind = redis.call('TYPE', key)['ok']
       local value = kind
       if kind == 'string' then value = redis.call('GET', key) end
       if kind == 'zset' then value = table.concat(redis.call('ZRANGE', key, 0, -1, 'WITHSCORES'), ',') end
       table.insert(out, key .. '=' .. value .. ' expires@' .. redis.call('PEXPIRETIME', key))
     end
     table.sort(out)
     return out`,
    [],
    [pattern],
  );
}

export async function liveLeases(redis: Redis, host: string): Promise<number> {
  return redis.zcount(`${KEY_PREFIX}{${host}}:leases`, `(${Date.now()}`, '+inf');
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request's arrival at the stamping council, on the real clock (ms since the epoch), and who sent it. */
export interface Arrival {
  at: number;
  from: string;
}

/** A loopback "council" that stamps every request's arrival, and a plain sender named by `x-from`. */
export interface StampingCouncil {
  port: number;
  arrivals: Arrival[];
  /** One GET from `from`, resolved when the answer is read. */
  send(from: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The slots tests' council (RATE-1 measured where it counts, at the server): arrivals stamped with
 * `performance` on the real clock, whatever fake clock the instances pace by.
 */
export async function startStampingCouncil(): Promise<StampingCouncil> {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    arrivals.push({ at: performance.timeOrigin + performance.now(), from: String(req.headers['x-from']) });
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const send = (from: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', headers: { 'x-from': from } });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end();
    });
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { port, arrivals, send, close };
}
