import { BatchGetCommand, DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, type TableContext } from './context';
import { takedownPartition, takedownSortKey } from './keys';
import { StoreUnavailableError, storeOutageOf } from './outage';

/**
 * OPT-5: the takedown registry's items (State table), the memory of a takedown that no purge touches
 * (shared/takedown registry.ts says why). Keys `TAKEDOWN#<sourceId>` / `OBJECT#…` or `BODY#…` (keys.ts);
 * attributes `sourceId`, `scope`, `id`, `type?`, and the mark `at`, `by`, `note?`.
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
}

function itemOf(raw: Record<string, unknown>): TakedownItem {
  const mark: TakedownItemMark = { at: String(raw.at), by: String(raw.by) };
  if (typeof raw.note === 'string') mark.note = raw.note;
  return {
    sourceId: String(raw.sourceId),
    scope: raw.scope === 'body' ? 'body' : 'object',
    id: String(raw.id),
    ...(typeof raw.type === 'string' ? { type: raw.type } : {}),
    mark,
  };
}

const BATCH_GET_MAX = 100;

/** The registry's items. Reads are strongly consistent: they decide a race (OPT-5). */
export class TakedownItems {
  constructor(private readonly ctx: TableContext) {}

  /** Every takedown of a source: one Query (more only past 1 MB, i.e. thousands of takedowns). */
  async items(sourceId: string): Promise<TakedownItem[]> {
    const items: TakedownItem[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.ctx.doc.send(
        new QueryCommand({
          TableName: this.ctx.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': takedownPartition(sourceId) },
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const raw of out.Items ?? []) items.push(itemOf(raw));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items;
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
   * Records a takedown. The first mark stays (who and when first decided it); repeating is harmless.
   * Returns false when it was recorded already.
   */
  async record(item: TakedownItem): Promise<boolean> {
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
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      // Issue 28: throttled (provisioned capacity) or unavailable past the SDK's retries — ours, typed, so
      // on-call sees STORE_UNAVAILABLE and records again; nothing was written.
      const outage = storeOutageOf(error);
      if (outage !== undefined) throw new StoreUnavailableError(outage, error);
      throw error;
    }
  }

  /** Only `takedown lift` calls this: an operator's explicit decision (OPT-5). */
  async remove(sourceId: string, scope: TakedownScope, id: string): Promise<boolean> {
    const out = await this.ctx.doc.send(
      new DeleteCommand({
        TableName: this.ctx.table,
        Key: { pk: takedownPartition(sourceId), sk: takedownSortKey(scope, id) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return out.Attributes !== undefined;
  }
}
