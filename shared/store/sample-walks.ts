import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type TableContext, unlessConditionFails } from './context';

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

  async get(cursorId: string): Promise<SampleWalkCursor | undefined> {
    const res = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.table, Key: { docId: cursorId }, ConsistentRead: true }),
    );
    const item = res.Item as { walkPosition?: unknown; walkedAt?: unknown } | undefined;
    if (typeof item?.walkPosition !== 'string') return undefined;
    return { position: item.walkPosition, at: String(item.walkedAt ?? '') };
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
