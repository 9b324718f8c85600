import { ROUTE_MAX_ITEMS_PER_RUN, UNPARK_MAX_ITEMS_PER_RUN } from './constants';
import { type DocumentsDeps, listedBodies, type SourceContext } from './context';
import { routeChange, unparkChange } from './decide';
import { INTAKE_SHARD, shards } from './keys';
import type { DocumentsStore } from './store';
import type { OutcomeCounts } from './types';

/**
 * The intake (shard `due`): the sync records new documents there and moves known ones back when the
 * source changed them. Each run of the files function and of the deletion check first sorts them
 * into their queues (conditional writes: a second runner doing the same is harmless).
 */
export async function routeIntake(
  deps: Pick<DocumentsDeps, 'log'>,
  store: DocumentsStore,
  now: Date,
  limit = ROUTE_MAX_ITEMS_PER_RUN,
): Promise<OutcomeCounts> {
  const counts: OutcomeCounts = {};
  const items = await store.queryDue(INTAKE_SHARD, now.toISOString(), limit);
  for (const item of items) {
    const change = routeChange(item, now);
    const applied = await store.apply(item, change);
    const key = applied ? change.outcome : 'moved-meanwhile';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  if (items.length > 0) deps.log?.('documents routed', { ...counts });
  return counts;
}

/**
 * Parked documents whose reason went away go back to the cache: file fetching (and the source) on
 * again (DOC-1), or their body listed by an operator (DOC-7). One index query per source and listed
 * body; nothing is read for sources still off.
 */
export async function unparkDocuments(
  store: DocumentsStore,
  contexts: SourceContext[],
  now: Date,
  limit = UNPARK_MAX_ITEMS_PER_RUN,
): Promise<number> {
  let moved = 0;
  for (const ctx of contexts) {
    if (!ctx.source.fileFetching || !ctx.source.active) continue;
    const queues = [
      shards.disabled(ctx.source.sourceId),
      ...listedBodies(ctx).map(({ bodyKey }) => shards.unlisted(ctx.source.sourceId, bodyKey)),
    ];
    for (const shard of queues) {
      if (moved >= limit) return moved;
      for (const item of await store.queryShard(shard, limit - moved)) {
        if (await store.apply(item, unparkChange(item, now))) moved += 1;
      }
    }
  }
  return moved;
}
