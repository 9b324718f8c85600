import {
  berlinDate,
  bodyCompleteDue,
  LIST_CATALOGUE,
  type ListReport,
  type StopRun,
  type SyncReport,
} from '../engine';
import { dropPrefetch } from './list-page';
import type { OParlRun } from './run-context';

/** The end of an invocation: bodies marked complete (SCH-9), the report, or a stop at the last checkpoint. */

function listReports(run: OParlRun): Promise<ListReport[]> {
  return run.state.getRunLists(run.options.kind, run.options.runId, run.cursor.listCount);
}

function listsComplete(run: OParlRun, lists: ListReport[]): boolean {
  if (run.options.kind === 'incremental') {
    const ok = new Set(['done', 'missing', 'skipped-missing', 'skipped-slow']);
    return lists.every((l) => ok.has(l.outcome));
  }
  return lists.every((l) => l.outcome === 'done' || l.outcome === 'missing');
}

/**
 * SCH-9: the bodies this run read completely get its start as their last complete sync. A full pass
 * writes it to each `BODY#` item; an incremental run only when the item's start is a day old
 * (`bodyCompleteDue`) and otherwise carries it in its cursor (`bodiesComplete`, written with the run's
 * end anyway) — issue 28: an unchanged run writes no body item. A start carried from an earlier run
 * that this one does not renew goes to the body's item before the cursor forgets it.
 */
async function markBodies(run: OParlRun, lists: ListReport[]): Promise<void> {
  const incremental = run.options.kind === 'incremental';
  const okIncremental = new Set(['done', 'missing', 'skipped-missing', 'skipped-slow']);
  const startedAt = incremental ? run.cursor.startedAt : run.cursor.passStartedAt;
  const riding: string[] = [];
  const written: string[] = [];
  for (const key of run.cursor.bodyKeys) {
    const body = await run.loadBody(key);
    if (!body || body.deleted) continue;
    const offered = LIST_CATALOGUE.filter((e) => body.lists[e.list] !== undefined).map((e) => e.list);
    let complete: boolean;
    if (incremental) {
      const mine = lists.filter((l) => l.body === body.slug);
      complete = offered.every((list) => mine.some((l) => l.list === list && okIncremental.has(l.outcome)));
    } else {
      complete = offered.every((list) => run.cursor.doneLists.includes(`${key}#${list}`));
    }
    if (!complete) continue;
    if (bodyCompleteDue(body, startedAt, !incremental)) {
      await run.state.markBodyComplete(key, startedAt, !incremental);
      written.push(key);
    } else riding.push(key);
  }
  if (!incremental) return;
  const carried = run.cursor.bodiesComplete;
  for (const key of carried?.bodyKeys ?? [])
    if (!riding.includes(key) && !written.includes(key))
      await run.state.markBodyComplete(key, carried!.at, false);
  if (riding.length > 0) run.cursor.bodiesComplete = { at: startedAt, bodyKeys: riding };
  else delete run.cursor.bodiesComplete;
}

async function buildReport(
  run: OParlRun,
  continued: boolean,
  complete: boolean,
  lists: ListReport[],
): Promise<SyncReport> {
  const t = run.cursor.totals;
  const report: SyncReport = {
    sourceId: run.source.sourceId,
    runId: run.options.runId,
    kind: run.options.kind,
    requests: t.requests,
    changed: t.new + t.modified + t.deleted > 0,
    complete,
    continued,
    stopReason: run.cursor.stopReason ?? 'end',
    objects: { new: t.new, modified: t.modified, deleted: t.deleted },
    failures: run.cursor.failures,
    lists,
    sessionDays: await run.state.upcomingSessionDays(berlinDate(run.nowMs())),
    documents: t.documents,
    startedAt: run.cursor.startedAt,
    finishedAt: run.nowIso(),
  };
  if (run.cursor.flags.filterNotHonoured) report.filterNotHonoured = true;
  return report;
}

export async function finish(run: OParlRun): Promise<SyncReport> {
  run.frame.robotsForbidsAll();
  const lists = await listReports(run);
  await markBodies(run, lists);
  run.cursor.stopReason = 'end';
  const bodyListOk = !run.cursor.bodyList?.failed;
  const complete = bodyListOk && run.cursor.failures.length === 0 && listsComplete(run, lists);
  const report = await buildReport(run, false, complete, lists);
  // The per-list reports have their own items; the cursor stays small (it is written per page).
  run.frame.done({ ...report, lists: [] });
  await run.frame.checkpoint();
  run.log('done', { requests: report.requests, complete, changed: report.changed });
  return report;
}

export async function stop(run: OParlRun, reason: StopRun['reason']): Promise<SyncReport> {
  await dropPrefetch(run).catch(() => undefined);
  const task = run.cursor.task;
  if (task && reason !== 'deadline') {
    // The list in flight stays open; its marks (slow, filter …) are kept.
    await run.state.putListState({ ...task.marks, updatedAt: run.nowIso() });
    const body = await run.loadBody(task.bodyKey);
    await run.addListReport({
      body: body?.slug ?? task.bodyKey,
      list: task.list,
      mode: task.mode,
      outcome: 'open',
      pages: task.pages,
      changed: task.changed,
      filter: task.marks.filter,
      timeOfDay: task.marks.timeOfDay,
      note: task.note ?? `stopped: ${reason}`,
    });
    delete run.cursor.task;
  }
  return run.frame.stop(
    reason,
    run.options.kind === 'incremental',
    async (continued) => buildReport(run, continued, false, await listReports(run)),
    (report) => ({ ...report, lists: [] }),
  );
}
