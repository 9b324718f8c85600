import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './context';

/** What every bulk job's checkpoint holds besides where it stopped. */
export interface JobProgress {
  done: boolean;
  counts: Record<string, number>;
}

/**
 * A bulk job's checkpoint (the mirror's move, its rebuild): one State item per job and scope, read
 * strongly consistent so a rerun resumes exactly where the last page was saved. `position` is the job's
 * own record of where it stopped (a Scan's start key, a record key), stored beside the progress as is.
 */
export async function getJobCheckpoint(
  ctx: TableContext,
  key: { pk: string; sk: string },
): Promise<(JobProgress & { item: Record<string, unknown> }) | undefined> {
  const out = await ctx.doc.send(new GetCommand({ TableName: ctx.table, Key: key, ConsistentRead: true }));
  if (out.Item === undefined) return undefined;
  return { done: out.Item.done === true, counts: out.Item.counts ?? {}, item: out.Item };
}

export async function putJobCheckpoint(
  ctx: TableContext,
  key: { pk: string; sk: string },
  progress: JobProgress,
  position: Record<string, unknown>,
): Promise<void> {
  await ctx.doc.send(
    new PutCommand({
      TableName: ctx.table,
      Item: { ...key, done: progress.done, counts: progress.counts, ...position },
    }),
  );
}
