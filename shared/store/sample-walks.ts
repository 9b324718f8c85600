import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { type TableContext, unlessConditionFails } from './context';
import { batchGetItems } from './source-state';

/** Where a body's DEL-2 sample walk stands: the last position it passed, and when. */
export interface SampleWalkCursor {
  position: string;
  at: string;
}

/**
 * DEL-2: the cursors of the deletion check's sample walks, one small item per source and listed body
 * in the Documents table (key `docId` = the cursor's id, shared/documents keys.ts `walkCursorId`). It
 * carries neither `sourceId` nor `attemptShard`, so it is in no index: one write unit per advance.
 */
export class SampleWalks {
  constructor(private readonly ctx: TableContext) {}

  /**
   * Issue 28: the cursors of many walks (a deletion run's listed bodies), strongly consistent,
   * 100 a BatchGet instead of one GetItem each (a round trip costs the run ≈ 2 ms of SDK CPU).
   */
  async getMany(cursorIds: readonly string[]): Promise<Map<string, SampleWalkCursor>> {
    const items = await batchGetItems(
      this.ctx.doc,
      this.ctx.table,
      cursorIds.map((docId) => ({ docId })),
      true,
    );
    const out = new Map<string, SampleWalkCursor>();
    cursorIds.forEach((id, i) => {
      const cursor = cursorOf(items[i]);
      if (cursor !== undefined) out.set(id, cursor);
    });
    return out;
  }

  /**
   * Moves the cursor from `from` (undefined: none yet) to `to`. False when another run moved it first
   * (duplicate delivery): that run's walk goes on, this one's write is dropped.
   */
  advance(cursorId: string, from: string | undefined, to: SampleWalkCursor): Promise<boolean> {
    return unlessConditionFails(
      this.ctx.doc.send(
        new PutCommand({
          TableName: this.ctx.table,
          Item: { docId: cursorId, walkPosition: to.position, walkedAt: to.at },
          ...(from === undefined
            ? { ConditionExpression: 'attribute_not_exists(docId)' }
            : {
                ConditionExpression: 'walkPosition = :from',
                ExpressionAttributeValues: { ':from': from },
              }),
        }),
      ),
    );
  }
}

function cursorOf(item: Record<string, unknown> | undefined): SampleWalkCursor | undefined {
  const { walkPosition, walkedAt } = (item ?? {}) as { walkPosition?: unknown; walkedAt?: unknown };
  if (typeof walkPosition !== 'string') return undefined;
  return { position: walkPosition, at: String(walkedAt ?? '') };
}
