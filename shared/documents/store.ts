import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DocumentChange, DocumentItem } from './types';

/**
 * The Documents table as the document functions use it. Work is only ever selected through the
 * `byNextAttempt` index (one shard per queue, see keys.ts) — never by a scan. Every write is one
 * conditional update on the queue position the item was read at, so two runs (or the sync moving a
 * changed document to the intake meanwhile) never overwrite each other: the loser's write fails and the
 * item is decided again by the next run.
 */
export const BY_NEXT_ATTEMPT = 'byNextAttempt';
export const BY_SOURCE = 'bySource';

function isConditionFailure(err: unknown): boolean {
  return (err as { name?: string }).name === 'ConditionalCheckFailedException';
}

export class DocumentsStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Items of `shard` due at `nowIso` (nextAttemptAt ≤ now), oldest first, at most `limit`. */
  queryDue(shard: string, nowIso: string, limit: number): Promise<DocumentItem[]> {
    return this.query(shard, limit, nowIso);
  }

  /** Items of `shard` whatever their time (parked queues), at most `limit`. */
  queryShard(shard: string, limit: number): Promise<DocumentItem[]> {
    return this.query(shard, limit, undefined);
  }

  private async query(shard: string, limit: number, dueBefore: string | undefined): Promise<DocumentItem[]> {
    const out: DocumentItem[] = [];
    if (limit <= 0) return out;
    let startKey: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: BY_NEXT_ATTEMPT,
          KeyConditionExpression:
            dueBefore === undefined ? '#shard = :shard' : '#shard = :shard AND #next <= :before',
          ExpressionAttributeNames:
            dueBefore === undefined
              ? { '#shard': 'attemptShard' }
              : { '#shard': 'attemptShard', '#next': 'nextAttemptAt' },
          ExpressionAttributeValues: {
            ':shard': shard,
            ...(dueBefore === undefined ? {} : { ':before': dueBefore }),
          },
          Limit: Math.min(limit - out.length, 1000),
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      out.push(...((page.Items ?? []) as DocumentItem[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey && out.length < limit);
    return out;
  }

  async get(docId: string): Promise<DocumentItem | undefined> {
    const res = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { docId }, ConsistentRead: true }),
    );
    return res.Item as DocumentItem | undefined;
  }

  /** Every document of a source (the `bySource` index), for the operator's `documents` listing. */
  async *listBySource(sourceId: string): AsyncGenerator<DocumentItem> {
    let startKey: QueryCommandOutput['LastEvaluatedKey'];
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: BY_SOURCE,
          KeyConditionExpression: 'sourceId = :s',
          ExpressionAttributeValues: { ':s': sourceId },
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of page.Items ?? []) yield item as DocumentItem;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  /**
   * Applies `change` if the item still waits where it was read (same shard and time; or, for an item
   * in no queue, the same state). Returns false when someone else moved it first.
   */
  async apply(item: DocumentItem, change: DocumentChange): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const removes: string[] = [];
    let n = 0;
    for (const [key, value] of Object.entries(change.set)) {
      if (value === undefined) continue;
      names[`#a${n}`] = key;
      values[`:a${n}`] = value;
      sets.push(`#a${n} = :a${n}`);
      n += 1;
    }
    for (const key of new Set(change.remove)) {
      if (key in change.set && change.set[key] !== undefined) continue;
      names[`#a${n}`] = key;
      removes.push(`#a${n}`);
      n += 1;
    }
    if (sets.length === 0 && removes.length === 0) return true;
    names['#cShard'] = 'attemptShard';
    let condition: string;
    if (item.attemptShard !== undefined && item.nextAttemptAt !== undefined) {
      names['#cNext'] = 'nextAttemptAt';
      values[':cShard'] = item.attemptShard;
      values[':cNext'] = item.nextAttemptAt;
      condition = '#cShard = :cShard AND #cNext = :cNext';
    } else {
      names['#cState'] = 'state';
      values[':cState'] = item.state;
      condition = 'attribute_exists(docId) AND attribute_not_exists(#cShard) AND #cState = :cState';
    }
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { docId: item.docId },
          UpdateExpression: [
            sets.length > 0 ? `SET ${sets.join(', ')}` : '',
            removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
          ]
            .filter((part) => part !== '')
            .join(' '),
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }
}

/** The item as it reads after `change` (for decisions chained within one run). */
export function afterChange(item: DocumentItem, change: DocumentChange): DocumentItem {
  const next: Record<string, unknown> = { ...item };
  for (const key of change.remove) delete next[key];
  for (const [key, value] of Object.entries(change.set)) if (value !== undefined) next[key] = value;
  return next as unknown as DocumentItem;
}
