import { expect, it, onTestFinished } from 'vitest';
import type { SourceConfig } from '../../shared/config';
import type { FetchOptions } from '../../shared/fetch';
import { DEFAULT_LEASE_MINUTES, initialScheduleState } from '../../shared/schedule';
import { createScraperSyncEngine, type ScrapeReport } from '../../shared/scraper';
import { ScrapeStateStore } from '../../shared/scraper/state';
import { getSourceState, type SourceStateItem } from '../../shared/store';
import { putSourceItem } from '../../shared/store/sources';
import { runSyncMessage, type SyncMessage, startRun } from '../../shared/sync';
import { corpusDescribe, risHtml } from '../support/corpora';
import { useRisSiteBed } from '../support/ris-site-bed';
import { liveIds, type ScraperHarness, scraperHarness } from '../support/scraper-harness';
import { injectFault, runDepsOf } from '../support/sync-bed';
import { countWrites } from '../support/write-counter';

/** Suites on the captured RIS pages (outside the repository): skipped without that corpus. */
const withRisHtml = corpusDescribe(risHtml());

const HOUR = 3_600_000;
/** An incremental scrape's calendar months at the harness's start (engine.test.ts): its requests unchanged. */
const MONTHS = 10;
/** RATE-3: the scraper's pace (the source's `requestIntervalSeconds`). */
const PACE_MS = 2_000;

const THROTTLED = {
  statusCode: 400,
  headers: { 'content-type': 'application/x-amz-json-1.0' },
  body: JSON.stringify({
    __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
    message: 'Rate of requests exceeds the allowed throughput.',
  }),
};

const SLOW_DOWN = {
  statusCode: 503,
  headers: { 'content-type': 'application/xml' },
  body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>R1</RequestId></Error>',
};

/**
 * Issue 28, lever `unchangedScrapeCursor`: an incremental scrape that changed nothing leaves its run
 * cursor unwritten — it was the run's only write. What that gives up, and only that: a redelivered
 * message whose run's release was lost (a store outage after the run's last write) finds no cursor of
 * its run and scrapes again — paced by the host's slot like any run — where it used to answer from the
 * done cursor. A message whose release succeeded is refused by the STATE claim before any request; a
 * changed run still writes its cursor; a run stopped mid-way still resumes from it. The real scraper
 * engine and polite fetcher (virtual time), the fake ALLRIS site on loopback, the real local DynamoDB,
 * S3 and SQS peers; writes counted and faults injected by middleware on the real SDK clients.
 */
withRisHtml('issue 28: an unchanged incremental scrape writes no run cursor', () => {
  const ris = useRisSiteBed({ districts: ['harburg'] });

  /** A source of the test's own, in the Sources table, scraped once; closed after the test. */
  async function scrapedOnce(prefix: string): Promise<ScraperHarness> {
    const h = scraperHarness(ris.bed, ris.site.allrisUrl, 'allris', { prefix });
    onTestFinished(() => h.close());
    await putSourceItem(ris.bed.clients.doc, ris.bed.env.SOURCES_TABLE, {
      sourceId: h.source.sourceId,
      systemUrl: ris.site.allrisUrl,
      kind: 'scraper',
      adapter: 'allris',
      active: true,
    });
    const first = await h.scrape();
    if (!first.complete || !first.changed)
      throw new Error(`first scrape of ${prefix}: ${JSON.stringify(first)}`);
    h.clock.advance(HOUR);
    return h;
  }

  const cursorOf = (h: ScraperHarness) =>
    new ScrapeStateStore(ris.bed.clients, ris.bed.env.STATE_TABLE, h.source.sourceId).getCursor(
      'incremental',
    );

  /** Paths of the site's page requests from index `from` on. */
  const pagesFrom = (from: number) =>
    ris.site
      .pageCalls('allris.test')
      .slice(from)
      .map((c) => c.path);

  /** The virtual instant of each page request the harness's fetcher makes (its slot's wait is in it). */
  function sendTimes(h: ScraperHarness): number[] {
    const times: number[] = [];
    const fetcher = h.deps.fetcher;
    h.deps.fetcher = {
      stream: (url, options) => fetcher.stream(url, options),
      userAgentFor: (source) => fetcher.userAgentFor(source),
      fetch: async (url: string, options: FetchOptions) => {
        const result = await fetcher.fetch(url, options);
        times.push(h.clock.now());
        return result;
      },
    };
    return times;
  }

  /** A run started as the planner starts one (SCH-5 lease on STATE), its first message. */
  async function started(h: ScraperHarness, runId: string): Promise<SyncMessage> {
    const message = await startRun(
      {
        doc: ris.bed.clients.doc,
        tables: { state: ris.bed.env.STATE_TABLE },
        leaseMinutes: DEFAULT_LEASE_MINUTES,
      },
      {
        source: h.source as SourceConfig,
        decision: { kind: 'incremental', trigger: 'schedule', reason: 'test', ruleIds: [] },
        state: initialScheduleState(),
        now: new Date(h.clock.now()),
        runId,
      },
    );
    if (!message) throw new Error('lease not taken');
    return message;
  }

  /** One delivery of `message` through the sync's run path, with the scraper engine of the harness. */
  function deliver(h: ScraperHarness, message: SyncMessage) {
    const now = () => new Date(h.clock.now());
    return runSyncMessage(runDepsOf(ris.bed, createScraperSyncEngine(h.deps), now), message, {
      deadlineMs: Date.now() + 60_000,
      endsAtMs: Date.now() + 120_000,
    });
  }

  const stateOf = (h: ScraperHarness) =>
    getSourceState<SourceStateItem & Record<string, unknown>>(
      ris.bed.clients.doc,
      ris.bed.env.STATE_TABLE,
      h.source.sourceId,
    );

  it('issue 28 / SCH-3: an unchanged scrape writes nothing to State, and the next run reads no more for it', async () => {
    const h = await scrapedOnce('unch-none');
    const before = await cursorOf(h);
    const writes = countWrites(ris.bed.clients.dynamo);
    const from = ris.site.pageCalls('allris.test').length;
    const report = await h.scrape();
    expect(report).toMatchObject({ changed: false, complete: true, requests: MONTHS });
    // No item written at all: no month, no page, no body, no cursor (was `{ SCRAPE: 1 }`).
    expect(writes.families()).toEqual({});
    // The stored cursor is the first run's, as it was: same run, same lock.
    expect(await cursorOf(h)).toEqual(before);
    // The next run starts from that cursor as from its own would (only its `seq` is read): the months,
    // nothing more, and again no write.
    h.clock.advance(HOUR);
    const next = await h.scrape();
    expect(next).toMatchObject({ changed: false, complete: true, requests: MONTHS });
    expect(pagesFrom(from)).toHaveLength(2 * MONTHS);
    expect(pagesFrom(from).every((p) => p.startsWith('/bi/si010_e.asp'))).toBe(true);
    expect(writes.total()).toBe(0);
  }, 120_000);

  it('issue 28: a changed scrape still writes its cursor, done with its report, and a redelivery answers from it', async () => {
    const h = await scrapedOnce('unch-changed');
    onTestFinished(() => {
      ris.site.setCalendarChanged(false);
      ris.site.setAgendaChanged(false);
    });
    // A calendar row and the meeting's agenda (a Nachtrag): its page and the new paper are read.
    ris.site.setCalendarChanged(true);
    ris.site.setAgendaChanged(true);
    const writes = countWrites(ris.bed.clients.dynamo);
    const runId = `${h.source.sourceId}-changed`;
    const report = await h.scrape('incremental', { runId });
    expect(report.changed).toBe(true);
    expect(writes.families().SCRAPE).toBeGreaterThanOrEqual(1);
    expect(await cursorOf(h)).toMatchObject({
      runId,
      status: 'done',
      report: { finishedAt: report.finishedAt },
    });
    const from = ris.site.pageCalls('allris.test').length;
    const again = await h.scrape('incremental', { runId });
    expect(again).toEqual(report);
    expect(pagesFrom(from)).toEqual([]);
  }, 120_000);

  it('issue 28 / SCH-5: an unchanged run whose release is lost is scraped again on redelivery — paced, released, nothing changed', async () => {
    const h = await scrapedOnce('unch-lost');
    const meetings = await liveIds(h.mirror, h.source.sourceId, 'meeting');
    const agenda = await liveIds(h.mirror, h.source.sourceId, 'agendaitem');
    const runId = `${h.source.sourceId}-lost`;
    const message = await started(h, runId);

    // Act: the first delivery scrapes, then our store fails the release (the outcome with the lease's
    // release, SCH-5) past the SDK's retries: the message goes back to the queue.
    const fault = injectFault(
      ris.bed.clients.dynamo,
      (command, input) =>
        command === 'UpdateItemCommand' && String(input.UpdateExpression).includes('REMOVE leaseRunId'),
      THROTTLED,
    );
    const from = ris.site.pageCalls('allris.test').length;
    await expect(deliver(h, message)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    fault.remove();
    expect(fault.hits).toBeGreaterThan(1);
    const firstPages = pagesFrom(from);
    expect(firstPages).toHaveLength(MONTHS);
    // The run changed nothing, so it left no cursor; the lease is still the run's.
    expect((await cursorOf(h))?.runId).not.toBe(runId);
    expect((await stateOf(h))?.leaseRunId).toBe(runId);

    // Act: SQS redelivers the message.
    h.clock.advance(60_000);
    const times = sendTimes(h);
    const writes = countWrites(ris.bed.clients.dynamo);
    const again = from + MONTHS;
    const result = await deliver(h, message);

    // Assess: the redelivery scrapes the same months again (what the done cursor used to spare) …
    expect(result).toMatchObject({
      status: 'done',
      report: { changed: false, complete: true, requests: MONTHS },
    });
    expect(pagesFrom(again)).toEqual(firstPages);
    // … one request at a time at the host's pace (RATE-1/RATE-3: its slot, 2 s apart in virtual time) …
    expect(times).toHaveLength(MONTHS);
    for (let i = 1; i < times.length; i += 1)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(PACE_MS);
    // … ends released with its report …
    const state = await stateOf(h);
    expect(state?.leaseRunId).toBeUndefined();
    expect(state?.lastRun).toMatchObject({ runId, ok: true, changed: false });
    // … and writes nothing but the run's own STATE bookkeeping (claim, release): the mirror is as it was.
    expect(Object.keys(writes.families()).filter((f) => f !== 'STATE' && f !== 'LASTRUN')).toEqual([]);
    expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toEqual(meetings);
    expect(await liveIds(h.mirror, h.source.sourceId, 'agendaitem')).toEqual(agenda);
  }, 120_000);

  it('issue 28 / SCH-5: a redelivery of an unchanged run whose release succeeded is refused by the claim, without a request', async () => {
    const h = await scrapedOnce('unch-released');
    const runId = `${h.source.sourceId}-released`;
    const message = await started(h, runId);
    expect(await deliver(h, message)).toMatchObject({ status: 'done', report: { changed: false } });
    expect((await cursorOf(h))?.runId).not.toBe(runId);
    const writes = countWrites(ris.bed.clients.dynamo);
    const from = ris.site.pageCalls('allris.test').length;
    const before = await stateOf(h);
    h.clock.advance(60_000);
    const late = await deliver(h, message);
    expect(late).toMatchObject({ status: 'dropped', duplicate: 'finished' });
    expect(pagesFrom(from)).toEqual([]);
    // Only the claim's conditional writes on STATE were tried (its lease is no longer this run's), and
    // refused: the item is as the release left it.
    expect(Object.keys(writes.families())).toEqual(['STATE']);
    expect(await stateOf(h)).toEqual(before);
  }, 120_000);

  it('issue 28 / ERR-1: a multi-page scrape that crashes mid-run resumes from its cursor and writes its end', async () => {
    // A source scraped for the first time: every meeting, agenda item and paper is new (many pages).
    const whole = scraperHarness(ris.bed, ris.site.allrisUrl, 'allris', { prefix: 'unch-whole' });
    onTestFinished(() => whole.close());
    const wholeFrom = ris.site.pageCalls('allris.test').length;
    await whole.scrape();
    const wholePages = pagesFrom(wholeFrom);
    const wholeAgenda = await liveIds(whole.mirror, whole.source.sourceId, 'agendaitem');

    const h = scraperHarness(ris.bed, ris.site.allrisUrl, 'allris', { prefix: 'unch-crash' });
    onTestFinished(() => h.close());
    const runId = `${h.source.sourceId}-crash`;
    // The instance's store fails for good after a few mirror records (S3 5xx past the SDK's retries):
    // the invocation dies mid-run.
    let records = 0;
    const fault = injectFault(
      ris.bed.clients.s3,
      (command, input) =>
        command === 'PutObjectCommand' && String(input.Key).startsWith('mirror/') && ++records > 8,
      SLOW_DOWN,
    );
    const from = ris.site.pageCalls('allris.test').length;
    let crashed: unknown;
    await h.scrape('incremental', { runId }).catch((err: unknown) => {
      crashed = err;
    });
    fault.remove();
    expect(crashed).toBeDefined();
    const firstPages = pagesFrom(from);
    const saved = await cursorOf(h);
    expect(saved).toMatchObject({ runId, status: 'running' });

    // The redelivery resumes the run from its cursor, not from its start …
    const resumedFrom = ris.site.pageCalls('allris.test').length;
    const report: ScrapeReport = await h.scrape('incremental', { runId });
    const resumedPages = pagesFrom(resumedFrom);
    expect(report).toMatchObject({ complete: true, continued: false });
    expect(resumedPages.length).toBeLessThan(wholePages.length);
    expect(resumedPages[0]).not.toBe(wholePages[0]);
    // … together they asked every page of one uninterrupted run, repeating only the pages after the
    // last checkpoint (every page with a commit saves one) …
    expect(new Set([...firstPages, ...resumedPages])).toEqual(new Set(wholePages));
    const repeated = firstPages.length + resumedPages.length - wholePages.length;
    expect(repeated).toBeLessThanOrEqual(2);
    // … the mirror equals the uninterrupted run's, and the run's end reached the store.
    expect(await liveIds(h.mirror, h.source.sourceId, 'agendaitem')).toEqual(wholeAgenda);
    expect(await cursorOf(h)).toMatchObject({ runId, status: 'done' });
  }, 120_000);
});
