import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { documentId, MARK_REFRESH_MS } from '../../shared/engine';
import type { MirrorRecord } from '../../shared/mirror';
import { createScraperSyncEngine, engineReportOfScrape, type ScrapeReport } from '../../shared/scraper';
import { ScrapeStateStore } from '../../shared/scraper/state';
import { corpusDescribe, risHtml } from '../support/corpora';
import { EXTRA_MEETINGS, type GateKind, NACHTRAG, type RecordedRisCall } from '../support/fake-ris-html';
import { useRisSiteBed } from '../support/ris-site-bed';
import { liveIds, SCRAPE_START_MS, type ScraperHarness, scraperHarness } from '../support/scraper-harness';
import { countCalls, countWrites } from '../support/write-counter';

/** Suites on the captured RIS pages (outside the repository): skipped without that corpus. */
const withRisHtml = corpusDescribe(risHtml());

/**
 * The scraper engine end to end (issue 8): the real polite fetcher (robots.txt, slots, redirects, ID-4)
 * on a FAKE CLOCK with process-local slots — the scraper's 2 s pace (RATE-3) is kept in virtual time, so
 * these scrapes cost milliseconds, not minutes — against the fake RIS website on loopback (captured
 * ALLRIS pages as ISO-8859-1 bytes, SessionNet samples) and the real local DynamoDB/S3 peers.
 */

const HOUR = 3_600_000;
const MONTHS = 10; // 2025-08 … 2026-05: 60 days back, 210 days ahead of 2025-10-20
const MOJIBAKE = /\uFFFD|Ã[\u0080-\u00BF]|Â\u00A0/;

async function read(h: ScraperHarness, type: string, id: string): Promise<MirrorRecord> {
  const record = await h.mirror.read(h.source.sourceId, type, id);
  if (!record) throw new Error(`${type} ${id} not mirrored`);
  return record;
}

function obj(record: MirrorRecord): Record<string, unknown> {
  return record.object as Record<string, unknown>;
}

withRisHtml('scraper engine: ALLRIS 3 site (harburg, eimsbuettel) on loopback', () => {
  // delayMs: every answer takes a little while, so two overlapping requests would show in maxInFlight.
  const ris = useRisSiteBed({ delayMs: 3 });
  let base: string;
  let harburgMeeting: string;
  let eimsbuettelMeeting: string;
  // The first scrape of one source: only read by the tests below, never changed (a test that changes
  // the site or scrapes again uses a source of its own, `scrapedOnce`), so any test may run first.
  let h: ScraperHarness;
  let first: ScrapeReport;
  const idsAfterFirst: Record<string, string[]> = {};
  let firstCalls: RecordedRisCall[];
  let firstPageCalls: RecordedRisCall[];
  let firstMaxInFlight: number;
  let firstElapsedMs: number;

  beforeAll(async () => {
    const { bed, site } = ris;
    base = site.allrisUrl;
    harburgMeeting = `${base}to010.asp?SILFDNR=${site.manifest.harburg?.meeting_id}`;
    eimsbuettelMeeting = `${base}to010.asp?SILFDNR=${site.manifest.eimsbuettel?.meeting_id}`;
    h = scraperHarness(bed, base, 'allris', { prefix: 'allris' });
    site.resetCalls();
    first = await h.scrape();
    firstCalls = [...site.calls];
    firstPageCalls = site.pageCalls('allris.test');
    firstMaxInFlight = site.maxInFlight;
    firstElapsedMs = h.clock.now() - SCRAPE_START_MS;
    for (const type of ['meeting', 'agendaitem', 'paper', 'file', 'organization', 'person', 'membership']) {
      idsAfterFirst[type] = await liveIds(h.mirror, h.source.sourceId, type);
    }
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  /** A source of the test's own, scraped once on the unchanged site; closed after the test. */
  async function scrapedOnce(prefix: string): Promise<ScraperHarness> {
    const own = scraperHarness(ris.bed, base, 'allris', { prefix });
    onTestFinished(() => own.close());
    const report = await own.scrape();
    if (!report.complete) throw new Error(`first scrape of ${prefix} incomplete`);
    return own;
  }

  /** The site as every test finds it: nothing changed, nothing removed, no gate. */
  function restoreSiteAfterTest(): void {
    onTestFinished(() => {
      ris.site.setAgendaChanged(false);
      ris.site.setCalendarChanged(false);
      ris.site.setRemoved(null);
      ris.site.setGate(null);
    });
  }

  it('ISSUE-8: the first incremental scrape mirrors meetings, agenda items, papers, files and rosters as OParl objects', async () => {
    expect(first.complete).toBe(true);
    expect(first.failures).toEqual([]);
    expect(first.months).toHaveLength(MONTHS);
    expect(idsAfterFirst.meeting).toEqual(
      [
        harburgMeeting,
        eimsbuettelMeeting,
        `${base}to010.asp?SILFDNR=${EXTRA_MEETINGS.factionBoard.key}`,
        `${base}to010.asp?SILFDNR=${EXTRA_MEETINGS.cancelled.key}`,
        `${base}to010.asp?SILFDNR=${EXTRA_MEETINGS.notPublic.key}`,
      ].sort(),
    );
    // harburg 7 + eimsbuettel 13 agenda items; 4 + 6 papers; both committees with their rosters.
    expect(idsAfterFirst.agendaitem).toHaveLength(20);
    expect(idsAfterFirst.paper).toHaveLength(10);
    expect(idsAfterFirst.organization).toEqual([
      `${base}au020.asp?AULFDNR=219`,
      `${base}au020.asp?AULFDNR=25`,
    ]);
    expect(idsAfterFirst.membership?.length).toBeGreaterThan(40);

    const meeting = obj(await read(h, 'meeting', harburgMeeting));
    expect(meeting).toMatchObject({
      type: 'https://schema.oparl.org/1.1/Meeting',
      name: 'Sitzung des Ausschusses für Bildung und Sport',
      start: '2025-11-03T18:00:00+01:00',
      end: '2025-11-03T18:10:00+01:00',
      organization: [`${base}au020.asp?AULFDNR=25`],
      location: { room: 'Mehrzwecksaal im SDZ' },
    });
    expect(typeof meeting.modified).toBe('string');
    expect((meeting.agendaItem as unknown[]).length).toBe(7);

    const committee = obj(await read(h, 'organization', `${base}au020.asp?AULFDNR=25`));
    expect(committee).toMatchObject({ name: 'Ausschuss für Bildung und Sport', organizationType: 'Gremium' });
  });

  it('ISSUE-8: umlauts survive ISO-8859-1 pages announced only by their meta tag', async () => {
    const item = obj(await read(h, 'agendaitem', `${base}to020.asp?TOLFDNR=1037962`));
    expect(item.name).toBe(
      'Allgemeine Geschäftsordnungsangelegenheiten / Festlegung der Stimmberechtigungen',
    );
    const body = obj(await read(h, 'body', base));
    expect(body).toMatchObject({
      type: 'https://schema.oparl.org/1.1/Body',
      name: 'Bezirksversammlung Eimsbüttel',
    });
    for (const [type, ids] of Object.entries(idsAfterFirst)) {
      for (const id of (ids ?? []).slice(0, 15)) {
        const text = JSON.stringify((await read(h, type, id)).object);
        expect(text, `${type} ${id}`).not.toMatch(MOJIBAKE);
      }
    }
  });

  it('ISSUE-8: agenda items with a result carry the to020 minutes; files with stable do027 links become Documents', async () => {
    const decided = obj(await read(h, 'agendaitem', `${base}to020.asp?TOLFDNR=1038040`));
    expect(decided.result).toBeDefined();
    expect(String(decided['mandari:minutesText'] ?? '').length).toBeGreaterThan(20);
    // Files: do027 documents have an accessUrl and a Documents item; ___tmp attachments have neither.
    const files = await Promise.all(
      (idsAfterFirst.file ?? []).map(async (id) => obj(await read(h, 'file', id))),
    );
    const stable = files.filter((f) => typeof f.accessUrl === 'string');
    expect(stable.length).toBeGreaterThan(0);
    expect(first.documents).toBe(stable.length);
    for (const f of files.filter((x) => x.accessUrl === undefined)) {
      expect(String(f.id)).toMatch(/vo020\.asp\?VOLFDNR=\d+#anlage-\d+$/);
      expect(JSON.stringify(f)).not.toContain('___tmp');
    }
    const doc = await ris.bed.clients.doc.send(
      new QueryCommand({
        TableName: ris.bed.env.DOCUMENTS_TABLE,
        KeyConditionExpression: 'docId = :d',
        ExpressionAttributeValues: { ':d': documentId(String(stable[0]?.accessUrl)) },
      }),
    );
    expect(doc.Items?.[0]).toMatchObject({ sourceId: h.source.sourceId, state: 'pending', listed: false });
  });

  it('ISSUE-8 / SCH-2: calendar-only rows become meetings; "ENTFÄLLT" is cancelled and no session day', async () => {
    const cancelled = obj(
      await read(h, 'meeting', `${base}to010.asp?SILFDNR=${EXTRA_MEETINGS.cancelled.key}`),
    );
    expect(cancelled).toMatchObject({ cancelled: true, name: EXTRA_MEETINGS.cancelled.name });
    const board = obj(
      await read(h, 'meeting', `${base}to010.asp?SILFDNR=${EXTRA_MEETINGS.factionBoard.key}`),
    );
    expect(board.agendaItem).toBeUndefined();
    expect(board.start).toBe('2025-11-04T18:00:00+01:00');
    expect(first.sessionDays).toEqual(['2025-11-03', '2025-11-04', '2025-11-06']);
    expect(engineReportOfScrape(first)).toMatchObject({
      kind: 'incremental',
      changed: true,
      complete: true,
      failures: [],
    });
  });

  it('ISSUE-8: a noauth.asp redirect means "not public": the meeting is kept from its row, skipped, not retried', async () => {
    expect(first.notPublic).toBe(1);
    const hidden = obj(await read(h, 'meeting', `${base}to010.asp?SILFDNR=${EXTRA_MEETINGS.notPublic.key}`));
    expect(hidden).toMatchObject({ name: EXTRA_MEETINGS.notPublic.name, start: '2025-11-06T17:00:00+01:00' });
    expect(hidden.agendaItem).toBeUndefined();
  });

  it('RATE-3 / ID-1: one request at a time, at least 2 s apart (virtual clock), with our User-Agent', () => {
    expect(firstMaxInFlight).toBe(1);
    expect(firstPageCalls.length).toBe(first.requests);
    // Every request waited for its slot: 2 s per request after the first (robots.txt included).
    expect(firstElapsedMs).toBeGreaterThanOrEqual(2_000 * (firstCalls.length - 1));
    for (const call of firstCalls) expect(call.userAgent).toMatch(/^mandari-ingestor\//);
  });

  it('ISSUE-8 / SCH-3: an unchanged incremental scrape costs only the calendar months and changes nothing', async () => {
    const own = await scrapedOnce('allris-again');
    const { site } = ris;
    site.resetCalls();
    own.clock.advance(HOUR);
    // Issue 18: counted by a middleware on the real SDK client in front of dynalite.
    const writes = countWrites(ris.bed.clients.dynamo);
    const calls = countCalls(ris.bed.clients.dynamo);
    const report = await own.scrape();
    // Issue 28: its months in one Query, not one GetItem each; the body read once — single reads are
    // only the cursor and the body (were 2 + MONTHS + 1: every month, and the body twice).
    const gets = calls.calls().filter((c) => c.command === 'Get' || c.command === 'GetItem');
    expect(gets).toHaveLength(2);
    // No month changed, so none is rewritten. Issue 28: the body's SCH-9 mark is less than a day old,
    // so it is not rewritten either (was `BODY: 1`), and a run that changed nothing leaves its cursor
    // unwritten (`unchangedScrapeCursor`, was `SCRAPE: 1`): no write at all.
    expect(writes.families()).toEqual({});
    expect(report.requests).toBe(MONTHS);
    expect(site.pageCalls().every((c) => c.path.startsWith('/bi/si010_e.asp'))).toBe(true);
    expect(report).toMatchObject({
      changed: false,
      complete: true,
      objects: { new: 0, modified: 0, deleted: 0 },
    });
    // A day later the body's mark is a day old: that run writes it again (shared/engine bodyCompleteDue).
    own.clock.advance(MARK_REFRESH_MS);
    writes.reset();
    expect((await own.scrape()).complete).toBe(true);
    expect(writes.families().BODY).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('ISSUE-8: ids are stable across runs and across sources reading the same installation', async () => {
    const own = await scrapedOnce('allris-stable');
    own.clock.advance(HOUR);
    expect((await own.scrape()).complete).toBe(true);
    const other = scraperHarness(ris.bed, base, 'allris', { prefix: 'allris-b' });
    try {
      const report = await other.scrape();
      expect(report.complete).toBe(true);
      for (const type of ['meeting', 'agendaitem', 'paper', 'organization', 'person']) {
        expect(await liveIds(other.mirror, other.source.sourceId, type), type).toEqual(idsAfterFirst[type]);
        expect(await liveIds(own.mirror, own.source.sourceId, type), type).toEqual(idsAfterFirst[type]);
      }
    } finally {
      await other.close();
    }
  }, 180_000);

  it('ISSUE-8: a changed agenda (Nachtrags-TOP) is picked up by the revisit of meetings near today; only its new paper is fetched', async () => {
    const own = await scrapedOnce('allris-agenda');
    const { site } = ris;
    restoreSiteAfterTest();
    site.setAgendaChanged(true);
    site.resetCalls();
    own.clock.advance(HOUR);
    const early = await own.scrape();
    // Within the revisit interval the calendar alone is asked.
    expect(early.requests).toBe(MONTHS);

    own.clock.advance(6 * HOUR);
    site.resetCalls();
    const report = await own.scrape();
    const paths = site.pageCalls().map((c) => c.path);
    expect(paths.filter((p) => p.startsWith('/bi/to010.asp')).sort()).toEqual(
      [
        `/bi/to010.asp?SILFDNR=${site.manifest.eimsbuettel?.meeting_id}`,
        `/bi/to010.asp?SILFDNR=${site.manifest.harburg?.meeting_id}`,
      ].sort(),
    );
    expect(paths.filter((p) => p.startsWith('/bi/vo020.asp'))).toEqual([
      `/bi/vo020.asp?VOLFDNR=${NACHTRAG.paper}`,
    ]);
    expect(paths.some((p) => p.startsWith('/bi/to020.asp'))).toBe(false);
    expect(report.requests).toBe(MONTHS + 3);
    expect(report.changed).toBe(true);
    const item = obj(await read(own, 'agendaitem', `${base}to020.asp?TOLFDNR=${NACHTRAG.item}`));
    // Windows-1252 quotes and dash in an ISO-8859-1 page: „ “ –
    expect(item).toMatchObject({ name: NACHTRAG.name, number: 'Ö 9', meeting: harburgMeeting });
    expect(obj(await read(own, 'paper', `${base}vo020.asp?VOLFDNR=${NACHTRAG.paper}`)).reference).toBe(
      '22-1940.01',
    );
    const meeting = obj(await read(own, 'meeting', harburgMeeting));
    expect((meeting.agendaItem as unknown[]).length).toBe(8);
  }, 120_000);

  it('issue 28: a meeting revisited near its day and found unchanged writes no page state (its fetchedAt moves once a day)', async () => {
    const own = await scrapedOnce('allris-revisit');
    const { site } = ris;
    const state = new ScrapeStateStore(ris.bed.clients, ris.bed.env.STATE_TABLE, own.source.sourceId);
    const first = await state.getPage(harburgMeeting);
    expect(first?.fetchedAt).toBeDefined();
    own.clock.advance(HOUR);
    await own.scrape();
    own.clock.advance(6 * HOUR);
    site.resetCalls();
    const report = await own.scrape();
    // The revisit asked the meeting page again (ISSUE-8) …
    expect(site.pageCalls().map((c) => c.path)).toContain(
      `/bi/to010.asp?SILFDNR=${site.manifest.harburg?.meeting_id}`,
    );
    expect(report).toMatchObject({ changed: false, complete: true });
    // … and, the page yielding what its state says, did not write that state again.
    expect((await state.getPage(harburgMeeting))?.fetchedAt).toBe(first?.fetchedAt);
  }, 120_000);

  it('ISSUE-8: a changed calendar row makes exactly its meeting page be read again', async () => {
    const own = await scrapedOnce('allris-calendar');
    const { site } = ris;
    restoreSiteAfterTest();
    site.setCalendarChanged(true);
    site.resetCalls();
    own.clock.advance(HOUR);
    const report = await own.scrape();
    expect(
      site
        .pageCalls()
        .filter((c) => !c.path.startsWith('/bi/si010_e.asp'))
        .map((c) => c.path),
    ).toEqual([`/bi/to010.asp?SILFDNR=${site.manifest.harburg?.meeting_id}`]);
    expect(report.requests).toBe(MONTHS + 1);
  }, 120_000);

  it('OPT-2: a meeting that leaves the calendar and whose page is gone is tombstoned with its agenda', async () => {
    const own = await scrapedOnce('allris-removed');
    const { site } = ris;
    restoreSiteAfterTest();
    site.setRemoved('eimsbuettel');
    site.resetCalls();
    own.clock.advance(HOUR);
    const report = await own.scrape();
    expect(site.pageCalls().map((c) => c.path)).toContain(
      `/bi/to010.asp?SILFDNR=${site.manifest.eimsbuettel?.meeting_id}`,
    );
    expect(report.objects.deleted).toBeGreaterThanOrEqual(1 + 13);
    expect(await liveIds(own.mirror, own.source.sourceId, 'meeting')).not.toContain(eimsbuettelMeeting);
    const tomb = await read(own, 'meeting', eimsbuettelMeeting);
    expect(tomb.meta.deleted).toBe(true);
    expect((tomb.meta.lastGood as { name?: string }).name).toBe('Sitzung des Kerngebietsausschusses');
    expect(report.sessionDays).toContain('2025-11-03'); // harburg still meets that day

    // Back in the calendar: read again and live again.
    site.setRemoved(null);
    own.clock.advance(HOUR);
    const back = await own.scrape();
    expect(back.objects.modified).toBeGreaterThanOrEqual(1);
    expect(await liveIds(own.mirror, own.source.sourceId, 'meeting')).toContain(eimsbuettelMeeting);
  }, 120_000);
});

withRisHtml('scraper engine: gate pages, time budget, full scrape', () => {
  const ris = useRisSiteBed({ districts: ['harburg'] });

  it.each<[GateKind, number]>([
    ['cloudflare', 403],
    ['anubis', 200],
    ['login', 200],
    ['denied', 200],
  ])(
    'ERR-5 / B-3: a %s gate page (HTTP %i) is reported as ua-blocked and never bypassed',
    async (kind, status) => {
      const { bed, site } = ris;
      const h = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: `gate-${kind}` });
      site.setGate(kind);
      site.resetCalls();
      try {
        const report = await h.scrape();
        expect(report.complete).toBe(false);
        expect(report.failures).toHaveLength(1);
        expect(report.failures[0]).toMatchObject({ kind: 'ua-blocked', status });
        expect(engineReportOfScrape(report).failures).toEqual(['ua-blocked']);
        const pages = site.pageCalls();
        // One page; after a 403 only the ID-4 comparison request (no User-Agent of ours) follows.
        expect(pages[0]?.path).toBe('/bi/si010_e.asp?MM=8&YY=2025');
        expect(pages.slice(1).every((c) => c.path === pages[0]?.path && c.userAgent === '')).toBe(true);
        expect(pages.length).toBe(status === 403 ? 2 : 1);
        // Nothing mirrored from a wall.
        expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toEqual([]);
      } finally {
        site.setGate(null);
        await h.close();
      }
    },
  );

  it('ISSUE-8: the time budget stops before a request (continued) and the same run resumes to the same result', async () => {
    const { bed, site } = ris;
    const h = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'budget' });
    try {
      const runId = `${h.source.sourceId}-budget`;
      const part = await h.scrape('incremental', { runId, deadlineMs: h.clock.now() + 5 * 2_000 });
      expect(part).toMatchObject({ continued: true, complete: false, stopReason: 'deadline' });
      expect(part.requests).toBeLessThan(10);
      const rest = await h.scrape('incremental', { runId });
      expect(rest).toMatchObject({ continued: false, complete: true });
      const again = await h.scrape('incremental', { runId });
      expect(again.finishedAt).toBe(rest.finishedAt); // a redelivered message of a finished run
      // Together the two invocations mirrored what one uninterrupted scrape does (harburg + 3 rows).
      expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toHaveLength(4);
      expect(await liveIds(h.mirror, h.source.sourceId, 'agendaitem')).toHaveLength(7);
      expect(await liveIds(h.mirror, h.source.sourceId, 'paper')).toHaveLength(4);
      // The report covers the whole run, both invocations: months, harburg's page, the noauth redirect
      // (2), its 4 papers and its committee's roster — what one uninterrupted scrape costs.
      expect(rest.requests).toBe(MONTHS + 1 + 2 + 4 + 1);
    } finally {
      await h.close();
    }
  }, 120_000);

  it('ISSUE-8 / FULL-4: a full scrape walks the term’s months, reads rosters and persons, and is not cut at the window’s end', async () => {
    const { bed, site } = ris;
    const h = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'full', policy: { termYears: 0.25 } });
    site.resetCalls();
    try {
      // Through the SyncEngine the planner calls, with the own window already over (message.deadline):
      // FULL-4 says scraper full syncs do not stop there; only the invocation budget (deadlineMs) counts.
      const started = new Date(h.clock.now());
      const report = await createScraperSyncEngine(h.deps)(
        h.source,
        {
          runId: `${h.source.sourceId}-full`,
          kind: 'full',
          deadline: new Date(started.getTime() - HOUR).toISOString(),
        },
        { deadlineMs: started.getTime() + 24 * HOUR, runStartedAt: started },
      );
      expect(report).toMatchObject({ kind: 'full', complete: true, continued: false, failures: [] });
      const paths = site.pageCalls().map((c) => c.path);
      const months = paths.filter((p) => p.startsWith('/bi/si010_e.asp'));
      expect(months[0]).toBe('/bi/si010_e.asp?MM=7&YY=2025');
      expect(months.at(-1)).toBe('/bi/si010_e.asp?MM=5&YY=2026');
      expect(months).toHaveLength(11);
      expect(paths.some((p) => p.startsWith('/bi/au010.asp'))).toBe(true);
      expect(paths.some((p) => p.startsWith('/bi/fr010.asp'))).toBe(true);
      expect(paths).toContain(`/bi/fr020.asp?FRLFDNR=${site.manifest.harburg?.party_id}`);
      expect(paths.filter((p) => p.startsWith('/bi/kp020.asp')).length).toBeGreaterThan(20);
      expect(report.requests).toBe(paths.length);
      const faction = obj(
        await read(
          h,
          'organization',
          `${site.allrisUrl}fr020.asp?FRLFDNR=${site.manifest.harburg?.party_id}`,
        ),
      );
      expect(faction).toMatchObject({ name: 'SPD-Fraktion', organizationType: 'Fraktion' });
      const persons = await liveIds(h.mirror, h.source.sourceId, 'person');
      const person = obj(await read(h, 'person', persons[0] as string));
      expect(person.familyName).toBeDefined();
      expect(person['mandari:organizations']).toBeDefined();
    } finally {
      await h.close();
    }
  }, 180_000);
});

withRisHtml('scraper engine: SessionNet site on loopback (trimmed samples + synthetic pages)', () => {
  const ris = useRisSiteBed();

  it('ISSUE-8: month calendar, meeting agendas with getfile documents and papers become OParl objects; unchanged costs the months', async () => {
    const { bed, site } = ris;
    const h = scraperHarness(bed, site.sessionNetUrl, 'sessionnet', { prefix: 'sn' });
    const base = site.sessionNetUrl;
    try {
      const report = await h.scrape();
      expect(report).toMatchObject({ complete: true, failures: [] });
      expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toEqual(
        [6773, 6810, 6901].map((k) => `${base}si0057.asp?__ksinr=${k}`),
      );
      const meeting = obj(await read(h, 'meeting', `${base}si0057.asp?__ksinr=6773`));
      expect(meeting).toMatchObject({
        name: 'Sitzung Ortsrat Oldendorf',
        start: '2025-10-04T19:00:00+02:00',
        'mandari:organizationName': 'Ortsrat Oldendorf',
        resultsProtocol: { id: `${base}getfile.asp?id=1002&type=do`, name: 'Protokoll öffentlich' },
      });
      const item = obj(await read(h, 'agendaitem', `${base}si0057.asp?__ksinr=6773#top-Oe1`));
      expect(item).toMatchObject({
        number: 'Ö 1',
        name: 'Genehmigung des Protokolls',
        'mandari:reporter': 'Ratsvorsitzender Boßmann',
      });
      const paper = obj(await read(h, 'paper', `${base}vo0050.asp?__kvonr=4001`));
      expect(paper).toMatchObject({
        name: 'Änderung der Gebührensatzung für Straßenreinigung',
        reference: 'VO/2025/4001',
        paperType: 'Beschlussvorlage',
        date: '2025-10-01',
      });
      expect(report.documents).toBeGreaterThanOrEqual(7);

      site.resetCalls();
      h.clock.advance(HOUR);
      const again = await h.scrape();
      expect(again.requests).toBe(MONTHS);
      expect(again.changed).toBe(false);
    } finally {
      await h.close();
    }
  }, 120_000);
});
