import type { ChangeEvent, ChangeEventKind, FeedClients } from '../changes';
import { IngestorError } from '../errors';
import { DIMENSIONS, logger, METRICS, metrics } from '../observability';
import {
  type InlineCopy,
  indexKey,
  MirrorIndex,
  MirrorRecords,
  type MirrorTablePlacement,
  packInline,
  storedItemBytes,
  TAKEN_DOWN,
} from '../store';
import {
  apiObjectPath,
  INLINE_ATTRIBUTE,
  INLINE_ITEM_MAX_BYTES,
  LIST_PARTITION_ATTRIBUTE,
  LIST_SORT_ATTRIBUTE,
  listPartition,
  listSort,
  mirrorKey,
} from './keys';
import type { ChangeKind, MirrorIndexEntry, MirrorMeta, MirrorRecord } from './types';

/**
 * The S3 mirror and its index.
 *
 * New vs modified vs unchanged is decided from a small index item per object in DynamoDB (State table,
 * pk `MIRROR#<sourceId>#<type>`, sk = id hash), read with one BatchGet per page for exactly the objects
 * that page holds. Why this and not the alternatives:
 * - an S3 HEAD per object is one sequential request per object and cannot batch;
 * - a per-list manifest must be read whole (MBs for 100k papers) on every 10-minute sync and rewritten
 *   after every page we checkpoint, although an unchanged incremental sync sees zero objects;
 * - the index costs reads only for objects the server actually returned (none when nothing changed) and
 *   a write only when an object changed; it doubles as the tombstone-free listing (OPT-2) without
 *   reading S3, and its own partition per source and type keeps the source's `SOURCE#` partition (leases,
 *   cursors) small for the planner.
 *
 * Write order is S3 record first, index last: the index item is the commit point. A run killed between
 * the two re-processes the object on resume and writes the same record again (deterministic key).
 *
 * Change feed (issue 16): every commit point — the index write of a new, modified or deleted object, an
 * operator's takedown mark, a purge's removal of the entry — records one event on `clients.changes`
 * (when configured), right after the write succeeded; whoever writes the mirror gets it for free.
 * A takedown's and a purge's event is staged in the feed's outbox before its write (`ChangeFeed.stage`):
 * those must reach the feed even when the process dies before its flush (the takedown promise).
 */
export interface MirrorStoreConfig {
  bucket: string;
  /** State: the API list counters, and the object items before the move (`mirrorTable`). */
  stateTable: string;
  /** Issue 28: where the object items are (the Mirror table and the move's phase); absent = State. */
  mirrorTable?: MirrorTablePlacement;
}

export interface MirrorWrite {
  sourceId: string;
  type: string;
  id: string;
  object: unknown;
  sourceUrl: string;
  fetchedAt: string;
  bodyId?: string;
  embeddedIn?: string;
  /** Content hash (see `contentHash` in shared/engine/objects). */
  hash: string;
  modified?: string;
}

export interface IncomingVersion {
  hash: string;
  /** Parsed `modified` in epoch ms, when the object has a readable one. */
  modifiedMs?: number;
  deleted: boolean;
}

/**
 * Pure: how an incoming copy relates to what we hold. Embedded copies (an agenda item inside a meeting)
 * are often abridged, so they replace the stored object only when their `modified` is newer; a list
 * copy replaces it whenever its content differs — unless its `modified` is older than ours (a stale
 * page must never roll the mirror back).
 */
export function classifyChange(
  previous: (Pick<MirrorIndexEntry, 'hash' | 'deleted'> & { modifiedMs?: number }) | undefined,
  incoming: IncomingVersion,
  options: { embedded: boolean },
): ChangeKind {
  // OPT-2/SCH-3: a deletion stub (OParl 1.1 lists them in `modified_since` windows) changes only an
  // object we hold live; of one we never held, or hold as a tombstone already, it records nothing.
  if (incoming.deleted) return previous === undefined || previous.deleted ? 'unchanged' : 'deleted';
  if (previous === undefined) return 'new';
  if (previous.deleted) return 'modified';
  if (previous.hash === incoming.hash) return 'unchanged';
  const older =
    incoming.modifiedMs !== undefined &&
    previous.modifiedMs !== undefined &&
    incoming.modifiedMs < previous.modifiedMs;
  if (older) return 'unchanged';
  if (options.embedded) {
    // Without any `modified` on either side there is no evidence which copy is fuller; take the new one.
    if (incoming.modifiedMs === undefined)
      return previous.modifiedMs === undefined ? 'modified' : 'unchanged';
    const newer = previous.modifiedMs === undefined || incoming.modifiedMs > previous.modifiedMs;
    return newer ? 'modified' : 'unchanged';
  }
  return 'modified';
}

/**
 * OPT-5: the index item carries an operator's takedown mark, so the sync's write lost the race against
 * `tombstone` (the condition on the commit point). The caller seals the object instead.
 */
export class MirrorTakenDownError extends IngestorError {
  constructor(
    readonly sourceId: string,
    readonly type: string,
    readonly id: string,
  ) {
    super('MIRROR_TAKEN_DOWN', `${type} ${id} of ${sourceId} was taken down by an operator`);
  }
}

/** What of an index item decides the counts of the API list it is in (attributes as stored). */
export interface ListMembership {
  /** `LIST_PARTITION_ATTRIBUTE`: the list the item is in. */
  lp?: unknown;
  deleted?: unknown;
  takedown?: unknown;
}

/** One counter change of one API list (`listPartition`): index items in its partition, and live ones. */
export interface CountDelta {
  list: string;
  entries: number;
  live: number;
}

/** An item an unfiltered list shows: neither deleted (by the source) nor taken down (by an operator). */
export function isListedLive(item: ListMembership): boolean {
  return item.deleted !== true && item.takedown === undefined;
}

/**
 * Pure: the counter changes one commit makes, from the index item before and after it (undefined =
 * absent). An item counts in the list its `lp` names (items of no body are in none); a move to
 * another list (or into the list at all, for an item written before the API) is a removal and an
 * addition. Nothing, for a commit that neither adds, removes nor changes liveness — the common case (a
 * modified live object), which then costs no counter write.
 */
export function countDelta(
  before: ListMembership | undefined,
  after: ListMembership | undefined,
): CountDelta[] {
  const changes = new Map<string, CountDelta>();
  const add = (item: ListMembership | undefined, sign: number) => {
    const list = item === undefined ? undefined : item[LIST_PARTITION_ATTRIBUTE];
    if (item === undefined || typeof list !== 'string') return;
    const change = changes.get(list) ?? { list, entries: 0, live: 0 };
    change.entries += sign;
    if (isListedLive(item)) change.live += sign;
    changes.set(list, change);
  };
  add(before, -1);
  add(after, 1);
  return [...changes.values()].filter((c) => c.entries !== 0 || c.live !== 0);
}

/**
 * Pure: the index item of one commit — the entry, the API's list keys (GSI byList: a body's objects by
 * type and commit time) and, for a small live object of a list or a body, its inline copy (issue 25
 * point 4: the API's body list is then one Query per source). The sync's commit and `ingestor mirror
 * rebuild` (rebuild.ts, from the S3 record) build it here, so a rebuilt item is the item the sync wrote.
 */
export function indexItemOf(
  write: Omit<MirrorWrite, 'sourceUrl' | 'embeddedIn'>,
  deleted: boolean,
): { entry: MirrorIndexEntry; item: Record<string, unknown> } {
  const entry: MirrorIndexEntry = {
    sourceId: write.sourceId,
    type: write.type,
    id: write.id,
    key: mirrorKey(write.sourceId, write.type, write.id),
    hash: write.hash,
    deleted,
    fetchedAt: write.fetchedAt,
  };
  if (write.modified !== undefined) entry.modified = write.modified;
  if (write.bodyId !== undefined) entry.bodyId = write.bodyId;
  const listKeys =
    write.bodyId === undefined || write.type === 'body'
      ? {}
      : {
          [LIST_PARTITION_ATTRIBUTE]: listPartition(write.sourceId, write.bodyId, write.type),
          [LIST_SORT_ATTRIBUTE]: listSort(write.fetchedAt, write.id),
        };
  const item: Record<string, unknown> = { ...entry, ...listKeys };
  if (!deleted && (LIST_PARTITION_ATTRIBUTE in listKeys || write.type === 'body')) {
    const copy = packInline(write.object);
    if (fitsInline({ ...indexKey(write.sourceId, write.type, write.id), ...item }, copy))
      item[INLINE_ATTRIBUTE] = copy;
  }
  return { entry, item };
}

/**
 * Pure: whether an index item (`stored`: as stored without its copy, table keys included) may carry the
 * inline copy `copy` (packed: shared/store inline-copy.ts) — the item with it within
 * INLINE_ITEM_MAX_BYTES by DynamoDB's size rule (`storedItemBytes`), so one read unit still reads it. The
 * sync's commit, `ingestor mirror rebuild` and `backfill-index` decide it here.
 */
export function fitsInline(stored: Record<string, unknown>, copy: InlineCopy): boolean {
  return storedItemBytes({ ...stored, [INLINE_ATTRIBUTE]: copy }) <= INLINE_ITEM_MAX_BYTES;
}

/**
 * The mirror's write and read paths over its two stores (shared/store `MirrorIndex`, `MirrorRecords`):
 * what a commit means (order, counts, the change feed), not how an item is keyed or sent.
 */
export class MirrorStore {
  private readonly index: MirrorIndex;
  private readonly records: MirrorRecords;

  constructor(
    private readonly clients: Pick<FeedClients, 'doc' | 's3' | 'changes'>,
    config: MirrorStoreConfig,
  ) {
    this.index = new MirrorIndex({ doc: clients.doc, table: config.stateTable }, config.mirrorTable);
    this.records = new MirrorRecords({ s3: clients.s3, bucket: config.bucket });
  }

  /** Index entries of the given objects, keyed by `lookupKey(type, id)`; absent = never mirrored. */
  async lookup(
    sourceId: string,
    refs: { type: string; id: string }[],
    options: { consistent?: boolean } = {},
  ): Promise<Map<string, MirrorIndexEntry>> {
    return (await this.index.lookup(sourceId, refs, options)) as unknown as Map<string, MirrorIndexEntry>;
  }

  /** Writes a live object (new or modified). */
  async writeLive(write: MirrorWrite): Promise<MirrorIndexEntry> {
    const meta: MirrorMeta = {
      id: write.id,
      type: write.type,
      sourceId: write.sourceId,
      sourceUrl: write.sourceUrl,
      fetchedAt: write.fetchedAt,
    };
    if (write.bodyId !== undefined) meta.bodyId = write.bodyId;
    if (write.embeddedIn !== undefined) meta.embeddedIn = write.embeddedIn;
    await this.putRecord(write, { object: write.object, meta }, false);
    return this.putIndex(write, false);
  }

  /**
   * OPT-2: marks the object deleted and keeps it. The last live copy moves to `meta.lastGood`, so a
   * deleted entry (often just id, type, deleted) never silently replaces good data.
   */
  async writeTombstone(
    write: MirrorWrite,
    previous: MirrorIndexEntry | undefined,
  ): Promise<MirrorIndexEntry> {
    const meta: MirrorMeta = {
      id: write.id,
      type: write.type,
      sourceId: write.sourceId,
      sourceUrl: write.sourceUrl,
      fetchedAt: write.fetchedAt,
      deleted: true,
      deletedAt: write.fetchedAt,
    };
    const bodyId = write.bodyId ?? previous?.bodyId;
    if (bodyId !== undefined) meta.bodyId = bodyId;
    if (write.embeddedIn !== undefined) meta.embeddedIn = write.embeddedIn;
    const before = previous ? await this.read(write.sourceId, write.type, write.id) : undefined;
    if (before) {
      // A tombstone of a tombstone keeps the original last good copy.
      meta.lastGood = before.meta.deleted ? before.meta.lastGood : before.object;
      const at = before.meta.deleted ? before.meta.lastGoodFetchedAt : before.meta.fetchedAt;
      const from = before.meta.deleted ? before.meta.lastGoodSourceUrl : before.meta.sourceUrl;
      if (at !== undefined) meta.lastGoodFetchedAt = at;
      if (from !== undefined) meta.lastGoodSourceUrl = from;
    }
    await this.putRecord(write, { object: write.object, meta }, true);
    return this.putIndex({ ...write, ...(bodyId === undefined ? {} : { bodyId }) }, true);
  }

  /** The stored record, tombstones included (audit, purge). */
  read(sourceId: string, type: string, id: string): Promise<MirrorRecord | undefined> {
    return this.readKey(mirrorKey(sourceId, type, id));
  }

  /** The record under one S3 key (`mirrorKey`), tombstones included; absent = undefined. */
  readKey(key: string): Promise<MirrorRecord | undefined> {
    return this.records.readKey<MirrorRecord>(key);
  }

  /** OPT-2: the record only when it is live; a tombstone reads as absent. */
  async readLive(sourceId: string, type: string, id: string): Promise<MirrorRecord | undefined> {
    const record = await this.read(sourceId, type, id);
    return record && record.meta.deleted !== true ? record : undefined;
  }

  /**
   * OPT-2: index entries of live objects of one type (tombstones excluded), optionally of one body —
   * for exports, the CLI and APIs. Reads only the index, never S3.
   */
  async *listLive(
    sourceId: string,
    type: string,
    options: { bodyId?: string } = {},
  ): AsyncGenerator<MirrorIndexEntry> {
    for await (const entry of this.listAll(sourceId, type, options)) {
      if (!entry.deleted) yield entry;
    }
  }

  /** Every index entry of one type, tombstones included (audit, `purge-deleted` preview). */
  async *listAll(
    sourceId: string,
    type: string,
    options: { bodyId?: string; consistent?: boolean } = {},
  ): AsyncGenerator<MirrorIndexEntry> {
    for await (const item of this.index.query(sourceId, type, options))
      yield item as unknown as MirrorIndexEntry;
  }

  private async putRecord(write: MirrorWrite, record: MirrorRecord, tombstone: boolean): Promise<void> {
    // DESIGN: a lifecycle rule on the tombstone's tag can age tombstones out; live objects carry no tag.
    await this.records.write(
      { sourceId: write.sourceId, type: write.type, id: write.id },
      record,
      tombstone ? 'tombstone' : 'live',
    );
  }

  private async putIndex(write: MirrorWrite, deleted: boolean): Promise<MirrorIndexEntry> {
    const { entry, item } = indexItemOf(write, deleted);
    // Deterministic key and full value: repeating this write is harmless (idempotent). OPT-5: never over
    // an operator's mark — a takedown issued while this sync ran wins over its later writes.
    const committed = await this.index.commit(write.sourceId, write.type, write.id, item);
    if (committed === TAKEN_DOWN) throw new MirrorTakenDownError(write.sourceId, write.type, write.id);
    const old = committed.old;
    await this.count(write.sourceId, countDelta(old, item));
    await this.publish(deleted ? 'deleted' : old !== undefined ? 'modified' : 'new', entry, write.fetchedAt);
    return entry;
  }

  /**
   * OPT-2 / OPT-5: an operator's mark on the index entry (shared/takedown `sealTakenDown`): deleted, and
   * from now on every sync commit of the object fails its condition. The entry moves to the mark's time
   * in the API's list order, so a client's next `modified_since` request learns that its copy is gone
   * (docs/mirror-api.md, deletion semantics). Only the first mark counts: repeating changes nothing.
   * Returns false when there was no entry (purged meanwhile) or it carried a mark already.
   */
  async markTakenDown(entry: MirrorIndexEntry, mark: { at: string }): Promise<boolean> {
    const listed = entry.bodyId !== undefined && entry.type !== 'body';
    const event = this.changeEvent('takendown', entry, mark.at);
    // Durable before the commit: a crash before the flush must not lose the takedown for the feed.
    await this.clients.changes?.stage(event);
    const marked = await this.index.markTakenDown(
      { sourceId: entry.sourceId, type: entry.type, id: entry.id },
      { ...mark },
      listed ? listSort(mark.at, entry.id) : undefined,
    );
    if (marked === undefined) {
      await this.clients.changes?.unstage(event);
      return false;
    }
    const old = marked.old;
    // The mark keeps the entry in its list partition (moved to the mark's time), hidden.
    await this.count(entry.sourceId, countDelta(old, old && { ...old, deleted: true, takedown: mark }));
    await this.clients.changes?.record(event);
    return true;
  }

  /**
   * OPT-3: removes the index entry for good (a purge, after the record). Repeating is harmless. With a
   * change feed the entry is read first: the `purged` event (its body) is staged before the removal.
   */
  async purgeEntry(sourceId: string, type: string, id: string, at: string): Promise<void> {
    const feed = this.clients.changes;
    let staged: ChangeEvent | undefined;
    if (feed) {
      const current = await this.index.get(sourceId, type, id);
      if (current === undefined) return;
      staged = this.changeEvent('purged', current as unknown as MirrorIndexEntry, at);
      await feed.stage(staged);
    }
    const old = (await this.index.remove(sourceId, type, id)) as MirrorIndexEntry | undefined;
    await this.count(sourceId, countDelta(old, undefined));
    if (!feed || !staged) return;
    // Removed meanwhile by another purge: that one published it.
    if (old === undefined) await feed.unstage(staged);
    else await feed.record(staged);
  }

  /**
   * The API list counts after a commit (docs/mirror-api.md, Lists): one `ADD` per list the commit
   * changed, none when it changed no count. Not in a transaction with the commit (dynalite has none, and
   * the commit must not wait on a statistic): a crash in between, or a failed write here, leaves the
   * counter off by one until `ingestor backfill-index` recounts it. A failed write is logged and
   * counted, not thrown: failing the sync would not repair it (its resume finds the object unchanged),
   * and a takedown must not stop half-way over a number.
   */
  private async count(sourceId: string, changes: CountDelta[]): Promise<void> {
    for (const change of changes) {
      try {
        await this.index.addToListCount(sourceId, change.list, change);
      } catch (error) {
        logger.warn('API list count not updated (drifts until backfill-index)', {
          sourceId,
          ...change,
          error: (error as Error).message,
        });
        metrics.count(METRICS.apiListCounts, { [DIMENSIONS.outcome]: 'write-failed' });
      }
    }
  }

  /** Feeds one committed change to the change feed, when there is one. */
  private async publish(
    kind: ChangeEventKind,
    entry: Pick<MirrorIndexEntry, 'sourceId' | 'type' | 'id' | 'bodyId'>,
    at: string,
  ): Promise<void> {
    await this.clients.changes?.record(this.changeEvent(kind, entry, at));
  }

  private changeEvent(
    kind: ChangeEventKind,
    entry: Pick<MirrorIndexEntry, 'sourceId' | 'type' | 'id' | 'bodyId'>,
    at: string,
  ): ChangeEvent {
    return {
      kind,
      source: entry.sourceId,
      ...(entry.bodyId === undefined ? {} : { body: entry.bodyId }),
      type: entry.type,
      apiId: apiObjectPath(entry.sourceId, entry.type, entry.id),
      originId: entry.id,
      key: mirrorKey(entry.sourceId, entry.type, entry.id),
      at,
    };
  }
}
