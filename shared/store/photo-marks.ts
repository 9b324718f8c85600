import { PutCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './context';
import { idHash, photoPartition } from './keys';

/**
 * PHO-2: the photo marks of one body (State table, partition `PHOTO#<sourceId>#<bodyKey>`, one item per
 * person, sort key = hash of the person id). The mark's shape is shared/documents' (`PhotoMark`).
 */
export class PhotoMarks {
  constructor(private readonly ctx: TableContext) {}

  /** Every mark of one body, as stored (keys included). */
  async ofBody<T>(sourceId: string, bodyKey: string): Promise<T[]> {
    const marks: T[] = [];
    let startKey: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await this.ctx.doc.send(
        new QueryCommand({
          TableName: this.ctx.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': photoPartition(sourceId, bodyKey) },
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of page.Items ?? []) marks.push(item as T);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return marks;
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
