import type { BodyRecord, ListEntry, ListState } from '../engine';
import type { ListTask } from './cursor';
import { type ListPlan, newListState } from './decisions';
import type { OParlRun } from './run-context';
import { timeSlices, withModifiedFilter, withoutModifiedFilter } from './windows';

/** The list a task is started for: its body, its entry in the run list, the plan read for it. */
export interface ListToRead {
  body: BodyRecord;
  entry: ListEntry;
  plan: ListPlan & { action: 'read' };
  /** The list's stored marks, when it was read before. */
  existing?: ListState;
}

/** A list's task: its mode, filter window, catch-up chunks (SCH-12) and time slices (FULL-5/6). */
export function newTask(run: OParlRun, list: ListToRead): ListTask {
  const { body, entry, plan, existing } = list;
  const listUrl = body.lists[entry.list] as string;
  const marks: ListState = {
    ...(existing ?? newListState(body.bodyKey, entry.list, listUrl)),
    url: listUrl,
  };
  const task: ListTask = {
    bodyKey: body.bodyKey,
    list: entry.list,
    listUrl,
    mode: plan.mode,
    step: 0,
    nextUrl: null,
    pages: 0,
    unchangedPages: 0,
    visited: [],
    changed: 0,
    marks,
  };
  switch (plan.mode) {
    case 'filtered':
      task.sinceMs = plan.sinceMs;
      task.windowSinceMs = plan.sinceMs;
      task.nextUrl = withModifiedFilter(listUrl, plan.sinceMs, undefined);
      break;
    case 'unfiltered':
    case 'full':
      task.nextUrl = withoutModifiedFilter(listUrl);
      break;
    case 'catchup': {
      task.chunks = plan.chunks;
      const first = plan.chunks[0];
      if (first) {
        task.sinceMs = first.sinceMs;
        task.untilMs = first.untilMs;
        task.windowSinceMs = first.sinceMs;
        task.nextUrl = withModifiedFilter(listUrl, first.sinceMs, first.untilMs);
      }
      break;
    }
    case 'slices': {
      task.stepsTotal = plan.slices.length;
      task.step = run.cursor.sliceProgress[`${body.bodyKey}#${entry.list}`] ?? 0;
      setSlice(run, task);
      break;
    }
  }
  return task;
}

/** Points the task at its current slice (FULL-5: `modified_until` only for the first, both after). */
export function setSlice(run: OParlRun, task: ListTask): void {
  const slice = timeSlices(run.runStartMs)[task.step];
  task.visited = [];
  if (!slice) {
    task.nextUrl = null;
    delete task.sinceMs;
    delete task.untilMs;
    return;
  }
  if (slice.sinceMs === undefined) delete task.sinceMs;
  else task.sinceMs = slice.sinceMs;
  task.untilMs = slice.untilMs;
  task.nextUrl = withModifiedFilter(task.listUrl, slice.sinceMs, slice.untilMs);
}

/** The first URL of the next catch-up chunk or slice, when the current one is the last page. */
export function nextStepUrl(run: OParlRun, task: ListTask): string | undefined {
  if (task.mode === 'catchup' && task.chunks) {
    const chunk = task.chunks[task.step + 1];
    return chunk ? withModifiedFilter(task.listUrl, chunk.sinceMs, chunk.untilMs) : undefined;
  }
  if (task.mode === 'slices' && task.stepsTotal !== undefined && task.step + 1 < task.stepsTotal) {
    const slice = timeSlices(run.runStartMs)[task.step + 1];
    return slice ? withModifiedFilter(task.listUrl, slice.sinceMs, slice.untilMs) : undefined;
  }
  return undefined;
}
