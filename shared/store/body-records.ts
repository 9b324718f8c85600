import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './context';
import { bodySk, sessionSk, slugSk, sourcePartition } from './keys';
import { BODY_PAGE_DIGEST_ATTRIBUTE } from './list-digests';

/**
 * The operator's writes to a body's `BODY#` record and the reads of its `SLUG#` reservation (State
 * table; the sync writes the rest of the record, shared/engine/state.ts). Every write is conditional on
 * the record existing: an operator's command never creates a body.
 */
export class BodyRecords {
  constructor(private readonly ctx: TableContext) {}

  /** The `bodyKey` a slug's reservation names, or undefined (strongly consistent). */
  async reservedBodyKey(sourceId: string, slug: string): Promise<string | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.table,
        Key: { pk: sourcePartition(sourceId), sk: slugSk(slug) },
        ConsistentRead: true,
      }),
    );
    const bodyKey = out.Item?.bodyKey;
    return typeof bodyKey === 'string' ? bodyKey : undefined;
  }

  /**
   * DOC-7 / ONB-4: the body's `listed` flag now (strongly consistent), or undefined when the record is
   * gone. A sync run confirms a Documents item it created against it (shared/engine/documents.ts).
   */
  async listedNow(sourceId: string, bodyKey: string): Promise<boolean | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.table,
        Key: { pk: sourcePartition(sourceId), sk: bodySk(bodyKey) },
        ProjectionExpression: 'listed',
        ConsistentRead: true,
      }),
    );
    return out.Item === undefined ? undefined : out.Item.listed === true;
  }

  /** SCH-2: the body's `SESSION#` item (`m_<meetingKey>` = its Berlin date), as stored; {} when none. */
  async sessionDays(sourceId: string, bodyKey: string): Promise<Record<string, unknown>> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.table,
        Key: { pk: sourcePartition(sourceId), sk: sessionSk(bodyKey) },
      }),
    );
    return out.Item ?? {};
  }

  /** ONB-4: `bodies list|unlist`, with who changed it and when. */
  async setListed(
    sourceId: string,
    bodyKey: string,
    change: { listed: boolean; at: string; by: string },
  ): Promise<void> {
    await this.update(sourceId, bodyKey, 'SET listed = :l, listedChangedAt = :at, listedChangedBy = :by', {
      ':l': change.listed,
      ':at': change.at,
      ':by': change.by,
    });
  }

  /** OPT-2: unlisted at once by a takedown (before the mirror is touched). */
  async unlist(sourceId: string, bodyKey: string): Promise<void> {
    await this.update(sourceId, bodyKey, 'SET listed = :f', { ':f': false });
  }

  /** OPT-2: the takedown's mark, last — the first mark stays; unlisted again in the same write. */
  async markTakenDown(sourceId: string, bodyKey: string, mark: Record<string, unknown>): Promise<void> {
    await this.update(sourceId, bodyKey, 'SET listed = :f, takedown = if_not_exists(takedown, :t)', {
      ':f': false,
      ':t': mark,
    });
  }

  /** OPT-5: `takedown lift --body`. */
  async removeTakedown(sourceId: string, bodyKey: string): Promise<void> {
    await this.update(sourceId, bodyKey, 'REMOVE takedown');
  }

  /**
   * OPT-3: a purge, noted for audit on the record that stays. The body page's digest goes in the same
   * write (issue 28): a removed index entry is a change no digest's staleness Query sees.
   */
  async notePurge(sourceId: string, bodyKey: string, purge: { at: string; by: string }): Promise<void> {
    await this.update(
      sourceId,
      bodyKey,
      `SET lastPurgeAt = :at, lastPurgeBy = :by REMOVE ${BODY_PAGE_DIGEST_ATTRIBUTE}`,
      { ':at': purge.at, ':by': purge.by },
    );
  }

  private async update(
    sourceId: string,
    bodyKey: string,
    expression: string,
    values?: Record<string, unknown>,
  ): Promise<void> {
    await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.table,
        Key: { pk: sourcePartition(sourceId), sk: bodySk(bodyKey) },
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(sk)',
        ...(values !== undefined ? { ExpressionAttributeValues: values } : {}),
      }),
    );
  }
}
