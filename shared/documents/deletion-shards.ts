import { DEL_SOURCES_PER_SHARD } from './constants';
import { DocumentsError } from './errors';

/**
 * Issue 28, DEL-2 at 10,000+ sources: the hourly deletion check as N shards, each its own invocation.
 * A source belongs to the shard of its host (`hostShard`), so all sources of one server are worked by
 * one shard, and RATE-6's spacing between two checks of that server holds as in a single run. Pure.
 */
export interface DeletionShard {
  /** 0 … of − 1. */
  index: number;
  of: number;
}

/** Shards the hourly run needs for a fleet of `sources` (at least one). */
export function deletionShardsFor(sources: number): number {
  return Math.max(1, Math.ceil(sources / DEL_SOURCES_PER_SHARD));
}

/** The shard a host's sources belong to: FNV-1a of the host key, modulo the shard count (stable). */
export function hostShard(host: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < host.length; i++) {
    hash ^= host.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/**
 * The shard an invocation's event names (`{ shard: { index, of } }`, from its schedule); none = the
 * whole fleet in one run. A malformed one is refused rather than read as the whole fleet, which would
 * check the other shards' servers a second time in the same hour.
 */
export function shardOfEvent(event: unknown): DeletionShard | undefined {
  const shard = (event as { shard?: unknown } | null | undefined)?.shard;
  if (shard === undefined) return undefined;
  const { index, of } = (shard ?? {}) as { index?: unknown; of?: unknown };
  if (
    typeof index !== 'number' ||
    typeof of !== 'number' ||
    !Number.isInteger(index) ||
    !Number.isInteger(of) ||
    of < 1 ||
    index < 0 ||
    index >= of
  ) {
    throw new DocumentsError('DELETION_SHARD_INVALID', `deletion check: bad shard ${JSON.stringify(shard)}`);
  }
  return { index, of };
}
