import { GetCommand, PutCommand, type QueryCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableContext, unlessConditionFails } from './context';
import { DocumentItems } from './document-items';
import { queryPages } from './query-pages';

/** The Documents table's queue index (`byNextAttempt`: `attemptShard` + `nextAttemptAt`, tables.ts). */
export const BY_NEXT_ATTEMPT = 'byNextAttempt';
/** The Documents table's source index (`bySource`: `sourceId` + `docId`; read by `DocumentItems`). */
export const BY_SOURCE = 'bySource';
/** The intake shard: the sync puts new and changed documents here (shared/documents keys.ts). */
const INTAKE_SHARD = 'due';
/** Items per Query page of the queue (DynamoDB reads at most 1 MB a page anyway). */
const QUEUE_PAGE_MAX = 1000;

/**
 * Where a Documents item was read: its queue position (shard and time), or — for an item in no queue —
 * its state. A conditional write on it fails when someone else moved the item first.
 */
export type DocumentPosition = { attemptShard: string; nextAttemptAt: string } | { state: string };

/** What a file's source side says of it when the sync sees it again (DEL-1). */
export interface SourceSideChange {
  sourceModified: string;
  sourceChecksum: string;
  atIso: string;
}

/**
 * The Documents table as a work queue (one item per file URL, key `docId`): the sync's intake, the
 * document functions' queues read through `byNextAttempt` (never by a scan), a source's documents
 * through `bySource`, and the one conditional update every move of an item makes. Which queue and
 * which change is shared/documents' decision; this only stores it.
 */
export class DocumentQueue {
  constructor(private readonly ctx: TableContext) {}

  /**
   * Items of `shard` at most `limit`, oldest first: due at `dueBefore` (nextAttemptAt ≤ it), or, with
   * `dueBefore` undefined, whatever their time (parked queues).
   */
  async inShard<T>(shard: string, limit: number, dueBefore: string | undefined): Promise<T[]> {
    if (limit <= 0) return [];
    return this.pageQueue<T>(
      dueBefore === undefined
        ? {
            KeyConditionExpression: '#shard = :shard',
            ExpressionAttributeNames: { '#shard': 'attemptShard' },
            ExpressionAttributeValues: { ':shard': shard },
          }
        : {
            KeyConditionExpression: '#shard = :shard AND #next <= :before',
            ExpressionAttributeNames: { '#shard': 'attemptShard', '#next': 'nextAttemptAt' },
            ExpressionAttributeValues: { ':shard': shard, ':before': dueBefore },
          },
      limit,
    );
  }

  /**
   * Items of `shard` whose sort key lies in (`after`, `upTo`], in key order, at most `limit` (DEL-2's
   * sample walk: its keys are positions, not times — shared/documents keys.ts `sampleWalkKey`).
   */
  async inRange<T>(shard: string, after: string, upTo: string, limit: number): Promise<T[]> {
    if (limit <= 0 || upTo <= after) return [];
    return this.pageQueue<T>(
      {
        // BETWEEN is inclusive: the item at `after` itself (the walk's last one) is dropped.
        KeyConditionExpression: '#shard = :shard AND #next BETWEEN :after AND :upTo',
        ExpressionAttributeNames: { '#shard': 'attemptShard', '#next': 'nextAttemptAt' },
        ExpressionAttributeValues: { ':shard': shard, ':after': after, ':upTo': upTo },
      },
      limit,
      (item) => item.nextAttemptAt !== after,
      // One more than asked per page: the item at `after` may be among them.
      1,
    );
  }

  /** Pages a `byNextAttempt` query in key order until `limit` items pass `keep`. */
  private async pageQueue<T>(
    query: Pick<
      QueryCommandInput,
      'KeyConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
    limit: number,
    keep: (item: Record<string, unknown>) => boolean = () => true,
    extraPerPage = 0,
  ): Promise<T[]> {
    const out: T[] = [];
    const pages = queryPages(
      this.ctx.doc,
      { TableName: this.ctx.table, IndexName: BY_NEXT_ATTEMPT, ...query },
      { limit: () => Math.min(limit - out.length + extraPerPage, QUEUE_PAGE_MAX) },
    );
    for await (const items of pages) {
      for (const item of items) if (keep(item) && out.length < limit) out.push(item as T);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** The item (strongly consistent), or undefined. */
  async get<T>(docId: string): Promise<T | undefined> {
    const res = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.table, Key: { docId }, ConsistentRead: true }),
    );
    return res.Item as T | undefined;
  }

  /** Every item of a source (`bySource`); a page is read when the caller has handled the one before. */
  async *ofSource<T>(sourceId: string): AsyncGenerator<T> {
    for await (const item of new DocumentItems(this.ctx).ofSource(sourceId)) yield item as T;
  }

  /**
   * Sets and removes attributes of `docId` if it is still where it was read (`at`); false when someone
   * else moved it first (nothing written then).
   */
  moveIfAt(
    docId: string,
    at: DocumentPosition,
    change: { set: Record<string, unknown>; remove: readonly string[] },
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets: string[] = [];
    const removes: string[] = [];
    let n = 0;
    for (const [key, value] of Object.entries(change.set)) {
      names[`#a${n}`] = key;
      values[`:a${n}`] = value;
      sets.push(`#a${n} = :a${n}`);
      n += 1;
    }
    for (const key of change.remove) {
      names[`#a${n}`] = key;
      removes.push(`#a${n}`);
      n += 1;
    }
    names['#cShard'] = 'attemptShard';
    let condition: string;
    if ('attemptShard' in at) {
      names['#cNext'] = 'nextAttemptAt';
      values[':cShard'] = at.attemptShard;
      values[':cNext'] = at.nextAttemptAt;
      condition = '#cShard = :cShard AND #cNext = :cNext';
    } else {
      names['#cState'] = 'state';
      values[':cState'] = at.state;
      condition = 'attribute_exists(docId) AND attribute_not_exists(#cShard) AND #cState = :cState';
    }
    return unlessConditionFails(
      this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: { docId },
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
      ),
    );
  }

  /**
   * The sync's intake of a file it sees for the first time: the item as given (pending, due now), unless
   * the file is known already — false then, nothing written.
   */
  addNew(item: Record<string, unknown> & { docId: string }): Promise<boolean> {
    return unlessConditionFails(
      this.ctx.doc.send(
        new PutCommand({
          TableName: this.ctx.table,
          Item: item,
          ConditionExpression: 'attribute_not_exists(docId)',
        }),
      ),
    );
  }

  /**
   * DEL-1: a known file whose source side changed (modified or checksum differ from what is stored)
   * goes back to the intake, due now — its state, attempts and S3 keys untouched. False when the file
   * is unknown or its source side is unchanged (nothing written).
   */
  noteSourceChange(docId: string, change: SourceSideChange): Promise<boolean> {
    return unlessConditionFails(
      this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: { docId },
          UpdateExpression:
            'SET sourceModified = :m, sourceChecksum = :c, sourceChangedAt = :now, attemptShard = :due, nextAttemptAt = :now',
          ConditionExpression:
            'attribute_exists(docId) AND (attribute_not_exists(sourceModified) OR sourceModified <> :m OR sourceChecksum <> :c)',
          ExpressionAttributeValues: {
            ':m': change.sourceModified,
            ':c': change.sourceChecksum,
            ':now': change.atIso,
            ':due': INTAKE_SHARD,
          },
        }),
      ),
    );
  }
}
