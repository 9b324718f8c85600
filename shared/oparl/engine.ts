import type { SourceConfig } from '../config';
import {
  asPublished,
  type BodyRecord,
  berlinDate,
  carriesTimeOfDay,
  embeddedObjects,
  type FilterFinding,
  isDeleted,
  isRecord,
  LIST_CATALOGUE,
  type ListEntry,
  type ListReport,
  type ListState,
  MirrorWriter,
  modifiedMs,
  type OParlObject,
  objectId,
  type PageObject,
  type PageValidator,
  pageGoesBack,
  pageItems,
  pageNext,
  RunFrame,
  runEndingKind,
  runStart,
  StopRun,
  type SyncKind,
  type SyncReport,
  SyncStateStore,
  type SyncTables,
  type SystemRecord,
  sha256Hex,
  textValue,
  typeName,
} from '../engine';
import { IngestorError, isIngestorError } from '../errors';
import { SERVER_ERROR_SERIES_LENGTH } from '../fetch';
import { lookupKey } from '../mirror';
import type { AwsClients } from '../store';
import { TakedownGuard, type TakedownMark } from '../takedown';
import { bodyFieldsOf, bodyKeyOf } from './body-fields';
import {
  BODY_LIST_MAX_PAGES,
  CHANGE_WINDOW_MARGIN_MS,
  FILTER_RECHECK_DELAY_MS,
  MAX_PAGES_PER_LIST,
  PAGE_TIMEOUT_MS,
  UNFILTERED_STOP_AFTER_UNCHANGED_PAGES,
} from './constants';
import { continuePass, type ListTask, newCursor, type SyncCursor } from './cursor';
import {
  clearMissing,
  clearSlow,
  FILTER_REJECT_STATUSES,
  type ListPlan,
  markMissing,
  markSlow,
  newListState,
  outsideFilter,
  planList,
} from './decisions';
import { parseOParlJson } from './json';
import { OParlFetchError, type OParlFetcher, type OParlResponse } from './ports';
import {
  carriesFilter,
  formatFilterTime,
  startOfBerlinDay,
  timeSlices,
  withModifiedFilter,
  withoutModifiedFilter,
} from './windows';

/**
 * The OParl sync engine: one source, one run, any number of invocations.
 *
 * Every page is followed by a checkpoint of the run cursor (State `CURSOR#<kind>`, optimistic lock), and
 * every object write is idempotent (deterministic S3 key, index item as commit point), so an invocation
 * killed at any point and resumed with the same `runId` ends with the same mirror as one that was never
 * interrupted. The pure decisions live in `decisions.ts` / `windows.ts`; this file only executes them.
 */
export interface SyncDeps {
  fetcher: OParlFetcher;
  clients: Pick<AwsClients, 'doc' | 's3'>;
  tables: SyncTables;
  now(): Date;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** For the SCH-10 recheck pause; defaults to a timer. */
  sleep?: (ms: number) => Promise<void>;
}

export interface SyncRunOptions {
  kind: SyncKind;
  /** Same id for every invocation of one run (continuations, redeliveries). */
  runId: string;
  /**
   * Epoch ms after which no new request starts (the function's time budget minus a margin for one page
   * and the checkpoint). The report then says `continued: true`; send a continuation message.
   */
  deadlineMs?: number;
  /** FULL-4 / FULL-6: end of the source's window (epoch ms); no page after it, open lists stay open. */
  windowEndMs?: number;
  /**
   * When the run started (the planner's first message). SCH-9 windows and slices count from it; a
   * continuation keeps the start stored in the cursor. Default: now.
   */
  startedAt?: Date;
  /**
   * The operator's stop (Ctrl-C in the CLI): checked with the budget before every request; the run
   * then ends at that checkpoint as it would at the end of its window — cursor saved, nothing continued.
   */
  signal?: AbortSignal;
}

const MAX_VALIDATORS_PER_LIST = 8;
/** Cycle guard memory: the first and the last this many pages of a list (the cursor stays small). */
const VISITED_EDGE = 50;

export async function syncSource(
  deps: SyncDeps,
  source: SourceConfig,
  run: SyncRunOptions,
): Promise<SyncReport> {
  if (source.kind !== 'oparl') {
    throw new IngestorError('SYNC_NOT_OPARL', `source ${source.sourceId} is a ${source.kind} source`);
  }
  if (run.kind === 'sliced' && run.windowEndMs === undefined) {
    // FULL-6: slices only inside a window and ending with it; called without one (command line), an
    // incremental sync runs instead.
    deps.log?.('sliced-without-window', { sourceId: source.sourceId, runId: run.runId, runs: 'incremental' });
    return new SyncRun(deps, source, { ...run, kind: 'incremental' }).execute();
  }
  return new SyncRun(deps, source, run).execute();
}

function urlKey(url: string): string {
  return sha256Hex(url).slice(0, 16);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

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

class SyncRun {
  /** Cursor, checkpoints, budget and failures: the run frame every source kind shares. */
  private readonly frame: RunFrame<SyncCursor>;
  private readonly state: SyncStateStore;
  /** The mirror write path every source kind shares (lookup, takedown guard, classify, commit). */
  private readonly writer: MirrorWriter<TakedownMark>;
  /** OPT-5: the source's takedowns, checked before every write and re-checked at commit. */
  private readonly takedowns: TakedownGuard;
  private readonly bodies = new Map<string, BodyRecord>();
  private system: SystemRecord | undefined;
  /** The next page, asked while the current one is written (see `readPage`). */
  private prefetched:
    | { url: string; promise: Promise<OParlResponse | OParlFetchError | { crash: unknown }> }
    | undefined;

  constructor(
    private readonly deps: SyncDeps,
    private readonly source: SourceConfig,
    private readonly run: SyncRunOptions,
  ) {
    this.state = new SyncStateStore(deps.clients, deps.tables.state, source.sourceId);
    this.frame = new RunFrame<SyncCursor>(
      { store: this.state, nowMs: () => this.nowMs(), log: (event, fields) => this.log(event, fields) },
      // FULL-4: only a full or sliced pass stays open at its window's end; an incremental run finishes.
      run.kind === 'incremental' ? { ...run, windowEndMs: undefined } : run,
    );
    this.takedowns = new TakedownGuard(
      { clients: deps.clients, bucket: deps.tables.bucket, stateTable: deps.tables.state },
      source.sourceId,
      (event, fields) => this.log(event, fields),
    );
    this.writer = new MirrorWriter({
      clients: deps.clients,
      tables: deps.tables,
      sourceId: source.sourceId,
      guard: this.takedowns,
      sessionDays: this.state,
      totals: () => this.cursor.totals,
      nowMs: () => this.nowMs(),
    });
  }

  private nowMs(): number {
    return this.deps.now().getTime();
  }

  private nowIso(): string {
    return this.deps.now().toISOString();
  }

  private get runStartMs(): number {
    return Date.parse(this.cursor.startedAt);
  }

  private log(event: string, fields: Record<string, unknown> = {}): void {
    this.deps.log?.(event, { sourceId: this.source.sourceId, runId: this.run.runId, ...fields });
  }

  private get cursor(): SyncCursor {
    return this.frame.cursor;
  }

  async execute(): Promise<SyncReport> {
    const nowIso = this.nowIso();
    const existing = await this.state.getCursor<SyncCursor>(this.run.kind);
    const start = runStart(existing, this.run.runId, this.run.kind !== 'incremental');
    const startIso = this.run.startedAt ? this.run.startedAt.toISOString() : nowIso;
    if (start.start === 'replay') {
      // A redelivered message of a finished run: answer again, fetch nothing.
      const done = start.cursor;
      return {
        ...(done.report as SyncReport),
        lists: await this.state.getRunLists(done.kind, done.runId, done.listCount),
      };
    }
    if (start.start === 'resume') {
      this.frame.begin(start.cursor, existing);
      this.log('resume', {
        phase: start.cursor.phase,
        bodyIndex: start.cursor.bodyIndex,
        listIndex: start.cursor.listIndex,
      });
    } else if (start.start === 'continue') {
      this.frame.begin(continuePass(start.cursor, this.run.runId, startIso), existing);
      this.log('continue-pass', {
        passStartedAt: start.cursor.passStartedAt,
        doneLists: start.cursor.doneLists.length,
      });
    } else {
      this.frame.begin(newCursor(this.source.sourceId, this.run.runId, this.run.kind, startIso), existing);
    }
    // OPT-5: once per invocation, also for a resumed or redelivered run.
    await this.takedowns.load();
    try {
      await this.loop();
    } catch (err) {
      if (err instanceof StopRun) return this.stop(err.reason);
      throw err;
    }
    return this.finish();
  }

  private async loop(): Promise<void> {
    for (;;) {
      switch (this.cursor.phase) {
        case 'system':
          await this.phaseSystem();
          break;
        case 'bodies':
          await this.phaseBodies();
          break;
        case 'lists':
          await this.phaseLists();
          break;
        case 'filter-check':
          await this.phaseFilterCheck();
          break;
        case 'finish':
          return;
      }
    }
  }

  /** One GET through the port, counted. Typed fetch failures are returned, anything else is a crash. */
  private async request(
    url: string,
    list: string,
    validator?: PageValidator,
  ): Promise<OParlResponse | OParlFetchError> {
    const conditional =
      validator && (validator.etag !== undefined || validator.lastModified !== undefined)
        ? {
            ...(validator.etag !== undefined ? { etag: validator.etag } : {}),
            ...(validator.lastModified !== undefined ? { lastModified: validator.lastModified } : {}),
          }
        : undefined;
    try {
      const res = await this.deps.fetcher.get(url, {
        list,
        timeoutMs: PAGE_TIMEOUT_MS,
        ...(conditional ? { conditional } : {}),
      });
      this.cursor.totals.requests += res.requests ?? 1;
      this.cursor.flags.answered += 1;
      this.cursor.flags.serverErrorsInRow = 0;
      this.log('page', { url, list, status: res.status });
      return res;
    } catch (err) {
      if (!(err instanceof OParlFetchError)) throw err;
      // The run's time ran out under this request: checkpoint with the page still to do.
      if (err.failure === 'RUN_DEADLINE') throw new StopRun('deadline');
      this.cursor.totals.requests += err.requests;
      if (err.failure === 'ROBOTS_DISALLOWED') this.cursor.flags.disallowed += 1;
      if (err.failure === 'HTTP_STATUS') this.cursor.flags.answered += 1;
      this.log('page-failed', { url, list, failure: err.failure, status: err.status });
      return err;
    }
  }

  /** Failures that end the whole run (ERR-5 kinds); throws StopRun. */
  private checkRunFailure(err: OParlFetchError, list: string): void {
    const base = { url: err.url, list, detail: err.message };
    const fatal = runEndingKind(err.failure);
    if (fatal) {
      // Only a UA block carries its status into the report (the other classes name no single answer).
      const status = fatal === 'ua-blocked' && err.status ? { status: err.status } : {};
      this.frame.failure({ ...base, kind: fatal, ...status });
      throw new StopRun('failure');
    }
    if (err.failure === 'HTTP_STATUS' && err.status !== undefined && err.status >= 500) {
      // ERR-3: a series of server errors in a row at one server is a disruption; the fetcher's retries count.
      this.cursor.flags.serverErrorsInRow += Math.max(1, err.requests);
      if (this.cursor.flags.serverErrorsInRow >= SERVER_ERROR_SERIES_LENGTH) {
        this.frame.failure({ ...base, kind: '5xx-series', status: err.status });
        throw new StopRun('failure');
      }
    }
  }

  // --- System ---------------------------------------------------------------------------------------

  private async phaseSystem(): Promise<void> {
    this.system = await this.state.getSystem();
    // The System only tells us the body list URL; incremental syncs reuse the stored one (SCH-8 asks
    // for the body list on every sync, not the System).
    if (this.run.kind === 'incremental' && this.system && this.system.systemUrl === this.source.systemUrl) {
      this.cursor.phase = 'bodies';
      return;
    }
    this.frame.checkStop();
    const url = this.source.systemUrl;
    const res = await this.request(url, 'system');
    if (res instanceof OParlFetchError) {
      this.checkRunFailure(res, 'system');
      this.frame.failure({
        kind: 'other',
        url,
        list: 'system',
        detail: res.message,
        ...(res.status ? { status: res.status } : {}),
      });
      if (!this.system) throw new StopRun('failure');
    } else {
      let obj: OParlObject | undefined;
      try {
        const parsed = parseOParlJson(res.text);
        obj = isRecord(parsed) ? parsed : undefined;
      } catch (err) {
        this.frame.failure({ kind: 'other', url, list: 'system', detail: (err as Error).message });
      }
      const bodyListUrl = obj ? textValue(obj.body) : undefined;
      if (obj && bodyListUrl) {
        await this.processObjects([obj], 'system', res.url, undefined);
        this.system = {
          ...(this.system ?? {}),
          systemUrl: this.source.systemUrl,
          bodyListUrl: new URL(bodyListUrl, res.url).toString(),
          fetchedAt: this.nowIso(),
          ...(textValue(obj.oparlVersion) ? { oparlVersion: textValue(obj.oparlVersion) } : {}),
        };
        await this.state.putSystem(this.system);
      } else {
        if (obj)
          this.frame.failure({ kind: 'other', url, list: 'system', detail: 'System has no body list URL' });
        if (!this.system) throw new StopRun('failure');
      }
    }
    this.cursor.phase = 'bodies';
    await this.frame.checkpoint();
  }

  // --- Body list (SCH-8: all pages, at most 20) -------------------------------------------------------

  private async phaseBodies(): Promise<void> {
    this.system ??= await this.state.getSystem();
    if (!this.system) {
      this.cursor.phase = 'system';
      return;
    }
    const system = this.system;
    this.cursor.bodyList ??= { url: system.bodyListUrl, pages: 0, visited: [], bodyKeys: [] };
    const bl = this.cursor.bodyList;
    let truncated = false;
    while (bl.url !== null) {
      if (bl.pages >= BODY_LIST_MAX_PAGES) {
        truncated = true;
        this.log('body-list-truncated', { pages: bl.pages });
        break;
      }
      this.frame.checkStop();
      const url = bl.url;
      const validator = system.validators?.[urlKey(url)];
      const res = await this.request(url, 'body', validator);
      if (res instanceof OParlFetchError) {
        this.checkRunFailure(res, 'body');
        this.frame.failure({
          kind: 'other',
          url,
          list: 'body',
          detail: res.message,
          ...(res.status ? { status: res.status } : {}),
        });
        bl.failed = true;
        bl.url = null;
        break;
      }
      let next: string | undefined;
      const keys: string[] = [];
      if (res.status === 304 && validator) {
        keys.push(...(validator.bodyKeys ?? []));
        next = validator.next ?? undefined;
      } else {
        let parsed: unknown;
        try {
          parsed = parseOParlJson(res.text);
        } catch (err) {
          this.frame.failure({ kind: 'other', url, list: 'body', detail: (err as Error).message });
          bl.failed = true;
          bl.url = null;
          break;
        }
        const items = pageItems(parsed);
        for (const item of items) {
          const key = await this.processBody(item, res.url);
          if (key !== undefined) keys.push(key);
        }
        next = pageNext(parsed, res.url);
        const etag = res.headers.etag;
        const lastModified = res.headers['last-modified'];
        if (etag !== undefined || lastModified !== undefined) {
          system.validators = pruneValidators({
            ...(system.validators ?? {}),
            [urlKey(url)]: {
              ...(etag !== undefined ? { etag } : {}),
              ...(lastModified !== undefined ? { lastModified } : {}),
              next: next ?? null,
              bodyKeys: keys,
              at: this.nowIso(),
            },
          });
        }
      }
      for (const k of keys) if (!bl.bodyKeys.includes(k)) bl.bodyKeys.push(k);
      rememberPage(bl.visited, urlKey(url));
      bl.pages += 1;
      if (next !== undefined && hostOf(next) !== hostOf(url)) {
        this.log('body-list-next-other-host', { next });
        truncated = true;
        next = undefined;
      }
      if (next !== undefined && (bl.visited.includes(urlKey(next)) || pageGoesBack(url, next))) {
        this.log('body-list-next-cycle', { next });
        next = undefined;
      }
      bl.url = next ?? null;
      await this.frame.checkpoint();
    }
    if (system.validators) await this.state.putSystem(system);
    let keys = [...bl.bodyKeys];
    if (bl.failed || truncated) {
      // Bodies we know from earlier runs keep being synced while the body list cannot be read whole.
      for (const b of await this.state.getBodies()) {
        const takenDown = b.takedown !== undefined || this.takedowns.body(b.id) !== undefined;
        if (!b.deleted && !takenDown && !keys.includes(b.bodyKey)) keys.push(b.bodyKey);
      }
    }
    keys = keys.filter((k, i) => keys.indexOf(k) === i);
    this.cursor.bodyKeys = keys;
    this.cursor.bodyIndex = 0;
    this.cursor.listIndex = 0;
    this.cursor.phase = 'lists';
    await this.frame.checkpoint();
  }

  /** Records one Body of the body list; returns its key, or undefined for deleted/invalid entries. */
  private async processBody(item: OParlObject, pageUrl: string): Promise<string | undefined> {
    const id = objectId(item);
    if (id === undefined) return undefined;
    const bodyKey = bodyKeyOf(id);
    const nowIso = this.nowIso();
    if (isDeleted(item)) {
      await this.processObjects([item], 'body', pageUrl, undefined);
      const known = await this.state.getBody(bodyKey);
      if (known && !known.deleted) {
        const { slug, listed, firstSeenAt, lastCompleteSyncStart, lastCompleteFullSyncStart, ...rest } =
          known;
        await this.state.upsertBody({ ...rest, lastSeenAt: nowIso, deleted: true }, slug);
      }
      return undefined;
    }
    // Neither deleted nor without an id (both handled above): the fields are there.
    const { fields, slugBase } = bodyFieldsOf(item, pageUrl, nowIso)!;
    const record = await this.state.upsertBody(fields, slugBase);
    this.bodies.set(bodyKey, record);
    // OPT-2/OPT-5: a body an operator took down is neither written nor are its lists fetched again —
    // the registry remembers it also when a purge or a lost BODY# mark forgot it.
    if (record.takedown !== undefined || this.takedowns.body(record.id) !== undefined) return undefined;
    await this.processObjects([item], 'body', pageUrl, record);
    return bodyKey;
  }

  private async loadBody(bodyKey: string): Promise<BodyRecord | undefined> {
    const cached = this.bodies.get(bodyKey);
    if (cached) return cached;
    const record = await this.state.getBody(bodyKey);
    if (record) this.bodies.set(bodyKey, record);
    return record;
  }

  // --- Lists --------------------------------------------------------------------------------------------

  private async phaseLists(): Promise<void> {
    while (this.cursor.bodyIndex < this.cursor.bodyKeys.length) {
      const bodyKey = this.cursor.bodyKeys[this.cursor.bodyIndex] as string;
      const loaded = await this.loadBody(bodyKey);
      // OPT-5: a body taken down after this run listed it: its lists are not fetched.
      const body = loaded && this.takedowns.body(loaded.id) === undefined ? loaded : undefined;
      const entries =
        body && !body.deleted ? LIST_CATALOGUE.filter((e) => body.lists[e.list] !== undefined) : [];
      const states = body ? await this.state.getListStates(bodyKey) : new Map<string, ListState>();
      while (body && this.cursor.listIndex < entries.length) {
        const entry = entries[this.cursor.listIndex] as ListEntry;
        const key = `${bodyKey}#${entry.list}`;
        if (!this.cursor.task && this.cursor.doneLists.includes(key)) {
          this.cursor.listIndex += 1;
          continue;
        }
        if (!this.cursor.task) {
          const existing = states.get(entry.list);
          const plan = planList({
            kind: this.run.kind,
            entry,
            state: existing,
            bodyLastCompleteStartMs: body.lastCompleteSyncStart
              ? Date.parse(body.lastCompleteSyncStart)
              : undefined,
            nowMs: this.runStartMs,
          });
          if (plan.action === 'skip') {
            await this.addListReport({
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
            this.cursor.listIndex += 1;
            await this.frame.checkpoint();
            continue;
          }
          this.cursor.task = this.newTask(body, entry, plan, existing);
        }
        await this.runTask(this.cursor.task, entry);
        await this.finishTask(this.cursor.task, entry, body);
      }
      this.cursor.bodyIndex += 1;
      this.cursor.listIndex = 0;
      await this.frame.checkpoint();
    }
    this.cursor.phase = this.run.kind === 'full' ? 'filter-check' : 'finish';
    await this.frame.checkpoint();
  }

  private newTask(
    body: BodyRecord,
    entry: ListEntry,
    plan: ListPlan & { action: 'read' },
    existing?: ListState,
  ): ListTask {
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
        task.step = this.cursor.sliceProgress[`${body.bodyKey}#${entry.list}`] ?? 0;
        this.setSlice(task);
        break;
      }
    }
    return task;
  }

  /** Points the task at its current slice (FULL-5: `modified_until` only for the first, both after). */
  private setSlice(task: ListTask): void {
    const slice = timeSlices(this.runStartMs)[task.step];
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

  private async runTask(task: ListTask, entry: ListEntry): Promise<void> {
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
          this.cursor.sliceProgress[`${task.bodyKey}#${task.list}`] = task.step;
          if (task.step < task.stepsTotal) {
            this.setSlice(task);
            continue;
          }
        }
        return;
      }
      // A page already asked (prefetched) is taken even after the deadline: it cost the server already.
      if (this.prefetched?.url !== task.nextUrl) this.frame.checkStop();
      await this.readPage(task, entry);
    }
  }

  private async readPage(task: ListTask, entry: ListEntry): Promise<void> {
    const url = task.nextUrl as string;
    const validator = task.marks.validators?.[urlKey(url)];
    const res = await this.fetchOrTake(url, entry.list, validator);
    if (res instanceof OParlFetchError) {
      await this.onListError(task, entry, res);
      return;
    }
    task.marks = clearSlow(task.marks);
    if (task.marks.missing) task.marks = clearMissing(task.marks);

    let items: OParlObject[] = [];
    let next: string | undefined;
    const notModified = res.status === 304 && validator !== undefined;
    if (notModified) {
      // B-1: the page is what we processed last time; only its `links.next` matters.
      next = validator.next ?? undefined;
    } else {
      let parsed: unknown;
      try {
        parsed = parseOParlJson(res.text);
      } catch (err) {
        // Invalid JSON, or a page beyond the nesting / size bounds: this list fails, the others go on.
        const code = isIngestorError(err) ? err.code : 'OPARL_INVALID_JSON';
        this.frame.failure({
          kind: 'other',
          url,
          list: entry.list,
          detail: `${code}: ${(err as Error).message}`,
        });
        task.outcome = 'failed';
        task.note = code === 'OPARL_INVALID_JSON' ? 'invalid JSON' : code;
        task.nextUrl = null;
        await this.frame.checkpoint();
        return;
      }
      items = pageItems(parsed);
      next = pageNext(parsed, res.url);
    }

    const filterSent = task.sinceMs !== undefined || task.untilMs !== undefined;
    if (filterSent && !notModified) {
      const live = items.filter((i) => !isDeleted(i));
      const off = outsideFilter(
        live.map((i) => modifiedMs(i)),
        task.sinceMs,
        task.untilMs,
      );
      const range = `${task.sinceMs !== undefined ? formatFilterTime(task.sinceMs) : '…'} – ${
        task.untilMs !== undefined ? formatFilterTime(task.untilMs) : '…'
      }`;
      if (off !== undefined) {
        const evidence = `object modified ${formatFilterTime(off)} outside ${range}`;
        task.marks = {
          ...task.marks,
          filter: 'ignored',
          filterEvidence: evidence,
          filterCheckedAt: this.nowIso(),
        };
        if (task.mode === 'slices') {
          // FULL-7: take nothing from this page, abort the full sync.
          this.cursor.flags.filterNotHonoured = true;
          task.outcome = 'open';
          task.note = `FULL-7: filter not honoured (${evidence})`;
          task.nextUrl = null;
          this.log('filter-not-honoured', { url, evidence });
          throw new StopRun('filter-not-honoured');
        }
        // SCH-10: the filter is ignored; compare ourselves from here on.
        this.log('filter-ignored', { url, evidence });
        if (task.mode === 'catchup') {
          task.mode = 'unfiltered';
          delete task.sinceMs;
          delete task.untilMs;
          delete task.chunks;
          next = withoutModifiedFilter(task.listUrl);
          task.visited = [];
        } else {
          task.mode = 'unfiltered';
          delete task.sinceMs;
          delete task.untilMs;
        }
        task.unchangedPages = 0;
      } else if (live.length > 0 && task.marks.filter !== 'supported') {
        task.marks = {
          ...task.marks,
          filter: 'supported',
          filterEvidence: `${live.length} object(s) within ${range}`,
          filterCheckedAt: this.nowIso(),
        };
      }
    }

    const live = items.filter((i) => !isDeleted(i));
    if (live.some((i) => carriesTimeOfDay(i.modified))) task.marks.timeOfDay = true;
    if (live.some((i) => modifiedMs(i) !== undefined)) task.marks.changeSeen = true;
    if (!notModified && (res.headers.etag !== undefined || res.headers['last-modified'] !== undefined)) {
      task.marks.validators = pruneValidators({
        ...(task.marks.validators ?? {}),
        [urlKey(url)]: {
          ...(res.headers.etag !== undefined ? { etag: res.headers.etag } : {}),
          ...(res.headers['last-modified'] !== undefined
            ? { lastModified: res.headers['last-modified'] }
            : {}),
          next: next ?? null,
          at: this.nowIso(),
        },
      });
    }

    // Where the list goes next — decided from the page itself, before its objects are written.
    task.pages += 1;
    rememberPage(task.visited, urlKey(url));
    if (next !== undefined && hostOf(next) !== hostOf(task.listUrl)) {
      // Never follow a list to another host (its robots.txt and pace are not this source's).
      task.note = `links.next points to another host (${hostOf(next)}); not followed`;
      task.outcome = 'open';
      next = undefined;
    }
    if (next !== undefined && (task.sinceMs !== undefined || task.untilMs !== undefined)) {
      if (!carriesFilter(next, task.sinceMs, task.untilMs)) {
        // SCH-10: the server filters but drops the filter from links.next: carry it ourselves.
        next = withModifiedFilter(next, task.sinceMs, task.untilMs);
        task.marks.nextDropsFilter = true;
      }
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

    // The pace is the server's (1 request/s); our writes must not add to it. The next page is asked
    // while this one is written — unless whether to ask depends on what this page changes (SCH-10).
    const upcoming = next ?? (task.outcome === undefined ? this.nextStepUrl(task) : undefined);
    const mayStop =
      task.mode === 'unfiltered' && task.unchangedPages + 1 >= UNFILTERED_STOP_AFTER_UNCHANGED_PAGES;
    if (upcoming !== undefined && !mayStop && !this.stopDue()) {
      this.startPrefetch(upcoming, entry.list, task.marks.validators?.[urlKey(upcoming)]);
    }

    const changed = await this.processObjects(items, entry.type, res.url, await this.loadBody(task.bodyKey));
    task.changed += changed;
    if (task.mode === 'unfiltered') {
      // SCH-10: without a working filter, stop after 5 pages in a row without change.
      task.unchangedPages = changed === 0 ? task.unchangedPages + 1 : 0;
      if (next !== undefined && task.unchangedPages >= UNFILTERED_STOP_AFTER_UNCHANGED_PAGES) {
        task.note = `SCH-10: stopped after ${task.unchangedPages} unchanged pages`;
        next = undefined;
      }
    }
    task.nextUrl = next ?? null;
    await this.frame.checkpoint();
  }

  /** The first URL of the next catch-up chunk or slice, when the current one is the last page. */
  private nextStepUrl(task: ListTask): string | undefined {
    if (task.mode === 'catchup' && task.chunks) {
      const chunk = task.chunks[task.step + 1];
      return chunk ? withModifiedFilter(task.listUrl, chunk.sinceMs, chunk.untilMs) : undefined;
    }
    if (task.mode === 'slices' && task.stepsTotal !== undefined && task.step + 1 < task.stepsTotal) {
      const slice = timeSlices(this.runStartMs)[task.step + 1];
      return slice ? withModifiedFilter(task.listUrl, slice.sinceMs, slice.untilMs) : undefined;
    }
    return undefined;
  }

  /** Whether the budget or the own window forbids starting another request (see `checkStop`). */
  private stopDue(): boolean {
    try {
      this.frame.checkStop();
      return false;
    } catch {
      return true;
    }
  }

  private startPrefetch(url: string, list: string, validator: PageValidator | undefined): void {
    // A crash of the port (not a typed fetch failure) surfaces when the page is taken, like a direct call.
    const promise = this.request(url, list, validator).catch((error: unknown) => ({ crash: error }));
    this.prefetched = { url, promise };
  }

  /** The prefetched answer for `url`, or a fresh request. A prefetch for another URL is dropped. */
  private async fetchOrTake(
    url: string,
    list: string,
    validator: PageValidator | undefined,
  ): Promise<OParlResponse | OParlFetchError> {
    const pending = this.prefetched;
    this.prefetched = undefined;
    if (pending) {
      const result = await pending.promise;
      if ('crash' in result) throw result.crash;
      if (pending.url === url) return result;
    }
    return this.request(url, list, validator);
  }

  /** Waits for a prefetch nobody will take (it is counted), so no request outlives the run. */
  private async dropPrefetch(): Promise<void> {
    const pending = this.prefetched;
    this.prefetched = undefined;
    if (pending) {
      const result = await pending.promise;
      if ('crash' in result) throw result.crash;
    }
  }

  private async onListError(task: ListTask, entry: ListEntry, err: OParlFetchError): Promise<void> {
    this.checkRunFailure(err, entry.list);
    const status = err.failure === 'HTTP_STATUS' ? err.status : undefined;
    const filterSent = task.sinceMs !== undefined || task.untilMs !== undefined;
    const end = async (outcome: ListTask['outcome'] | undefined, note: string) => {
      if (outcome !== undefined) task.outcome = outcome;
      task.note = note;
      task.nextUrl = null;
      await this.frame.checkpoint();
    };

    if (err.failure === 'ROBOTS_DISALLOWED') return end('open', 'robots.txt disallows this list (ROB-8)');

    if (err.failure === 'TIMEOUT' || status === 504) {
      const what = status === 504 ? 'HTTP 504' : `no answer within ${PAGE_TIMEOUT_MS / 1000} s`;
      if (entry.mandatory) {
        this.frame.failure({
          kind: 'other',
          url: err.url,
          list: entry.list,
          detail: `${what} (mandatory list)`,
          ...(status ? { status } : {}),
        });
        return end('failed', `${what}; mandatory lists are never skipped (SCH-12)`);
      }
      // Catch up from the window this run asked, else from the list's last complete read (SCH-12).
      const lastComplete = task.marks.lastCompleteStart;
      const catchUpFromMs =
        task.windowSinceMs ??
        task.sinceMs ??
        (lastComplete !== undefined ? Date.parse(lastComplete) - CHANGE_WINDOW_MARGIN_MS : undefined);
      task.marks = markSlow(task.marks, entry, this.nowMs(), catchUpFromMs);
      return end('slow', `SCH-12: ${what}; skipped until ${task.marks.slow?.skipUntil}`);
    }

    if (status === 404) {
      if (task.mode === 'slices' && !entry.mandatory && !looksLikeNoResults(err.bodyText)) {
        // Not an empty slice but a list that is not there (SCH-11): no further slices are asked.
        task.marks = markMissing(task.marks, this.nowMs(), 404);
        return end('missing', 'SCH-11: optional list answered 404');
      }
      if (filterSent) {
        if (task.marks.missing && !entry.mandatory) {
          // SCH-11: SD.NET answers the daily check with "no results": the note stays.
          task.marks = markMissing(task.marks, this.nowMs(), 404);
          return end('missing', 'SCH-11: still no results (404); next check in a day');
        }
        // SD.NET / Sternberg: an empty filtered page is a 404 with an error body or `[]`.
        return end(undefined, 'empty filtered page answered 404');
      }
      if (!entry.mandatory) {
        task.marks = markMissing(task.marks, this.nowMs(), 404);
        return end('missing', 'SCH-11: optional list answered 404');
      }
      if (looksLikeNoResults(err.bodyText)) return end(undefined, 'empty list answered 404');
      this.frame.failure({
        kind: 'other',
        url: err.url,
        list: entry.list,
        status,
        detail: 'mandatory list answered 404',
      });
      return end('failed', 'mandatory list answered 404');
    }

    if (status !== undefined && filterSent && FILTER_REJECT_STATUSES.includes(status)) {
      const evidence = `HTTP ${status} to a filtered request`;
      if (task.mode === 'slices') {
        task.marks = {
          ...task.marks,
          filter: 'rejected',
          filterEvidence: evidence,
          filterCheckedAt: this.nowIso(),
        };
        return end('open', 'FULL-5: filter rejected; the list stays open (never asked without filter)');
      }
      if (!task.filterRetried) {
        // SCH-10: rejected — read the list from the start without filter, compare ourselves.
        task.filterBefore = task.marks.filter;
        task.filterRetried = true;
        task.marks = {
          ...task.marks,
          filter: 'rejected',
          filterEvidence: evidence,
          filterCheckedAt: this.nowIso(),
        };
        task.mode = 'unfiltered';
        delete task.sinceMs;
        delete task.untilMs;
        delete task.chunks;
        task.unchangedPages = 0;
        task.visited = [];
        task.nextUrl = withoutModifiedFilter(task.listUrl);
        await this.frame.checkpoint();
        return;
      }
    }
    if (task.filterRetried && task.filterBefore !== undefined && (status === 401 || status === 403)) {
      // The unfiltered request is refused too: the server refuses us, not the filter.
      task.marks = { ...task.marks, filter: task.filterBefore };
    }
    this.frame.failure({
      kind: 'other',
      url: err.url,
      list: entry.list,
      detail: err.message,
      ...(status !== undefined ? { status } : {}),
    });
    return end('failed', status !== undefined ? `HTTP ${status}` : err.failure.toLowerCase());
  }

  private async finishTask(task: ListTask, entry: ListEntry, body: BodyRecord): Promise<void> {
    await this.dropPrefetch();
    const outcome = task.outcome ?? 'done';
    let marks: ListState = { ...task.marks, updatedAt: this.nowIso() };
    if (outcome === 'done') {
      marks.lastCompleteStart = this.cursor.startedAt;
      // SCH-12: a complete read of the list since the catch-up point ends the catch-up.
      if (marks.catchUpSince !== undefined && task.mode !== 'filtered') {
        const { catchUpSince: _c, ...rest } = marks;
        marks = rest;
      }
    }
    await this.state.putListState(marks);
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
        done: this.cursor.sliceProgress[`${task.bodyKey}#${task.list}`] ?? 0,
        total: task.stepsTotal,
      };
    }
    if (task.note) report.note = task.note;
    await this.addListReport(report);
    if (this.run.kind !== 'incremental' && (outcome === 'done' || outcome === 'missing')) {
      this.cursor.doneLists.push(`${task.bodyKey}#${task.list}`);
    }
    delete this.cursor.task;
    this.cursor.listIndex += 1;
    await this.frame.checkpoint();
  }

  // --- Objects ------------------------------------------------------------------------------------------

  /** Mirrors the objects of one page (and the objects embedded in them); returns how many changed. */
  private async processObjects(
    items: OParlObject[],
    listType: string,
    pageUrl: string,
    body: BodyRecord | undefined,
  ): Promise<number> {
    const byKey = new Map<string, PageObject>();
    for (const item of items) {
      const id = objectId(item);
      // Deleted entries of some vendors carry no `type`: the list tells it.
      const type = typeName(item, listType);
      if (id === undefined || type === undefined) continue;
      byKey.set(lookupKey(type, id), { object: item, id, type, embedded: false });
    }
    for (const item of items) {
      if (isDeleted(item)) continue;
      for (const e of embeddedObjects(item)) {
        const key = lookupKey(e.type, e.id);
        if (!byKey.has(key))
          byKey.set(key, { object: e.object, id: e.id, type: e.type, embedded: true, parentId: e.parentId });
      }
    }
    const written = await this.writer.writePage({
      objects: [...byKey.values()],
      url: pageUrl,
      body,
      versioning: asPublished,
    });
    return written.changed;
  }

  // --- SCH-10 filter check after a full sync ---------------------------------------------------------------

  private async phaseFilterCheck(): Promise<void> {
    this.cursor.filterCheck ??= { attempts: 0 };
    const check = this.cursor.filterCheck;
    let target: { body: BodyRecord; url: string } | undefined;
    for (const key of this.cursor.bodyKeys) {
      const body = await this.loadBody(key);
      const url = body?.lists.meeting ?? body?.lists.paper ?? body?.lists.organization ?? body?.lists.person;
      if (body && !body.deleted && url) {
        target = { body, url };
        break;
      }
    }
    if (!target) {
      this.cursor.phase = 'finish';
      await this.frame.checkpoint();
      return;
    }
    if (check.notBeforeMs !== undefined && this.nowMs() < check.notBeforeMs) {
      const waitMs = check.notBeforeMs - this.nowMs();
      if (this.run.deadlineMs !== undefined && this.nowMs() + waitMs >= this.run.deadlineMs) {
        this.log('filter-recheck-skipped', { reason: 'time budget' });
        this.cursor.phase = 'finish';
        await this.frame.checkpoint();
        return;
      }
      await (this.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms))))(waitMs);
    }
    this.frame.checkStop();
    const sinceMs = startOfBerlinDay(this.runStartMs);
    const url = withModifiedFilter(target.url, sinceMs, undefined);
    const res = await this.request(url, 'filter-check');
    check.attempts += 1;
    let finding: FilterFinding | undefined;
    let evidence = '';
    if (res instanceof OParlFetchError) {
      this.checkRunFailure(res, 'filter-check');
      if (res.status !== undefined && FILTER_REJECT_STATUSES.includes(res.status)) {
        finding = 'rejected';
        evidence = `HTTP ${res.status}`;
      } else if (res.status === 404) {
        finding = 'supported';
        evidence = 'empty filtered page answered 404';
      }
    } else {
      try {
        const items = pageItems(parseOParlJson(res.text)).filter((i) => !isDeleted(i));
        const off = outsideFilter(
          items.map((i) => modifiedMs(i)),
          sinceMs,
          undefined,
        );
        finding = off === undefined ? 'supported' : 'ignored';
        evidence =
          off === undefined
            ? `${items.length} object(s), none before ${formatFilterTime(sinceMs)}`
            : `object modified ${formatFilterTime(off)} returned for modified_since=${formatFilterTime(sinceMs)}`;
      } catch {
        finding = undefined;
      }
    }
    if (finding === undefined) {
      // Inconclusive (5xx, timeout, junk): keep the previous finding; repeat once after 60 s (SCH-10).
      if (check.attempts < 2) {
        check.notBeforeMs = this.nowMs() + FILTER_RECHECK_DELAY_MS;
        await this.frame.checkpoint();
        return;
      }
      this.log('filter-check-inconclusive', { attempts: check.attempts });
    } else {
      const at = this.nowIso();
      this.system ??= await this.state.getSystem();
      if (this.system) {
        this.system = { ...this.system, filterCheck: { finding, at, evidence } };
        await this.state.putSystem(this.system);
      }
      // The check speaks for the system: every list starts from this finding; incremental syncs refine it.
      for (const key of this.cursor.bodyKeys) {
        for (const st of (await this.state.getListStates(key)).values()) {
          if (st.filter === finding) continue;
          await this.state.putListState({
            ...st,
            filter: finding,
            filterEvidence: `SCH-10 check after full sync: ${evidence}`,
            filterCheckedAt: at,
          });
        }
      }
    }
    this.cursor.phase = 'finish';
    await this.frame.checkpoint();
  }

  // --- End of a run ---------------------------------------------------------------------------------------

  /** Records one list's report (its own State item) and counts it in the cursor. */
  private async addListReport(report: ListReport): Promise<void> {
    await this.state.putRunList(this.run.kind, this.cursor.listCount, this.run.runId, report);
    this.cursor.listCount += 1;
  }

  private listReports(): Promise<ListReport[]> {
    return this.state.getRunLists(this.run.kind, this.run.runId, this.cursor.listCount);
  }

  private listsComplete(lists: ListReport[]): boolean {
    if (this.run.kind === 'incremental') {
      const ok = new Set(['done', 'missing', 'skipped-missing', 'skipped-slow']);
      return lists.every((l) => ok.has(l.outcome));
    }
    return lists.every((l) => l.outcome === 'done' || l.outcome === 'missing');
  }

  private async markBodies(lists: ListReport[]): Promise<void> {
    const incremental = this.run.kind === 'incremental';
    const okIncremental = new Set(['done', 'missing', 'skipped-missing', 'skipped-slow']);
    for (const key of this.cursor.bodyKeys) {
      const body = await this.loadBody(key);
      if (!body || body.deleted) continue;
      const offered = LIST_CATALOGUE.filter((e) => body.lists[e.list] !== undefined).map((e) => e.list);
      let complete: boolean;
      if (incremental) {
        const mine = lists.filter((l) => l.body === body.slug);
        complete = offered.every((list) => mine.some((l) => l.list === list && okIncremental.has(l.outcome)));
      } else {
        complete = offered.every((list) => this.cursor.doneLists.includes(`${key}#${list}`));
      }
      if (complete) {
        await this.state.markBodyComplete(
          key,
          incremental ? this.cursor.startedAt : this.cursor.passStartedAt,
          !incremental,
        );
      }
    }
  }

  private async buildReport(continued: boolean, complete: boolean, lists: ListReport[]): Promise<SyncReport> {
    const t = this.cursor.totals;
    const report: SyncReport = {
      sourceId: this.source.sourceId,
      runId: this.run.runId,
      kind: this.run.kind,
      requests: t.requests,
      changed: t.new + t.modified + t.deleted > 0,
      complete,
      continued,
      stopReason: this.cursor.stopReason ?? 'end',
      objects: { new: t.new, modified: t.modified, deleted: t.deleted },
      failures: this.cursor.failures,
      lists,
      sessionDays: await this.state.upcomingSessionDays(berlinDate(this.nowMs())),
      documents: t.documents,
      startedAt: this.cursor.startedAt,
      finishedAt: this.nowIso(),
    };
    if (this.cursor.flags.filterNotHonoured) report.filterNotHonoured = true;
    return report;
  }

  private async finish(): Promise<SyncReport> {
    this.frame.robotsForbidsAll();
    const lists = await this.listReports();
    await this.markBodies(lists);
    this.cursor.stopReason = 'end';
    const bodyListOk = !this.cursor.bodyList?.failed;
    const complete = bodyListOk && this.cursor.failures.length === 0 && this.listsComplete(lists);
    const report = await this.buildReport(false, complete, lists);
    // The per-list reports have their own items; the cursor stays small (it is written per page).
    this.frame.done({ ...report, lists: [] });
    await this.frame.checkpoint();
    this.log('done', { requests: report.requests, complete, changed: report.changed });
    return report;
  }

  private async stop(reason: StopRun['reason']): Promise<SyncReport> {
    await this.dropPrefetch().catch(() => undefined);
    const task = this.cursor.task;
    if (task && reason !== 'deadline') {
      // The list in flight stays open; its marks (slow, filter …) are kept.
      await this.state.putListState({ ...task.marks, updatedAt: this.nowIso() });
      const body = await this.loadBody(task.bodyKey);
      await this.addListReport({
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
      delete this.cursor.task;
    }
    return this.frame.stop(
      reason,
      this.run.kind === 'incremental',
      async (continued) => this.buildReport(continued, false, await this.listReports()),
      (report) => ({ ...report, lists: [] }),
    );
  }
}

/** Keeps the first and the last `VISITED_EDGE` page hashes: cycles go back to the start or a page ago. */
function rememberPage(visited: string[], key: string): void {
  if (visited.length >= 2 * VISITED_EDGE) visited.splice(VISITED_EDGE, 1);
  visited.push(key);
}

function pruneValidators(all: Record<string, PageValidator>): Record<string, PageValidator> {
  const entries = Object.entries(all).sort((a, b) => (a[1].at < b[1].at ? 1 : -1));
  return Object.fromEntries(entries.slice(0, MAX_VALIDATORS_PER_LIST));
}
