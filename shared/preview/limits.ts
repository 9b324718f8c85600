import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from '@upstash/redis';
import { parseIpv6 } from '../net';
import {
  PREVIEW_GLOBAL_LEASE_MS,
  PREVIEW_KEY_PREFIX,
  PREVIEW_LIMITS_CALL_MS,
  PREVIEW_MAX_FETCHES_GLOBAL,
  PREVIEW_SALT_TTL_MS,
  PREVIEW_VISITOR_LIMIT,
  PREVIEW_VISITOR_WINDOW_MS,
} from './constants';
import { PreviewLimitsUnavailableError } from './errors';

/**
 * PRV-2 limits: requests per visitor address and minute, and on-demand fetches at once (per instance
 * and across instances). Visitor addresses are never stored or logged: only an HMAC under a salt that
 * lives one day, as the key of a counter that lives one minute.
 */
export interface VisitorVerdict {
  allowed: boolean;
  /** Seconds until the visitor's window resets (for Retry-After). */
  retryAfterS: number;
}

export interface PreviewLimits {
  /** Counts one request of the visitor (PRV-2: at most 20 a minute). */
  visitor(address: string): Promise<VisitorVerdict>;
  /** A global fetch place, or undefined when all are taken (PRV-2). The release is idempotent. */
  acquireGlobal(): Promise<(() => Promise<void>) | undefined>;
}

const VISITOR_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return {n, ttl}
`;

const SALT_SCRIPT = `
local s = redis.call('GET', KEYS[1])
if not s then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  s = ARGV[1]
end
return s
`;

// Places are members scored by their expiry on the Redis clock, so a crashed holder frees its place.
const GLOBAL_ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

export interface RedisLimitsOptions {
  keyPrefix?: string;
  visitorLimit?: number;
  windowMs?: number;
  globalMax?: number;
  /** How long one Redis call may take (PREVIEW_LIMITS_CALL_MS). */
  callMs?: number;
}

/**
 * A Redis call of the limits, bounded: whatever goes wrong — an error, or no answer within `ms` (the
 * Upstash client has no call timeout of its own) — becomes one PreviewLimitsUnavailableError.
 */
async function bounded<T>(call: () => Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const unavailable = (cause?: unknown) => new PreviewLimitsUnavailableError(undefined, cause);
  try {
    return await Promise.race([
      call(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(unavailable()), ms);
      }),
    ]);
  } catch (error) {
    throw error instanceof PreviewLimitsUnavailableError ? error : unavailable(error);
  } finally {
    clearTimeout(timer);
  }
}

/** The shared limits in the same Redis (Upstash) as the host slots. */
export function createRedisPreviewLimits(redis: Redis, opts: RedisLimitsOptions = {}): PreviewLimits {
  const prefix = opts.keyPrefix ?? PREVIEW_KEY_PREFIX;
  const limit = opts.visitorLimit ?? PREVIEW_VISITOR_LIMIT;
  const windowMs = opts.windowMs ?? PREVIEW_VISITOR_WINDOW_MS;
  const globalMax = opts.globalMax ?? PREVIEW_MAX_FETCHES_GLOBAL;
  const callMs = opts.callMs ?? PREVIEW_LIMITS_CALL_MS;
  let salt: { day: string; value: string } | undefined;

  async function currentSalt(): Promise<string> {
    const day = new Date().toISOString().slice(0, 10);
    if (salt?.day === day) return salt.value;
    // One salt per day for all instances, so a visitor is counted once however requests are spread.
    const value = String(
      await redis.eval(
        SALT_SCRIPT,
        [`${prefix}salt:${day}`],
        [randomBytes(32).toString('hex'), String(PREVIEW_SALT_TTL_MS)],
      ),
    );
    salt = { day, value };
    return value;
  }

  return {
    visitor: (address) =>
      bounded(async () => {
        const key = `${prefix}visitor:${visitorHash(await currentSalt(), address)}`;
        const reply = (await redis.eval(VISITOR_SCRIPT, [key], [String(windowMs)])) as unknown[];
        const count = Number(reply[0]);
        const ttlMs = Number(reply[1]);
        return { allowed: count <= limit, retryAfterS: Math.max(1, Math.ceil(ttlMs / 1000)) };
      }, callMs),
    async acquireGlobal() {
      const member = randomUUID();
      const key = `${prefix}fetches`;
      const ok = Number(
        await bounded(
          () =>
            redis.eval(
              GLOBAL_ACQUIRE_SCRIPT,
              [key],
              [String(globalMax), String(PREVIEW_GLOBAL_LEASE_MS), member],
            ),
          callMs,
        ),
      );
      if (ok !== 1) return undefined;
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        // A lost release expires with the lease: on the safe side.
        await redis.zrem(key, member).catch(() => undefined);
      };
    },
  };
}

/**
 * Process-local limits for `serve` without Upstash (one process is then the whole system). The salt
 * is random per process and never leaves it.
 */
export function createLocalPreviewLimits(
  opts: Omit<RedisLimitsOptions, 'keyPrefix'> & { now?: () => number } = {},
): PreviewLimits {
  const limit = opts.visitorLimit ?? PREVIEW_VISITOR_LIMIT;
  const windowMs = opts.windowMs ?? PREVIEW_VISITOR_WINDOW_MS;
  const globalMax = opts.globalMax ?? PREVIEW_MAX_FETCHES_GLOBAL;
  const now = opts.now ?? (() => Date.now());
  const salt = randomBytes(32).toString('hex');
  const windows = new Map<string, { count: number; resetAt: number }>();
  let inFlight = 0;
  return {
    async visitor(address) {
      const t = now();
      for (const [k, w] of windows) if (w.resetAt <= t) windows.delete(k);
      const key = visitorHash(salt, address);
      const w = windows.get(key) ?? { count: 0, resetAt: t + windowMs };
      w.count += 1;
      windows.set(key, w);
      return { allowed: w.count <= limit, retryAfterS: Math.max(1, Math.ceil((w.resetAt - t) / 1000)) };
    },
    async acquireGlobal() {
      if (inFlight >= globalMax) return undefined;
      inFlight += 1;
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        inFlight -= 1;
      };
    },
  };
}

/** HMAC-SHA-256 of the visitor (`visitorOf`) under the salt: no address in clear anywhere (PRV-2). */
export function visitorHash(salt: string, address: string): string {
  return createHmac('sha256', salt).update(visitorOf(address)).digest('hex').slice(0, 32);
}

/**
 * Who counts as one visitor for PRV-2: an IPv4 address; for IPv6 its /64 — the smallest network one
 * subscriber is given, and inside which an address can be changed at will — and an IPv4-mapped IPv6
 * address (`::ffff:a.b.c.d`, how dual-stack sockets report IPv4 peers) as the IPv4 address it maps.
 */
export function visitorOf(address: string): string {
  const groups = parseIpv6(address.trim());
  if (groups === undefined) return address.trim();
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) {
    return `${g6 >>> 8}.${g6 & 0xff}.${g7 >>> 8}.${g7 & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/**
 * PRV-2: at most `max` fetches at once in this process. `acquire` waits at most until `deadlineMs`
 * (part of the PRV-1 budget) and resolves with a release, or undefined when no place came in time.
 */
export class LocalPlaces {
  private active = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly max: number) {}

  get inUse(): number {
    return this.active;
  }

  async acquire(deadlineMs: number): Promise<(() => void) | undefined> {
    while (this.active >= this.max) {
      const waitMs = deadlineMs - Date.now();
      if (waitMs <= 0) return undefined;
      const woke = await new Promise<boolean>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          const i = this.waiters.indexOf(wake);
          if (i >= 0) this.waiters.splice(i, 1);
          resolve(false);
        }, waitMs);
        this.waiters.push(wake);
      });
      if (!woke && this.active >= this.max) return undefined;
    }
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      this.waiters.shift()?.();
    };
  }
}
