import { describe, expect, it } from 'vitest';
import { contentHash, MARK_REFRESH_MS, type OParlObject } from '../../shared/engine';
import { planMonth, vanishedChecks } from '../../shared/scraper/calendar';
import { SCRAPE_POLICY } from '../../shared/scraper/constants';
import { markRowNotPublic, taintMeeting } from '../../shared/scraper/context';
import type { ShapedObject } from '../../shared/scraper/oparl-shape';
import { pageStateOf, pageStateWriteDue, planPage, stubTasks } from '../../shared/scraper/page-objects';
import { pageGone } from '../../shared/scraper/page-reader';
import { organizationsToAsk } from '../../shared/scraper/roster-tasks';
import type { MonthState, PageState, ScrapeCursor, ScrapeTask } from '../../shared/scraper/state';
import { enterNextPhase } from '../../shared/scraper/tasks';
import type { CalendarRow } from '../../shared/scraper/types';

/**
 * The scraper engine's pure decisions (issue 15: state + now → decision, apart from the I/O): which
 * meeting pages a calendar month asks for, which pages of a page are read and which objects written,
 * which organizations a roster list asks for. End to end they run in engine.test.ts.
 */

const BASE = 'https://ris.example.test/bi/';
const NOW = Date.parse('2025-10-20T08:00:00Z');
const HOUR = 3_600_000;

function row(key: string, extra: Partial<CalendarRow> = {}): CalendarRow {
  return {
    meetingId: `${BASE}to010.asp?SILFDNR=${key}`,
    key,
    detailUrl: `${BASE}to010.asp?SILFDNR=${key}`,
    date: '2025-11-03',
    name: `Sitzung ${key}`,
    cancelled: false,
    ...extra,
  };
}

const hashOf = (r: CalendarRow) => contentHash(r as unknown as OParlObject);

function plan(rows: CalendarRow[], previous?: MonthState, appeared: string[] = []) {
  return planMonth({
    month: '2025-11',
    calendar: { rows },
    previous,
    appeared,
    kind: 'incremental',
    policy: SCRAPE_POLICY,
    nowMs: NOW,
  });
}

describe('calendar month (planMonth, vanishedChecks)', () => {
  it('ISSUE-8: a month read for the first time asks every meeting page; a row without a page is a calendar-only meeting', () => {
    const noPage = row('2', { detailUrl: undefined });
    const p = plan([row('1'), noPage]);
    expect(p.tasks.map((t) => t.op)).toEqual(['meeting', 'meeting-row']);
    expect(p.rows['1']).toEqual({
      h: hashOf(row('1')),
      u: row('1').meetingId,
      f: new Date(NOW).toISOString(),
    });
    expect(p.rows['2']).toEqual({ h: hashOf(noPage), u: noPage.meetingId });
    // Nothing read before: nothing appeared, nothing vanished.
    expect(p).toMatchObject({ appeared: [], vanished: {} });
  });

  it('ISSUE-8: an unchanged row asks nothing until the revisit of a meeting near today is due; a not-public row never', () => {
    const r = row('1');
    const readAt = (msAgo: number) => new Date(NOW - msAgo).toISOString();
    const month = (mark: MonthState['rows'][string]): MonthState => ({
      month: '2025-11',
      rows: { '1': mark },
      fetchedAt: readAt(HOUR),
    });
    const fresh = plan([r], month({ h: hashOf(r), u: r.meetingId, f: readAt(HOUR) }));
    expect(fresh.tasks).toEqual([]);
    const due = plan([r], month({ h: hashOf(r), u: r.meetingId, f: readAt(7 * HOUR) }));
    expect(due.tasks).toEqual([{ op: 'meeting', url: r.detailUrl, month: '2025-11', row: r, revisit: true }]);
    expect(due.rows['1']?.f).toBe(new Date(NOW).toISOString());
    const hidden = plan([r], month({ h: hashOf(r), u: r.meetingId, f: readAt(7 * HOUR), n: true }));
    expect(hidden.tasks).toEqual([]);
  });

  it('OPT-2: a row that left its month is noted as vanished; one new in a month read before as appeared, once', () => {
    const previous: MonthState = {
      month: '2025-11',
      rows: { old: { h: 'x', u: `${BASE}to010.asp?SILFDNR=old` } },
      fetchedAt: new Date(NOW).toISOString(),
    };
    const p = plan([row('new'), row('new'), row('seen')], previous, ['seen']);
    expect(p.vanished).toEqual({ old: { url: `${BASE}to010.asp?SILFDNR=old`, month: '2025-11' } });
    expect(p.appeared).toEqual(['new']);
    // Checked at the end of the run unless it appeared in another month.
    expect(vanishedChecks({ vanished: p.vanished, appeared: [] })).toEqual([
      { op: 'vanished-check', url: `${BASE}to010.asp?SILFDNR=old`, meetingKey: 'old', month: '2025-11' },
    ]);
    expect(vanishedChecks({ vanished: p.vanished, appeared: ['old'] })).toEqual([]);
  });

  it('ISSUE-26 / OPT-2: a calendar-only meeting (no page exists) is remembered so; when its row leaves, its check asks no page', () => {
    const id = `${BASE}si0040.asp?__cjahr=2025&__cmonat=11#2025-11-13%20Beirat`;
    const only = row('2025-11-13 Beirat', { meetingId: id, detailUrl: undefined, calendarOnly: true });
    const first = plan([only]);
    expect(first.tasks.map((t) => t.op)).toEqual(['meeting-row']);
    expect(first.rows['2025-11-13 Beirat']).toEqual({ h: hashOf(only), u: id, c: true });
    const previous: MonthState = {
      month: '2025-11',
      rows: first.rows,
      fetchedAt: new Date(NOW).toISOString(),
    };
    const gone = plan([], previous);
    expect(gone.vanished).toEqual({ '2025-11-13 Beirat': { url: id, month: '2025-11', calendarOnly: true } });
    expect(vanishedChecks({ vanished: gone.vanished, appeared: [] })).toEqual([
      {
        op: 'vanished-check',
        url: id,
        meetingKey: '2025-11-13 Beirat',
        month: '2025-11',
        calendarOnly: true,
      },
    ]);
  });
});

const meetingUrl = `${BASE}to010.asp?SILFDNR=1`;

function owner(type: ShapedObject['type'], id: string, object: Record<string, unknown> = {}): ShapedObject {
  return { type, id, object: { id, ...object }, mode: 'owner' };
}

describe('what a page yields (planPage, stubTasks, pageStateOf)', () => {
  const decided = owner('agendaitem', `${BASE}to020.asp?TOLFDNR=5`, {
    web: `${BASE}to020.asp?TOLFDNR=5`,
    result: 'beschlossen',
    'mandari:paper': `${BASE}vo020.asp?VOLFDNR=9`,
  });
  const plain = owner('agendaitem', `${BASE}to020.asp?TOLFDNR=6`, {
    'mandari:paper': `${BASE}vo020.asp?VOLFDNR=9`,
  });
  const meeting = owner('meeting', meetingUrl, { name: 'Sitzung' });

  it('ISSUE-8: changed owners are written, an item with a result waits for its own page, a paper is asked once', () => {
    const p = planPage(undefined, [meeting, decided, plain, meeting], { meetingUrl, readsAgendaItems: true });
    expect(p.write.map((o) => o.id)).toEqual([meetingUrl, plain.id]);
    expect(p.children).toEqual([
      {
        op: 'agenda-item',
        url: decided.id,
        meetingUrl,
        item: decided.object,
        hash: contentHash(decided.object),
      },
      { op: 'paper', url: `${BASE}vo020.asp?VOLFDNR=9` },
    ]);
    // A product without agenda item pages (SessionNet) writes the item at once.
    const sessionNet = planPage(undefined, [decided], { meetingUrl, readsAgendaItems: false });
    expect(sessionNet.write.map((o) => o.id)).toEqual([decided.id]);
  });

  it('ISSUE-8 / OPT-2: an unchanged page writes nothing; an owned object gone from the page is tombstoned', () => {
    const before = pageStateOf({
      url: meetingUrl,
      kind: 'meeting',
      objects: planPage(undefined, [meeting, plain], {
        readsAgendaItems: true,
      }).objects,
      fetchedAt: new Date(NOW).toISOString(),
    });
    const same = planPage(before, [meeting, plain], { meetingUrl, readsAgendaItems: true });
    expect(same).toMatchObject({ write: [], children: [], removed: [] });
    const shorter = planPage(before, [meeting], { meetingUrl, readsAgendaItems: true });
    expect(shorter.removed).toEqual([{ id: plain.id, type: 'agendaitem' }]);
    // The page's hash covers its objects: another set of objects, another hash.
    const after = pageStateOf({
      url: meetingUrl,
      kind: 'meeting',
      objects: shorter.objects,
      fetchedAt: new Date(NOW).toISOString(),
    });
    expect(after.hash).not.toBe(before.hash);
    expect(after).not.toHaveProperty('notPublicSince');
  });

  it('ISSUE-8: created stubs ask an organization once per run, persons only on full scrapes', () => {
    const committee: ShapedObject = {
      type: 'organization',
      id: `${BASE}au020.asp?AULFDNR=25`,
      object: { organizationType: 'Gremium' },
      mode: 'stub',
    };
    const faction: ShapedObject = {
      ...committee,
      id: `${BASE}fr020.asp?FRLFDNR=3`,
      object: { organizationType: 'Fraktion' },
    };
    const person: ShapedObject = {
      type: 'person',
      id: `${BASE}kp020.asp?KPLFDNR=7`,
      object: {},
      mode: 'stub',
    };
    const asked: string[] = [];
    expect(stubTasks([committee, faction, person], asked, 'incremental')).toEqual([
      { op: 'organization', url: committee.id, kind: 'committee' },
      { op: 'organization', url: faction.id, kind: 'faction' },
    ]);
    expect(asked).toEqual([committee.id, faction.id]);
    expect(stubTasks([committee, person], asked, 'full')).toEqual([{ op: 'person', url: person.id }]);
  });
});

describe('rosters and the task stack', () => {
  it('ISSUE-8: an organization list asks the organizations not asked in this run and not read within the refresh', () => {
    const entry = (n: number) => ({
      id: `${BASE}au020.asp?AULFDNR=${n}`,
      key: String(n),
      kind: 'committee' as const,
    });
    const read = (n: number, msAgo: number): [string, PageState] => [
      entry(n).id,
      { url: entry(n).id, kind: 'organization', objects: {}, fetchedAt: new Date(NOW - msAgo).toISOString() },
    ];
    const refreshMs = SCRAPE_POLICY.rosterRefreshDays * 24 * HOUR;
    const known = new Map([read(2, HOUR), read(3, refreshMs)]);
    const asked = [entry(4).id];
    const tasks = organizationsToAsk([1, 2, 3, 4].map(entry), known, asked, { nowMs: NOW, refreshMs });
    expect(tasks).toEqual([
      { op: 'organization', url: entry(1).id, kind: 'committee' },
      { op: 'organization', url: entry(3).id, kind: 'committee' },
    ]);
    expect(asked).toEqual([entry(4).id, entry(1).id, entry(3).id]);
  });

  it('ISSUE-8: a failed child page keeps its meeting from being committed; a hidden meeting marks its row', () => {
    const other = `${BASE}to010.asp?SILFDNR=2`;
    const tasks: ScrapeTask[] = [
      { op: 'paper', url: `${BASE}vo020.asp?VOLFDNR=9` },
      { op: 'commit-page', state: { url: meetingUrl, kind: 'meeting', objects: {}, fetchedAt: '' } },
      { op: 'commit-page', state: { url: other, kind: 'meeting', objects: {}, fetchedAt: '' } },
      {
        op: 'commit-month',
        month: '2025-11',
        rows: { '1': { h: 'a', u: meetingUrl }, '2': { h: 'b', u: other } },
      },
    ];
    markRowNotPublic(tasks, other);
    taintMeeting(tasks, meetingUrl);
    expect(tasks.map((t) => (t.op === 'commit-page' ? t.state.url : t.op))).toEqual([
      'paper',
      other,
      'commit-month',
    ]);
    expect(tasks[2]).toEqual({
      op: 'commit-month',
      month: '2025-11',
      rows: { '2': { h: 'b', u: other, n: true } },
    });
  });

  it('ISSUE-8: only 404 and 410 mean a page is gone', () => {
    const failure = (status: number | undefined, code: 'HTTP_STATUS' | 'NETWORK' = 'HTTP_STATUS') => ({
      kind: 'failure' as const,
      url: meetingUrl,
      failure: code,
      message: '',
      requests: 1,
      ...(status !== undefined ? { status } : {}),
    });
    expect([404, 410, 403, 500].map((s) => pageGone(failure(s)))).toEqual([true, true, false, false]);
    expect(pageGone(failure(undefined, 'NETWORK'))).toBe(false);
  });

  it('ISSUE-8 / OPT-2: after the months the vanished meetings are checked; full scrapes then read the organization lists', () => {
    const lists = [{ url: `${BASE}au010.asp`, kind: 'committee' as const }];
    const cursorIn = (phase: ScrapeCursor['phase']) =>
      ({
        phase,
        tasks: [],
        vanished: { old: { url: `${BASE}to010.asp?SILFDNR=old`, month: '2025-11' } },
        appeared: [],
      }) as unknown as ScrapeCursor;
    const incremental = cursorIn('vanished');
    enterNextPhase(incremental, 'incremental', () => lists);
    expect(incremental).toMatchObject({ phase: 'finish', vanished: {}, appeared: [] });
    expect(incremental.tasks.map((t) => t.op)).toEqual(['vanished-check']);
    const full = cursorIn('vanished');
    enterNextPhase(full, 'full', () => lists);
    expect(full.phase).toBe('organizations');
    enterNextPhase(full, 'full', () => lists);
    expect(full.phase).toBe('finish');
    expect(full.tasks.map((t) => t.op)).toEqual(['vanished-check', 'organization-list']);
  });
});

describe('issue 28: a page state is written only when it says something new (pageStateWriteDue)', () => {
  const objects = { 'https://ris.example/to010.asp?SILFDNR=1': { type: 'meeting' as const, hash: 'h1' } };
  const at = (ms: number) => new Date(Date.parse('2026-12-01T08:00:00Z') + ms).toISOString();
  const meeting = (fetchedAt: string, o = objects) =>
    pageStateOf({ url: 'https://ris.example/to010.asp?SILFDNR=1', kind: 'meeting', objects: o, fetchedAt });

  it('a new page, a changed one, and an unchanged one a day old are written; an unchanged one read again is not', () => {
    expect(pageStateWriteDue(undefined, meeting(at(0)))).toBe(true);
    expect(pageStateWriteDue(meeting(at(0)), meeting(at(6 * 3_600_000)))).toBe(false);
    const changed = {
      ...objects,
      'https://ris.example/to020.asp?TOLFDNR=9': { type: 'agendaitem' as const, hash: 'h2' },
    };
    expect(pageStateWriteDue(meeting(at(0)), meeting(at(60_000), changed))).toBe(true);
    expect(pageStateWriteDue(meeting(at(0)), meeting(at(MARK_REFRESH_MS)))).toBe(true);
    const notPublic = pageStateOf({
      url: 'https://ris.example/to010.asp?SILFDNR=1',
      kind: 'meeting',
      objects,
      fetchedAt: at(60_000),
      notPublicSince: at(60_000),
    });
    expect(pageStateWriteDue(meeting(at(0)), notPublic)).toBe(true);
  });

  it('an organization page is always written: its fetchedAt decides when it is read again (organizationsToAsk)', () => {
    const org = (fetchedAt: string) =>
      pageStateOf({
        url: 'https://ris.example/kp0041.asp?KPLFDNR=1',
        kind: 'organization',
        objects: {},
        fetchedAt,
      });
    expect(pageStateWriteDue(org(at(0)), org(at(60_000)))).toBe(true);
  });
});
