import { isRecord, type ListEntry } from '../engine';
import { CHANGE_WINDOW_MARGIN_MS, PAGE_TIMEOUT_MS } from './constants';
import type { ListTask } from './cursor';
import { FILTER_REJECT_STATUSES, markMissing, markSlow } from './decisions';
import { parseOParlJson } from './json';
import type { OParlFetchError } from './ports';
import type { OParlRun } from './run-context';
import { withoutModifiedFilter } from './windows';

/** A list page that failed: slow (SCH-12), missing (SCH-11), filter rejected (SCH-10, FULL-5) or failed. */

/** SD.NET answers an empty filtered page with 404 and `[]` or an error text saying "no results". */
function looksLikeNoResults(bodyText: string | undefined): boolean {
  if (bodyText === undefined) return false;
  const t = bodyText.trim();
  if (t === '' || t === '[]') return true;
  try {
    const parsed = parseOParlJson(t);
    if (Array.isArray(parsed)) return parsed.length === 0;
    if (isRecord(parsed) && Array.isArray(parsed.data)) return parsed.data.length === 0;
  } catch {
    // not JSON: fall through to the text check
  }
  // "Keine Treffer", "no results" … — but not a generic "Not Found", which is what a missing list says.
  return /\bkeine\b|\bno (results|data|objects|entries|matches)\b/i.test(t);
}

/** A list page that failed, with what its handling needs. */
interface FailedPage {
  run: OParlRun;
  task: ListTask;
  entry: ListEntry;
  err: OParlFetchError;
  /** The HTTP status, when the failure was one. */
  status: number | undefined;
}

export async function onListError(
  run: OParlRun,
  task: ListTask,
  entry: ListEntry,
  err: OParlFetchError,
): Promise<void> {
  run.checkRunFailure(err, entry.list);
  const status = err.failure === 'HTTP_STATUS' ? err.status : undefined;
  const page: FailedPage = { run, task, entry, err, status };
  if (err.failure === 'ROBOTS_DISALLOWED')
    return endList(page, 'open', 'robots.txt disallows this list (ROB-8)');
  if (err.failure === 'TIMEOUT' || status === 504) return onSlowList(page);

  // SCH-10: a 404 to a filtered request that is not SD.NET's "no results" (onNotFound) — an HTML "Not
  // Found", as SOMACOS servers answer a percent-encoded filter value — says nothing about changes. Taken
  // for an empty page, every incremental would mirror nothing and report the list unchanged; it is
  // handled as the filter rejected instead (read without it, compare ourselves).
  const filterSent = task.sinceMs !== undefined || task.untilMs !== undefined;
  let filterRefused = status !== undefined && filterSent && FILTER_REJECT_STATUSES.includes(status);
  if (status === 404) {
    if ((await onNotFound(page)) === 'ended') return;
    filterRefused = true;
  }
  if (filterRefused && (await onFilterRefused(page)) === 'handled') return;
  return failList(page);
}

/** Ends the list for this run: its outcome (unless left as is), a note, no next page; checkpointed. */
async function endList(
  page: FailedPage,
  outcome: ListTask['outcome'] | undefined,
  note: string,
): Promise<void> {
  const { run, task } = page;
  if (outcome !== undefined) task.outcome = outcome;
  task.note = note;
  task.nextUrl = null;
  await run.frame.checkpoint();
}

/**
 * SCH-12: no answer in time (or a 504). A mandatory list fails; an optional one is skipped for a while
 * and caught up later from the window this run asked, else from the list's last complete read.
 */
function onSlowList(page: FailedPage): Promise<void> {
  const { run, task, entry, err, status } = page;
  const what = status === 504 ? 'HTTP 504' : `no answer within ${PAGE_TIMEOUT_MS / 1000} s`;
  if (entry.mandatory) {
    run.frame.failure({
      kind: 'other',
      url: err.url,
      list: entry.list,
      detail: `${what} (mandatory list)`,
      ...(status ? { status } : {}),
    });
    return endList(page, 'failed', `${what}; mandatory lists are never skipped (SCH-12)`);
  }
  const lastComplete = task.marks.lastCompleteStart;
  const catchUpFromMs =
    task.windowSinceMs ??
    task.sinceMs ??
    (lastComplete !== undefined ? Date.parse(lastComplete) - CHANGE_WINDOW_MARGIN_MS : undefined);
  task.marks = markSlow(task.marks, entry, run.nowMs(), catchUpFromMs);
  return endList(page, 'slow', `SCH-12: ${what}; skipped until ${task.marks.slow?.skipUntil}`);
}

/**
 * A 404: an empty page (SD.NET's "no results"), a list that is not there (SCH-11), a mandatory list
 * failing — each ends the list — or, to a filtered request, the filter refused (SCH-10).
 */
async function onNotFound(page: FailedPage): Promise<'ended' | 'filter-refused'> {
  const { run, task, entry, err } = page;
  const filterSent = task.sinceMs !== undefined || task.untilMs !== undefined;
  if (task.mode === 'slices' && !entry.mandatory && !looksLikeNoResults(err.bodyText)) {
    // Not an empty slice but a list that is not there (SCH-11): no further slices are asked.
    task.marks = markMissing(task.marks, run.nowMs(), 404);
    await endList(page, 'missing', 'SCH-11: optional list answered 404');
    return 'ended';
  }
  if (filterSent) {
    if (task.marks.missing && !entry.mandatory) {
      // SCH-11: SD.NET answers the daily check with "no results": the note stays.
      task.marks = markMissing(task.marks, run.nowMs(), 404);
      await endList(page, 'missing', 'SCH-11: still no results (404); next check in a day');
      return 'ended';
    }
    // SD.NET / Sternberg: an empty filtered page is a 404 with an error body or `[]`.
    if (!looksLikeNoResults(err.bodyText)) return 'filter-refused';
    await endList(page, undefined, 'empty filtered page answered 404');
    return 'ended';
  }
  if (!entry.mandatory) {
    task.marks = markMissing(task.marks, run.nowMs(), 404);
    await endList(page, 'missing', 'SCH-11: optional list answered 404');
    return 'ended';
  }
  if (looksLikeNoResults(err.bodyText)) {
    await endList(page, undefined, 'empty list answered 404');
    return 'ended';
  }
  run.frame.failure({
    kind: 'other',
    url: err.url,
    list: entry.list,
    status: 404,
    detail: 'mandatory list answered 404',
  });
  await endList(page, 'failed', 'mandatory list answered 404');
  return 'ended';
}

/**
 * The filter refused: a full sync's slice leaves the list open (FULL-5); any other read starts the list
 * over without the filter, once (SCH-10). `failed` when it was refused again without the filter.
 */
async function onFilterRefused(page: FailedPage): Promise<'handled' | 'failed'> {
  const { run, task, status } = page;
  const evidence = `HTTP ${status} to a filtered request`;
  if (task.mode === 'slices') {
    task.marks = {
      ...task.marks,
      filter: 'rejected',
      filterEvidence: evidence,
      filterCheckedAt: run.nowIso(),
    };
    await endList(page, 'open', 'FULL-5: filter rejected; the list stays open (never asked without filter)');
    return 'handled';
  }
  if (task.filterRetried) return 'failed';
  // SCH-10: rejected — read the list from the start without filter, compare ourselves.
  task.filterBefore = task.marks.filter;
  task.filterRetried = true;
  task.marks = {
    ...task.marks,
    filter: 'rejected',
    filterEvidence: evidence,
    filterCheckedAt: run.nowIso(),
  };
  task.mode = 'unfiltered';
  delete task.sinceMs;
  delete task.untilMs;
  delete task.chunks;
  task.unchangedPages = 0;
  task.visited = [];
  task.nextUrl = withoutModifiedFilter(task.listUrl);
  await run.frame.checkpoint();
  return 'handled';
}

/** Any other failure: the list failed for this run (with the status, when it was one). */
function failList(page: FailedPage): Promise<void> {
  const { run, task, entry, err, status } = page;
  if (task.filterRetried && task.filterBefore !== undefined && (status === 401 || status === 403)) {
    // The unfiltered request is refused too: the server refuses us, not the filter.
    task.marks = { ...task.marks, filter: task.filterBefore };
  }
  run.frame.failure({
    kind: 'other',
    url: err.url,
    list: entry.list,
    detail: err.message,
    ...(status !== undefined ? { status } : {}),
  });
  return endList(page, 'failed', status !== undefined ? `HTTP ${status}` : err.failure.toLowerCase());
}
