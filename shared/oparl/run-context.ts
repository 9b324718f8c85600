import type { SourceConfig } from '../config';
import {
  asPublished,
  type BodyRecord,
  embeddedObjects,
  isDeleted,
  type ListReport,
  MirrorWriter,
  type OParlObject,
  objectId,
  type PageObject,
  type PageValidator,
  RunFrame,
  runEndingKind,
  type SourceTakedowns,
  StopRun,
  type SyncTables,
  type SystemRecord,
  type TakedownGuardFactory,
  typeName,
} from '../engine';
import { SERVER_ERROR_SERIES_LENGTH } from '../fetch';
import { type ListDigest, lookupKey } from '../mirror';
import type { SyncKind } from '../schedule';
import { type AwsClients, type ListDigestKey, ListDigestRepository } from '../store';
import { PAGE_TIMEOUT_MS } from './constants';
import type { SyncCursor } from './cursor';
import { OParlFetchError, type OParlFetcher, type OParlResponse } from './ports';
import { OParlStateStore } from './state';

export interface SyncDeps {
  fetcher: OParlFetcher;
  clients: Pick<AwsClients, 'doc' | 's3'>;
  tables: SyncTables;
  now(): Date;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** OPT-5: the source's takedown guard for this run (shared/takedown `takedownGuards`). */
  takedowns: TakedownGuardFactory;
  /** For the SCH-10 recheck pause; defaults to a timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Issue 28: full syncs read a digest per list instead of an index item per object (default on). */
  listDigests?: boolean;
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

/** Where a page's objects come from: the list's type, the page's URL, its body (none for the system's). */
export interface ObjectsPage {
  listType: string;
  pageUrl: string;
  body: BodyRecord | undefined;
  /** The list's digest (issue 28), when the page has entries to compare. */
  digest?: ListDigest;
}

/**
 * One invocation of an OParl run: what every phase reads and writes — the source, the options, the run
 * frame (cursor, checkpoints, budget, failures), the State store, the mirror writer, the takedowns — and
 * the few steps every phase takes: one counted request, the run-ending failures, one page's objects.
 * The phases (`system.ts`, `lists.ts`, `filter-check.ts`, `report.ts`) are functions of it.
 */
export class OParlRun {
  /** Cursor, checkpoints, budget and failures: the run frame every source kind shares. */
  readonly frame: RunFrame<SyncCursor>;
  readonly state: OParlStateStore;
  /** The mirror write path every source kind shares (lookup, takedown guard, classify, commit). */
  readonly writer: MirrorWriter<unknown>;
  /** OPT-5: the source's takedowns, checked before every write and re-checked at commit. */
  readonly takedowns: SourceTakedowns;
  readonly bodies = new Map<string, BodyRecord>();
  /** Issue 28: where the lists' digests are kept (list-digest.ts). */
  readonly digests: ListDigestRepository;
  /** The digest of the list being read in full, opened in this invocation. */
  digest: { key: ListDigestKey; digest: ListDigest; openedAtMs: number } | undefined;
  system: SystemRecord | undefined;
  /** The next page, asked while the current one is written (see `readPage`). */
  prefetched:
    | { url: string; promise: Promise<OParlResponse | OParlFetchError | { crash: unknown }> }
    | undefined;

  constructor(
    readonly deps: SyncDeps,
    readonly source: SourceConfig,
    readonly options: SyncRunOptions,
  ) {
    this.state = new OParlStateStore(deps.clients, deps.tables.state, source.sourceId);
    this.frame = new RunFrame<SyncCursor>(
      { store: this.state, nowMs: () => this.nowMs(), log: (event, fields) => this.log(event, fields) },
      // FULL-4: only a full or sliced pass stays open at its window's end; an incremental run finishes.
      options.kind === 'incremental' ? { ...options, windowEndMs: undefined } : options,
    );
    this.takedowns = deps.takedowns(source.sourceId, (event, fields) => this.log(event, fields));
    this.digests = new ListDigestRepository(deps.clients, {
      bucket: deps.tables.bucket,
      stateTable: deps.tables.state,
      mirrorTable: deps.tables.mirror,
    });
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

  nowMs(): number {
    return this.deps.now().getTime();
  }

  nowIso(): string {
    return this.deps.now().toISOString();
  }

  get runStartMs(): number {
    return Date.parse(this.cursor.startedAt);
  }

  log(event: string, fields: Record<string, unknown> = {}): void {
    this.deps.log?.(event, { sourceId: this.source.sourceId, runId: this.options.runId, ...fields });
  }

  get cursor(): SyncCursor {
    return this.frame.cursor;
  }

  async loadBody(bodyKey: string): Promise<BodyRecord | undefined> {
    const cached = this.bodies.get(bodyKey);
    if (cached) return cached;
    const record = await this.state.getBody(bodyKey);
    if (record) this.bodies.set(bodyKey, record);
    return record;
  }

  /** One GET through the port, counted. Typed fetch failures are returned, anything else is a crash. */
  async request(
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
  checkRunFailure(err: OParlFetchError, list: string): void {
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

  /** A page whose failure ends only its own step: a run-ending kind (ERR-5) first, else noted as `other`. */
  pageFailed(err: OParlFetchError, url: string, list: string): void {
    this.checkRunFailure(err, list);
    this.frame.failure({
      kind: 'other',
      url,
      list,
      detail: err.message,
      ...(err.status ? { status: err.status } : {}),
    });
  }

  /** Mirrors the objects of one page (and the objects embedded in them); returns how many changed. */
  async processObjects(items: OParlObject[], page: ObjectsPage): Promise<number> {
    const { listType, pageUrl, body, digest } = page;
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
      ...(digest ? { digest } : {}),
    });
    return written.changed;
  }

  /** Records one list's report (its own State item) and counts it in the cursor. */
  async addListReport(report: ListReport): Promise<void> {
    await this.state.putRunList(this.options.kind, this.cursor.listCount, this.options.runId, report);
    this.cursor.listCount += 1;
  }
}
