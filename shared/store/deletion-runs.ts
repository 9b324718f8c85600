import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './context';

/** The one item (Documents table, key `docId`) holding what each deletion-check shard's last run measured. */
const DELETION_RUNS_ID = 'deletion-runs';

/**
 * DEL-2 (issue 28): what the last deletion-check run of each shard measured, for `status` — one small
 * item in the Documents table with one attribute per shard (`whole`, or `s<index>of<of>`), so `status`
 * reads the fleet's figures with one read. It carries neither `sourceId` nor `attemptShard`: in no
 * index, one write a run (as the walk cursors, sample-walks.ts).
 */
export class DeletionRuns {
  constructor(private readonly ctx: TableContext) {}

  /** The shard's last run, replacing the one before (its key: `deletionRunKey`). */
  async record(shardKey: string, measured: Record<string, unknown>): Promise<void> {
    await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.table,
        Key: { docId: DELETION_RUNS_ID },
        UpdateExpression: 'SET #s = :m',
        ExpressionAttributeNames: { '#s': shardKey },
        ExpressionAttributeValues: { ':m': measured },
      }),
    );
  }

  /** Every shard's last run by its key; {} before the first run. */
  async all(): Promise<Record<string, Record<string, unknown>>> {
    const out = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.table, Key: { docId: DELETION_RUNS_ID } }),
    );
    const { docId: _id, ...shards } = (out.Item ?? {}) as Record<string, unknown>;
    return shards as Record<string, Record<string, unknown>>;
  }
}
