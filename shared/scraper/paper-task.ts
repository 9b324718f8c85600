import { replaceFront, type ScrapeContext } from './context';
import { shapePaper } from './oparl-shape';
import { processShapedPage } from './page-objects';
import { pageGone } from './page-reader';
import type { ScrapeTask } from './state';

/**
 * A paper page (ALLRIS vo020, SessionNet vo0050), asked when a changed agenda row names it. A paper that
 * is not public keeps what it owned and is marked; a gone one is left as it is.
 */
export async function paperTask(
  ctx: ScrapeContext,
  task: Extract<ScrapeTask, { op: 'paper' }>,
): Promise<void> {
  const outcome = await ctx.pages.read(task.url, 'paper');
  if (outcome.kind === 'failure') {
    if (!pageGone(outcome)) ctx.pages.failed(outcome, 'paper');
    return replaceFront(ctx, []);
  }
  if (outcome.kind === 'not-public') {
    ctx.cursor.totals.notPublic += 1;
    const before = await ctx.state.getPage(task.url);
    await ctx.state.putPage({
      url: task.url,
      kind: 'paper',
      objects: before?.objects ?? {},
      fetchedAt: ctx.nowIso(),
      notPublicSince: before?.notPublicSince ?? ctx.nowIso(),
    });
    return replaceFront(ctx, []);
  }
  if (outcome.kind !== 'page') return replaceFront(ctx, []);
  return processShapedPage(ctx, task.url, 'paper', () =>
    shapePaper(ctx.adapter.parsePaper(outcome.html, task.url), ctx.shaping),
  );
}
