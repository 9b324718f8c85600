import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './context';

/** The rebuild's checkpoints: one State item per scope, outside every `MIRROR#` partition (State has PITR). */
const CHECKPOINT_PK = 'MIGRATION#mirror-rebuild';

/** Where a rebuild stopped (`after`: the last record key done; absent before the first page), its counts. */
export interface MirrorRebuildCheckpoint {
  after?: string;
  done: boolean;
  counts: Record<string, number>;
}

/**
 * `ingestor mirror rebuild`'s checkpoints (shared/mirror rebuild.ts), in State: the Mirror table is what
 * is being rebuilt, so its progress is kept where it survives the table. One per scope (`all`, or
 * `source:<id>`).
 */
export class MirrorRebuildCheckpoints {
  constructor(private readonly ctx: TableContext) {}

  async get(scope: string): Promise<MirrorRebuildCheckpoint | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({
        TableName: this.ctx.table,
        Key: { pk: CHECKPOINT_PK, sk: scope },
        ConsistentRead: true,
      }),
    );
    if (out.Item === undefined) return undefined;
    const { after, done, counts } = out.Item;
    return { ...(typeof after === 'string' ? { after } : {}), done: done === true, counts: counts ?? {} };
  }

  async save(scope: string, checkpoint: MirrorRebuildCheckpoint): Promise<void> {
    await this.ctx.doc.send(
      new PutCommand({
        TableName: this.ctx.table,
        Item: {
          pk: CHECKPOINT_PK,
          sk: scope,
          done: checkpoint.done,
          counts: checkpoint.counts,
          ...(checkpoint.after !== undefined ? { after: checkpoint.after } : {}),
        },
      }),
    );
  }
}
