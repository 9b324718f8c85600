import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './context';
import { idHash, photoPartition } from './keys';
import { queryAll } from './query-pages';

/**
 * PHO-2: the photo marks of one body (State table, partition `PHOTO#<sourceId>#<bodyKey>`, one item per
 * person, sort key = hash of the person id). The mark's shape is shared/documents' (`PhotoMark`).
 */
export class PhotoMarks {
  constructor(private readonly ctx: TableContext) {}

  /** Every mark of one body, as stored (keys included). */
  async ofBody<T>(sourceId: string, bodyKey: string): Promise<T[]> {
    return (await queryAll(this.ctx.doc, {
      TableName: this.ctx.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': photoPartition(sourceId, bodyKey) },
    })) as T[];
  }

  /** Replaces a person's mark. */
  async put(sourceId: string, bodyKey: string, personId: string, mark: object): Promise<void> {
    await this.ctx.doc.send(
      new PutCommand({
        TableName: this.ctx.table,
        Item: { pk: photoPartition(sourceId, bodyKey), sk: idHash(personId), ...mark },
      }),
    );
  }
}
