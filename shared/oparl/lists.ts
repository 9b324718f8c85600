import { type BodyRecord, LIST_CATALOGUE, type ListEntry, type ListReport, type ListState } from '../engine';
import { bodyCompleteStartMs, type ListTask } from './cursor';
import { planList } from './decisions';
import { saveDigest } from './list-digest';
import { dropPrefetch, readPage } from './list-page';
import { newTask, setSlice } from './list-task';
import type { OParlRun } from './run-context';
import { withModifiedFilter } from './windows';

/** The lists of every body (SCH-9…SCH-12, FULL-2…FULL-7): planned, read page by page, reported. */
export async function phaseLists(run: OParlRun): Promise<void> {
  while (run.cursor.bodyIndex < run.cursor.bodyKeys.length) {
    const bodyKey = run.cursor.bodyKeys[run.cursor.bodyIndex] as string;
    const loaded = await run.loadBody(bodyKey);
    // OPT-5: a body taken down after this run listed it: its lists are not fetched.
    const body = loaded && run.takedowns.body(loaded.id) === undefined ? loaded : undefined;
    const entries =
      body && !body.deleted ? LIST_CATALOGUE.filter((e) => body.lists[e.list] !== undefined) : [];
    const states = body ? await run.state.getListStates(bodyKey) : new Map<string, ListState>();
    while (body && run.cursor.listIndex < entries.length) {
      const entry = entries[run.cursor.listIndex] as ListEntry;
      const key = `${bodyKey}#${entry.list}`;
      if (!run.cursor.task && run.cursor.doneLists.includes(key)) {
        run.cursor.listIndex += 1;
        continue;
      }
      if (!run.cursor.task) {
        const existing = states.get(entry.list);
        const plan = planList({
          kind: run.options.kind,
          entry,
          state: existing,
          bodyLastCompleteStartMs: bodyCompleteStartMs(body, run.cursor.bodiesComplete),
          nowMs: run.runStartMs,
        });
        if (plan.action === 'skip') {
          await run.addListReport({
            body: body.slug,
            list: entry.list,
            outcome: plan.outcome,
            pages: 0,
            changed: 0,
            filter: existing?.filter ?? 'unknown',
            timeOfDay: existing?.timeOfDay ?? false,
            ...(existing?.missing ? { missingSince: existing.missing.since } : {}),
            ...(existing?.slow ? { slowUntil: existing.slow.skipUntil } : {}),
            ...(existing?.catchUpSince ? { catchUpSince: existing.catchUpSince } : {}),
            note: plan.reason,
          });
          run.cursor.listIndex += 1;
          await run.frame.checkpoint();
          continue;
        }
        run.cursor.task = newTask(run, { body, entry, plan, existing });
      }
      await runTask(run, run.cursor.task, entry);
      await finishTask(run, run.cursor.task, entry, body);
    }
    run.cursor.bodyIndex += 1;
    run.cursor.listIndex = 0;
    await run.frame.checkpoint();
  }
  run.cursor.phase = run.options.kind === 'full' ? 'filter-check' : 'finish';
  await run.frame.checkpoint();
}

async function runTask(run: OParlRun, task: ListTask, entry: ListEntry): Promise<void> {
  for (;;) {
    if (task.nextUrl === null) {
      if (task.outcome !== undefined) return;
      if (task.mode === 'catchup' && task.chunks && task.step + 1 < task.chunks.length) {
        task.step += 1;
        const chunk = task.chunks[task.step] as { sinceMs: number; untilMs: number };
        task.sinceMs = chunk.sinceMs;
        task.untilMs = chunk.untilMs;
        task.visited = [];
        task.nextUrl = withModifiedFilter(task.listUrl, chunk.sinceMs, chunk.untilMs);
        continue;
      }
      if (task.mode === 'slices' && task.stepsTotal !== undefined && task.step < task.stepsTotal) {
        // FULL-6: the slice is complete; a later run resumes after it.
        task.step += 1;
        run.cursor.sliceProgress[`${task.bodyKey}#${task.list}`] = task.step;
        if (task.step < task.stepsTotal) {
          setSlice(run, task);
          continue;
        }
      }
      return;
    }
    // A page already asked (prefetched) is taken even after the deadline: it cost the server already.
    if (run.prefetched?.url !== task.nextUrl) run.frame.checkStop();
    await readPage(run, task, entry);
  }
}

async function finishTask(run: OParlRun, task: ListTask, entry: ListEntry, body: BodyRecord): Promise<void> {
  await dropPrefetch(run);
  // Issue 28: the digest first, its stamp then in the marks written below.
  await saveDigest(run, task);
  const outcome = task.outcome ?? 'done';
  let marks: ListState = { ...task.marks, updatedAt: run.nowIso() };
  if (outcome === 'done') {
    marks.lastCompleteStart = run.cursor.startedAt;
    // SCH-12: a complete read of the list since the catch-up point ends the catch-up.
    if (marks.catchUpSince !== undefined && task.mode !== 'filtered') {
      const { catchUpSince: _c, ...rest } = marks;
      marks = rest;
    }
  }
  await run.state.putListState(marks);
  const report: ListReport = {
    body: body.slug,
    list: entry.list,
    mode: task.mode,
    outcome,
    pages: task.pages,
    changed: task.changed,
    filter: marks.filter,
    timeOfDay: marks.timeOfDay,
  };
  if (marks.nextDropsFilter) report.nextDropsFilter = true;
  if (marks.missing) report.missingSince = marks.missing.since;
  if (marks.slow) report.slowUntil = marks.slow.skipUntil;
  if (marks.catchUpSince) report.catchUpSince = marks.catchUpSince;
  if (task.mode === 'slices' && task.stepsTotal !== undefined) {
    report.slices = {
      done: run.cursor.sliceProgress[`${task.bodyKey}#${task.list}`] ?? 0,
      total: task.stepsTotal,
    };
  }
  if (task.note) report.note = task.note;
  await run.addListReport(report);
  if (run.options.kind !== 'incremental' && (outcome === 'done' || outcome === 'missing')) {
    run.cursor.doneLists.push(`${task.bodyKey}#${task.list}`);
  }
  delete run.cursor.task;
  run.cursor.listIndex += 1;
  await run.frame.checkpoint();
}
