import type { OParlObject } from '../engine';
import { markRowNotPublic, replaceFront, type ScrapeContext, taintMeeting } from './context';
import { mergeAgendaItemDetail, type ShapedObject, shapeMeeting } from './oparl-shape';
import { processPage } from './page-objects';
import { pageGone } from './page-reader';
import type { ScrapeTask } from './state';

/**
 * Meeting pages and what hangs on them: a meeting of a changed calendar row (or a due revisit), a
 * calendar-only row, an agenda item's own page (ALLRIS to020), and the check of a meeting that left the
 * calendar (moved, or gone: tombstoned).
 */

type Task<Op extends ScrapeTask['op']> = Extract<ScrapeTask, { op: Op }>;

export async function meetingTask(ctx: ScrapeContext, task: Task<'meeting'>): Promise<void> {
  const outcome = await ctx.pages.read(task.url, 'meeting');
  if (outcome.kind === 'failure' && !pageGone(outcome)) {
    ctx.pages.failed(outcome, 'meeting');
    taintMeeting(ctx.cursor.tasks, task.url);
    return replaceFront(ctx, []);
  }
  if (outcome.kind !== 'page') {
    // Not public (noauth) or gone: the meeting is what the calendar says; skipped, not retried (issue 8)
    // — not even by the revisit of meetings near today, until its calendar row changes.
    if (outcome.kind === 'not-public') ctx.cursor.totals.notPublic += 1;
    markRowNotPublic(ctx.cursor.tasks, task.url);
    const shaped = shapeMeeting(task.row, undefined, ctx.shaping);
    return replaceFront(
      ctx,
      await processPage(ctx, { url: task.url, kind: 'meeting', shaped, notPublic: true }),
    );
  }
  let shaped: ShapedObject[];
  try {
    const detail = ctx.adapter.parseMeeting(outcome.html, task.url);
    shaped = shapeMeeting(task.row, detail, ctx.shaping);
  } catch (err) {
    ctx.pages.unreadable(err, task.url, 'meeting');
    taintMeeting(ctx.cursor.tasks, task.url);
    return replaceFront(ctx, []);
  }
  return replaceFront(
    ctx,
    await processPage(ctx, { url: task.url, kind: 'meeting', shaped, meetingUrl: task.url }),
  );
}

/** A calendar row without a meeting page: the meeting is what the row says. */
export async function meetingRowTask(ctx: ScrapeContext, task: Task<'meeting-row'>): Promise<void> {
  const shaped = shapeMeeting(task.row, undefined, ctx.shaping);
  return replaceFront(ctx, await processPage(ctx, { url: task.row.meetingId, kind: 'meeting', shaped }));
}

/** An agenda item with a result: its page adds minutes and resolution; the item is written either way. */
export async function agendaItemTask(ctx: ScrapeContext, task: Task<'agenda-item'>): Promise<void> {
  let item = task.item as OParlObject;
  const parse = ctx.adapter.parseAgendaItem;
  const outcome = await ctx.pages.read(task.url, 'agendaItem');
  if (outcome.kind === 'page' && parse) {
    try {
      item = mergeAgendaItemDetail(item, parse(outcome.html, task.url));
    } catch (err) {
      ctx.pages.unreadable(err, task.url, 'agendaItem');
    }
  } else if (outcome.kind === 'failure') {
    if (!pageGone(outcome)) {
      ctx.pages.failed(outcome, 'agendaItem');
      taintMeeting(ctx.cursor.tasks, task.meetingUrl);
    }
  } else if (outcome.kind === 'not-public') {
    ctx.cursor.totals.notPublic += 1;
  }
  await ctx.writeOwned(
    [{ type: 'agendaitem', id: item.id as string, object: item, mode: 'owner' }],
    task.url,
  );
  return replaceFront(ctx, []);
}

/**
 * A meeting left the calendar: its page decides — still there (moved) or gone (tombstone, OPT-2). A
 * calendar-only meeting has no page to ask (its id is the row's): the row was its only source, it is gone.
 */
export async function vanishedTask(ctx: ScrapeContext, task: Task<'vanished-check'>): Promise<void> {
  if (task.calendarOnly) return tombstoneVanished(ctx, task.url);
  const outcome = await ctx.pages.read(task.url, 'meeting');
  if (outcome.kind === 'page') {
    try {
      const detail = ctx.adapter.parseMeeting(outcome.html, task.url);
      if (detail.date !== undefined || detail.agenda.length > 0) {
        const shaped = shapeMeeting(undefined, detail, ctx.shaping);
        return replaceFront(
          ctx,
          await processPage(ctx, { url: task.url, kind: 'meeting', shaped, meetingUrl: task.url }),
        );
      }
    } catch (err) {
      // A page we cannot read proves nothing about the meeting: noted, never a reason to tombstone.
      ctx.pages.unreadable(err, task.url, 'meeting');
      return replaceFront(ctx, []);
    }
  } else if (outcome.kind === 'failure' && !pageGone(outcome)) {
    ctx.pages.failed(outcome, 'meeting');
    return replaceFront(ctx, []);
  }
  // Gone, not public any more, or an empty shell: the meeting and what its page owned are tombstoned.
  return tombstoneVanished(ctx, task.url);
}

/** The vanished meeting and what its page owned are tombstoned; its page is remembered as gone. */
async function tombstoneVanished(ctx: ScrapeContext, url: string): Promise<void> {
  const before = await ctx.state.getPage(url);
  const owned = Object.entries(before?.objects ?? {}).map(([id, o]) => ({ id, type: o.type }));
  if (!owned.some((o) => o.id === url)) owned.push({ id: url, type: 'meeting' });
  await ctx.tombstone(owned, url);
  await ctx.state.putPage({
    url,
    kind: 'meeting',
    objects: {},
    fetchedAt: ctx.nowIso(),
    notPublicSince: ctx.nowIso(),
  });
  return replaceFront(ctx, []);
}
