import type { S3Client } from '@aws-sdk/client-s3';
import { isFresh, nextRobotsFetchAt, type RobotsCacheEntry } from '../robots';
import { RobotsCacheObjects, robotsObjectKey } from '../store';
import type { Clock, RobotsCacheStore } from './ports';

/**
 * Stores of robots.txt state (ROB-5: 24 h per hostname and agent). The S3 store is the shared one —
 * every function instance reads the same entry, so a server sees one robots.txt fetch per day, not
 * one per cold start. The layered store keeps a small per-process copy in front of it.
 */

function key(host: string, agentToken: string): string {
  return `${host.toLowerCase()}\u0000${agentToken.toLowerCase()}`;
}

/** In-memory store (tests, local mode, and the process layer of the layered store). */
export function createMemoryRobotsStore(): RobotsCacheStore & { readonly size: number; clear(): void } {
  const entries = new Map<string, RobotsCacheEntry>();
  return {
    async get(host, agentToken) {
      const entry = entries.get(key(host, agentToken));
      // A copy, so a caller mutating it cannot change what the next caller sees.
      return entry === undefined ? undefined : structuredClone(entry);
    },
    async put(host, agentToken, entry) {
      entries.set(key(host, agentToken), structuredClone(entry));
    },
    get size() {
      return entries.size;
    },
    clear() {
      entries.clear();
    },
  };
}

/** S3 key of one entry: `robots/<host>/<agent-token>.json` — its home is shared/store keys.ts. */
export { robotsObjectKey };

/** Accepts only entries of the shape shared/robots writes; anything else counts as missing (refetch). */
export function isRobotsCacheEntry(value: unknown): value is RobotsCacheEntry {
  if (!value || typeof value !== 'object') return false;
  const entry = value as Record<string, unknown>;
  switch (entry.kind) {
    case 'rules':
      return (
        typeof entry.fetchedAt === 'number' &&
        typeof entry.robots === 'object' &&
        entry.robots !== null &&
        Array.isArray((entry.robots as { groups?: unknown }).groups)
      );
    case 'absent':
      return typeof entry.fetchedAt === 'number' && typeof entry.status === 'number';
    case 'unreachable':
      return (
        typeof entry.retryAt === 'number' &&
        typeof entry.since === 'number' &&
        (entry.lastGood === undefined || isRobotsCacheEntry(entry.lastGood))
      );
    default:
      return false;
  }
}

export interface S3RobotsStoreOptions {
  s3: S3Client;
  bucket: string;
  /** Default `robots/`. */
  prefix?: string;
}

/** The shared store: one JSON object per (host, agent token) in the mirror bucket. */
export function createS3RobotsStore(options: S3RobotsStoreOptions): RobotsCacheStore {
  const objects = new RobotsCacheObjects({ s3: options.s3, bucket: options.bucket }, options.prefix);
  return {
    async get(host, agentToken) {
      const stored = await objects.read(host, agentToken);
      return isRobotsCacheEntry(stored) ? stored : undefined;
    },
    async put(host, agentToken, entry) {
      await objects.write(host, agentToken, entry);
    },
  };
}

export interface LayeredRobotsStoreOptions {
  shared: RobotsCacheStore;
  clock: Clock;
  /** Entries kept in process memory (least recently stored dropped first); default 500. */
  maxMemoryEntries?: number;
  /**
   * Called when the shared store fails; the fetch goes on with what the process knows (at worst
   * robots.txt is fetched once more than needed — never skipped).
   */
  onSharedError?: (error: unknown, operation: 'get' | 'put') => void;
}

/**
 * Process memory in front of the shared store. A fresh memory entry answers without a round trip;
 * otherwise the shared entry is read (another instance may have refreshed it). Writes go to both.
 */
export function createLayeredRobotsStore(options: LayeredRobotsStoreOptions): RobotsCacheStore {
  const memory = new Map<string, RobotsCacheEntry>();
  const limit = options.maxMemoryEntries ?? 500;
  const remember = (k: string, entry: RobotsCacheEntry) => {
    memory.delete(k);
    memory.set(k, entry);
    while (memory.size > limit) {
      const oldest = memory.keys().next();
      if (oldest.done) break;
      memory.delete(oldest.value);
    }
  };
  return {
    async get(host, agentToken) {
      const k = key(host, agentToken);
      const local = memory.get(k);
      const now = options.clock.now();
      if (local && isFresh(local, now)) return structuredClone(local);
      let shared: RobotsCacheEntry | undefined;
      try {
        shared = await options.shared.get(host, agentToken);
      } catch (error) {
        options.onSharedError?.(error, 'get');
      }
      // The entry that knows more recent news wins (its next fetch is later); it carries any last
      // good copy along (ROB-7).
      const best =
        local && shared
          ? nextRobotsFetchAt(shared) >= nextRobotsFetchAt(local)
            ? shared
            : local
          : (shared ?? local);
      if (best) remember(k, best);
      return best === undefined ? undefined : structuredClone(best);
    },
    async put(host, agentToken, entry) {
      remember(key(host, agentToken), structuredClone(entry));
      try {
        await options.shared.put(host, agentToken, entry);
      } catch (error) {
        options.onSharedError?.(error, 'put');
      }
    },
  };
}
