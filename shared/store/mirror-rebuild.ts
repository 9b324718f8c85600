import type { TableContext } from './context';
import { getJobCheckpoint, putJobCheckpoint } from './job-checkpoints';

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
    const saved = await getJobCheckpoint(this.ctx, { pk: CHECKPOINT_PK, sk: scope });
    if (saved === undefined) return undefined;
    const { after } = saved.item;
    return { ...(typeof after === 'string' ? { after } : {}), done: saved.done, counts: saved.counts };
  }

  async save(scope: string, checkpoint: MirrorRebuildCheckpoint): Promise<void> {
    const position = checkpoint.after !== undefined ? { after: checkpoint.after } : {};
    await putJobCheckpoint(this.ctx, { pk: CHECKPOINT_PK, sk: scope }, checkpoint, position);
  }
}
