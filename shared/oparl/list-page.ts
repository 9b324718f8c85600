import {
  carriesTimeOfDay,
  isDeleted,
  type ListEntry,
  modifiedMs,
  type OParlObject,
  type PageValidator,
  pageGoesBack,
  pageItems,
  pageNext,
  StopRun,
} from '../engine';
import { isIngestorError } from '../errors';
import { MAX_PAGES_PER_LIST, UNFILTERED_STOP_AFTER_UNCHANGED_PAGES } from './constants';
import type { ListTask } from './cursor';
import { clearMissing, clearSlow, outsideFilter } from './decisions';
import { parseOParlJson } from './json';
import { digestFor } from './list-digest';
import { onListError } from './list-errors';
import { nextStepUrl } from './list-task';
import { hostOf, pruneValidators, rememberPage, urlKey } from './pages';
import { OParlFetchError, type OParlResponse } from './ports';
import type { OParlRun } from './run-context';
import { carriesFilter, formatFilterTime, withModifiedFilter, withoutModifiedFilter } from './windows';

/**
 * One page of a list: read, filter evidence (SCH-10, FULL-7), validators (B-1), where the list goes next,
 * its objects written — and the next page asked meanwhile (the prefetch).
 */
export async function readPage(run: OParlRun, task: ListTask, entry: ListEntry): Promise<void> {
  const page: PageRead = { run, task, entry, url: task.nextUrl as string };
  const validator = task.marks.validators?.[urlKey(page.url)];
  const res = await fetchOrTake(run, page.url, entry.list, validator);
  if (res instanceof OParlFetchError) {
    await onListError(run, task, entry, res);
    return;
  }
  task.marks = clearSlow(task.marks);
  if (task.marks.missing) task.marks = clearMissing(task.marks);

  const seen = await readBody(page, res, validator);
  if (!seen) return; // the list failed on this page; checkpointed
  let next = seen.next;
  if (isFiltered(task) && !seen.notModified) next = weighFilterEvidence(page, seen.items, next);
  noteServerMarks(page, seen, next);
  next = whereNext(page, next);
  prefetchUpcoming(page, next);
  const changed = await writeObjects(page, seen);
  task.changed += changed;
  next = stopUnfilteredWhenUnchanged(task, changed, next);
  task.nextUrl = next ?? null;
  await run.frame.checkpoint();
}

/** The page being read: its run, its list's task and entry, and its URL. */
interface PageRead {
  run: OParlRun;
  task: ListTask;
  entry: ListEntry;
  url: string;
}

/** What a page said: its objects and `links.next` — for a 304 (B-1), the `next` remembered with it. */
interface PageSeen {
  res: OParlResponse;
  items: OParlObject[];
  next: string | undefined;
  notModified: boolean;
}

function isFiltered(task: ListTask): boolean {
  return task.sinceMs !== undefined || task.untilMs !== undefined;
}

/**
 * The page's objects and `links.next`. `undefined` when it cannot be read — invalid JSON, or beyond the
 * nesting / size bounds: this list fails (checkpointed), the others go on.
 */
async function readBody(
  page: PageRead,
  res: OParlResponse,
  validator: PageValidator | undefined,
): Promise<PageSeen | undefined> {
  if (res.status === 304 && validator !== undefined) {
    // B-1: the page is what we processed last time; only its `links.next` matters.
    return { res, items: [], next: validator.next ?? undefined, notModified: true };
  }
  let parsed: unknown;
  try {
    parsed = parseOParlJson(res.text);
  } catch (err) {
    const { run, task, entry, url } = page;
    const code = isIngestorError(err) ? err.code : 'OPARL_INVALID_JSON';
    run.frame.failure({
      kind: 'other',
      url,
      list: entry.list,
      detail: `${code}: ${(err as Error).message}`,
    });
    task.outcome = 'failed';
    task.note = code === 'OPARL_INVALID_JSON' ? 'invalid JSON' : code;
    task.nextUrl = null;
    await run.frame.checkpoint();
    return undefined;
  }
  return { res, items: pageItems(parsed), next: pageNext(parsed, res.url), notModified: false };
}

/**
 * SCH-10 / FULL-7: whether the server honoured the `modified` filter, judged by the objects it sent.
 * An object outside the window means it did not: a full sync stops (StopRun), any other read goes on
 * without the filter and compares itself (a catch-up starts the list over). Returns where the list goes next.
 */
function weighFilterEvidence(
  page: PageRead,
  items: OParlObject[],
  next: string | undefined,
): string | undefined {
  const { run, task, url } = page;
  const live = items.filter((i) => !isDeleted(i));
  const off = outsideFilter(
    live.map((i) => modifiedMs(i)),
    task.sinceMs,
    task.untilMs,
  );
  // Formatted only for the evidence written (issue 28: an unchanged run's pages write none).
  const range = () =>
    `${task.sinceMs !== undefined ? formatFilterTime(task.sinceMs) : '…'} – ${
      task.untilMs !== undefined ? formatFilterTime(task.untilMs) : '…'
    }`;
  if (off === undefined) {
    if (live.length > 0 && task.marks.filter !== 'supported') {
      task.marks = {
        ...task.marks,
        filter: 'supported',
        filterEvidence: `${live.length} object(s) within ${range()}`,
        filterCheckedAt: run.nowIso(),
      };
    }
    return next;
  }
  const evidence = `object modified ${formatFilterTime(off)} outside ${range()}`;
  task.marks = {
    ...task.marks,
    filter: 'ignored',
    filterEvidence: evidence,
    filterCheckedAt: run.nowIso(),
  };
  if (task.mode === 'slices') {
    // FULL-7: take nothing from this page, abort the full sync.
    run.cursor.flags.filterNotHonoured = true;
    task.outcome = 'open';
    task.note = `FULL-7: filter not honoured (${evidence})`;
    task.nextUrl = null;
    run.log('filter-not-honoured', { url, evidence });
    throw new StopRun('filter-not-honoured');
  }
  // SCH-10: the filter is ignored; compare ourselves from here on.
  run.log('filter-ignored', { url, evidence });
  const wasCatchup = task.mode === 'catchup';
  task.mode = 'unfiltered';
  delete task.sinceMs;
  delete task.untilMs;
  task.unchangedPages = 0;
  if (!wasCatchup) return next;
  delete task.chunks;
  task.visited = [];
  return withoutModifiedFilter(task.listUrl);
}

/** What the page tells about the server: times of day, change dates, and its validators (B-1). */
function noteServerMarks(page: PageRead, seen: PageSeen, next: string | undefined): void {
  const { run, task, url } = page;
  const live = seen.items.filter((i) => !isDeleted(i));
  if (live.some((i) => carriesTimeOfDay(i.modified))) task.marks.timeOfDay = true;
  if (live.some((i) => modifiedMs(i) !== undefined)) task.marks.changeSeen = true;
  const { etag, 'last-modified': lastModified } = seen.res.headers;
  if (seen.notModified || (etag === undefined && lastModified === undefined)) return;
  task.marks.validators = pruneValidators({
    ...(task.marks.validators ?? {}),
    [urlKey(url)]: {
      ...(etag !== undefined ? { etag } : {}),
      ...(lastModified !== undefined ? { lastModified } : {}),
      next: next ?? null,
      at: run.nowIso(),
    },
  });
}

/**
 * Where the list goes next — decided from the page itself, before its objects are written: never to
 * another host, the filter carried (SCH-10), no cycles, at most MAX_PAGES_PER_LIST pages.
 */
function whereNext(page: PageRead, linked: string | undefined): string | undefined {
  const { task, url } = page;
  let next = linked;
  task.pages += 1;
  rememberPage(task.visited, urlKey(url));
  if (next !== undefined && hostOf(next) !== hostOf(task.listUrl)) {
    // Never follow a list to another host (its robots.txt and pace are not this source's).
    task.note = `links.next points to another host (${hostOf(next)}); not followed`;
    task.outcome = 'open';
    next = undefined;
  }
  if (next !== undefined && isFiltered(task) && !carriesFilter(next, task.sinceMs, task.untilMs)) {
    // SCH-10: the server filters but drops the filter from links.next: carry it ourselves.
    next = withModifiedFilter(next, task.sinceMs, task.untilMs);
    task.marks.nextDropsFilter = true;
  }
  if (next !== undefined && (task.visited.includes(urlKey(next)) || pageGoesBack(url, next))) {
    task.note = 'links.next repeats a page (cycle); list ended there';
    next = undefined;
  }
  if (next !== undefined && task.pages >= MAX_PAGES_PER_LIST) {
    task.note = `stopped after ${task.pages} pages`;
    task.outcome = 'open';
    next = undefined;
  }
  return next;
}

/**
 * The pace is the server's (1 request/s); our writes must not add to it. The next page is asked while
 * this one is written — unless whether to ask depends on what this page changes (SCH-10).
 */
function prefetchUpcoming(page: PageRead, next: string | undefined): void {
  const { run, task, entry } = page;
  const upcoming = next ?? (task.outcome === undefined ? nextStepUrl(run, task) : undefined);
  const mayStop =
    task.mode === 'unfiltered' && task.unchangedPages + 1 >= UNFILTERED_STOP_AFTER_UNCHANGED_PAGES;
  if (upcoming !== undefined && !mayStop && !stopDue(run)) {
    startPrefetch(run, upcoming, entry.list, task.marks.validators?.[urlKey(upcoming)]);
  }
}

/** Writes the page's objects; how many changed. */
async function writeObjects(page: PageRead, seen: PageSeen): Promise<number> {
  const { run, task, entry } = page;
  return run.processObjects(seen.items, {
    listType: entry.type,
    pageUrl: seen.res.url,
    body: await run.loadBody(task.bodyKey),
    digest: seen.items.length > 0 ? await digestFor(run, task) : undefined,
  });
}

/** SCH-10: without a working filter, stop after 5 pages in a row without change. */
function stopUnfilteredWhenUnchanged(
  task: ListTask,
  changed: number,
  next: string | undefined,
): string | undefined {
  if (task.mode !== 'unfiltered') return next;
  task.unchangedPages = changed === 0 ? task.unchangedPages + 1 : 0;
  if (next === undefined || task.unchangedPages < UNFILTERED_STOP_AFTER_UNCHANGED_PAGES) return next;
  task.note = `SCH-10: stopped after ${task.unchangedPages} unchanged pages`;
  return undefined;
}

/** Whether the budget or the own window forbids starting another request (see `checkStop`). */
function stopDue(run: OParlRun): boolean {
  try {
    run.frame.checkStop();
    return false;
  } catch {
    return true;
  }
}

function startPrefetch(run: OParlRun, url: string, list: string, validator: PageValidator | undefined): void {
  // A crash of the port (not a typed fetch failure) surfaces when the page is taken, like a direct call.
  const promise = run.request(url, list, validator).catch((error: unknown) => ({ crash: error }));
  run.prefetched = { url, promise };
}

/** The prefetched answer for `url`, or a fresh request. A prefetch for another URL is dropped. */
async function fetchOrTake(
  run: OParlRun,
  url: string,
  list: string,
  validator: PageValidator | undefined,
): Promise<OParlResponse | OParlFetchError> {
  const pending = run.prefetched;
  run.prefetched = undefined;
  if (pending) {
    const result = await pending.promise;
    if ('crash' in result) throw result.crash;
    if (pending.url === url) return result;
  }
  return run.request(url, list, validator);
}

/** Waits for a prefetch nobody will take (it is counted), so no request outlives the run. */
export async function dropPrefetch(run: OParlRun): Promise<void> {
  const pending = run.prefetched;
  run.prefetched = undefined;
  if (pending) {
    const result = await pending.promise;
    if ('crash' in result) throw result.crash;
  }
}
