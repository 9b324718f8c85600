import type { SourceConfig } from '../config';
import {
  type BodyRecord,
  berlinDate,
  bodyCompleteDue,
  MirrorWriter,
  RunFrame,
  runEndOf,
  runStart,
  type SourceTakedowns,
  StopRun,
  type SyncEngine,
  SyncStateStore,
  slugify,
  stampedWhenSeen,
} from '../engine';
import { createRunContext } from '../fetch';
import { idHash } from '../mirror';
import { adapterFor, type ScrapeAdapter } from './adapter';
import { readMonth } from './calendar';
import { SCRAPE_POLICY, type ScrapePolicy } from './constants';
import type { ScrapeContext } from './context';
import { type ScraperPageFetcher, scraperPageFetcher } from './fetch';
import { type MirrorTypeName, OPARL_SCHEMA, OPARL_TYPES, type ShapedObject, shapeBody } from './oparl-shape';
import { PageReader } from './page-reader';
import {
  continuedScrapeCursor,
  engineReportOfScrape,
  newScrapeCursor,
  type ScrapeReport,
  type ScrapeRunIdentity,
  type ScrapeRunOptions,
  type ScraperEngineDeps,
  scrapeReportOf,
} from './run';
import { type ScrapeCursor, ScrapeStateStore } from './state';
import { enterNextPhase, runTask } from './tasks';
import type { CalendarPage } from './types';

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
 * This file composes the run: its frame (start, phases, finish), the source's body and the writes to the
 * mirror. The kinds of work are modules of their own, given a `ScrapeContext` (`context.ts`): calendar
 * months (`calendar.ts`), meeting pages (`meeting-tasks.ts`), papers (`paper-task.ts`), rosters
 * (`roster-tasks.ts`), what a page yields (`page-objects.ts`), reading a page (`page-reader.ts`), the
 * dispatch with the commits (`tasks.ts`); options, cursor and report in `run.ts`.
 *
 * RATE-3: one request at a time — every page is awaited before the next is asked; nothing is
 * prefetched. The pace itself (2 s default, never below 1 s) is the polite fetcher's, from the source's
 * `requestIntervalSeconds`. FULL-4: scraper full scrapes are not cut at the window's end.
 */
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
  return new ScrapeRun(deps, { source, adapter, pages, run }).execute();
}

/** What one run scrapes, and how: the source, its vendor's adapter, its page fetcher, the run's options. */
interface ScrapeRunSetUp {
  source: SourceConfig;
  adapter: ScrapeAdapter;
  pages: ScraperPageFetcher;
  run: ScrapeRunOptions;
}

class ScrapeRun {
  /** Cursor, checkpoints, budget and failures: the run frame every source kind shares. */
  private readonly frame: RunFrame<ScrapeCursor>;
  private readonly kind: 'incremental' | 'full';
  private readonly policy: ScrapePolicy;
  private readonly state: ScrapeStateStore;
  private readonly syncState: SyncStateStore;
  /** OPT-5: the source's takedowns, checked before every write and re-checked at commit. */
  private readonly takedowns: SourceTakedowns;
  private body!: BodyRecord;
  /** What the kinds of work are given (`context.ts`). */
  private readonly context: ScrapeContext;

  private readonly source: SourceConfig;
  private readonly adapter: ScrapeAdapter;
  private readonly run: ScrapeRunOptions;

  constructor(
    private readonly deps: ScraperEngineDeps,
    { source, adapter, pages, run }: ScrapeRunSetUp,
  ) {
    this.source = source;
    this.adapter = adapter;
    this.run = run;
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
    this.takedowns = deps.takedowns(source.sourceId, (event, fields) => this.log(event, fields));
    this.context = this.contextOf(
      new PageReader(this.frame, pages, (event, fields) => this.log(event, fields)),
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

  private get identity(): ScrapeRunIdentity {
    return { sourceId: this.source.sourceId, runId: this.run.runId, kind: this.kind };
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
      this.frame.begin(continuedScrapeCursor(this.identity, startIso, this.policy, start.cursor), existing);
      this.log('continue-pass', { monthIndex: start.cursor.monthIndex });
    } else {
      this.frame.begin(newScrapeCursor(this.identity, startIso, this.policy), existing);
    }
    // Issue 28: the months still to read, in one Query (an unchanged scrape: 10 reads → 1).
    if (this.cursor.phase === 'months')
      await this.state.preloadMonths(this.cursor.months.slice(this.cursor.monthIndex));
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

  private async loop(): Promise<void> {
    for (;;) {
      const task = this.cursor.tasks[0];
      if (task) {
        await runTask(this.context, task);
        continue;
      }
      switch (this.cursor.phase) {
        case 'months': {
          const month = this.cursor.months[this.cursor.monthIndex];
          if (month === undefined) this.cursor.phase = 'vanished';
          else await readMonth(this.context, month);
          break;
        }
        case 'finish':
          return;
        default:
          enterNextPhase(this.cursor, this.kind, () =>
            this.adapter.organizationListUrls(this.organizationListsHint),
          );
          await this.frame.checkpoint();
      }
    }
  }

  /** Organization list pages the calendar's navigation named (ALLRIS au010/fr010 links). */
  private organizationListsHint: CalendarPage | undefined;

  private async calendarRead(calendar: CalendarPage): Promise<void> {
    if (calendar.organizationLists) this.organizationListsHint = calendar;
    if (calendar.headline && calendar.headline !== this.body.name) await this.ensureBody(calendar.headline);
    await this.writeBody();
  }

  // --- objects ----------------------------------------------------------------------------------------------

  /** The context the kinds of work are given: the run's parts and the writes below. */
  private contextOf(pages: PageReader): ScrapeContext {
    const run = this;
    return {
      kind: this.kind,
      policy: this.policy,
      adapter: this.adapter,
      state: this.state,
      pages,
      get cursor() {
        return run.cursor;
      },
      get shaping() {
        return { bodyId: run.body.id };
      },
      nowMs: () => this.nowMs(),
      nowIso: () => this.nowIso(),
      log: (event, fields) => this.log(event, fields),
      checkpoint: () => this.frame.checkpoint(),
      calendarRead: (calendar) => this.calendarRead(calendar),
      writeOwned: (objects, pageUrl) => this.writeOwned(objects, pageUrl),
      writeStubs: (objects, pageUrl) => this.writeStubs(objects, pageUrl),
      tombstone: (refs, pageUrl) => this.tombstone(refs, pageUrl),
    };
  }

  /** The mirror write path every source kind shares; pages of HTML carry no `modified` of their own. */
  private get writer(): MirrorWriter<unknown> {
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

  private mirrorWriter: MirrorWriter<unknown> | undefined;

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
    // Read once: the record just read is the one the upsert compares with (issue 28: a read fewer).
    const read = this.body === undefined ? { existing: await this.syncState.getBody(bodyKey) } : undefined;
    const known = this.body ?? read?.existing;
    const name = headline ?? known?.name ?? this.source.name ?? new URL(this.source.systemUrl).hostname;
    this.body = await this.syncState.upsertBody(
      { bodyKey, id, name, lists: {}, lastSeenAt: this.nowIso() },
      slugify(name) || 'body',
      read,
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
    const sessionDays = await this.syncState.upcomingSessionDays(berlinDate(this.nowMs()));
    return scrapeReportOf(this.cursor, this.identity, {
      continued,
      complete,
      sessionDays,
      finishedAt: this.nowIso(),
    });
  }

  private async finish(): Promise<ScrapeReport> {
    await this.writeBody();
    this.frame.robotsForbidsAll();
    this.cursor.stopReason = 'end';
    const complete = this.cursor.failures.length === 0;
    const report = await this.buildReport(false, complete);
    // SCH-9's start is the OParl window's; a scraped body keeps it for the record, refreshed once a day
    // (issue 28: an unchanged scrape writes no body item).
    const full = this.kind === 'full';
    if (complete && bodyCompleteDue(this.body, this.cursor.startedAt, full))
      await this.syncState.markBodyComplete(this.body.bodyKey, this.cursor.startedAt, full);
    this.frame.done(report);
    // Issue 28 (`unchangedScrapeCursor`): an unchanged incremental scrape leaves its cursor unwritten —
    // it would be its only write (≈ 0.97 M units a month at 1,000 sources). The next run reads only the
    // stored cursor's `seq`; a redelivery of this run after a lost release (the claim refuses every
    // other) finds no cursor of it and scrapes again, paced like any run, and writes nothing new.
    const unwritten =
      this.kind === 'incremental' && this.deps.writeUnchangedCursor !== true && this.frame.endsAsItBegan();
    if (!unwritten) await this.frame.checkpoint();
    this.log('done', {
      requests: report.requests,
      complete,
      changed: report.changed,
      cursorWritten: !unwritten,
    });
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
