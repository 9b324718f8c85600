import { contentHash, type OParlObject } from '../engine';
import { revisitDue, type ScrapePolicy } from './constants';
import type { ScrapeContext } from './context';
import type { MonthState, RowMark, ScrapeCursor, ScrapeTask } from './state';
import type { CalendarPage } from './types';

/**
 * Calendar months: a month page is read, each row compared with the month's last state; a changed row
 * (or a due revisit of a meeting near today) becomes a meeting task, the month's new state is committed
 * after its meetings. Rows that left the month are checked at the end of the run (`vanishedChecks`).
 */

export interface MonthPlan {
  /** The month's row marks to commit once its meetings are done. */
  rows: Record<string, RowMark>;
  /** Meeting pages to read (or calendar-only rows to mirror). */
  tasks: ScrapeTask[];
  /** Rows new in a month read before (a vanished meeting may have moved there), in order, no repeats. */
  appeared: string[];
  /** Meetings that left the month, by row key. */
  vanished: ScrapeCursor['vanished'];
}

/** What one calendar page asks for, from the month's last state and now. Pure. */
export function planMonth(input: {
  month: string;
  calendar: Pick<CalendarPage, 'rows'>;
  previous: MonthState | undefined;
  /** Rows already seen appearing in this run. */
  appeared: readonly string[];
  kind: 'incremental' | 'full';
  policy: ScrapePolicy;
  nowMs: number;
}): MonthPlan {
  const { month, previous, nowMs } = input;
  const nowIso = new Date(nowMs).toISOString();
  const plan: MonthPlan = { rows: {}, tasks: [], appeared: [], vanished: {} };
  const { rows, tasks } = plan;
  for (const row of input.calendar.rows) {
    const h = contentHash(row as unknown as OParlObject);
    const before = previous?.rows[row.key];
    if (before?.h !== h) {
      tasks.push(
        row.detailUrl ? { op: 'meeting', url: row.detailUrl, month, row } : { op: 'meeting-row', month, row },
      );
      rows[row.key] = {
        h,
        u: row.meetingId,
        ...(row.detailUrl ? { f: nowIso } : {}),
        ...(row.calendarOnly ? { c: true as const } : {}),
      };
    } else if (
      row.detailUrl &&
      !before.n &&
      revisitDue({
        kind: input.kind,
        meetingDate: row.date,
        lastReadIso: before.f,
        nowMs,
        policy: input.policy,
      })
    ) {
      tasks.push({ op: 'meeting', url: row.detailUrl, month, row, revisit: true });
      rows[row.key] = { ...before, u: row.meetingId, f: nowIso };
    } else {
      rows[row.key] = before;
    }
    const seen = input.appeared.includes(row.key) || plan.appeared.includes(row.key);
    if (previous && before === undefined && !seen) plan.appeared.push(row.key);
  }
  for (const [key, mark] of Object.entries(previous?.rows ?? {})) {
    if (rows[key] === undefined && mark.u)
      plan.vanished[key] = { url: mark.u, month, ...(mark.c ? { calendarOnly: true as const } : {}) };
  }
  return plan;
}

/** A meeting that left its month and entered no other month read in this run: its page is asked. Pure. */
export function vanishedChecks(cursor: Pick<ScrapeCursor, 'vanished' | 'appeared'>): ScrapeTask[] {
  return Object.entries(cursor.vanished)
    .filter(([key]) => !cursor.appeared.includes(key))
    .map(([key, v]) => ({
      op: 'vanished-check',
      url: v.url,
      meetingKey: key,
      month: v.month,
      ...(v.calendarOnly ? { calendarOnly: true as const } : {}),
    }));
}

/** Reads one calendar month and puts its meeting tasks and its commit at the front of the stack. */
export async function readMonth(ctx: ScrapeContext, month: string): Promise<void> {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  const url = ctx.adapter.calendarUrl(year, mon);
  const outcome = await ctx.pages.read(url, 'calendar');
  const advance = async (tasks: ScrapeTask[]) => {
    ctx.cursor.monthIndex += 1;
    ctx.cursor.tasks.unshift(...tasks);
    await ctx.checkpoint();
  };
  if (outcome.kind !== 'page') {
    if (outcome.kind === 'failure') ctx.pages.failed(outcome, 'calendar');
    else ctx.pages.failedWith(url, 'calendar', 'calendar month answered "not public"');
    return advance([]);
  }
  let calendar: CalendarPage;
  try {
    calendar = ctx.adapter.parseCalendar(outcome.html, outcome.finalUrl, year, mon);
  } catch (err) {
    ctx.pages.unreadable(err, url, 'calendar');
    return advance([]);
  }
  await ctx.calendarRead(calendar);

  const previous = await ctx.state.getMonth(month);
  const plan = planMonth({
    month,
    calendar,
    previous,
    appeared: ctx.cursor.appeared,
    kind: ctx.kind,
    policy: ctx.policy,
    nowMs: ctx.nowMs(),
  });
  ctx.cursor.appeared.push(...plan.appeared);
  Object.assign(ctx.cursor.vanished, plan.vanished);
  ctx.log('month', { month, rows: calendar.rows.length, tasks: plan.tasks.length });
  await advance([...plan.tasks, { op: 'commit-month', month, rows: plan.rows }]);
}
