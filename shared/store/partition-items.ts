import { BatchGetCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableContext, unlessConditionFails } from './context';
import { bodySk, sessionSk, slugSk, sourcePartition } from './keys';
import { packedItemBytes, packItem, unpackItem } from './packed-item';
import { queryItems } from './query-pages';

/** Keys per BatchGetItem (DynamoDB's limit). */
export const BATCH_GET_MAX = 100;
/** The range `SourceSyncItems.preloadSyncState` reads: `BODY#…` up to every `SESSION#…`. */
const SYNC_STATE_FIRST_SK = bodySk('');
const SYNC_STATE_LAST_SK = `${sessionSk('')}\uffff`;
/** Attributes named in one meeting-day removal (keeps an update expression small). */
const MEETING_DAYS_PER_UPDATE = 50;

/** An item as stored, without its table keys. */
export function withoutKeys<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as T;
}

/** `SET a = :a, … REMOVE b, …` over attribute names of the caller's choosing (`#a0`, `:a0` …). */
function setAndRemove(
  set: Record<string, unknown>,
  remove: readonly string[],
): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  let n = 0;
  for (const [attr, value] of Object.entries(set)) {
    names[`#a${n}`] = attr;
    values[`:a${n}`] = value;
    sets.push(`#a${n} = :a${n}`);
    n += 1;
  }
  for (const attr of remove) {
    names[`#a${n}`] = attr;
    removes.push(`#a${n}`);
    n += 1;
  }
  const expression = [
    sets.length > 0 ? `SET ${sets.join(', ')}` : '',
    removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
  return { expression, names, values };
}

/**
 * The items of one State table partition (`SOURCE#<sourceId>`, `BROADCAST#<id>` …), by sort key: read
 * one (strongly consistent), write one, list a sort-key family, read many. The partition's owners
 * (shared/engine's sync state, shared/broadcasts) decide what to write; this only stores it.
 */
export class PartitionItems {
  /**
   * Issue 28: the items of a sort-key range read in one Query (`preload`), by sort key. A Query bills
   * the sum of its items' sizes in 4 KB units, a GetItem or Query per item at least one unit each: an
   * unchanged OParl run read its cursor, System, body, list marks, run reports and session days in 7
   * units one by one, ≈ 10 KB (3 units) together.
   */
  private snapshot: { from: string; to: string; items: Map<string, Record<string, unknown>> } | undefined;
  /** Sort keys written (or tried) since the snapshot: read from the table again, never from it. */
  private readonly written = new Set<string>();

  constructor(
    protected readonly ctx: TableContext,
    readonly pk: string,
  ) {}

  /**
   * Reads every item with a sort key in [`from`, `to`] in one strongly consistent Query (paged past
   * 1 MB) and serves later reads in that range from it — until this object writes an item, which is
   * then read from the table again. What others write meanwhile is seen as of this read (the sync's
   * lease keeps other writers of the run's items away, SCH-5; an operator's change of a body counts
   * from the next invocation) and never lost: no write into the range replaces what another writer
   * owns — a body's refresh and a session day name their own attributes, a body's creation and
   * SCH-9 advance and the cursor (`seq`) are conditional (test/store/partition-snapshot-writers).
   */
  async preload(from: string, to: string): Promise<void> {
    const items = new Map<string, Record<string, unknown>>();
    const range = queryItems(this.ctx.doc, {
      TableName: this.ctx.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': this.pk, ':from': from, ':to': to },
      ConsistentRead: true,
    });
    for await (const item of range) items.set(String(item.sk), item);
    this.snapshot = { from, to, items };
    this.written.clear();
  }

  /** Whether the snapshot answers for `sk` (in its range, not written since). */
  private fromSnapshot(sk: string): boolean {
    const s = this.snapshot;
    return s !== undefined && sk >= s.from && sk <= s.to && !this.written.has(sk);
  }

  /** Whether the snapshot answers for every sort key beginning with `prefix`. */
  private prefixFromSnapshot(prefix: string): boolean {
    const s = this.snapshot;
    if (s === undefined || prefix < s.from || `${prefix}\uffff` > s.to) return false;
    for (const sk of this.written) if (sk.startsWith(prefix)) return false;
    return true;
  }

  /** A snapshot item as a read hands it out: a copy (callers change what they read, the snapshot stays). */
  private snapshotItem<T>(sk: string): T | undefined {
    const item = this.snapshot?.items.get(sk);
    return item === undefined ? undefined : withoutKeys<T>(structuredClone(item));
  }

  /** A write of `sk` is about to go out: from now on it is read from the table. */
  protected writing(sk: string): void {
    if (this.snapshot !== undefined) this.written.add(sk);
  }

  /** The item without its keys; undefined when there is none. */
  async get<T>(sk: string): Promise<T | undefined> {
    if (this.fromSnapshot(sk)) return this.snapshotItem<T>(sk);
    const out = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.table, Key: { pk: this.pk, sk }, ConsistentRead: true }),
    );
    return withoutKeys<T>(out.Item);
  }

  /** Writes (replaces) the item. */
  async put(sk: string, item: object): Promise<void> {
    this.writing(sk);
    await this.ctx.doc.send(
      new PutCommand({ TableName: this.ctx.table, Item: { pk: this.pk, sk, ...item } }),
    );
  }

  /** Creates the item unless it exists; false when it does (nothing written then). */
  putNew(sk: string, item: object): Promise<boolean> {
    this.writing(sk);
    return unlessConditionFails(
      this.ctx.doc.send(
        new PutCommand({
          TableName: this.ctx.table,
          Item: { pk: this.pk, sk, ...item },
          ConditionExpression: 'attribute_not_exists(sk)',
        }),
      ),
    );
  }

  /**
   * Writes an item under an optimistic lock on `seq`: created when `previousSeq` is undefined, else
   * replaced only while its `seq` is still `previousSeq`. False when someone else wrote it first.
   */
  putLocked(sk: string, item: object & { seq: number }, previousSeq: number | undefined): Promise<boolean> {
    this.writing(sk);
    return unlessConditionFails(
      this.ctx.doc.send(
        new PutCommand({
          TableName: this.ctx.table,
          Item: { pk: this.pk, sk, ...item },
          ...(previousSeq === undefined
            ? { ConditionExpression: 'attribute_not_exists(sk)' }
            : { ConditionExpression: 'seq = :seq', ExpressionAttributeValues: { ':seq': previousSeq } }),
        }),
      ),
    );
  }

  /** An item written by `putLockedPacked`, in its own shape (one written plain is read as it is). */
  async getPacked<T>(sk: string): Promise<T | undefined> {
    return unpackItem<T>(await this.get<Record<string, unknown>>(sk));
  }

  /** The size `putLockedPacked(sk, item, …)` would store (an upper bound of DynamoDB's, keys included). */
  packedBytes(sk: string, item: object): number {
    return packedItemBytes({ pk: this.pk, sk, ...packItem(item as Record<string, unknown>) });
  }

  /**
   * `putLocked`, the item compressed into one attribute beside its plain `seq` (packed-item.ts): for
   * the scraper's run cursor, written after every page (issue 28).
   */
  putLockedPacked(
    sk: string,
    item: object & { seq: number },
    previousSeq: number | undefined,
  ): Promise<boolean> {
    return this.putLocked(sk, packItem(item as Record<string, unknown>) as { seq: number }, previousSeq);
  }

  /** Every item whose sort key begins with `prefix`, without keys, in sort-key order (strongly consistent). */
  async listPrefix<T>(prefix: string): Promise<T[]> {
    const items: T[] = [];
    if (this.prefixFromSnapshot(prefix)) {
      const sks = [...(this.snapshot?.items.keys() ?? [])].filter((sk) => sk.startsWith(prefix)).sort();
      return sks.map((sk) => this.snapshotItem<T>(sk) as T);
    }
    const found = queryItems(this.ctx.doc, {
      TableName: this.ctx.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': this.pk, ':prefix': prefix },
      ConsistentRead: true,
    });
    for await (const item of found) items.push(withoutKeys<T>(item) as T);
    return items;
  }

  /**
   * The items of several sort keys (absent ones left out, no order), 100 keys per round trip; keys
   * DynamoDB leaves unprocessed are asked again after a short backoff.
   */
  async getMany<T>(sks: readonly string[]): Promise<T[]> {
    const found: T[] = [];
    const unique: string[] = [];
    for (const sk of new Set(sks)) {
      if (!this.fromSnapshot(sk)) unique.push(sk);
      else if (this.snapshot?.items.has(sk)) found.push(this.snapshotItem<T>(sk) as T);
    }
    const { table } = this.ctx;
    for (let i = 0; i < unique.length; i += BATCH_GET_MAX) {
      let pending: Record<string, unknown>[] = unique
        .slice(i, i + BATCH_GET_MAX)
        .map((sk) => ({ pk: this.pk, sk }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
        const out = await this.ctx.doc.send(
          new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
        );
        for (const item of out.Responses?.[table] ?? []) found.push(withoutKeys<T>(item) as T);
        pending = (out.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[]) ?? [];
      }
    }
    return found;
  }

  /**
   * Sets and removes attributes of an existing item (never creates one) and answers the item as it
   * reads after the write, without keys; throws when the item does not exist.
   */
  async updateExisting<T>(
    sk: string,
    set: Record<string, unknown>,
    remove: readonly string[] = [],
  ): Promise<T> {
    const { expression, names, values } = setAndRemove(set, remove);
    this.writing(sk);
    const out = await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.table,
        Key: { pk: this.pk, sk },
        UpdateExpression: expression,
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        ConditionExpression: 'attribute_exists(sk)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys<T>(out.Attributes) as T;
  }
}

/**
 * A source's partition of the State table (`SOURCE#<sourceId>`, keys.ts `sourcePartition`) as the
 * sync keeps it: besides the plain item operations, the conditional writes of bodies, slugs and
 * session days (shared/engine/state.ts decides when to make them).
 */
export class SourceSyncItems extends PartitionItems {
  constructor(ctx: TableContext, sourceId: string) {
    super(ctx, sourcePartition(sourceId));
  }

  /**
   * Issue 28: the sync's own items (shared/engine/state.ts) in one Query at an invocation's start:
   * `BODY#` … `SESSION#` in sort-key order — bodies, cursors, `LASTRUN`, list marks, the System, run
   * reports, session days; not `SLUG#` (written, never read, by a run) nor `STATE` (the lease's item,
   * read by the sync function itself). A scraper source's `SCRAPE#` items sort in between: its engine
   * does not preload.
   */
  preloadSyncState(): Promise<void> {
    return this.preload(SYNC_STATE_FIRST_SK, SYNC_STATE_LAST_SK);
  }

  /** ONB-4: creates a body's `BODY#` record unless it exists; false when it does (nothing written). */
  createBody(bodyKey: string, record: object): Promise<boolean> {
    return this.putNew(bodySk(bodyKey), record);
  }

  /** Refreshes fields of an existing body's record; answers the record as stored after the write. */
  refreshBody<T>(bodyKey: string, set: Record<string, unknown>, remove: readonly string[]): Promise<T> {
    return this.updateExisting<T>(bodySk(bodyKey), set, remove);
  }

  /**
   * Reserves `slug` (its `SLUG#` item) for `bodyKey` — taken when free or already this body's. False
   * when another body holds it.
   */
  reserveSlug(slug: string, bodyKey: string): Promise<boolean> {
    this.writing(slugSk(slug));
    return unlessConditionFails(
      this.ctx.doc.send(
        new PutCommand({
          TableName: this.ctx.table,
          Item: { pk: this.pk, sk: slugSk(slug), bodyKey },
          ConditionExpression: 'attribute_not_exists(sk) OR bodyKey = :bodyKey',
          ExpressionAttributeValues: { ':bodyKey': bodyKey },
        }),
      ),
    );
  }

  /**
   * SCH-9: moves a body's `lastCompleteSyncStart` (and with `full` its `lastCompleteFullSyncStart`)
   * forward to `startedAt` — never back (a resumed older run must not roll the window back), and
   * never onto a body that does not exist. False when nothing moved.
   */
  advanceBodyComplete(bodyKey: string, startedAt: string, full: boolean): Promise<boolean> {
    this.writing(bodySk(bodyKey));
    return unlessConditionFails(
      this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: { pk: this.pk, sk: bodySk(bodyKey) },
          UpdateExpression: full ? 'SET #c = :s, #f = :s' : 'SET #c = :s',
          ConditionExpression: 'attribute_exists(sk) AND (attribute_not_exists(#c) OR #c < :s)',
          ExpressionAttributeNames: full
            ? { '#c': 'lastCompleteSyncStart', '#f': 'lastCompleteFullSyncStart' }
            : { '#c': 'lastCompleteSyncStart' },
          ExpressionAttributeValues: { ':s': startedAt },
        }),
      ),
    );
  }

  /**
   * SCH-2: one meeting's day (`m_<meetingKey>` = Berlin date) on a body's session item, set or (date
   * undefined) removed on its own — no read-modify-write of a shared map, so repeating is harmless.
   */
  async setMeetingDay(bodyKey: string, meetingKey: string, date: string | undefined): Promise<void> {
    this.writing(sessionSk(bodyKey));
    await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.table,
        Key: { pk: this.pk, sk: sessionSk(bodyKey) },
        UpdateExpression: date === undefined ? 'SET bodyKey = :b REMOVE #m' : 'SET bodyKey = :b, #m = :d',
        ExpressionAttributeNames: { '#m': `m_${meetingKey}` },
        ExpressionAttributeValues: date === undefined ? { ':b': bodyKey } : { ':b': bodyKey, ':d': date },
      }),
    );
  }

  /** SCH-2: removes meetings' days from a body's session item. */
  async removeMeetingDays(bodyKey: string, meetingKeys: readonly string[]): Promise<void> {
    this.writing(sessionSk(bodyKey));
    for (let i = 0; i < meetingKeys.length; i += MEETING_DAYS_PER_UPDATE) {
      const chunk = meetingKeys.slice(i, i + MEETING_DAYS_PER_UPDATE);
      await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: { pk: this.pk, sk: sessionSk(bodyKey) },
          UpdateExpression: `REMOVE ${chunk.map((_, j) => `#m${j}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(chunk.map((k, j) => [`#m${j}`, `m_${k}`])),
        }),
      );
    }
  }
}
