import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  BY_NEXT_ATTEMPT,
  BY_SOURCE,
  type DocumentPosition,
  DocumentQueue,
  type SampleWalkCursor,
  SampleWalks,
} from '../store';
import type { DocumentChange, DocumentItem } from './types';

/**
 * The Documents table as the document functions use it (stored by shared/store `DocumentQueue`). Work
 * is only ever selected through the `byNextAttempt` index (one shard per queue, see keys.ts) — never by
 * a scan. Every write is one conditional update on the queue position the item was read at, so two runs
 * (or the sync moving a changed document to the intake meanwhile) never overwrite each other: the
 * loser's write fails and the item is decided again by the next run.
 */
export { BY_NEXT_ATTEMPT, BY_SOURCE };

export class DocumentsStore {
  private readonly queue: DocumentQueue;
  private readonly walks: SampleWalks;

  constructor(doc: DynamoDBDocumentClient, table: string) {
    this.queue = new DocumentQueue({ doc, table });
    this.walks = new SampleWalks({ doc, table });
  }

  /** Items of `shard` with a sort key in (`after`, `upTo`], in key order, at most `limit` (DEL-2 walk). */
  queryRange(shard: string, after: string, upTo: string, limit: number): Promise<DocumentItem[]> {
    return this.queue.inRange<DocumentItem>(shard, after, upTo, limit);
  }

  /** DEL-2: bodies' walk cursors (keys.ts `walkCursorId`) in one read (a deletion run's, read fresh at its start). */
  walkCursors(cursorIds: readonly string[]): Promise<Map<string, SampleWalkCursor>> {
    return this.walks.getMany(cursorIds);
  }

  /** Moves a walk cursor if it is still at `from`; false when another run moved it first. */
  advanceWalk(cursorId: string, from: string | undefined, to: SampleWalkCursor): Promise<boolean> {
    return this.walks.advance(cursorId, from, to);
  }

  /** Items of `shard` due at `nowIso` (nextAttemptAt ≤ now), oldest first, at most `limit`. */
  queryDue(shard: string, nowIso: string, limit: number): Promise<DocumentItem[]> {
    return this.queue.inShard<DocumentItem>(shard, limit, nowIso);
  }

  /** Items of `shard` whatever their time (parked queues), at most `limit`. */
  queryShard(shard: string, limit: number): Promise<DocumentItem[]> {
    return this.queue.inShard<DocumentItem>(shard, limit, undefined);
  }

  get(docId: string): Promise<DocumentItem | undefined> {
    return this.queue.get<DocumentItem>(docId);
  }

  /** Every document of a source (the `bySource` index), for the operator's `documents` listing. */
  listBySource(sourceId: string): AsyncGenerator<DocumentItem> {
    return this.queue.ofSource<DocumentItem>(sourceId);
  }

  /**
   * Applies `change` if the item still waits where it was read (same shard and time; or, for an item
   * in no queue, the same state). Returns false when someone else moved it first.
   */
  async apply(item: DocumentItem, change: DocumentChange): Promise<boolean> {
    const set: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(change.set)) if (value !== undefined) set[key] = value;
    const remove = [...new Set(change.remove)].filter((key) => !(key in set));
    if (Object.keys(set).length === 0 && remove.length === 0) return true;
    const at: DocumentPosition =
      item.attemptShard !== undefined && item.nextAttemptAt !== undefined
        ? { attemptShard: item.attemptShard, nextAttemptAt: item.nextAttemptAt }
        : { state: item.state };
    return this.queue.moveIfAt(item.docId, at, { set, remove });
  }
}

/** The item as it reads after `change` (for decisions chained within one run). */
export function afterChange(item: DocumentItem, change: DocumentChange): DocumentItem {
  const next: Record<string, unknown> = { ...item };
  for (const key of change.remove) delete next[key];
  for (const [key, value] of Object.entries(change.set)) if (value !== undefined) next[key] = value;
  return next as unknown as DocumentItem;
}
