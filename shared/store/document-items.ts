import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableContext, unlessConditionFails } from './context';
import { queryItems } from './query-pages';

/** The Documents table's source index (`bySource`, shared/store tables.ts). */
const BY_SOURCE = 'bySource';

/**
 * The operator's reads and writes of Documents items (one per file URL, key `docId`): a body's or a
 * source's items, the listing flag (DOC-7), the takedown flag (OPT-2), the purge (OPT-3).
 */
export class DocumentItems {
  constructor(private readonly ctx: TableContext) {}

  /**
   * A source's items through `bySource`, optionally only a body's (filtered in DynamoDB) or only their
   * `docId`. A page is read when the caller has handled the one before.
   */
  async *ofSource(
    sourceId: string,
    options: { bodyId?: string; docIdOnly?: boolean } = {},
  ): AsyncGenerator<Record<string, unknown>> {
    yield* queryItems(this.ctx.doc, {
      TableName: this.ctx.table,
      IndexName: BY_SOURCE,
      KeyConditionExpression: 'sourceId = :s',
      ...(options.bodyId === undefined
        ? { ExpressionAttributeValues: { ':s': sourceId } }
        : {
            FilterExpression: 'bodyId = :b',
            ExpressionAttributeValues: { ':s': sourceId, ':b': options.bodyId },
          }),
      ...(options.docIdOnly ? { ProjectionExpression: 'docId' } : {}),
    });
  }

  /** DOC-7: listed or not, as its body. False when the item is gone (purged meanwhile). */
  setListed(docId: unknown, listed: boolean): Promise<boolean> {
    return unlessConditionFails(
      this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: { docId },
          UpdateExpression: 'SET #l = :l',
          ConditionExpression: 'attribute_exists(docId)',
          ExpressionAttributeNames: { '#l': 'listed' },
          ExpressionAttributeValues: { ':l': listed },
        }),
      ),
    );
  }

  /**
   * OPT-2: unlisted and `takedownAt` (the first one stays), for the document cache, preview and
   * deletion check to honour. False when the item is gone.
   */
  flagTakenDown(docId: unknown, at: string): Promise<boolean> {
    return unlessConditionFails(
      this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: { docId },
          UpdateExpression: 'SET listed = :f, takedownAt = if_not_exists(takedownAt, :at)',
          ConditionExpression: 'attribute_exists(docId)',
          ExpressionAttributeValues: { ':f': false, ':at': at },
        }),
      ),
    );
  }

  /** OPT-5: `takedown lift`. */
  async removeTakedownFlag(docId: unknown): Promise<void> {
    await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.table,
        Key: { docId },
        UpdateExpression: 'REMOVE takedownAt',
      }),
    );
  }

  /** OPT-3: the item goes with its file. Deleting an absent item succeeds. */
  async delete(docId: string): Promise<void> {
    await this.ctx.doc.send(new DeleteCommand({ TableName: this.ctx.table, Key: { docId } }));
  }
}
