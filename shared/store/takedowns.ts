import { randomUUID } from 'node:crypto';
import { BatchGetCommand, DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, type TableContext } from './context';
import { takedownPartition, takedownSortKey } from './keys';
import { StoreUnavailableError, storeOutageOf } from './outage';
import { queryAll } from './query-pages';

/**
 * OPT-5: the takedown registry's items (State table), the memory of a takedown that no purge touches
 * (shared/takedown registry.ts says why). Keys `TAKEDOWN#<sourceId>` / `OBJECT#…` or `BODY#…` (keys.ts);
 * attributes `sourceId`, `scope`, `id`, `type?`, the mark `at`, `by`, `note?`, and `rev`.
 */
export type TakedownScope = 'object' | 'body';

/** Who took something down, when and why (OPT-2). */
export interface TakedownItemMark {
  at: string;
  by: string;
  note?: string;
}

export interface TakedownItem {
  sourceId: string;
  scope: TakedownScope;
  /** OParl id of the object, or of the body. */
  id: string;
  /** Lower-case OParl type when known (objects found in the mirror). */
  type?: string;
  mark: TakedownItemMark;
  /**
   * The item's revision, new at every `record` — also of a takedown recorded already — so that a lift
   * that read an older one is refused (`remove`): a new takedown wins over an older lift (OPT-5).
   * Absent on items recorded before revisions existed.
   */
  rev?: string;
}

/** What `remove` did: the item lifted, found renewed since it was read (kept), or gone already. */
export type TakedownRemoval = 'lifted' | 'renewed' | 'absent';

function itemOf(raw: Record<string, unknown>): TakedownItem {
  const mark: TakedownItemMark = { at: String(raw.at), by: String(raw.by) };
  if (typeof raw.note === 'string') mark.note = raw.note;
  return {
    sourceId: String(raw.sourceId),
    scope: raw.scope === 'body' ? 'body' : 'object',
    id: String(raw.id),
    ...(typeof raw.type === 'string' ? { type: raw.type } : {}),
    mark,
    ...(typeof raw.rev === 'string' ? { rev: raw.rev } : {}),
  };
}

/** Issue 28: throttled or unavailable past the SDK's retries — ours, typed, so on-call sees STORE_UNAVAILABLE. */
function typedOutage(error: unknown): unknown {
  const outage = storeOutageOf(error);
  return outage !== undefined ? new StoreUnavailableError(outage, error) : error;
}

const BATCH_GET_MAX = 100;

/** The registry's items. Reads are strongly consistent: they decide a race (OPT-5). */
export class TakedownItems {
  constructor(private readonly ctx: TableContext) {}

  /** Every takedown of a source: one Query (more only past 1 MB, i.e. thousands of takedowns). */
  async items(sourceId: string): Promise<TakedownItem[]> {
    const items = await queryAll(this.ctx.doc, {
      TableName: this.ctx.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': takedownPartition(sourceId) },
      ConsistentRead: true,
    });
    return items.map(itemOf);
  }

  /** The takedowns among a few subjects of one source (one BatchGet): the preview's per-opening check. */
  async find(sourceId: string, refs: { scope: TakedownScope; id: string }[]): Promise<TakedownItem[]> {
    const keys = [
      ...new Map(
        refs.map((r) => {
          const key = { pk: takedownPartition(sourceId), sk: takedownSortKey(r.scope, r.id) };
          return [key.sk, key] as const;
        }),
      ).values(),
    ];
    const found: TakedownItem[] = [];
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
      let pending: Record<string, unknown>[] = keys.slice(i, i + BATCH_GET_MAX);
      while (pending.length > 0) {
        const out = await this.ctx.doc.send(
          new BatchGetCommand({
            RequestItems: { [this.ctx.table]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        for (const raw of out.Responses?.[this.ctx.table] ?? []) found.push(itemOf(raw));
        pending = (out.UnprocessedKeys?.[this.ctx.table]?.Keys as Record<string, unknown>[]) ?? [];
      }
    }
    return found;
  }

  /**
   * Records a takedown. The first mark stays (who and when first decided it); repeating is harmless but
   * renews the item's `rev`, so that a lift which read the item before is refused (OPT-5: the newer
   * takedown wins). Returns false when it was recorded already.
   */
  async record(item: TakedownItem): Promise<boolean> {
    const rev = randomUUID();
    // Twice at most: an item lifted between the Put's refusal and the renewal is recorded anew.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.ctx.doc.send(
          new PutCommand({
            TableName: this.ctx.table,
            Item: {
              pk: takedownPartition(item.sourceId),
              sk: takedownSortKey(item.scope, item.id),
              sourceId: item.sourceId,
              scope: item.scope,
              id: item.id,
              ...(item.type !== undefined ? { type: item.type } : {}),
              ...item.mark,
              rev,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return true;
      } catch (error) {
        // Throttled or unavailable: nothing was written, on-call records again.
        if (!isConditionFailure(error)) throw typedOutage(error);
      }
      if (await this.renew(item, rev)) return false;
      if (attempt > 0) throw new Error(`takedown ${item.id} lifted twice while being recorded`);
    }
  }

  /** The recorded item's new revision; false when it is gone (lifted meanwhile). */
  private async renew(item: Pick<TakedownItem, 'sourceId' | 'scope' | 'id'>, rev: string): Promise<boolean> {
    try {
      await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: { pk: takedownPartition(item.sourceId), sk: takedownSortKey(item.scope, item.id) },
          UpdateExpression: 'SET rev = :rev',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':rev': rev },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw typedOutage(error);
    }
  }

  /**
   * Only `takedown lift` calls this: an operator's explicit decision (OPT-5) about the item as it read it
   * — refused ('renewed') when a takedown recorded it again since (its `rev` changed), so a new takedown
   * always wins over an older lift; 'absent' when it is gone (lifted already).
   */
  async remove(item: Pick<TakedownItem, 'sourceId' | 'scope' | 'id' | 'rev'>): Promise<TakedownRemoval> {
    try {
      const out = await this.ctx.doc.send(
        new DeleteCommand({
          TableName: this.ctx.table,
          Key: { pk: takedownPartition(item.sourceId), sk: takedownSortKey(item.scope, item.id) },
          // An item recorded before revisions existed has none; a renewal gives it one.
          ConditionExpression:
            item.rev === undefined ? 'attribute_not_exists(rev)' : 'attribute_not_exists(pk) OR rev = :rev',
          ...(item.rev === undefined ? {} : { ExpressionAttributeValues: { ':rev': item.rev } }),
          ReturnValues: 'ALL_OLD',
        }),
      );
      return out.Attributes !== undefined ? 'lifted' : 'absent';
    } catch (error) {
      if (isConditionFailure(error)) return 'renewed';
      throw error;
    }
  }
}
