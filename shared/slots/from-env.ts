import { Redis } from '@upstash/redis';
import type { IngestorEnv } from '../config';
import { logSlotEvent } from './event-log';
import { createHostSlots, type HostSlotsOptions, type PacedHostSlots } from './host-slots';
import { type HostLedger, processHostLedger, RedisHostLedger } from './ledger';

/**
 * The Upstash client as the slot store needs it: exact strings, and no long network retry ladder —
 * the SDK's default (5 retries, ≈ 4 s) would hold every request back before the RATE-7 fallback.
 */
export function createSlotRedisClient(opts: { url: string; token: string }): Redis {
  return new Redis({
    url: opts.url,
    token: opts.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: { retries: 1, backoff: () => 50 },
  });
}

/**
 * Slots for this process from its environment: shared through Upstash when UPSTASH_REDIS_REST_URL and a
 * token are there (the token may come from Secrets Manager via `token`), else local mode at the plain
 * interval (`npm start`).
 */
export function createHostSlotsFromEnv(
  env: IngestorEnv,
  opts: Omit<HostSlotsOptions, 'redis' | 'maxInstances'> & { token?: string } = {},
): PacedHostSlots {
  // Every switch to and from the RATE-7 fallback is logged and counted (`event-log.ts`).
  const { token = env.UPSTASH_REDIS_REST_TOKEN, onEvent = logSlotEvent, ...options } = opts;
  const rest = { ...options, onEvent };
  if (!env.UPSTASH_REDIS_REST_URL || !token) return createHostSlots(rest);
  return createHostSlots({
    ...rest,
    redis: createSlotRedisClient({ url: env.UPSTASH_REDIS_REST_URL, token }),
    maxInstances: env.INGESTOR_MAX_INSTANCES,
  });
}

/**
 * The host ledger for a reader that holds no slots (the planner): shared through Upstash when configured
 * (the same keys the functions' slots write), else this process's own (`npm start`: planner, sync and
 * passes in one process).
 */
export function createHostLedgerFromEnv(env: IngestorEnv, opts: { token?: string } = {}): HostLedger {
  const token = opts.token ?? env.UPSTASH_REDIS_REST_TOKEN;
  if (!env.UPSTASH_REDIS_REST_URL || !token) return processHostLedger();
  return new RedisHostLedger(createSlotRedisClient({ url: env.UPSTASH_REDIS_REST_URL, token }));
}
