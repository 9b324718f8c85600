import { DeleteCommand, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, type TableContext, unlessConditionFails } from './context';
import { getJobCheckpoint, putJobCheckpoint } from './job-checkpoints';
import type { IndexItem } from './mirror-index';

/** What every mirror object item's partition key begins with (keys.ts `indexPartition`). */
const MIRROR_PARTITION_PREFIX = 'MIRROR#';
/** The move's checkpoints: one State item per step, outside every `MIRROR#` partition. */
const CHECKPOINT_PK = 'MIGRATION#mirror-table';

export type MirrorMoveStep = 'copy' | 'delete-old';

/** Where a step stopped (`next`: the Scan's start key; absent with `done`), and its counts so far. */
export interface MirrorMoveCheckpoint {
  next?: Record<string, unknown>;
  done: boolean;
  counts: Record<string, number>;
}

/** An item's table key (both tables key the mirror's items alike). */
function keyOf(item: IndexItem): { pk: unknown; sk: unknown } {
  return { pk: item.pk, sk: item.sk };
}

/**
 * Issue 28, the move of the mirror's object items from State (`from`) to the Mirror table (`to`):
 * the storage steps of `ingestor migrate mirror-table` (shared/mirror move.ts decides). Every write is
 * conditional on what was read, so a sync's commit or a takedown's mark in between wins.
 */
export class MirrorTableMove {
  constructor(
    private readonly from: TableContext,
    private readonly to: TableContext,
  ) {}

  /**
   * One page of State's mirror items: a Scan (State has no index over its `MIRROR#` partitions) with a
   * filter on the key, `limit` items evaluated; `next` absent at the end of the table.
   */
  async scanPage(
    start: Record<string, unknown> | undefined,
    limit: number,
  ): Promise<{ items: IndexItem[]; next: Record<string, unknown> | undefined }> {
    const out = await this.from.doc.send(
      new ScanCommand({
        TableName: this.from.table,
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': MIRROR_PARTITION_PREFIX },
        Limit: limit,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    return { items: out.Items ?? [], next: out.LastEvaluatedKey };
  }

  /** The item under `item`'s key in State now (strongly consistent), or undefined. */
  async readOld(item: IndexItem): Promise<IndexItem | undefined> {
    return this.read(this.from, item);
  }

  /** The item under `item`'s key in the Mirror table now (strongly consistent), or undefined. */
  async readNew(item: IndexItem): Promise<IndexItem | undefined> {
    return this.read(this.to, item);
  }

  private async read(ctx: TableContext, item: IndexItem): Promise<IndexItem | undefined> {
    const out = await ctx.doc.send(
      new GetCommand({ TableName: ctx.table, Key: keyOf(item), ConsistentRead: true }),
    );
    return out.Item;
  }

  /**
   * Writes `item` into the Mirror table only over what was read there (`held`): nothing, or that
   * commit (`fetchedAt`) with that mark or none — never over a mark written since (OPT-5), never over
   * a newer commit. The caller decides whether a mark held may go (shared/mirror `copyWanted`: only one
   * State no longer has). False when the Mirror item changed since.
   */
  copy(item: IndexItem, held: IndexItem | undefined): Promise<boolean> {
    const heldMark = (held?.takedown as { at?: unknown } | undefined)?.at;
    return unlessConditionFails(
      this.to.doc.send(
        new PutCommand({
          TableName: this.to.table,
          Item: item,
          ...(held === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : held.takedown === undefined
              ? {
                  ConditionExpression: 'fetchedAt = :f AND attribute_not_exists(takedown)',
                  ExpressionAttributeValues: { ':f': held.fetchedAt },
                }
              : {
                  ConditionExpression: 'fetchedAt = :f AND takedown.#at = :at',
                  ExpressionAttributeNames: { '#at': 'at' },
                  ExpressionAttributeValues: { ':f': held.fetchedAt, ':at': heldMark },
                }),
        }),
      ),
    );
  }

  /** Deletes our copy of an item purged meanwhile (OPT-3), only as we wrote it. */
  async deleteCopy(item: IndexItem): Promise<void> {
    await this.deleteAsWritten(this.to, item);
  }

  /** Deletes the State item as read (`delete-old`, after the move). */
  async deleteOld(item: IndexItem): Promise<void> {
    await this.deleteAsWritten(this.from, item);
  }

  private async deleteAsWritten(ctx: TableContext, item: IndexItem): Promise<void> {
    try {
      await ctx.doc.send(
        new DeleteCommand({
          TableName: ctx.table,
          Key: keyOf(item),
          ConditionExpression: `fetchedAt = :f AND ${item.takedown === undefined ? 'attribute_not_exists(takedown)' : 'attribute_exists(takedown)'}`,
          ExpressionAttributeValues: { ':f': item.fetchedAt },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** The step's checkpoint, or undefined before its first page. */
  async checkpoint(step: MirrorMoveStep): Promise<MirrorMoveCheckpoint | undefined> {
    const saved = await getJobCheckpoint(this.from, { pk: CHECKPOINT_PK, sk: step });
    if (saved === undefined) return undefined;
    return { next: saved.item.next as MirrorMoveCheckpoint['next'], done: saved.done, counts: saved.counts };
  }

  async saveCheckpoint(step: MirrorMoveStep, checkpoint: MirrorMoveCheckpoint): Promise<void> {
    const position = checkpoint.next !== undefined ? { next: checkpoint.next } : {};
    await putJobCheckpoint(this.from, { pk: CHECKPOINT_PK, sk: step }, checkpoint, position);
  }
}
