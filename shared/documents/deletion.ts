import { createRunContext, type RunContext } from '../fetch';
import { fileKey, textKey } from '../mirror';
import { DeletionRuns, type SampleWalkCursor } from '../store';
import { createGate, type Gate } from '../util';
import { type BusyHost, passAdmission } from './admission';
import {
  CACHE_MAX_FILE_BYTES,
  DEL_BODIES_IN_PARALLEL,
  DEL_HOSTS_IN_PARALLEL,
  DEL_MAX_ERRORS_IN_ROW,
  DEL_MAX_RECHECKS_PER_RUN,
  DEL_MAX_REFETCHES_PER_RUN,
  DEL_RECHECKS,
  DEL_SAMPLES_PER_BODY,
  DEL_SERVER_SPACING_MS,
  DEL_SOURCE_REST_NEW_GONE,
} from './constants';
import {
  countOutcome,
  type DocumentsDeps,
  documentsStoreOf,
  forEachGroup,
  hostOf,
  isTakenDown,
  type LoadedContexts,
  listedBodies,
  loadSourceContexts,
  type PassOptions,
  pastDeadline,
  type SourceContext,
} from './context';
import {
  type CheckAnswer,
  checkAnswerOfError,
  checkAnswerOfStatus,
  finalizeDeletionChange,
  nextCheckAtMs,
  noteServerAnswer,
  recheckChange,
  recheckMethod,
  refetchChange,
  type ServerRunState,
  sampleChange,
  takenDownChange,
} from './decide';
import { type DeletionRunFit, type DeletionRunMeasure, measuredSampleFit } from './deletion-fit';
import { type DeletionShard, deletionShardsFor, hostShard } from './deletion-shards';
import { shards, walkCursorId } from './keys';
import { deleteObjects, type FileFetchContext, fetchFileToS3, fetchSourceOf } from './objects';
import { routeIntake } from './route';
import { BodyWalk } from './sample-walk';
import { afterChange, type DocumentsStore } from './store';
import type { DocumentChange, DocumentItem, FetchOutcome, OutcomeCounts } from './types';

/**
 * The deletion check (hourly; SPEC DEL-1 … DEL-5, RATE-6, B-1):
 * - DEL-1 documents the source changed are re-fetched conditionally (≤ 200 per run): a 304 costs nothing;
 * - DEL-2 HEAD samples of stored documents, only for listed bodies, ≤ 30 per body and run; a HEAD that
 *   leaves it unclear is followed by one GET, which keeps only the shared pace (RATE-6);
 * - DEL-3 documents gone with 404/410 are re-checked after 1, 7 and 25 days, and after 30 days asked once
 *   more with a GET: still missing → our copy and text are deleted; present → the mark is lifted;
 * - DEL-4 after 429/503 or five errors in a row the run asks that server nothing more; a source with
 *   more than 10 newly gone documents rests for the rest of the run;
 * - DEL-5 it depends on file fetching (DOC-1) and ERR-6 only, not on the source being active;
 * - RATE-6 at least 2 s between two checks of one server within the run, on top of the shared pace.
 * Many servers are asked at once (DEL_HOSTS_IN_PARALLEL: HEADs carry no body), each one's checks one
 * after the other; whole-file GETs pass a narrower gate (DEL_BODIES_IN_PARALLEL) so memory stays bounded.
 */
export interface DeletionReport {
  routed: OutcomeCounts;
  /** `<task>:<outcome>`, e.g. `sample:unchanged`, `refetch:not-modified`, `recheck:deleted`. */
  checks: OutcomeCounts;
  /** Requests sent to council servers (HEAD and GET). */
  requests: number;
  /** DEL-4: sources that rested for the rest of this run, with their newly gone count. */
  restingSources: { sourceId: string; newGone: number }[];
  /** DEL-4: servers asked nothing more in this run. */
  stoppedServers: { host: string; reason: string }[];
  invalidSources: string[];
  /** Item 5 of issue 27: servers this run did not start on (sync runs first, RATE-8 pauses), and why. */
  busyHosts: BusyHost[];
  /** Issue 28: the shard this run worked, when the hourly run is split. */
  shard?: DeletionShard;
  /** Issue 28: shards the fleet needs (`deletionShardsFor`); above `shard.of` (or 1) it outgrew them. */
  shardsNeeded: number;
  /** Issue 28 / DEL-2: what this run measured (stored for `status`), and the sample interval it keeps. */
  measured: DeletionRunMeasure & DeletionRunFit;
}

type TaskKind = 'refetch' | 'recheck' | 'sample';
interface Task {
  kind: TaskKind;
  item: DocumentItem;
  ctx: SourceContext;
  /** A sample from its body's walk (DEL-2): the walk and the document's place in this run's part. */
  walk?: { body: BodyWalk; index: number };
}

/** One check in progress: the pass's peers and store, the run's state, the server's DEL-4 state, the task. */
interface Check {
  deps: DocumentsDeps;
  store: DocumentsStore;
  run: RunState;
  server: ServerRunState;
  task: Task;
}

interface RunState {
  now: Date;
  checks: OutcomeCounts;
  requests: number;
  servers: Map<string, ServerRunState>;
  newGone: Map<string, number>;
  resting: Set<string>;
  runContexts: Map<string, RunContext>;
  /** Whole-file GETs in flight at once (DEL_BODIES_IN_PARALLEL). */
  bodies: Gate;
}

/** Issue 28: one shard of the hourly run (deletion-shards.ts); absent = the whole fleet. */
export interface DeletionOptions extends PassOptions {
  shard?: DeletionShard;
}

export async function runDeletionCheck(
  deps: DocumentsDeps,
  options: DeletionOptions,
): Promise<DeletionReport> {
  const { now, shard } = options;
  // The pacing clock (real in the Lambda): what the run's checks took; the deadline is wall-clock.
  const startedMs = deps.clock.now();
  const budgetMs = options.deadlineMs === undefined ? undefined : options.deadlineMs - Date.now();
  const store = documentsStoreOf(deps);
  const { contexts, invalid, shardsNeeded } = await shardContexts(deps, now, shard);
  // Item 5 of issue 27: per server, whether this check may start there (RATE-9, RATE-8).
  const admission = await passAdmission(deps.hostBudget, contexts, now);
  const routed = await routeIntake(deps, store, now);

  const { tasks, walks, bodiesAtCap } = await gatherTasks(store, contexts, now);
  const tally = { asked: 0, leftAtDeadline: 0, samples: 0 };

  const run: RunState = {
    now,
    checks: {},
    requests: 0,
    servers: new Map(),
    newGone: new Map(),
    resting: new Set(),
    runContexts: new Map(),
    bodies: createGate(DEL_BODIES_IN_PARALLEL),
  };
  const order: Record<TaskKind, number> = { refetch: 0, recheck: 1, sample: 2 };
  const byHost = new Map<string, Task[]>();
  for (const task of [...tasks].sort((a, b) => order[a.kind] - order[b.kind])) {
    const host = hostOf(task.item.url);
    byHost.set(host, [...(byHost.get(host) ?? []), task]);
  }
  let done = 0;
  await forEachGroup(byHost, DEL_HOSTS_IN_PARALLEL, async (host, task) => {
    try {
      const { outcome, settled } = await outcomeOf(host, task);
      countOutcome(run.checks, `${task.kind}:${outcome}`);
      tallyCheck(tally, task.kind, outcome);
      // DEL-2: the walk's cursor passes only documents answered or moved elsewhere.
      task.walk?.body.settle(task.walk.index, settled);
    } finally {
      options.onProgress?.({ stage: 'deletion check', done: ++done, total: tasks.length, host });
    }
  });
  async function outcomeOf(host: string, task: Task): Promise<{ outcome: string; settled: boolean }> {
    const server = serverState(run, host);
    const notAsked = (outcome: string) => ({ outcome, settled: false });
    if (pastDeadline(options)) return notAsked('not-started');
    if (run.resting.has(task.item.sourceId)) return notAsked('source-resting');
    if (server.stopped) return notAsked('server-stopped');
    // Its server is busy with syncs or paused: nothing asked, the document stays due for the next run.
    if (!admission.allows(host)) return notAsked('host-busy');
    try {
      // OPT-2: a document taken down is not fetched again (its copy goes with purge-deleted, OPT-3).
      if (isTakenDown(task.ctx, task.item)) {
        return { outcome: await applyOutcome(store, task.item, takenDownChange()), settled: true };
      }
      return { outcome: await runTask({ deps, store, run, server, task }), settled: true };
    } catch (error) {
      deps.log?.('deletion check error', { docId: task.item.docId, error: String(error) });
      return notAsked('error');
    }
  }
  // The walks' cursors to where their settled samples reach (one write a body, issue 28).
  await Promise.all(walks.map((w) => w.close()));

  const report: DeletionReport = {
    routed,
    checks: run.checks,
    requests: run.requests,
    restingSources: [...run.resting].map((sourceId) => ({
      sourceId,
      newGone: run.newGone.get(sourceId) ?? 0,
    })),
    stoppedServers: [...run.servers.entries()]
      .filter(([, s]) => s.stopped)
      .map(([host, s]) => ({ host, reason: s.stopReason ?? 'stopped' })),
    invalidSources: invalid,
    busyHosts: admission.busy,
    ...(shard ? { shard } : {}),
    shardsNeeded,
    measured: await recordMeasure(deps, {
      at: now.toISOString(),
      shard: shard ? `${shard.index + 1}/${shard.of}` : 'whole',
      seconds: (deps.clock.now() - startedMs) / 1000,
      ...(budgetMs === undefined ? {} : { budgetSeconds: budgetMs / 1000 }),
      ...tally,
      bodiesAtCap,
    }),
  };
  // The run's requests into the host ledger: the planner's and the next pass's other-fetch share.
  await deps.hostBudget?.record();
  deps.log?.('deletion check', { ...report });
  return report;
}

/** Outcomes of checks nobody asked for a reason other than the deadline (DEL-4, RATE-8/9). */
const HELD_BACK = new Set(['source-resting', 'server-stopped', 'host-busy']);

/** Issue 28 / DEL-2: a check into the run's measure — asked, or left by the deadline (held back: neither). */
function tallyCheck(
  tally: { asked: number; leftAtDeadline: number; samples: number },
  kind: TaskKind,
  outcome: string,
): void {
  if (outcome === 'not-started') tally.leftAtDeadline += 1;
  else if (!HELD_BACK.has(outcome)) {
    tally.asked += 1;
    if (kind === 'sample') tally.samples += 1;
  }
}

/**
 * Issue 28 / DEL-2: the run's measure with the sample interval it keeps, stored per shard for `status`.
 * A failed write costs the run nothing but the figure (status then shows the run before).
 */
async function recordMeasure(
  deps: DocumentsDeps,
  measure: DeletionRunMeasure,
): Promise<DeletionRunMeasure & DeletionRunFit> {
  const measured = { ...measure, ...measuredSampleFit(measure) };
  const key = measure.shard === 'whole' ? 'whole' : `s${measure.shard.replace('/', 'of')}`;
  try {
    await new DeletionRuns({ doc: deps.doc, table: deps.tables.documents }).record(key, measured);
  } catch (error) {
    deps.log?.('deletion check: measure not recorded', { shard: measure.shard, error: String(error) });
  }
  return measured;
}

/** The run's work, source by source: DEL-1 re-fetches, DEL-3 re-checks and DEL-2 samples, within their caps. */
async function gatherTasks(
  store: DocumentsStore,
  contexts: SourceContext[],
  now: Date,
): Promise<{ tasks: Task[]; walks: BodyWalk[]; bodiesAtCap: number }> {
  const nowIso = now.toISOString();
  const tasks: Task[] = [];
  const walks: BodyWalk[] = [];
  let bodiesAtCap = 0;
  let refetchLeft = DEL_MAX_REFETCHES_PER_RUN;
  let recheckLeft = DEL_MAX_RECHECKS_PER_RUN;
  // DEL-5: file fetching and ERR-6 decide; an inactive source is still checked.
  const checked = contexts.filter((ctx) => ctx.gate.deletion);
  // Issue 28: every walk's cursor in one read at the run's start (not one GetItem a body), fresh each run.
  const cursors = await store.walkCursors(
    checked.flatMap((ctx) =>
      listedBodies(ctx).map(({ bodyKey }) => walkCursorId(ctx.source.sourceId, bodyKey)),
    ),
  );
  for (const ctx of checked) {
    const id = ctx.source.sourceId;
    const refetch = await store.queryDue(shards.refetch(id), nowIso, refetchLeft);
    refetchLeft -= refetch.length;
    tasks.push(...refetch.map((item) => ({ kind: 'refetch' as const, item, ctx })));
    for (const { bodyKey } of listedBodies(ctx)) {
      // DEL-3 (seed: "bei öffentlich gelisteten Kommunen") and DEL-2: listed bodies only.
      const recheck = await store.queryDue(shards.recheck(id, bodyKey), nowIso, recheckLeft);
      recheckLeft -= recheck.length;
      tasks.push(...recheck.map((item) => ({ kind: 'recheck' as const, item, ctx })));
      const samples = await sampleTasks(store, ctx, bodyKey, { now, cursors });
      walks.push(samples.walk);
      tasks.push(...samples.tasks);
      // DEL-2's cap reached: more of the body's files waited behind (its walk lags, sampled less often).
      if (samples.tasks.length >= DEL_SAMPLES_PER_BODY) bodiesAtCap += 1;
    }
  }
  return { tasks, walks, bodiesAtCap };
}

/**
 * Issue 28: the contexts of the shard's sources (all without a shard), and the shards the fleet needs —
 * a fleet grown past the shards deployed keeps being checked, only less often: said aloud.
 */
async function shardContexts(
  deps: DocumentsDeps,
  now: Date,
  shard: DeletionShard | undefined,
): Promise<LoadedContexts & { shardsNeeded: number }> {
  const loaded = await loadSourceContexts(
    deps,
    now,
    shard ? (source) => hostShard(source.host, shard.of) === shard.index : undefined,
  );
  const shardsNeeded = deletionShardsFor(loaded.fleetSources);
  if (shardsNeeded > (shard?.of ?? 1)) {
    const { fleetSources } = loaded;
    deps.log?.('deletion check: fleet outgrew its shards', {
      fleetSources,
      shards: shard?.of ?? 1,
      shardsNeeded,
    });
  }
  return { ...loaded, shardsNeeded };
}

/**
 * DEL-2: a listed body's samples of this run, ≤ 30 — first those waiting by time (a first sample, a
 * retry), then its walk's share.
 */
async function sampleTasks(
  store: DocumentsStore,
  ctx: SourceContext,
  bodyKey: string,
  // The run's instant and every walk's cursor, read once at its start.
  { now, cursors }: { now: Date; cursors: ReadonlyMap<string, SampleWalkCursor> },
): Promise<{ tasks: Task[]; walk: BodyWalk }> {
  const shard = shards.sample(ctx.source.sourceId, bodyKey);
  const due = await store.queryDue(shard, now.toISOString(), DEL_SAMPLES_PER_BODY);
  const cursorId = walkCursorId(ctx.source.sourceId, bodyKey);
  const walk = await BodyWalk.open(store, {
    shard,
    cursorId,
    cursor: cursors.get(cursorId),
    now,
    limit: DEL_SAMPLES_PER_BODY - due.length,
    movedIn: due.length,
  });
  return {
    tasks: [
      ...due.map((item) => ({ kind: 'sample' as const, item, ctx })),
      ...walk.items.map((item, index) => ({
        kind: 'sample' as const,
        item,
        ctx,
        walk: { body: walk, index },
      })),
    ],
    walk,
  };
}

function serverState(run: RunState, host: string): ServerRunState {
  let state = run.servers.get(host);
  if (!state) {
    state = { errorsInRow: 0, stopped: false };
    run.servers.set(host, state);
  }
  return state;
}

function runContextOf(run: RunState, sourceId: string): RunContext {
  let ctx = run.runContexts.get(sourceId);
  if (!ctx) {
    ctx = createRunContext(sourceId);
    run.runContexts.set(sourceId, ctx);
  }
  return ctx;
}

function fileFetchContext(deps: DocumentsDeps, run: RunState, task: Task): FileFetchContext {
  return {
    fetcher: deps.fetcher,
    s3: deps.s3,
    bucket: deps.bucket,
    source: fetchSourceOf(task.ctx.source),
    hostIntervalMs: task.ctx.hostIntervalMs,
    runContext: runContextOf(run, task.item.sourceId),
  };
}

function validatorsOf(item: DocumentItem): { etag?: string; lastModified?: string } | undefined {
  if (item.storedKey === undefined) return undefined;
  const v = {
    ...(item.etag === undefined ? {} : { etag: item.etag }),
    ...(item.lastModified === undefined ? {} : { lastModified: item.lastModified }),
  };
  return Object.keys(v).length > 0 ? v : undefined;
}

/** DEL-4 view of a re-fetch (GET into S3). */
function answerOfOutcome(outcome: FetchOutcome): CheckAnswer {
  switch (outcome.kind) {
    case 'stored':
      return { kind: 'present', changed: undefined };
    case 'not-modified':
      return { kind: 'not-modified' };
    case 'empty':
      return { kind: 'error', code: 'EMPTY_BODY', stopServer: false };
    case 'deferred':
      return { kind: 'not-asked', code: outcome.code };
    case 'failed':
      if (outcome.code === 'ROBOTS_DISALLOWED' || outcome.code === 'ROBOTS_UNREACHABLE') {
        return { kind: 'not-asked', code: outcome.code };
      }
      if (outcome.code === 'HTTP_STATUS' && outcome.status !== undefined) {
        return checkAnswerOfStatus(outcome.status, 'GET', {}, {});
      }
      return { kind: 'error', code: outcome.code, stopServer: false };
  }
}

async function runTask(check: Check): Promise<string> {
  const { deps, store, server, task } = check;
  const { item } = task;
  if (task.kind === 'recheck' && (item.goneChecks ?? 0) >= DEL_RECHECKS.length) {
    // A deletion a previous run began (it died after the record): finish it, no request needed.
    return finishDeletion(deps, store, item);
  }

  // RATE-6: ≥ 2 s since the previous check of this server ended (the fetcher adds the shared pace).
  const waitMs = nextCheckAtMs(server, DEL_SERVER_SPACING_MS, deps.clock.now()) - deps.clock.now();
  if (waitMs > 0) await deps.sleep(waitMs);
  try {
    switch (task.kind) {
      case 'refetch':
        return await refetch(check);
      case 'sample':
        return await sample(check);
      case 'recheck':
        return await recheck(check);
    }
  } finally {
    server.lastCheckEndMs = deps.clock.now();
  }
}

/** DEL-1 (and the GET after an unclear sample): a conditional GET into our copy's key. */
async function getIntoCopy({ deps, run, server, task }: Check) {
  const conditional = validatorsOf(task.item);
  run.requests += 1;
  const outcome = await run.bodies.run(() =>
    fetchFileToS3(
      fileFetchContext(deps, run, task),
      task.item.url,
      fileKey(task.item.sourceId, task.item.docId),
      { maxBytes: CACHE_MAX_FILE_BYTES, ...(conditional ? { conditional } : {}) },
    ),
  );
  const answer = answerOfOutcome(outcome);
  if (answer.kind === 'not-asked') run.requests -= 1;
  noteServerAnswer(server, answer, DEL_MAX_ERRORS_IN_ROW);
  return outcome;
}

/**
 * One check request as a check answer: a HEAD (conditional when we hold validators, B-1), or a GET
 * whose body we do not need (a re-check of a document we hold no copy of): status only.
 */
async function askServer({ deps, run, server, task }: Check, method: 'HEAD' | 'GET'): Promise<CheckAnswer> {
  const ctx = fileFetchContext(deps, run, task);
  const common = {
    purpose: 'file' as const,
    source: ctx.source,
    ...(ctx.hostIntervalMs === undefined ? {} : { hostIntervalMs: ctx.hostIntervalMs }),
    ...(ctx.runContext === undefined ? {} : { runContext: ctx.runContext }),
  };
  let answer: CheckAnswer;
  try {
    if (method === 'HEAD') {
      const conditional = validatorsOf(task.item);
      const result = await deps.fetcher.fetch(task.item.url, {
        ...common,
        method: 'HEAD',
        ...(conditional ? { conditional } : {}),
      });
      answer = checkAnswerOfStatus(result.status, 'HEAD', task.item, {
        ...(result.etag === undefined ? {} : { etag: result.etag }),
        ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
      });
    } else {
      const result = await run.bodies.run(async () => {
        const streamed = await deps.fetcher.stream(task.item.url, {
          ...common,
          maxBytes: CACHE_MAX_FILE_BYTES,
        });
        streamed.body.destroy();
        return streamed;
      });
      answer = checkAnswerOfStatus(result.status, 'GET', {}, {});
    }
    run.requests += 1;
  } catch (error) {
    answer = checkAnswerOfError(error, method);
    if (answer.kind !== 'not-asked') run.requests += 1;
  }
  noteServerAnswer(server, answer, DEL_MAX_ERRORS_IN_ROW);
  return answer;
}

function noteNewGone(run: RunState, sourceId: string): void {
  const count = (run.newGone.get(sourceId) ?? 0) + 1;
  run.newGone.set(sourceId, count);
  // DEL-4: more than 10 documents of one source newly gone → the source rests for this run.
  if (count > DEL_SOURCE_REST_NEW_GONE) run.resting.add(sourceId);
}

/** Writes `change` if the item still waits where it was read; the outcome to count. */
async function applyOutcome(
  store: DocumentsStore,
  item: DocumentItem,
  change: DocumentChange,
): Promise<string> {
  return (await store.apply(item, change)) ? change.outcome : 'moved-meanwhile';
}

async function refetch(check: Check): Promise<string> {
  const { store, run, task } = check;
  const outcome = await getIntoCopy(check);
  return applyNoting(store, run, task.item, refetchChange(task.item, outcome, run.now));
}

/** Applies a check's change; a newly gone document counts toward DEL-4. */
function applyNoting(
  store: DocumentsStore,
  run: RunState,
  item: DocumentItem,
  change: DocumentChange,
): Promise<string> {
  if (change.outcome === 'gone') noteNewGone(run, item.sourceId);
  return applyOutcome(store, item, change);
}

async function sample(check: Check): Promise<string> {
  const { store, run, server, task } = check;
  const answer = await askServer(check, 'HEAD');
  const unclear = answer.kind === 'unclear' || (answer.kind === 'present' && answer.changed === undefined);
  // RATE-6: the GET after an unclear HEAD keeps only the shared pace (no extra 2 s).
  if (unclear && !server.stopped) return refetch(check);
  return applyNoting(store, run, task.item, sampleChange(task.item, answer, run.now));
}

async function recheck(check: Check): Promise<string> {
  const { store, run, server, task } = check;
  const { item } = task;
  let answer: CheckAnswer | undefined;
  if (recheckMethod(item) === 'HEAD') {
    answer = await askServer(check, 'HEAD');
    if (answer.kind !== 'unclear' || server.stopped) return applyRecheck(check, answer);
  }
  // The 30-day GET (DEL-3), or the GET after an unclear HEAD (shared pace only, RATE-6).
  if (item.storedKey !== undefined) {
    const outcome = await getIntoCopy(check);
    if (outcome.kind === 'stored' || outcome.kind === 'not-modified') {
      // Present: the mark is lifted, with the copy refreshed when the file changed.
      return applyOutcome(store, item, { ...refetchChange(item, outcome, run.now), outcome: 'lifted' });
    }
    return applyRecheck(check, answerOfOutcome(outcome));
  }
  answer = await askServer(check, 'GET');
  return applyRecheck(check, answer);
}

/** DEL-3: record the re-check; after the last one the copy and text are deleted (record first). */
async function applyRecheck({ deps, store, run, task }: Check, answer: CheckAnswer): Promise<string> {
  const { item } = task;
  const change = recheckChange(item, answer, run.now);
  if (!(await store.apply(item, change))) return 'moved-meanwhile';
  if (!change.deleteCopy) return change.outcome;
  await finishDeletion(deps, store, afterChange(item, change));
  return change.outcome;
}

/** Deletes the (deterministic) copy and text keys, then leaves the queue. Idempotent. */
async function finishDeletion(
  deps: DocumentsDeps,
  store: DocumentsStore,
  item: DocumentItem,
): Promise<string> {
  await deleteObjects(deps.s3, deps.bucket, [
    fileKey(item.sourceId, item.docId),
    textKey(item.sourceId, item.docId),
  ]);
  return (await store.apply(item, finalizeDeletionChange())) ? 'finalized' : 'moved-meanwhile';
}
