import { createRunContext, type RunContext } from '../fetch';
import { fileKey } from '../mirror';
import { type BusyHost, passAdmission } from './admission';
import {
  CACHE_MAX_FILE_BYTES,
  CACHE_MAX_FILES_PER_RUN,
  CACHE_MAX_FILES_PER_SOURCE,
  DISABLE_MAX_ITEMS_PER_SOURCE,
  FILES_HOSTS_IN_PARALLEL,
} from './constants';
import {
  applyCounted,
  countOutcome,
  type DocumentsDeps,
  documentsStoreOf,
  forEachGroup,
  hostOf,
  isListed,
  isTakenDown,
  loadSourceContexts,
  type PassOptions,
  type PassRun,
  pastDeadline,
  type SourceRun,
  takenDownNow,
  unlistedNow,
} from './context';
import { cacheChange, disableChange, takenDownChange, unlistedChange } from './decide';
import { shards } from './keys';
import { deleteObjects, fetchFileToS3, fetchSourceOf } from './objects';
import { routeIntake, unparkDocuments } from './route';
import { runTextPass } from './text';
import type { DocumentChange, DocumentItem, OutcomeCounts } from './types';

/**
 * The document cache (hourly; SPEC DOC-1 … DOC-7, ERR-6): due files through the index, at most 400
 * per run and 200 per source, each streamed into S3 under `files/<sourceId>/<docId>` (multipart,
 * stopping at 80 MB) with its SHA-256, size, type and validators recorded — then text (DOC-2).
 *
 * Crash safety: the upload goes first, under a key that follows from the document alone; the record is
 * written after the upload completed, conditionally on the item still waiting where it was read. A run
 * that dies in between leaves the document due with an object the next run overwrites (fetched again)
 * or deletes (any other outcome) — never a record pointing at a missing object.
 */
export interface FilesPassReport {
  routed: OutcomeCounts;
  unparked: number;
  /** Cache outcomes: stored, retrying, gone-provisional, gone, blocked-robots, blocked-html, too-large,
   * disabled, unlisted, deferred, error, moved-meanwhile. */
  files: OutcomeCounts;
  text: OutcomeCounts;
  sources: { sourceId: string; selected: number; gate: string; ruleIds: string[] }[];
  invalidSources: string[];
  /** Item 5 of issue 27: hosts this pass skipped (sync runs first, RATE-8 pauses), and why. */
  busyHosts: BusyHost[];
}

/** A files pass's options. */
export interface FilesPassOptions extends PassOptions {
  /**
   * Servers downloaded from at once (default FILES_HOSTS_IN_PARALLEL): benches and tests compare widths with
   * it (issue 28, bench/files-politeness.ts); the functions keep the default.
   */
  hostsAtOnce?: number;
}

export async function runFilesPass(deps: DocumentsDeps, options: FilesPassOptions): Promise<FilesPassReport> {
  const { now } = options;
  const store = documentsStoreOf(deps);
  const { contexts, invalid } = await loadSourceContexts(deps, now);
  // Item 5 of issue 27: per host, whether this pass may fetch there (RATE-9, RATE-8).
  const admission = await passAdmission(deps.hostBudget, contexts, now);
  const routed = await routeIntake(deps, store, now);
  const unparked = await unparkDocuments(store, contexts, now);
  const files: OutcomeCounts = {};
  const pass: PassRun = { deps, store, now, counts: files };

  // DOC-1 / DOC-5: due documents of sources that are off end their attempts.
  for (const ctx of contexts) {
    if (!ctx.gate.disable) continue;
    const due = await store.queryDue(
      shards.cache(ctx.source.sourceId),
      now.toISOString(),
      DISABLE_MAX_ITEMS_PER_SOURCE,
    );
    for (const item of due) await settle(pass, item, disableChange(item, now));
  }

  // DOC-3: per source at most 200, in all at most 400, taken in turns so no source starves another.
  const picked = new Map<string, DocumentItem[]>();
  for (const ctx of contexts) {
    if (!ctx.gate.cache) continue;
    const due = await store.queryDue(
      shards.cache(ctx.source.sourceId),
      now.toISOString(),
      CACHE_MAX_FILES_PER_SOURCE,
    );
    if (due.length > 0) picked.set(ctx.source.sourceId, due);
  }
  const selected = roundRobin([...picked.values()], CACHE_MAX_FILES_PER_RUN);
  const byId = new Map(contexts.map((c) => [c.source.sourceId, c]));
  const runContexts = new Map<string, RunContext>();
  const byHost = new Map<string, DocumentItem[]>();
  for (const item of selected) {
    const host = hostOf(item.url);
    byHost.set(host, [...(byHost.get(host) ?? []), item]);
  }
  // Different servers in parallel, one server's files in order: the fetcher paces each server (RATE).
  let done = 0;
  const progressed = (host: string) =>
    options.onProgress?.({ stage: 'files', done: ++done, total: selected.length, host });
  await forEachGroup(byHost, options.hostsAtOnce ?? FILES_HOSTS_IN_PARALLEL, async (host, item) => {
    try {
      await cacheSelected(item);
    } finally {
      progressed(host);
    }
  });
  async function cacheSelected(item: DocumentItem): Promise<void> {
    const ctx = byId.get(item.sourceId);
    if (!ctx || pastDeadline(options)) {
      countOutcome(files, 'not-started');
      return;
    }
    if (!admission.allows(hostOf(item.url))) {
      // Its host is busy with syncs or paused: untouched, the document stays due for the next pass.
      countOutcome(files, 'host-busy');
      return;
    }
    let runContext = runContexts.get(item.sourceId);
    if (!runContext) {
      runContext = createRunContext(item.sourceId);
      runContexts.set(item.sourceId, runContext);
    }
    try {
      await cacheOne({ ...pass, ctx, runContext }, item);
    } catch (error) {
      // Our side failed (S3, DynamoDB): the document stays due and is tried by the next run.
      countOutcome(files, 'error');
      deps.log?.('document cache error', { docId: item.docId, error: String(error) });
    }
  }

  const text = await runTextPass({ deps, store, contexts, options, admission });
  // The pass's requests into the host ledger: the planner's and the next pass's other-fetch share.
  await deps.hostBudget?.record();
  const report: FilesPassReport = {
    routed,
    unparked,
    files,
    text,
    sources: contexts.map((c) => ({
      sourceId: c.source.sourceId,
      selected: selected.filter((i) => i.sourceId === c.source.sourceId).length,
      gate: c.gate.reason,
      ruleIds: c.gate.ruleIds,
    })),
    invalidSources: invalid,
    busyHosts: admission.busy,
  };
  deps.log?.('files pass', { files, text, routed, unparked, busyHosts: admission.busy.length });
  return report;
}

async function cacheOne(run: SourceRun, item: DocumentItem): Promise<void> {
  const { deps, ctx, now, runContext } = run;
  if (isTakenDown(ctx, item)) {
    await settle(run, item, takenDownChange());
    return;
  }
  // DOC-7: documents of unlisted bodies are not stored (their text still is, ONB-4).
  if (!isListed(ctx, item)) {
    await settle(run, item, unlistedChange(item, now, ctx.gate.textFromSource));
    return;
  }
  const key = fileKey(item.sourceId, item.docId);
  const outcome = await fetchFileToS3(
    {
      fetcher: deps.fetcher,
      s3: deps.s3,
      bucket: deps.bucket,
      source: fetchSourceOf(ctx.source),
      hostIntervalMs: ctx.hostIntervalMs,
      runContext,
    },
    item.url,
    key,
    { maxBytes: CACHE_MAX_FILE_BYTES },
  );
  if (outcome.kind === 'stored') {
    const [takenDown, unlisted] = await Promise.all([takenDownNow(deps, item), unlistedNow(deps, item)]);
    if (takenDown) {
      // OPT-5: taken down while the file was fetched — the new copy is not kept, the item leaves the queue.
      await settle(run, item, takenDownChange());
      return;
    }
    if (unlisted) {
      // DOC-7: unlisted while the file was fetched (the pass read the listing at its start) — no copy.
      await settle(run, item, unlistedChange(item, now, ctx.gate.textFromSource));
      return;
    }
  }
  const change = cacheChange(item, outcome, now);
  if (outcome.kind === 'stored') {
    // The record only after the upload completed; a lost race leaves the object for the next run.
    await applyCounted(run, item, change);
    return;
  }
  await settle(run, item, change);
}

/**
 * Applies a change that leaves no copy. A document we never recorded a copy of may still have an
 * object under its key from a run that died between upload and record: it is deleted first.
 */
async function settle(pass: PassRun, item: DocumentItem, change: DocumentChange): Promise<void> {
  if (item.storedKey === undefined) {
    await deleteObjects(pass.deps.s3, pass.deps.bucket, [fileKey(item.sourceId, item.docId)]);
  }
  await applyCounted(pass, item, change);
}

/** Takes one item from each list in turn until `limit` (DOC-3: fair between sources). */
export function roundRobin<T>(lists: T[][], limit: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < limit; i++) {
    let any = false;
    for (const list of lists) {
      const item = list[i];
      if (item === undefined) continue;
      any = true;
      out.push(item);
      if (out.length >= limit) break;
    }
    if (!any) break;
  }
  return out;
}
