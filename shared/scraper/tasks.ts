import { vanishedChecks } from './calendar';
import { replaceFront, type ScrapeContext } from './context';
import { agendaItemTask, meetingRowTask, meetingTask, vanishedTask } from './meeting-tasks';
import { paperTask } from './paper-task';
import { organizationListTask, organizationTask, personTask } from './roster-tasks';
import type { MonthState, ScrapeCursor, ScrapeTask } from './state';
import type { OrganizationKind } from './types';

/**
 * One task of the run's stack, by kind. The commits (a month's rows, a page's state) come after the
 * children of their page, so a run stopped anywhere re-derives what it had not finished.
 */
export async function runTask(ctx: ScrapeContext, task: ScrapeTask): Promise<void> {
  switch (task.op) {
    case 'meeting':
      return meetingTask(ctx, task);
    case 'meeting-row':
      return meetingRowTask(ctx, task);
    case 'agenda-item':
      return agendaItemTask(ctx, task);
    case 'paper':
      return paperTask(ctx, task);
    case 'organization-list':
      return organizationListTask(ctx, task);
    case 'organization':
      return organizationTask(ctx, task);
    case 'person':
      return personTask(ctx, task);
    case 'vanished-check':
      return vanishedTask(ctx, task);
    case 'commit-month': {
      const state: MonthState = { month: task.month, rows: task.rows, fetchedAt: ctx.nowIso() };
      await ctx.state.putMonth(state);
      return replaceFront(ctx, []);
    }
    case 'commit-page':
      await ctx.state.putPage(task.state);
      return replaceFront(ctx, []);
  }
}

/**
 * The stack ran empty after the months: the meetings that vanished from them are checked, then (full
 * scrapes) the organization lists are read, then the run finishes. A decision on the cursor, no I/O;
 * the caller checkpoints.
 */
export function enterNextPhase(
  cursor: ScrapeCursor,
  kind: 'incremental' | 'full',
  organizationLists: () => { url: string; kind: OrganizationKind }[],
): void {
  if (cursor.phase === 'vanished') {
    const checks = vanishedChecks(cursor);
    cursor.vanished = {};
    cursor.appeared = [];
    cursor.tasks.push(...checks);
    cursor.phase = kind === 'full' ? 'organizations' : 'finish';
  } else if (cursor.phase === 'organizations') {
    for (const list of organizationLists()) {
      cursor.tasks.push({ op: 'organization-list', url: list.url, kind: list.kind });
    }
    cursor.phase = 'finish';
  }
}
