import type { SourceConfig } from '../config';
import {
  type BodyRecord,
  berlinDate,
  contentHash,
  engineReportOf,
  MirrorWriter,
  type OParlObject,
  RunFrame,
  runEndingKind,
  runEndOf,
  runStart,
  StopRun,
  type SyncFailure,
  SyncStateStore,
  type SyncTables,
  sha256Hex,
  slugify,
  stampedWhenSeen,
} from '../engine';
import { createRunContext, type PoliteFetcher } from '../fetch';
import { idHash, lookupKey } from '../mirror';
import type { AwsClients } from '../store';
import type { EngineReport, SyncEngine } from '../sync';
import { TakedownGuard, type TakedownMark } from '../takedown';
import { adapterFor, type ScrapeAdapter } from './adapter';
import { revisitDue, SCRAPE_POLICY, type ScrapePolicy, scrapeMonths } from './constants';
import { PageLayoutError } from './errors';
import { type PageOutcome, type ScraperPageFetcher, scraperPageFetcher } from './fetch';
import {
  type MirrorTypeName,
  mergeAgendaItemDetail,
  OPARL_SCHEMA,
  OPARL_TYPES,
  type ShapedObject,
  shapeBody,
  shapeMeeting,
  shapeOrganization,
  shapePaper,
  shapePerson,
} from './oparl-shape';
import {
  type MonthState,
  type PageKind,
  type PageState,
  type RowMark,
  type ScrapeCursor,
  ScrapeStateStore,
  type ScrapeTask,
} from './state';

/**
 * The scraper engine (issue 8): a `SyncEngine` for sources of kind `scraper`, producing the same report
 * as the OParl engine so the planner's cadence (SCH-3) and sparing (ERR-4/ERR-5) apply unchanged.
 *
 * A run reads calendar months (`constants.ts` says which and why), fetches a meeting page only when its
 * calendar row changed (or a revisit of a meeting near today is due), agenda-item and paper pages only
 * when their agenda row changed, rosters for organizations never read (and on full scrapes). Work is a
 * stack of tasks in the run cursor: a page's children come before the commit of the page's own state,
 * so a run stopped anywhere re-derives what it had not finished. The cursor is written after every page
 * (checkpoint); before every request the time budget is checked (→ `continued`).
 *
 * RATE-3: one request at a time — every page is awaited before the next is asked; nothing is
 * prefetched. The pace itself (2 s default, never below 1 s) is the polite fetcher's, from the source's
 * `requestIntervalSeconds`. FULL-4: scraper full scrapes are not cut at the window's end.
 */
export interface ScraperEngineDeps {
  fetcher: PoliteFetcher;
  clients: Pick<AwsClients, 'doc' | 's3'>;
  tables: SyncTables;
  now?: () => Date;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** RATE-2: the largest interval of any source on the source's host, ms. */
  hostIntervalMs?: (sourceId: string) => number | undefined;
  policy?: Partial<ScrapePolicy>;
}

export interface ScrapeRunOptions {
  kind: 'incremental' | 'full' | 'sliced';
  runId: string;
  /** Epoch ms after which no new request starts; the report then says `continued`. */
  deadlineMs?: number;
  /** Epoch ms by which every request has ended, the one in flight included (EngineBudget.requestsEndMs). */
  requestsEndMs?: number;
  startedAt?: Date;
  /**
   * The operator's stop (Ctrl-C in the CLI): checked with the budget before every request; the run
   * then ends at that checkpoint as it would at the end of its window — cursor saved, nothing continued.
   */
  signal?: AbortSignal;
}

export interface ScrapeReport {
  sourceId: string;
  runId: string;
  kind: 'incremental' | 'full';
  requests: number;
  pages: number;
  changed: boolean;
  complete: boolean;
  continued: boolean;
  stopReason: 'end' | 'deadline' | 'interrupted' | 'failure';
  objects: { new: number; modified: number; deleted: number };
  documents: number;
  notPublic: number;
  months: string[];
  failures: SyncFailure[];
  sessionDays: string[];
  startedAt: string;
  finishedAt: string;
}

export function createScraperSyncEngine(deps: ScraperEngineDeps): SyncEngine {
  return async (source, message, budget) => {
    const report = await scrapeSource(deps, source, {
      kind: message.kind,
      runId: message.runId,
      deadlineMs: budget.deadlineMs,
      ...runEndOf(budget),
      startedAt: budget.runStartedAt,
      ...(budget.signal ? { signal: budget.signal } : {}),
    });
    return engineReportOfScrape(report, message.kind);
  };
}

/** The planner's view of a scrape report (the same as `engineReportOf` for OParl). */
export function engineReportOfScrape(
  report: ScrapeReport,
  kind: EngineReport['kind'] = report.kind,
): EngineReport {
  return engineReportOf({ ...report, kind });
}

export async function scrapeSource(
  deps: ScraperEngineDeps,
  source: SourceConfig,
  run: ScrapeRunOptions,
): Promise<ScrapeReport> {
  const adapter = adapterFor(source);
  const hostIntervalMs = deps.hostIntervalMs?.(source.sourceId);
  const pages = scraperPageFetcher({
    fetcher: deps.fetcher,
    source,
    runContext: createRunContext(source.sourceId, runEndOf(run)),
    isNotPublic: (url) => adapter.isNotPublic(url),
    ...(hostIntervalMs !== undefined ? { hostIntervalMs } : {}),
  });
  return new ScrapeRun(deps, source, adapter, pages, run).execute();
}

class ScrapeRun {
  /** Cursor, checkpoints, budget and failures: the run frame every source kind shares. */
  private readonly frame: RunFrame<ScrapeCursor>;
  private readonly kind: 'incremental' | 'full';
  private readonly policy: ScrapePolicy;
  private readonly state: ScrapeStateStore;
  private readonly syncState: SyncStateStore;
  /** OPT-5: the source's takedowns, checked before every write and re-checked at commit. */
  private readonly takedowns: TakedownGuard;
  private body!: BodyRecord;

  constructor(
    private readonly deps: ScraperEngineDeps,
    private readonly source: SourceConfig,
    private readonly adapter: ScrapeAdapter,
    private readonly pages: ScraperPageFetcher,
    private readonly run: ScrapeRunOptions,
  ) {
    // A scraper has no time slices (FULL-5 is an OParl filter technique): a sliced run is a full one.
    this.kind = run.kind === 'incremental' ? 'incremental' : 'full';
    this.policy = { ...SCRAPE_POLICY, ...(deps.policy ?? {}) };
    this.state = new ScrapeStateStore(deps.clients, deps.tables.state, source.sourceId);
    // FULL-4: no window cut for scrapers; the invocation's time budget and the operator's stop only.
    this.frame = new RunFrame<ScrapeCursor>(
      { store: this.state, nowMs: () => this.nowMs(), log: (event, fields) => this.log(event, fields) },
      run,
    );
    this.syncState = new SyncStateStore(deps.clients, deps.tables.state, source.sourceId);
    this.takedowns = new TakedownGuard(
      { clients: deps.clients, bucket: deps.tables.bucket, stateTable: deps.tables.state },
      source.sourceId,
      (event, fields) => this.log(event, fields),
    );
  }

  private nowMs(): number {
    return (this.deps.now ?? (() => new Date()))().getTime();
  }

  private nowIso(): string {
    return new Date(this.nowMs()).toISOString();
  }

  private log(event: string, fields: Record<string, unknown> = {}): void {
    this.deps.log?.(event, { sourceId: this.source.sourceId, runId: this.run.runId, ...fields });
  }

  // --- run frame ----------------------------------------------------------------------------------------

  private get cursor(): ScrapeCursor {
    return this.frame.cursor;
  }

  async execute(): Promise<ScrapeReport> {
    const existing = await this.state.getCursor(this.kind);
    const startIso = (this.run.startedAt ?? new Date(this.nowMs())).toISOString();
    const start = runStart(existing, this.run.runId, this.kind === 'full');
    if (start.start === 'replay') return start.cursor.report as unknown as ScrapeReport;
    if (start.start === 'resume') {
      this.frame.begin(start.cursor, existing);
      this.log('resume', { monthIndex: start.cursor.monthIndex, tasks: start.cursor.tasks.length });
    } else if (start.start === 'continue') {
      // FULL-2: an unfinished full scrape continues its pass where it stopped.
      const open = start.cursor;
      const cursor = { ...this.newCursor(startIso), months: open.months, monthIndex: open.monthIndex };
      cursor.tasks = open.tasks;
      cursor.vanished = open.vanished;
      cursor.appeared = open.appeared;
      this.frame.begin(cursor, existing);
      this.log('continue-pass', { monthIndex: open.monthIndex });
    } else {
      this.frame.begin(this.newCursor(startIso), existing);
    }
    await this.ensureBody(undefined);
    // OPT-5: once per invocation. The source's one body taken down: nothing of it is fetched or written.
    await this.takedowns.load();
    if (this.body.takedown !== undefined || this.takedowns.body(this.body.id) !== undefined) {
      this.log('body-taken-down', { bodyId: this.body.id });
      this.cursor.tasks = [];
      return this.finish();
    }
    try {
      await this.loop();
    } catch (err) {
      if (err instanceof StopRun) return this.stop(err.reason);
      throw err;
    }
    return this.finish();
  }

  private newCursor(startIso: string): ScrapeCursor {
    return {
      sourceId: this.source.sourceId,
      runId: this.run.runId,
      kind: this.kind,
      status: 'running',
      seq: 0,
      startedAt: startIso,
      phase: 'months',
      months: scrapeMonths(this.kind, Date.parse(startIso), this.policy),
      monthIndex: 0,
      tasks: [],
      vanished: {},
      appeared: [],
      organizationsAsked: [],
      totals: { requests: 0, pages: 0, new: 0, modified: 0, deleted: 0, documents: 0, notPublic: 0 },
      flags: { answered: 0, disallowed: 0 },
      failures: [],
    };
  }

  private async loop(): Promise<void> {
    for (;;) {
      const task = this.cursor.tasks[0];
      if (task) {
        await this.runTask(task);
        continue;
      }
      switch (this.cursor.phase) {
        case 'months': {
          const month = this.cursor.months[this.cursor.monthIndex];
          if (month === undefined) this.cursor.phase = 'vanished';
          else await this.readMonth(month);
          break;
        }
        case 'vanished': {
          // A meeting that left its month and entered no other month read in this run: ask its page.
          const checks: ScrapeTask[] = Object.entries(this.cursor.vanished)
            .filter(([key]) => !this.cursor.appeared.includes(key))
            .map(([key, v]) => ({ op: 'vanished-check', url: v.url, meetingKey: key, month: v.month }));
          this.cursor.vanished = {};
          this.cursor.appeared = [];
          this.cursor.tasks.push(...checks);
          this.cursor.phase = this.kind === 'full' ? 'organizations' : 'finish';
          await this.frame.checkpoint();
          break;
        }
        case 'organizations': {
          for (const list of this.adapter.organizationListUrls(this.organizationListsHint)) {
            this.cursor.tasks.push({ op: 'organization-list', url: list.url, kind: list.kind });
          }
          this.cursor.phase = 'finish';
          await this.frame.checkpoint();
          break;
        }
        case 'finish':
          return;
      }
    }
  }

  /** Organization list pages the calendar's navigation named (ALLRIS au010/fr010 links). */
  private organizationListsHint: Parameters<ScrapeAdapter['organizationListUrls']>[0];

  /** Removes the task at the front and puts its children (and commits) in its place; then checkpoints. */
  private async replaceFront(children: ScrapeTask[]): Promise<void> {
    this.cursor.tasks.shift();
    this.cursor.tasks.unshift(...children);
    await this.frame.checkpoint();
  }

  // --- fetching -----------------------------------------------------------------------------------------

  /** One page, strictly after the previous one (RATE-3). Run-ending outcomes throw `StopRun`. */
  private async fetchPage(url: string, what: string): Promise<PageOutcome> {
    this.frame.checkStop();
    const outcome = await this.pages.page(url);
    this.cursor.totals.requests += outcome.requests;
    if (outcome.kind === 'page' || outcome.kind === 'not-public' || outcome.kind === 'gate') {
      this.cursor.flags.answered += 1;
      this.cursor.totals.pages += 1;
    }
    this.log('page', { url, what, outcome: outcome.kind });
    if (outcome.kind === 'gate') {
      // ERR-5 / B-3: a wall is a block of our client; never bypassed, never retried in this run.
      this.frame.failure({
        kind: 'ua-blocked',
        url,
        list: what,
        status: outcome.status,
        detail: `gate page (${outcome.gate.kind}${outcome.gate.vendor ? `, ${outcome.gate.vendor}` : ''}): ${outcome.gate.evidence}`,
      });
      throw new StopRun('failure');
    }
    if (outcome.kind === 'failure') {
      // The run's time ran out under this page: checkpoint with the page still to do.
      if (outcome.failure === 'RUN_DEADLINE') throw new StopRun('deadline');
      if (outcome.failure === 'HTTP_STATUS') this.cursor.flags.answered += 1;
      if (outcome.failure === 'ROBOTS_DISALLOWED') this.cursor.flags.disallowed += 1;
      const fatal = runEndingKind(outcome.failure);
      if (fatal) {
        this.frame.failure({
          kind: fatal,
          url,
          list: what,
          detail: outcome.message,
          ...(outcome.status !== undefined ? { status: outcome.status } : {}),
        });
        throw new StopRun('failure');
      }
    }
    return outcome;
  }

  /** A non-fatal failure of a page: noted (the run is not complete), the page is asked again next run. */
  private pageFailed(outcome: Extract<PageOutcome, { kind: 'failure' }>, what: string): void {
    if (outcome.failure === 'ROBOTS_DISALLOWED') {
      this.log('robots-disallowed', { url: outcome.url, what });
      return;
    }
    this.frame.failure({
      kind: 'other',
      url: outcome.url,
      list: what,
      detail: outcome.message,
      ...(outcome.status !== undefined ? { status: outcome.status } : {}),
    });
  }

  private layoutFailed(err: unknown, url: string, what: string): void {
    if (!(err instanceof PageLayoutError)) throw err;
    // A page we cannot read is a layout change at the vendor: on-call must see it, nothing is guessed.
    this.frame.failure({ kind: 'other', url, list: what, detail: err.message });
  }

  // --- calendar months ------------------------------------------------------------------------------------

  private async readMonth(month: string): Promise<void> {
    const [year, mon] = month.split('-').map(Number) as [number, number];
    const url = this.adapter.calendarUrl(year, mon);
    const outcome = await this.fetchPage(url, 'calendar');
    const advance = async (tasks: ScrapeTask[]) => {
      this.cursor.monthIndex += 1;
      this.cursor.tasks.unshift(...tasks);
      await this.frame.checkpoint();
    };
    if (outcome.kind !== 'page') {
      if (outcome.kind === 'failure') this.pageFailed(outcome, 'calendar');
      else
        this.frame.failure({
          kind: 'other',
          url,
          list: 'calendar',
          detail: 'calendar month answered "not public"',
        });
      return advance([]);
    }
    let calendar: ReturnType<ScrapeAdapter['parseCalendar']>;
    try {
      calendar = this.adapter.parseCalendar(outcome.html, outcome.finalUrl, year, mon);
    } catch (err) {
      this.layoutFailed(err, url, 'calendar');
      return advance([]);
    }
    if (calendar.organizationLists) this.organizationListsHint = calendar;
    if (calendar.headline && calendar.headline !== this.body.name) await this.ensureBody(calendar.headline);
    await this.writeBody();

    const previous = await this.state.getMonth(month);
    const rows: Record<string, RowMark> = {};
    const tasks: ScrapeTask[] = [];
    const now = this.nowMs();
    for (const row of calendar.rows) {
      const h = contentHash(row as unknown as OParlObject);
      const before = previous?.rows[row.key];
      if (before?.h !== h) {
        tasks.push(
          row.detailUrl
            ? { op: 'meeting', url: row.detailUrl, month, row }
            : { op: 'meeting-row', month, row },
        );
        rows[row.key] = { h, u: row.meetingId, ...(row.detailUrl ? { f: this.nowIso() } : {}) };
      } else if (
        row.detailUrl &&
        !before.n &&
        revisitDue({
          kind: this.kind,
          meetingDate: row.date,
          lastReadIso: before.f,
          nowMs: now,
          policy: this.policy,
        })
      ) {
        tasks.push({ op: 'meeting', url: row.detailUrl, month, row, revisit: true });
        rows[row.key] = { ...before, u: row.meetingId, f: this.nowIso() };
      } else {
        rows[row.key] = before;
      }
      if (previous && before === undefined && !this.cursor.appeared.includes(row.key))
        this.cursor.appeared.push(row.key);
    }
    for (const [key, mark] of Object.entries(previous?.rows ?? {})) {
      if (rows[key] === undefined && mark.u) this.cursor.vanished[key] = { url: mark.u, month };
    }
    this.log('month', { month, rows: calendar.rows.length, tasks: tasks.length });
    await advance([...tasks, { op: 'commit-month', month, rows }]);
  }

  // --- tasks ------------------------------------------------------------------------------------------------

  private async runTask(task: ScrapeTask): Promise<void> {
    switch (task.op) {
      case 'meeting':
        return this.meetingTask(task);
      case 'meeting-row':
        return this.meetingRowTask(task);
      case 'agenda-item':
        return this.agendaItemTask(task);
      case 'paper':
        return this.paperTask(task);
      case 'organization-list':
        return this.organizationListTask(task);
      case 'organization':
        return this.organizationTask(task);
      case 'person':
        return this.personTask(task);
      case 'vanished-check':
        return this.vanishedTask(task);
      case 'commit-month': {
        const state: MonthState = { month: task.month, rows: task.rows, fetchedAt: this.nowIso() };
        await this.state.putMonth(state);
        return this.replaceFront([]);
      }
      case 'commit-page':
        await this.state.putPage(task.state);
        return this.replaceFront([]);
    }
  }

  /**
   * A child page failed: its parent meeting must be read again next run, so neither the meeting's page
   * state nor its calendar row is committed.
   */
  private taintMeeting(meetingUrl: string): void {
    for (let i = this.cursor.tasks.length - 1; i >= 0; i--) {
      const t = this.cursor.tasks[i];
      if (t?.op === 'commit-page' && t.state.url === meetingUrl) this.cursor.tasks.splice(i, 1);
      if (t?.op === 'commit-month') {
        for (const [key, mark] of Object.entries(t.rows)) if (mark.u === meetingUrl) delete t.rows[key];
      }
    }
  }

  private markRowNotPublic(meetingUrl: string): void {
    for (const t of this.cursor.tasks) {
      if (t.op !== 'commit-month') continue;
      for (const mark of Object.values(t.rows)) if (mark.u === meetingUrl) mark.n = true;
    }
  }

  private async meetingTask(task: Extract<ScrapeTask, { op: 'meeting' }>): Promise<void> {
    const outcome = await this.fetchPage(task.url, 'meeting');
    if (outcome.kind === 'failure') {
      const gone = outcome.failure === 'HTTP_STATUS' && (outcome.status === 404 || outcome.status === 410);
      if (!gone) {
        this.pageFailed(outcome, 'meeting');
        this.taintMeeting(task.url);
        return this.replaceFront([]);
      }
    }
    if (outcome.kind !== 'page') {
      // Not public (noauth) or gone: the meeting is what the calendar says; skipped, not retried (issue 8)
      // — not even by the revisit of meetings near today, until its calendar row changes.
      if (outcome.kind === 'not-public') this.cursor.totals.notPublic += 1;
      this.markRowNotPublic(task.url);
      const children = await this.processPage(
        task.url,
        'meeting',
        shapeMeeting(task.row, undefined, this.ctx),
        {
          notPublic: true,
        },
      );
      return this.replaceFront(children);
    }
    let shaped: ShapedObject[];
    try {
      const detail = this.adapter.parseMeeting(outcome.html, task.url);
      shaped = shapeMeeting(task.row, detail, this.ctx);
    } catch (err) {
      this.layoutFailed(err, task.url, 'meeting');
      this.taintMeeting(task.url);
      return this.replaceFront([]);
    }
    const children = await this.processPage(task.url, 'meeting', shaped, { meetingUrl: task.url });
    return this.replaceFront(children);
  }

  private async meetingRowTask(task: Extract<ScrapeTask, { op: 'meeting-row' }>): Promise<void> {
    const children = await this.processPage(
      task.row.meetingId,
      'meeting',
      shapeMeeting(task.row, undefined, this.ctx),
      {},
    );
    return this.replaceFront(children);
  }

  private async agendaItemTask(task: Extract<ScrapeTask, { op: 'agenda-item' }>): Promise<void> {
    let item = task.item as OParlObject;
    const parse = this.adapter.parseAgendaItem;
    const outcome = await this.fetchPage(task.url, 'agendaItem');
    if (outcome.kind === 'page' && parse) {
      try {
        item = mergeAgendaItemDetail(item, parse(outcome.html, task.url));
      } catch (err) {
        this.layoutFailed(err, task.url, 'agendaItem');
      }
    } else if (outcome.kind === 'failure') {
      const gone = outcome.failure === 'HTTP_STATUS' && (outcome.status === 404 || outcome.status === 410);
      if (!gone) {
        this.pageFailed(outcome, 'agendaItem');
        this.taintMeeting(task.meetingUrl);
      }
    } else if (outcome.kind === 'not-public') {
      this.cursor.totals.notPublic += 1;
    }
    await this.writeOwned(
      [{ type: 'agendaitem', id: item.id as string, object: item, mode: 'owner' }],
      task.url,
    );
    return this.replaceFront([]);
  }

  private async paperTask(task: Extract<ScrapeTask, { op: 'paper' }>): Promise<void> {
    const outcome = await this.fetchPage(task.url, 'paper');
    if (outcome.kind === 'failure') {
      const gone = outcome.failure === 'HTTP_STATUS' && (outcome.status === 404 || outcome.status === 410);
      if (!gone) this.pageFailed(outcome, 'paper');
      return this.replaceFront([]);
    }
    if (outcome.kind === 'not-public') {
      this.cursor.totals.notPublic += 1;
      const before = await this.state.getPage(task.url);
      await this.state.putPage({
        url: task.url,
        kind: 'paper',
        objects: before?.objects ?? {},
        fetchedAt: this.nowIso(),
        notPublicSince: before?.notPublicSince ?? this.nowIso(),
      });
      return this.replaceFront([]);
    }
    if (outcome.kind !== 'page') return this.replaceFront([]);
    let shaped: ShapedObject[];
    try {
      shaped = shapePaper(this.adapter.parsePaper(outcome.html, task.url), this.ctx);
    } catch (err) {
      this.layoutFailed(err, task.url, 'paper');
      return this.replaceFront([]);
    }
    return this.replaceFront(await this.processPage(task.url, 'paper', shaped, {}));
  }

  private async organizationListTask(task: Extract<ScrapeTask, { op: 'organization-list' }>): Promise<void> {
    const outcome = await this.fetchPage(task.url, 'organizations');
    if (outcome.kind !== 'page') {
      if (outcome.kind === 'failure') this.pageFailed(outcome, 'organizations');
      return this.replaceFront([]);
    }
    const entries = this.adapter.parseOrganizationList(outcome.html, task.url, task.kind);
    const known = await this.state.getPages(entries.map((e) => e.id));
    const refreshMs = this.policy.rosterRefreshDays * 86_400_000;
    const children: ScrapeTask[] = [];
    for (const entry of entries) {
      const state = known.get(entry.id);
      if (this.cursor.organizationsAsked.includes(entry.id)) continue;
      if (state && this.nowMs() - Date.parse(state.fetchedAt) < refreshMs) continue;
      this.cursor.organizationsAsked.push(entry.id);
      children.push({ op: 'organization', url: entry.id, kind: entry.kind });
    }
    return this.replaceFront(children);
  }

  private async organizationTask(task: Extract<ScrapeTask, { op: 'organization' }>): Promise<void> {
    const outcome = await this.fetchPage(task.url, 'organization');
    if (outcome.kind !== 'page') {
      if (outcome.kind === 'failure') this.pageFailed(outcome, 'organization');
      if (outcome.kind === 'not-public') {
        this.cursor.totals.notPublic += 1;
        await this.state.putPage({
          url: task.url,
          kind: 'organization',
          objects: {},
          fetchedAt: this.nowIso(),
          notPublicSince: this.nowIso(),
        });
      }
      return this.replaceFront([]);
    }
    let shaped: ShapedObject[];
    try {
      shaped = shapeOrganization(this.adapter.parseOrganization(outcome.html, task.url, task.kind), this.ctx);
    } catch (err) {
      this.layoutFailed(err, task.url, 'organization');
      return this.replaceFront([]);
    }
    return this.replaceFront(await this.processPage(task.url, 'organization', shaped, {}));
  }

  private async personTask(task: Extract<ScrapeTask, { op: 'person' }>): Promise<void> {
    const outcome = await this.fetchPage(task.url, 'person');
    if (outcome.kind !== 'page') {
      if (outcome.kind === 'failure') this.pageFailed(outcome, 'person');
      return this.replaceFront([]);
    }
    let shaped: ShapedObject[];
    try {
      shaped = shapePerson(this.adapter.parsePerson(outcome.html, task.url), this.ctx);
    } catch (err) {
      this.layoutFailed(err, task.url, 'person');
      return this.replaceFront([]);
    }
    return this.replaceFront(await this.processPage(task.url, 'person', shaped, {}));
  }

  /** A meeting left the calendar: its page decides — still there (moved) or gone (tombstone, OPT-2). */
  private async vanishedTask(task: Extract<ScrapeTask, { op: 'vanished-check' }>): Promise<void> {
    const outcome = await this.fetchPage(task.url, 'meeting');
    if (outcome.kind === 'page') {
      try {
        const detail = this.adapter.parseMeeting(outcome.html, task.url);
        if (detail.date !== undefined || detail.agenda.length > 0) {
          const children = await this.processPage(
            task.url,
            'meeting',
            shapeMeeting(undefined, detail, this.ctx),
            {
              meetingUrl: task.url,
            },
          );
          return this.replaceFront(children);
        }
      } catch (err) {
        // A page we cannot read proves nothing about the meeting: noted, never a reason to tombstone.
        this.layoutFailed(err, task.url, 'meeting');
        return this.replaceFront([]);
      }
    } else if (outcome.kind === 'failure') {
      const gone = outcome.failure === 'HTTP_STATUS' && (outcome.status === 404 || outcome.status === 410);
      if (!gone) {
        this.pageFailed(outcome, 'meeting');
        return this.replaceFront([]);
      }
    }
    // Gone, not public any more, or an empty shell: the meeting and what its page owned are tombstoned.
    const before = await this.state.getPage(task.url);
    const owned = Object.entries(before?.objects ?? {}).map(([id, o]) => ({ id, type: o.type }));
    if (!owned.some((o) => o.id === task.url)) owned.push({ id: task.url, type: 'meeting' });
    await this.tombstone(owned, task.url);
    await this.state.putPage({
      url: task.url,
      kind: 'meeting',
      objects: {},
      fetchedAt: this.nowIso(),
      notPublicSince: this.nowIso(),
    });
    return this.replaceFront([]);
  }

  // --- objects ----------------------------------------------------------------------------------------------

  private get ctx() {
    return { bodyId: this.body.id };
  }

  /**
   * Writes what one page yields and returns the page's child tasks, the commit of its state last:
   * owned objects whose hash differs from the page's last state are written (agenda items with their
   * own detail page wait for it), owned objects no longer on the page are tombstoned, stubs are created
   * when absent; papers of changed agenda rows and never-read organizations become tasks.
   */
  private async processPage(
    url: string,
    kind: PageKind,
    shaped: ShapedObject[],
    options: { notPublic?: boolean; meetingUrl?: string },
  ): Promise<ScrapeTask[]> {
    const before = await this.state.getPage(url);
    const owners = dedupe(shaped.filter((o) => o.mode === 'owner'));
    const stubs = dedupe(shaped.filter((o) => o.mode === 'stub'));
    const objects: PageState['objects'] = {};
    const changed: ShapedObject[] = [];
    for (const o of owners) {
      const hash = contentHash(o.object);
      objects[o.id] = { type: o.type, hash };
      if (before?.objects[o.id]?.hash !== hash) changed.push(o);
    }
    const children: ScrapeTask[] = [];
    const write: ShapedObject[] = [];
    const papers = new Set<string>();
    for (const o of changed) {
      const detailUrl = typeof o.object.web === 'string' ? o.object.web : undefined;
      if (
        o.type === 'agendaitem' &&
        this.adapter.parseAgendaItem &&
        detailUrl !== undefined &&
        o.object.result !== undefined &&
        options.meetingUrl
      ) {
        // The item has a result: its own page holds minutes and resolution (ALLRIS to020).
        children.push({
          op: 'agenda-item',
          url: detailUrl,
          meetingUrl: options.meetingUrl,
          item: o.object,
          hash: objects[o.id]?.hash ?? '',
        });
      } else {
        write.push(o);
      }
      const paper = o.type === 'agendaitem' ? o.object['mandari:paper'] : undefined;
      if (typeof paper === 'string' && !papers.has(paper)) {
        papers.add(paper);
        children.push({ op: 'paper', url: paper });
      }
    }
    await this.writeOwned(write, url);
    const removed = Object.entries(before?.objects ?? {})
      .filter(([id]) => objects[id] === undefined)
      .map(([id, o]) => ({ id, type: o.type }));
    if (removed.length > 0) await this.tombstone(removed, url);
    const created = await this.writeStubs(stubs, url);
    for (const o of created) {
      if (o.type === 'organization' && !this.cursor.organizationsAsked.includes(o.id)) {
        this.cursor.organizationsAsked.push(o.id);
        children.push({
          op: 'organization',
          url: o.id,
          kind: o.object.organizationType === 'Fraktion' ? 'faction' : 'committee',
        });
      }
      if (o.type === 'person' && this.kind === 'full') children.push({ op: 'person', url: o.id });
    }
    const state: PageState = {
      url,
      kind,
      hash: sha256Hex(
        Object.entries(objects)
          .map(([id, o]) => `${id}:${o.hash}`)
          .sort()
          .join('\n'),
      ).slice(0, 32),
      objects,
      fetchedAt: this.nowIso(),
      ...(options.notPublic ? { notPublicSince: before?.notPublicSince ?? this.nowIso() } : {}),
    };
    children.push({ op: 'commit-page', state });
    return children;
  }

  /** The mirror write path every source kind shares; pages of HTML carry no `modified` of their own. */
  private get writer(): MirrorWriter<TakedownMark> {
    this.mirrorWriter ??= new MirrorWriter({
      clients: this.deps.clients,
      tables: this.deps.tables,
      sourceId: this.source.sourceId,
      guard: this.takedowns,
      sessionDays: this.syncState,
      totals: () => this.cursor.totals,
      nowMs: () => this.nowMs(),
    });
    return this.mirrorWriter;
  }

  private mirrorWriter: MirrorWriter<TakedownMark> | undefined;

  /** Owner objects: written when their content differs from the mirror's (hash without `modified`). */
  private async writeOwned(objects: ShapedObject[], pageUrl: string): Promise<void> {
    await this.writer.writePage({ objects, url: pageUrl, body: this.body, versioning: stampedWhenSeen });
  }

  /** Stubs: created only when the mirror holds nothing for them. Returns the created ones. */
  private async writeStubs(objects: ShapedObject[], pageUrl: string): Promise<ShapedObject[]> {
    const written = await this.writer.writePage({
      objects,
      url: pageUrl,
      body: this.body,
      versioning: stampedWhenSeen,
      scope: 'absent',
    });
    return written.created;
  }

  /** Objects gone from their page: tombstoned (OPT-2) where the mirror holds them live. */
  private async tombstone(refs: { id: string; type: MirrorTypeName }[], pageUrl: string): Promise<void> {
    const objects = refs.map((ref) => ({
      ...ref,
      object: { id: ref.id, type: `${OPARL_SCHEMA}${OPARL_TYPES[ref.type]}`, deleted: true },
    }));
    await this.writer.writePage({
      objects,
      url: pageUrl,
      body: this.body,
      versioning: stampedWhenSeen,
      scope: 'known',
    });
  }

  /**
   * The source's one Body: id = the installation's directory, name from the calendar's heading when it
   * has one. The State record (slug, ONB-4 `listed`) is needed before any object is written; the mirror
   * object is written once the first calendar page told its name (or at the end of a run that read none).
   */
  private async ensureBody(headline: string | undefined): Promise<void> {
    const id = this.adapter.base;
    const bodyKey = idHash(id).slice(0, 16);
    const known = this.body ?? (await this.syncState.getBody(bodyKey));
    const name = headline ?? known?.name ?? this.source.name ?? new URL(this.source.systemUrl).hostname;
    this.body = await this.syncState.upsertBody(
      { bodyKey, id, name, lists: {}, lastSeenAt: this.nowIso() },
      slugify(name) || 'body',
    );
  }

  private bodyWritten = false;

  private async writeBody(): Promise<void> {
    if (this.bodyWritten) return;
    this.bodyWritten = true;
    await this.writeOwned(
      [
        shapeBody({
          id: this.body.id,
          name: this.body.name,
          web: this.source.systemUrl,
          product: this.adapter.product,
        }),
      ],
      this.source.systemUrl,
    );
  }

  // --- end of a run -------------------------------------------------------------------------------------------

  private async buildReport(continued: boolean, complete: boolean): Promise<ScrapeReport> {
    const t = this.cursor.totals;
    return {
      sourceId: this.source.sourceId,
      runId: this.run.runId,
      kind: this.kind,
      requests: t.requests,
      pages: t.pages,
      changed: t.new + t.modified + t.deleted > 0,
      complete,
      continued,
      stopReason: this.cursor.stopReason ?? 'end',
      objects: { new: t.new, modified: t.modified, deleted: t.deleted },
      documents: t.documents,
      notPublic: t.notPublic,
      months: this.cursor.months,
      failures: this.cursor.failures,
      sessionDays: await this.syncState.upcomingSessionDays(berlinDate(this.nowMs())),
      startedAt: this.cursor.startedAt,
      finishedAt: this.nowIso(),
    };
  }

  private async finish(): Promise<ScrapeReport> {
    await this.writeBody();
    this.frame.robotsForbidsAll();
    this.cursor.stopReason = 'end';
    const complete = this.cursor.failures.length === 0;
    const report = await this.buildReport(false, complete);
    if (complete)
      await this.syncState.markBodyComplete(this.body.bodyKey, this.cursor.startedAt, this.kind === 'full');
    this.frame.done(report);
    await this.frame.checkpoint();
    this.log('done', { requests: report.requests, complete, changed: report.changed });
    return report;
  }

  private stop(reason: StopRun['reason']): Promise<ScrapeReport> {
    // A full pass stays open for the next run (FULL-2).
    return this.frame.stop(
      reason,
      this.kind === 'incremental',
      (continued) => this.buildReport(continued, false),
      (report) => report,
    );
  }
}

function dedupe(objects: ShapedObject[]): ShapedObject[] {
  const seen = new Map<string, ShapedObject>();
  for (const o of objects) if (!seen.has(lookupKey(o.type, o.id))) seen.set(lookupKey(o.type, o.id), o);
  return [...seen.values()];
}
