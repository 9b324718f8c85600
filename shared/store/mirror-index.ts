import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, type TableContext } from './context';
import {
  apiIdHash,
  indexPartition,
  LIST_COUNT_PREFIX,
  LIST_PARTITION_ATTRIBUTE,
  LIST_SORT_ATTRIBUTE,
  listCountKey,
  lookupKey,
} from './keys';
import { queryAll, queryItems, queryOutputs } from './query-pages';
import { LIST_INDEX, type MirrorTablePhase } from './tables';

/**
 * The mirror's index: one small item per mirrored object, pk `MIRROR#<sourceId>#<type>`, sk = its api
 * id hash (shared/mirror store.ts says why an index and the order of writes) — in the Mirror table, or
 * in State before the move (`MirrorTablePlacement`) — and the API list counters (`APILISTCOUNT#…`,
 * always in State). Items come back as stored; shared/mirror gives them their type.
 */
export type IndexItem = Record<string, unknown>;

const BATCH_GET_MAX = 100;

/** The table key of one object's index item. */
export function indexKey(sourceId: string, type: string, id: string): { pk: string; sk: string } {
  return { pk: indexPartition(sourceId, type), sk: apiIdHash(id) };
}

/** An index write refused because the item carries an operator's takedown mark (OPT-5). */
export const TAKEN_DOWN = Symbol('taken down');

/** One object of the mirror: its source, OParl type (lower-case) and origin id. */
export interface MirrorObjectRef {
  sourceId: string;
  type: string;
  id: string;
}

/** Where the object items are (issue 28, tables.ts `MirrorTablePhase`): the Mirror table's name, the phase. */
export interface MirrorTablePlacement {
  table: string;
  phase: MirrorTablePhase;
}

/** Pure: the placement the environment names (MIRROR_TABLE, MIRROR_TABLE_PHASE). */
export function mirrorTablePlacement(env: {
  MIRROR_TABLE: string;
  MIRROR_TABLE_PHASE: MirrorTablePhase;
}): MirrorTablePlacement {
  return { table: env.MIRROR_TABLE, phase: env.MIRROR_TABLE_PHASE };
}

/**
 * Pure: the table object items are read from, and the tables each write goes to — the first one
 * decides (its answer is the write's: the item replaced, a takedown refusal); `dual` writes State
 * first, so the Mirror table is never ahead of what the reads (State) see but by a write in flight,
 * and a write that died between the two is what `ingestor migrate mirror-table` copies.
 */
export function mirrorItemTables(
  state: string,
  placement: MirrorTablePlacement | undefined,
): { read: string; write: [string, ...string[]] } {
  switch (placement?.phase ?? 'state') {
    case 'state':
      return { read: state, write: [state] };
    case 'dual':
      return { read: state, write: [state, (placement as MirrorTablePlacement).table] };
    case 'own':
      return {
        read: (placement as MirrorTablePlacement).table,
        write: [(placement as MirrorTablePlacement).table],
      };
  }
}

/**
 * Pure: the item a takedown mark leaves (`markTakenDown`'s update), for a table that may not hold it yet
 * (the move's follower, `ingestor mirror rebuild`).
 */
export function markedItem(
  old: IndexItem,
  mark: Record<string, unknown>,
  listSort: string | undefined,
): IndexItem {
  const { o: _inline, ...rest } = old;
  return {
    ...rest,
    deleted: true,
    takedown: mark,
    ...(listSort !== undefined ? { [LIST_SORT_ATTRIBUTE]: listSort } : {}),
  };
}

export class MirrorIndex {
  /** The object items' table for reads; the tables a write goes to, the deciding one first. */
  private readonly items: { read: string; write: [string, ...string[]] };

  /**
   * `ctx.table` is State (the list counters, and the object items before the move); `placement` says
   * where the object items are (absent: State).
   */
  constructor(
    private readonly ctx: TableContext,
    placement?: MirrorTablePlacement,
  ) {
    this.items = mirrorItemTables(ctx.table, placement);
  }

  /** The tables after the deciding one (`dual`: Mirror), which follow its write. */
  private get followers(): string[] {
    return this.items.write.slice(1);
  }

  /** A follower's write: its condition failing (a takedown there already) is no error. */
  private async follow(write: (table: string) => Promise<unknown>): Promise<void> {
    for (const table of this.followers) {
      try {
        await write(table);
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
  }

  /** Index items of the given objects, keyed by `lookupKey(type, id)`; absent = never mirrored. */
  async lookup(
    sourceId: string,
    refs: { type: string; id: string }[],
    options: { consistent?: boolean } = {},
  ): Promise<Map<string, IndexItem>> {
    const found = new Map<string, IndexItem>();
    const unique = new Map<string, { pk: string; sk: string }>();
    for (const ref of refs) {
      const key = indexKey(sourceId, ref.type, ref.id);
      unique.set(`${key.pk}|${key.sk}`, key);
    }
    const keys = [...unique.values()];
    const table = this.items.read;
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
      let pending: Record<string, unknown>[] = keys.slice(i, i + BATCH_GET_MAX);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
        const out = await this.ctx.doc.send(
          new BatchGetCommand({
            RequestItems: {
              [table]: { Keys: pending, ...(options.consistent ? { ConsistentRead: true } : {}) },
            },
          }),
        );
        for (const item of out.Responses?.[table] ?? []) {
          found.set(lookupKey(String(item.type), String(item.id)), item);
        }
        pending = (out.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[]) ?? [];
      }
    }
    return found;
  }

  /** One object's item, or undefined (strongly consistent unless asked otherwise). */
  async get(
    sourceId: string,
    type: string,
    id: string,
    options: { consistent?: boolean } = { consistent: true },
  ): Promise<IndexItem | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.items.read,
        Key: indexKey(sourceId, type, id),
        ...(options.consistent ? { ConsistentRead: true } : {}),
      }),
    );
    return out.Item;
  }

  /** The items of one source and type whose id hash begins with `prefix` (one Query page). */
  async withHashPrefix(sourceId: string, type: string, prefix: string): Promise<IndexItem[]> {
    const out = await this.ctx.doc.send(
      new QueryCommand({
        TableName: this.items.read,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :key)',
        ExpressionAttributeValues: { ':pk': indexPartition(sourceId, type), ':key': prefix },
      }),
    );
    return out.Items ?? [];
  }

  /** Every item of one source and type, optionally only a body's (filtered in DynamoDB). */
  async *query(
    sourceId: string,
    type: string,
    options: { bodyId?: string; consistent?: boolean; projection?: string } = {},
  ): AsyncGenerator<IndexItem> {
    yield* queryItems(this.ctx.doc, {
      TableName: this.items.read,
      KeyConditionExpression: 'pk = :pk',
      ...(options.consistent ? { ConsistentRead: true } : {}),
      ...(options.bodyId === undefined
        ? { ExpressionAttributeValues: { ':pk': indexPartition(sourceId, type) } }
        : {
            FilterExpression: 'bodyId = :body',
            ExpressionAttributeValues: { ':pk': indexPartition(sourceId, type), ':body': options.bodyId },
          }),
      ...(options.projection !== undefined ? { ProjectionExpression: options.projection } : {}),
    });
  }

  /**
   * The commit point of a sync's write: the whole item (`attributes` beside its keys), never over an
   * operator's mark. Returns the item it replaced (undefined: new), or TAKEN_DOWN.
   */
  async commit(
    sourceId: string,
    type: string,
    id: string,
    attributes: IndexItem,
  ): Promise<{ old: IndexItem | undefined } | typeof TAKEN_DOWN> {
    const item = { ...indexKey(sourceId, type, id), ...attributes };
    let old: IndexItem | undefined;
    try {
      const out = await this.ctx.doc.send(
        new PutCommand({
          TableName: this.items.write[0],
          Item: item,
          ConditionExpression: 'attribute_not_exists(takedown)',
          // The replaced item tells new from modified, and what the list counts lose, at the commit
          // itself: ReturnValues costs no read unit (DynamoDB charges a Put by the larger item anyway).
          ReturnValues: 'ALL_OLD',
        }),
      );
      old = out.Attributes;
    } catch (error) {
      if (isConditionFailure(error)) return TAKEN_DOWN;
      throw error;
    }
    // OPT-5 holds in the follower too: a mark there (copied, or written by a takedown) is not overwritten.
    await this.follow((table) =>
      this.ctx.doc.send(
        new PutCommand({
          TableName: table,
          Item: item,
          ConditionExpression: 'attribute_not_exists(takedown)',
        }),
      ),
    );
    return { old };
  }

  /**
   * OPT-2 / OPT-5: an operator's mark — deleted, `takedown`, the inline copy removed, and (for an item
   * in a list) the list sort key moved to `listSort`. Only the first mark counts. Returns the item as it
   * was (`old`), or undefined when there was none or it carried a mark already.
   */
  async markTakenDown(
    { sourceId, type, id }: MirrorObjectRef,
    mark: Record<string, unknown>,
    listSort?: string,
  ): Promise<{ old: IndexItem | undefined } | undefined> {
    const listed = listSort !== undefined;
    let old: IndexItem | undefined;
    try {
      const out = await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.items.write[0],
          Key: indexKey(sourceId, type, id),
          // The inline copy goes with the content: a taken-down object's text stays only in S3 (audit).
          UpdateExpression: `SET deleted = :d, takedown = :t${listed ? `, ${LIST_SORT_ATTRIBUTE} = :s` : ''} REMOVE o`,
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(takedown)',
          ExpressionAttributeValues: { ':d': true, ':t': mark, ...(listed ? { ':s': listSort } : {}) },
          // The item as it was at the mark (the caller's copy may be stale): live or not for the counts.
          ReturnValues: 'ALL_OLD',
        }),
      );
      old = out.Attributes;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
    // The follower may not hold the item yet (not copied): the whole marked item, so that the copy
    // (which never overwrites a mark) finds it there and a later sync's commit is refused (OPT-5).
    // Unconditional: State took this mark only as its first, so a mark the follower holds is one State
    // no longer has — a lift that died before its follower write, or one in flight. Replacing it makes
    // the follower's mark State's, and the move's copy, which clears such a stale mark only as it read
    // it (`takedown.at`), is refused instead of clearing this one (a crash before its re-read of State
    // would leave the takedown unmarked there: test/mirror/move.test.ts).
    const marked = markedItem(old as IndexItem, mark, listSort);
    await this.follow((table) => this.ctx.doc.send(new PutCommand({ TableName: table, Item: marked })));
    return { old };
  }

  /** OPT-5: `takedown lift` removes the mark of an entry; an entry gone meanwhile is nothing to lift. */
  async removeTakedownMark(sourceId: string, type: string, id: string): Promise<void> {
    for (const table of this.items.write) {
      try {
        await this.ctx.doc.send(
          new UpdateCommand({
            TableName: table,
            Key: indexKey(sourceId, type, id),
            UpdateExpression: 'REMOVE takedown',
            ConditionExpression: 'attribute_exists(pk)',
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
  }

  /** OPT-3: removes the item for good; returns what it was (undefined: gone already). */
  async remove(sourceId: string, type: string, id: string): Promise<IndexItem | undefined> {
    const out = await this.ctx.doc.send(
      new DeleteCommand({
        TableName: this.items.write[0],
        Key: indexKey(sourceId, type, id),
        ReturnValues: 'ALL_OLD',
      }),
    );
    await this.follow((table) =>
      this.ctx.doc.send(new DeleteCommand({ TableName: table, Key: indexKey(sourceId, type, id) })),
    );
    return out.Attributes;
  }

  /** One `ADD` to an API list's counters (docs/mirror-api.md, Lists). */
  async addToListCount(
    sourceId: string,
    list: string,
    change: { entries: number; live: number },
  ): Promise<void> {
    await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.table,
        Key: listCountKey(sourceId, list),
        UpdateExpression: 'ADD entries :e, live :l',
        ExpressionAttributeValues: { ':e': change.entries, ':l': change.live },
      }),
    );
  }

  // --- The OParl API's reads (shared/mirror-api reader.ts): with the read units they consumed ---

  /** One item by its id hash (the API's id), eventually consistent. */
  async getByHash(
    sourceId: string,
    type: string,
    hash: string,
  ): Promise<{ item: IndexItem | undefined; units: number | undefined }> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.items.read,
        Key: { pk: indexPartition(sourceId, type), sk: hash },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    return { item: out.Item, units: out.ConsumedCapacity?.CapacityUnits };
  }

  /**
   * One page of an API list (`byList`): partition `list`, list sort keys within `lo`/`hi` (either may
   * be open), at most `limit` rows, after the row `after` names (its list sort key and its id hash).
   */
  async listPage(
    sourceId: string,
    type: string,
    page: { list: string; lo?: string; hi?: string; limit: number; after?: { sort: string; key: string } },
  ): Promise<{ items: IndexItem[]; units: number | undefined }> {
    const { lo, hi, after } = page;
    const values: Record<string, unknown> = { ':p': page.list };
    let condition = '#lp = :p';
    if (lo !== undefined && hi !== undefined) {
      condition += ' AND #ls BETWEEN :lo AND :hi';
      values[':lo'] = lo;
      values[':hi'] = hi;
    } else if (lo !== undefined) {
      condition += ' AND #ls >= :lo';
      values[':lo'] = lo;
    } else if (hi !== undefined) {
      condition += ' AND #ls <= :hi';
      values[':hi'] = hi;
    }
    const out = await this.ctx.doc.send(
      new QueryCommand({
        TableName: this.items.read,
        IndexName: LIST_INDEX,
        KeyConditionExpression: condition,
        ExpressionAttributeNames: {
          '#lp': LIST_PARTITION_ATTRIBUTE,
          ...(lo === undefined && hi === undefined ? {} : { '#ls': LIST_SORT_ATTRIBUTE }),
        },
        ExpressionAttributeValues: values,
        Limit: page.limit,
        ReturnConsumedCapacity: 'TOTAL',
        ...(after === undefined
          ? {}
          : {
              // An index's start key is its own keys and the table's: the cursor carries both sort keys.
              ExclusiveStartKey: {
                [LIST_PARTITION_ATTRIBUTE]: page.list,
                [LIST_SORT_ATTRIBUTE]: after.sort,
                pk: indexPartition(sourceId, type),
                sk: after.key,
              },
            }),
      }),
    );
    return { items: out.Items ?? [], units: out.ConsumedCapacity?.CapacityUnits };
  }

  // --- Maintenance (`ingestor backfill-index`, shared/mirror backfill.ts) ---

  /**
   * Sets and removes attributes of one item, only over the version read (`fetchedAt`, `deleted`, the
   * presence of a takedown mark): a sync's newer write, or a takedown's mark, wins. False when it did.
   */
  async updateAsRead(
    { sourceId, type, id }: MirrorObjectRef,
    change: { set: Record<string, unknown>; remove: readonly string[] },
    asRead: { fetchedAt: unknown; deleted: unknown; takenDown: boolean },
  ): Promise<boolean> {
    const names = Object.keys(change.set);
    const clauses = [
      ...(names.length > 0 ? [`SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`] : []),
      ...(change.remove.length > 0 ? [`REMOVE ${change.remove.map((n) => `#${n}`).join(', ')}`] : []),
    ];
    const update = (table: string) =>
      this.ctx.doc.send(
        new UpdateCommand({
          TableName: table,
          Key: indexKey(sourceId, type, id),
          UpdateExpression: clauses.join(' '),
          ConditionExpression: `fetchedAt = :fetchedAt AND deleted = :deleted AND ${
            asRead.takenDown ? 'attribute_exists(takedown)' : 'attribute_not_exists(takedown)'
          }`,
          ExpressionAttributeNames: Object.fromEntries([...names, ...change.remove].map((n) => [`#${n}`, n])),
          ExpressionAttributeValues: {
            ...Object.fromEntries(names.map((n) => [`:${n}`, change.set[n]])),
            ':fetchedAt': asRead.fetchedAt,
            ':deleted': asRead.deleted,
          },
        }),
      );
    try {
      await update(this.items.write[0]);
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await this.follow(update);
    return true;
  }

  // --- `ingestor mirror rebuild` (shared/mirror rebuild.ts) ---

  /**
   * Writes an item rebuilt from its S3 record unless the table holds the same or a newer commit
   * (`fetchedAt`) or any operator's mark (OPT-5): absent, or older and unmarked. Returns true when
   * written, else the item held (undefined: it changed again and is gone — decide again).
   */
  async putRebuilt(
    { sourceId, type, id }: MirrorObjectRef,
    attributes: IndexItem,
  ): Promise<true | { held: IndexItem | undefined }> {
    const put = (table: string) =>
      this.ctx.doc.send(
        new PutCommand({
          TableName: table,
          Item: { ...indexKey(sourceId, type, id), ...attributes },
          ConditionExpression:
            'attribute_not_exists(pk) OR (fetchedAt < :f AND attribute_not_exists(takedown))',
          ExpressionAttributeValues: { ':f': attributes.fetchedAt },
        }),
      );
    try {
      await put(this.items.write[0]);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return { held: await this.get(sourceId, type, id) };
    }
    await this.follow(put);
    return true;
  }

  /** Whether an item is stored under this sort key in the item's partition (`item.pk`). */
  async holds(item: IndexItem, sk: string): Promise<boolean> {
    const out = await this.ctx.doc.send(
      new GetCommand({ TableName: this.items.read, Key: { pk: item.pk, sk }, ConsistentRead: true }),
    );
    return out.Item !== undefined;
  }

  /** Writes a moved item (its own keys) unless one is there already; false when one was. */
  async putMoved(item: IndexItem): Promise<boolean> {
    const put = (table: string) =>
      this.ctx.doc.send(
        new PutCommand({ TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    try {
      await put(this.items.write[0]);
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await this.follow(put);
    return true;
  }

  /** Deletes an item as read (its keys, same `fetchedAt`); anything that changed it meanwhile stays. */
  async deleteAsRead(item: IndexItem): Promise<void> {
    for (const table of this.items.write) {
      try {
        await this.ctx.doc.send(
          new DeleteCommand({
            TableName: table,
            Key: { pk: item.pk, sk: item.sk },
            ConditionExpression: 'fetchedAt = :fetchedAt',
            ExpressionAttributeValues: { ':fetchedAt': item.fetchedAt },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
  }

  /** The lists of a source that have a counter (one Query of its counter partition). */
  async counterLists(sourceId: string): Promise<string[]> {
    const { pk } = listCountKey(sourceId, '');
    const items = await queryAll(this.ctx.doc, {
      TableName: this.ctx.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ProjectionExpression: 'sk',
    });
    return items.map((item) => String(item.sk).slice(LIST_COUNT_PREFIX.length + 1));
  }

  /** One list's counter item as stored, or undefined (strongly consistent unless asked otherwise). */
  async listCount(
    sourceId: string,
    list: string,
    options: { consistent?: boolean } = { consistent: true },
  ): Promise<IndexItem | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.table,
        Key: listCountKey(sourceId, list),
        ...(options.consistent ? { ConsistentRead: true } : {}),
      }),
    );
    return out.Item;
  }

  async deleteListCount(sourceId: string, list: string): Promise<void> {
    await this.ctx.doc.send(
      new DeleteCommand({ TableName: this.ctx.table, Key: listCountKey(sourceId, list) }),
    );
  }

  /**
   * What one list's `byList` partition holds: entries = every item (the Query's ScannedCount), live =
   * those neither deleted nor taken down (its Count after the filter). `beforePage` paces the reads.
   */
  async countList(list: string, beforePage: () => Promise<void>): Promise<{ entries: number; live: number }> {
    let entries = 0;
    let live = 0;
    const pages = queryOutputs(
      this.ctx.doc,
      {
        TableName: this.items.read,
        IndexName: LIST_INDEX,
        KeyConditionExpression: '#lp = :p',
        FilterExpression: 'deleted <> :t AND attribute_not_exists(takedown)',
        ExpressionAttributeNames: { '#lp': LIST_PARTITION_ATTRIBUTE },
        ExpressionAttributeValues: { ':p': list, ':t': true },
        Select: 'COUNT',
      },
      { beforePage },
    );
    for await (const page of pages) {
      entries += page.ScannedCount ?? 0;
      live += page.Count ?? 0;
    }
    return { entries, live };
  }

  /**
   * Sets a list's counter, only over the counter read (`held`): an ADD of a sync meanwhile means
   * counting again. False when it did.
   */
  async putListCount(
    sourceId: string,
    list: string,
    counts: { entries: number; live: number },
    held: IndexItem | undefined,
  ): Promise<boolean> {
    try {
      await this.ctx.doc.send(
        new PutCommand({
          TableName: this.ctx.table,
          Item: { ...listCountKey(sourceId, list), ...counts },
          ...heldCondition(held),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/**
 * Pure: the condition that the counter is still the one read — absent, or each number as it was, a
 * missing number (an item an operator edited by hand) as missing.
 */
export function heldCondition(held: Record<string, unknown> | undefined): {
  ConditionExpression: string;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  if (held === undefined) return { ConditionExpression: 'attribute_not_exists(pk)' };
  const clauses: string[] = [];
  const values: Record<string, unknown> = {};
  for (const name of ['entries', 'live'] as const) {
    if (held[name] === undefined) clauses.push(`attribute_not_exists(${name})`);
    else {
      clauses.push(`${name} = :${name}`);
      values[`:${name}`] = held[name];
    }
  }
  return {
    ConditionExpression: clauses.join(' AND '),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}
