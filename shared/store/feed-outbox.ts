import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './context';

/**
 * The change feed's outbox (State table, one partition): events the sink did not take, or staged
 * before a takedown's or purge's commit, until the sink took them (shared/changes feed.ts says when).
 * Sort key `<at>#<digest of the event>`: outboxing the same event twice keeps one item, and the oldest
 * come first.
 */
export const OUTBOX_PARTITION = 'CHANGES#OUTBOX';

/** An event as the outbox needs it: its time (the sort order) and JSON for the digest. */
export interface OutboxEvent {
  at: string;
}

/** Deterministic outbox key: outboxing the same event twice keeps one item. */
function outboxSk(event: OutboxEvent): string {
  const digest = createHash('sha256').update(JSON.stringify(event)).digest('hex').slice(0, 24);
  return `${event.at}#${digest}`;
}

export class FeedOutbox<E extends OutboxEvent = OutboxEvent> {
  constructor(private readonly ctx: TableContext) {}

  /** The outbox's own identity of an event (the key it is kept under). */
  keyOf(event: E): string {
    return outboxSk(event);
  }

  /** Events waiting (oldest first), at most `limit`; strongly consistent. */
  async oldest(limit: number): Promise<E[]> {
    const out = await this.ctx.doc.send(
      new QueryCommand({
        TableName: this.ctx.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': OUTBOX_PARTITION },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((item) => item.event as E);
  }

  async put(event: E): Promise<void> {
    await this.ctx.doc.send(
      new PutCommand({
        TableName: this.ctx.table,
        Item: { pk: OUTBOX_PARTITION, sk: outboxSk(event), event },
      }),
    );
  }

  async remove(event: E): Promise<void> {
    await this.ctx.doc.send(
      new DeleteCommand({ TableName: this.ctx.table, Key: { pk: OUTBOX_PARTITION, sk: outboxSk(event) } }),
    );
  }
}
