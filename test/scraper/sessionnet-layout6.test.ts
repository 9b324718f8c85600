import { describe, expect, it } from 'vitest';
import { sessionNetAdapter } from '../../shared/scraper/adapter';
import { decodeHtml } from '../../shared/scraper/decode';
import { detectProduct } from '../../shared/scraper/detect';
import { PageLayoutError } from '../../shared/scraper/errors';
import { shapeMeeting, shapeOrganization } from '../../shared/scraper/oparl-shape';
import { stubTasks } from '../../shared/scraper/page-objects';
import { parseSessionNetCalendar } from '../../shared/scraper/sessionnet/calendar';
import { parseSessionNetMeeting } from '../../shared/scraper/sessionnet/meeting';
import {
  parseSessionNetOrganizationList,
  parseSessionNetPaper,
  parseSessionNetRoster,
} from '../../shared/scraper/sessionnet/records';
import { type SessionNetLayout6Variant, sessionNetLayout6Page } from '../support/fake-ris-html';

/**
 * SessionNet 5.5.4 "Layout 6" (issue 26 point 4): the page forms of real installations — `.asp` (KP4)
 * and `.php` — in test/fixtures/sessionnet-layout6 (markup of real pages, placeholder content; see its
 * SOURCE.md). What a replay of a real Layout-6 installation showed the old parser to lose: every calendar
 * row (the day is in `td.smc_fct_day`), the meeting's facts (`div.smc-table-row`), agenda titles
 * (`td.tobetr`), results, item documents (`td.sidocs`, which landed on the meeting), `paperType`
 * (`vovaname`), and the members without a person link.
 */

const SITES: Record<SessionNetLayout6Variant, string> = {
  asp: 'https://ris.musterstadt.example/bi/',
  php: 'https://rat.beispielstadt.example/buergerinfo/',
};

const page = (variant: SessionNetLayout6Variant, file: string) =>
  decodeHtml(sessionNetLayout6Page(variant, file)).text;

const shapeCtx = { sourceId: 'sn-l6', bodyId: 'https://mirror.example/body/sn-l6' };

describe('SessionNet Layout 6 — product detection (ONB-1)', () => {
  it('ISSUE-26: the author meta of a 5.5.4 page names product, version and layout', () => {
    for (const variant of ['asp', 'php'] as const) {
      const detection = detectProduct({
        url: `${SITES[variant]}si0040.${variant}`,
        html: page(variant, 'si0040_2025-11'),
      });
      expect(detection).toMatchObject({ product: 'sessionnet', version: '5.5.4' });
      expect(detection.evidence.some((e) => e.includes('Layout 6'))).toBe(true);
    }
  });
});

describe('SessionNet — the product fingerprint meta (ONB-1)', () => {
  it('ISSUE-26: <meta name="sessionnet" content="V:050504.L:5"> alone names SessionNet 5.5.4', () => {
    // Every SessionNet 5.x page carries it, also those without the author meta (error and logon pages of
    // real installations print only this one); the version is two digits per part.
    for (const [content, version] of [
      ['V:050504.L:5', '5.5.4'],
      ['V:050501', '5.5.1'],
      ['V:051012', '5.10.12'],
    ] as const) {
      const html = `<!DOCTYPE html><html lang="de"><head><meta name="sessionnet" content="${content}"/><title>SessionNet</title></head><body></body></html>`;
      const detection = detectProduct({ url: 'https://ris.musterstadt.example/bi/info.asp', html });
      expect(detection).toMatchObject({ product: 'sessionnet', version });
      expect(detection.evidence).toContain(`meta sessionnet: ${content}`);
    }
  });
});

describe('SessionNet Layout 6 — si0040 month calendar', () => {
  it('ISSUE-26: .asp — every meeting row with date, time, name, committee, room and cancelled flag', () => {
    const base = SITES.asp;
    const { rows } = parseSessionNetCalendar(
      page('asp', 'si0040_2025-11'),
      `${base}si0040.asp?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0`,
      2025,
      11,
    );
    expect(rows.map((r) => [r.key, r.date, r.startTime, r.endTime, r.cancelled])).toEqual([
      ['2101', '2025-11-03', '17:00', '18:30', false],
      // Second meeting of the same day: its row has empty day cells, the day carries over.
      ['2102', '2025-11-03', '18:45', undefined, false],
      ['2103', '2025-11-13', '17:00', '20:15', false],
      ['2104', '2025-11-20', '17:00', undefined, true],
    ]);
    expect(rows[2]).toEqual({
      meetingId: `${base}si0057.asp?__ksinr=2103`,
      key: '2103',
      detailUrl: `${base}si0057.asp?__ksinr=2103`,
      date: '2025-11-13',
      startTime: '17:00',
      endTime: '20:15',
      name: 'öffentliche/nicht öffentliche Sitzung des Rates der Stadt Musterstadt',
      // The committee is named only in the link's title ("Details anzeigen: <Gremium> <Datum>").
      organizationName: 'Rat der Stadt Musterstadt',
      room: 'Rathaus, im Ratssaal',
      cancelled: false,
    });
  });

  it('ISSUE-26: .php — the same layout, links kept .php', () => {
    const base = SITES.php;
    const { rows } = parseSessionNetCalendar(
      page('php', 'si0040_2025-11'),
      `${base}si0040.php?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0`,
      2025,
      11,
    );
    expect(rows.map((r) => [r.meetingId, r.date, r.name, r.organizationName, r.cancelled])).toEqual([
      [
        `${base}si0057.php?__ksinr=4101`,
        '2025-11-11',
        'Sitzung des Ausschusses für Schule und Sport',
        'Ausschuss für Schule und Sport',
        false,
      ],
      [
        `${base}si0057.php?__ksinr=4102`,
        '2025-11-25',
        'Sitzung des Haupt- und Finanzausschusses (abgesagt)',
        'Haupt- und Finanzausschuss',
        true,
      ],
    ]);
  });

  it('ISSUE-26: a month without meetings (day rows, empty cells) is an empty month, not an error', () => {
    for (const variant of ['asp', 'php'] as const) {
      const url = `${SITES[variant]}si0040.${variant}?__cjahr=2025&__cmonat=12&__canz=1&__cselect=0`;
      expect(parseSessionNetCalendar(page(variant, 'si0040_empty'), url, 2025, 12).rows).toEqual([]);
    }
  });

  it('ISSUE-26: a month page with meeting rows of which none can be read is a layout error, never an empty month', () => {
    // Hostile: the same page with its day numbers gone (a layout change moving them elsewhere).
    const html = page('asp', 'si0040_2025-11').replace(/<span class="weekday">\d+<\/span>/g, '');
    const url = `${SITES.asp}si0040.asp?__cjahr=2025&__cmonat=11&__canz=1`;
    expect(() => parseSessionNetCalendar(html, url, 2025, 11)).toThrow(PageLayoutError);
  });
});

describe('SessionNet Layout 6 — si0040 rows without a meeting page (5.5.4 KP1 .php)', () => {
  // The forms of a real 5.5.4 KP1 installation (see SOURCE.md): a meeting whose heading is plain text (no
  // page of its own published), and an appointment cell `td.tename` ("Die Sitzung des … fällt aus.").
  const base = SITES.php;
  const url = `${base}si0040.php?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0`;

  it('ISSUE-26: a meeting without a page of its own is a calendar-only meeting — date, time, name, room, a stable id', () => {
    const { rows } = parseSessionNetCalendar(page('php', 'si0040_2025-11_kp1'), url, 2025, 11);
    expect(rows.map((r) => r.key)).toEqual(['4101', '2025-11-13 Seniorenbeirat', '4102']);
    expect(rows[1]).toEqual({
      meetingId: `${base}si0040.php?__cjahr=2025&__cmonat=11#2025-11-13%20Seniorenbeirat`,
      key: '2025-11-13 Seniorenbeirat',
      calendarOnly: true,
      date: '2025-11-13',
      startTime: '10:00',
      name: 'Seniorenbeirat',
      organizationName: 'Seniorenbeirat',
      room: 'Rathaus, Sitzungssaal 3',
      cancelled: false,
    });
    // The same page read again gives the same id: the row is the meeting's only address.
    const again = parseSessionNetCalendar(page('php', 'si0040_2025-11_kp1'), url, 2025, 11);
    expect(again.rows[1]?.meetingId).toBe(rows[1]?.meetingId);
  });

  it('ISSUE-26: a cancelled appointment (td.tename "… fällt aus.") is no meeting of its own and no failure', () => {
    const { rows } = parseSessionNetCalendar(page('php', 'si0040_2025-11_kp1'), url, 2025, 11);
    expect(rows.filter((r) => r.date === '2025-11-18')).toEqual([]);
    expect(rows.some((r) => /Umweltausschuss/.test(r.name))).toBe(false);
  });

  it('ISSUE-26: a month with only rows without a meeting page is read, not an error and not an empty month', () => {
    const { rows } = parseSessionNetCalendar(page('php', 'si0040_2025-11_kp1-unlinked'), url, 2025, 11);
    expect(rows.map((r) => [r.key, r.calendarOnly, r.detailUrl])).toEqual([
      ['2025-11-13 Seniorenbeirat', true, undefined],
    ]);
  });

  it('ISSUE-26: a meeting without a page whose heading links its committee keeps the committee', () => {
    const html = page('php', 'si0040_2025-11_kp1').replace(
      'Seniorenbeirat<!--SMCINFO',
      '<a href="kp0040.php?__kgrnr=131&amp;">Seniorenbeirat</a><!--SMCINFO',
    );
    const row = parseSessionNetCalendar(html, url, 2025, 11).rows[1];
    expect(row).toMatchObject({
      key: '2025-11-13 Seniorenbeirat',
      calendarOnly: true,
      organization: { id: `${base}kp0040.php?__kgrnr=131`, key: '131', name: 'Seniorenbeirat' },
    });
  });

  it('ISSUE-26: meetings without a page in rows without a readable day are a layout error, never an empty month', () => {
    const html = page('php', 'si0040_2025-11_kp1-unlinked').replace(/<span class="weekday">\d+<\/span>/g, '');
    expect(() => parseSessionNetCalendar(html, url, 2025, 11)).toThrow(PageLayoutError);
  });

  it('ISSUE-26: two meetings without a page, same name, same day, keep two ids', () => {
    // A second row on the 13th (its day cells empty, as SessionNet prints a day's further meetings).
    const day14 =
      '<tr><td data-label="&nbsp;" class="smc-table-cell-block-991 smc-table-cell-heading smc_fct_day_991"><span class="weekday">14</span>';
    const second =
      '<tr><td data-label="&nbsp;" class="smc-t-cn991 smc_fct_day"></td><td data-label="Sitzung" class="smc-t-cl991 silink"><div class="smc-el-h ">Seniorenbeirat</div><ul class="list-inline smc-detail-list"><li class="list-inline-item">14:00&nbsp;Uhr</li></ul></td></tr>\n';
    const html = page('php', 'si0040_2025-11_kp1').replace(day14, second + day14);
    const keys = parseSessionNetCalendar(html, url, 2025, 11).rows.map((r) => r.key);
    expect(keys).toEqual(['4101', '2025-11-13 Seniorenbeirat', '2025-11-13 Seniorenbeirat (2)', '4102']);
  });

  it('ISSUE-26: meeting cells whose links name no meeting we can read are a layout error, never an empty month', () => {
    // Hostile: the record parameter renamed (a vendor change) — every meeting cell still links somewhere.
    const html = page('php', 'si0040_2025-11').replaceAll('si0057.php?__ksinr=', 'si0057.php?__ksitzung=');
    expect(() => parseSessionNetCalendar(html, url, 2025, 11)).toThrow(PageLayoutError);
    expect(() => parseSessionNetCalendar(html, url, 2025, 11)).toThrow(/2 meeting cell/);
  });
});

describe('SessionNet Layout 6 — several bodies on one installation (Mandanten, __cpanr)', () => {
  // A Samtgemeinde and its member municipalities share one installation; the filter bar ("Mandant
  // auswählen", links `a.smcfiltermenumandant` with `__cpanr=N`) selects whose calendar and committees a
  // page shows. A source is one body: its start URL names the Mandant, and every list it reads must too.
  const base = SITES.php;

  it('ISSUE-26: a start URL with __cpanr keeps the body in the calendar and committee list addresses', () => {
    const adapter = sessionNetAdapter(`${base}si0040.php?__cpanr=2`);
    expect(adapter.calendarUrl(2025, 11)).toBe(
      `${base}si0040.php?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0&__cpanr=2`,
    );
    expect(adapter.organizationListUrls(undefined)).toEqual([
      { url: `${base}gr0040.php?__cpanr=2`, kind: 'committee' },
    ]);
    // Without a Mandant in the start URL: the installation's default view, as before.
    expect(sessionNetAdapter(`${base}info.php`).calendarUrl(2025, 11)).toBe(
      `${base}si0040.php?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0`,
    );
  });

  it('ISSUE-26: a calendar-only meeting of a body keeps the body in its id (the calendar address it came from)', () => {
    const url = `${base}si0040.php?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0&__cpanr=2`;
    const { rows } = parseSessionNetCalendar(page('php', 'si0040_2025-11_kp1-unlinked'), url, 2025, 11);
    expect(rows.map((r) => r.meetingId)).toEqual([
      `${base}si0040.php?__cjahr=2025&__cmonat=11&__cpanr=2#2025-11-13%20Seniorenbeirat`,
    ]);
  });
});

describe('SessionNet Layout 6 — si0057 meeting page', () => {
  const base = SITES.asp;
  const url = `${base}si0057.asp?__ksinr=2103`;

  it('ISSUE-26: the meeting facts of div.smc-table-row — short name, committee, room, date, time', () => {
    const meeting = parseSessionNetMeeting(page('asp', 'si0057_2103'), url);
    expect(meeting).toMatchObject({
      id: url,
      key: '2103',
      name: 'Rat/07/2025',
      headline:
        'öffentliche/nicht öffentliche Sitzung des Rates der Stadt Musterstadt - 13.11.2025 - 17:00-20:15 Uhr',
      date: '2025-11-13',
      startTime: '17:00',
      endTime: '20:15',
      room: 'Rathaus, im Ratssaal',
      organizationName: 'Rat der Stadt Musterstadt',
    });
  });

  it('ISSUE-26: agenda items in order — number, title from td.tobetr, result, vote, paper link and their own documents', () => {
    const meeting = parseSessionNetMeeting(page('asp', 'si0057_2103'), url);
    expect(
      meeting.agenda.map((i) => [i.number, i.name, i.public, i.result, i.paper?.reference, i.order]),
    ).toEqual([
      ['Ö 1', 'Einwohnerfragestunde', true, undefined, undefined, 0],
      [
        'Ö 2',
        'Bebauungsplan Nr. 12 „Am Mühlenbach“ hier: Satzungsbeschluss',
        true,
        'Mit Stimmenmehrheit zugestimmt',
        '112/2025',
        1,
      ],
      ['Ö 2.1', 'Änderungsantrag der Fraktion Partei A zu TOP Ö 2', true, 'Abgelehnt', undefined, 2],
      ['Ö 3', 'Haushaltssatzung 2026', true, 'Einstimmig beschlossen', '120/2025', 3],
      ['N 4', 'Grundstücksangelegenheiten', false, undefined, undefined, 4],
    ]);
    const [, second] = meeting.agenda;
    expect(second?.vote).toBe('Ja: 30, Nein: 4');
    expect(second?.paper).toEqual({
      id: `${base}vo0050.asp?__kvonr=3201`,
      key: '3201',
      reference: '112/2025',
    });
    expect(second?.files.map((f) => [f.id, f.name, f.category])).toEqual([
      [`${base}getfile.asp?id=9201&type=do`, 'Vorlage', 'V'],
      [`${base}getfile.asp?id=9202&type=do`, 'Anlage 1 - Planzeichnung', undefined],
    ]);
    expect(meeting.agenda[3]?.files.map((f) => f.id)).toEqual([`${base}getfile.asp?id=9203&type=do`]);
  });

  it('ISSUE-26: the meeting keeps its own documents only — item documents do not land on it', () => {
    const meeting = parseSessionNetMeeting(page('asp', 'si0057_2103'), url);
    expect(meeting.files.map((f) => [f.id, f.name, f.role, f.category])).toEqual([
      [`${base}getfile.asp?id=9102&type=do`, 'Tagesordnung öffentlich', 'invitation', 'TÖ'],
      [`${base}getfile.asp?id=9103&type=do`, 'Niederschrift öffentlich', 'resultsProtocol', 'NÖ'],
      [
        `${base}getfile.asp?id=9104&type=do`,
        'Anlage 1 zur Niederschrift - Stellungnahme der Verwaltung',
        'auxiliary',
        undefined,
      ],
    ]);
  });

  it('ISSUE-26: a page with agenda titles of which no item can be read is a layout error, never an empty agenda', () => {
    // Hostile: the number cells renamed (a layout change); the titles are still there.
    const html = page('asp', 'si0057_2103').replaceAll('class="tofnum"', 'class="tonr"');
    expect(() => parseSessionNetMeeting(html, url)).toThrow(PageLayoutError);
    // A meeting without agenda items (cancelled, agenda not yet published) stays an empty agenda.
    expect(
      parseSessionNetMeeting(page('asp', 'si0057_2104'), `${base}si0057.asp?__ksinr=2104`).agenda,
    ).toEqual([]);
  });

  it('ISSUE-26: shaped as OParl — name, start/end, committee name, location, files on the right owner', () => {
    const meeting = parseSessionNetMeeting(page('asp', 'si0057_2103'), url);
    const shaped = shapeMeeting(undefined, meeting, shapeCtx);
    const object = shaped.find((o) => o.type === 'meeting')?.object as Record<string, unknown>;
    expect(object).toMatchObject({
      name: 'Rat/07/2025',
      start: '2025-11-13T17:00:00+01:00',
      end: '2025-11-13T20:15:00+01:00',
      'mandari:organizationName': 'Rat der Stadt Musterstadt',
      location: { room: 'Rathaus, im Ratssaal' },
    });
    expect((object.auxiliaryFile as unknown[]).length).toBe(1);
    const item = shaped.find((o) => o.id === `${url}#top-Oe2`)?.object as Record<string, unknown>;
    expect(item).toMatchObject({
      result: 'Mit Stimmenmehrheit zugestimmt',
      'mandari:voteText': 'Ja: 30, Nein: 4',
    });
  });

  it('ISSUE-26: si0050 (the "Informationen" tab) — the same facts and documents, no agenda', () => {
    const info = `${base}si0050.asp?__ksinr=2103`;
    const meeting = parseSessionNetMeeting(page('asp', 'si0050_2103'), info);
    expect(meeting).toMatchObject({
      id: info,
      name: 'Rat/07/2025',
      date: '2025-11-13',
      startTime: '17:00',
      room: 'Rathaus, im Ratssaal',
      agenda: [],
    });
    expect(meeting.files.map((f) => f.role)).toEqual(['invitation', 'resultsProtocol', 'auxiliary']);
  });

  it('ISSUE-26: .php — a linked committee becomes the meeting organization', () => {
    const php = SITES.php;
    const meeting = parseSessionNetMeeting(page('php', 'si0057_4101'), `${php}si0057.php?__ksinr=4101`);
    expect(meeting).toMatchObject({
      name: 'SchA/06/2025',
      date: '2025-11-11',
      startTime: '18:00',
      endTime: '19:40',
      room: 'Rathaus, Sitzungssaal 2',
      organization: {
        id: `${php}kp0040.php?__kgrnr=107`,
        key: '107',
        name: 'Ausschuss für Schule und Sport',
      },
    });
    expect(meeting.agenda.map((i) => [i.number, i.name, i.paper?.id, i.files.length])).toEqual([
      ['Ö 1', 'Schulentwicklungsplan 2026 bis 2031', `${php}vo0050.php?__kvonr=6201`, 2],
      ['Ö 2', 'Sanierung der Sporthalle Nord hier: Sachstandsbericht', `${php}vo0050.php?__kvonr=6202`, 1],
      ['Ö 3', 'Anfragen und Mitteilungen', undefined, 0],
    ]);
    expect(meeting.files.map((f) => f.name)).toEqual(['Einladung', 'Niederschrift öffentlich']);
  });

  it('ISSUE-26: KP1 form — titles in td.tolink linking to0050?__ktonr= give the items their own ids, results and papers kept', () => {
    // A real 5.5.4 KP1 agenda (see SOURCE.md) links each title to its item page: `td.tolink >
    // div.smc-card-header-title-simple > a.smc_datatype_to[href=to0050.php?__ktonr=N]`, the decision box
    // (`div.smc-table-cell-box-normal`) in the same cell. Our .php page rewritten into that form.
    const php = SITES.php;
    let n = 0;
    const html = page('php', 'si0057_4101').replace(
      /<td class="tobetr"><div class="margin-bottom smc-card-header-title-simple">([\s\S]*?)<\/div>/g,
      (_, title: string) => {
        n += 1;
        return `<td class="tolink"><div class="margin-bottom smc-card-header-title-simple"><a  href="to0050.php?__ktonr=${770 + n}" title="Tagesordnungspunkt anzeigen: ${title.replace(/<br \/>/g, '\n')}" class="smce-a-u smc_datatype_to" >${title}</a></div>`;
      },
    );
    expect(n).toBe(3);
    const meeting = parseSessionNetMeeting(html, `${php}si0057.php?__ksinr=4101`);
    const before = parseSessionNetMeeting(page('php', 'si0057_4101'), `${php}si0057.php?__ksinr=4101`);
    expect(
      meeting.agenda.map((i) => [i.id, i.number, i.name, i.result, i.paper?.id, i.files.length]),
    ).toEqual(
      before.agenda.map((i, k) => [
        `${php}to0050.php?__ktonr=${771 + k}`,
        i.number,
        i.name,
        i.result,
        i.paper?.id,
        i.files.length,
      ]),
    );
    expect(meeting.files).toEqual(before.files);
  });
});

describe('SessionNet Layout 6 — vo0050 paper', () => {
  it('ISSUE-26: subject, reference, paperType (vovaname), date, lead office and the files (.asp, labels without colon)', () => {
    const base = SITES.asp;
    const paper = parseSessionNetPaper(page('asp', 'vo0050_3201'), `${base}vo0050.asp?__kvonr=3201`);
    expect(paper).toMatchObject({
      id: `${base}vo0050.asp?__kvonr=3201`,
      name: 'Bebauungsplan Nr. 12 „Am Mühlenbach“ - Satzungsbeschluss',
      reference: '112/2025',
      paperType: 'Beschlussvorlage',
      date: '2025-10-14',
      underDirectionOf: 'Fachbereich Stadtplanung',
      mainFile: { id: `${base}getfile.asp?id=9201&type=do`, name: 'Vorlage', role: 'mainFile' },
    });
    expect(paper.files.map((f) => f.name)).toEqual(['Anlage 1 - Planzeichnung', 'Anlage 2 - Begründung']);
  });

  it('ISSUE-26: the same fields where the labels end with a colon (.php)', () => {
    const base = SITES.php;
    const paper = parseSessionNetPaper(page('php', 'vo0050_6201'), `${base}vo0050.php?__kvonr=6201`);
    expect(paper).toMatchObject({
      name: 'Schulentwicklungsplan 2026 bis 2031',
      reference: 'V/2025/061',
      paperType: 'Beschlussvorlage',
      date: '2025-10-20',
      underDirectionOf: 'Amt für Schule und Sport',
      mainFile: { id: `${base}getfile.php?id=7201&type=do`, role: 'mainFile' },
    });
    expect(paper.files.map((f) => f.id)).toEqual([`${base}getfile.php?id=7202&type=do`]);
  });
});

describe('SessionNet Layout 6 — gr0040 committees and kp0040 members', () => {
  it('ISSUE-26: gr0040 lists the committees and factions once each (links with a trailing &)', () => {
    const base = SITES.php;
    const list = parseSessionNetOrganizationList(page('php', 'gr0040'), `${base}gr0040.php`);
    expect(list).toEqual([
      {
        id: `${base}kp0040.php?__kgrnr=103`,
        key: '103',
        name: 'Haupt- und Finanzausschuss',
        kind: 'committee',
      },
      {
        id: `${base}kp0040.php?__kgrnr=107`,
        key: '107',
        name: 'Ausschuss für Schule und Sport',
        kind: 'committee',
      },
      { id: `${base}kp0040.php?__kgrnr=112`, key: '112', name: 'Fraktion Wählergruppe C', kind: 'faction' },
    ]);
  });

  it('ISSUE-26: kp0040 — group (Vorsitz), party, kind of membership, voting right; members without a person link kept', () => {
    const base = SITES.asp;
    const orgUrl = `${base}kp0040.asp?__kgrnr=2`;
    const org = parseSessionNetRoster(page('asp', 'kp0040_2'), orgUrl, 'committee');
    expect(org.name).toBe('Hauptausschuss');
    expect(
      org.memberships.map((m) => [
        m.person.name,
        m.role,
        m.onBehalfOfName,
        m.kind,
        m.votingRight,
        m.startDate,
        m.endDate,
      ]),
    ).toEqual([
      ['Erika Mustermann', 'Vorsitz', 'Partei A', 'Ratsmitglied', undefined, undefined, undefined],
      [
        'Max Mustermann',
        'Ausschussmitglieder mit Stimmrecht',
        'Partei B',
        'Ratsmitglied',
        true,
        undefined,
        undefined,
      ],
      [
        'Maria Musterfrau',
        'Ausschussmitglieder mit Stimmrecht',
        'Partei A',
        'Ratsmitglied',
        true,
        undefined,
        undefined,
      ],
      [
        'Hans Beispiel',
        'Ausschussmitglieder mit Stimmrecht',
        'Fraktionslos',
        'Sachk. Bürger/in (mit Stimmr.)',
        true,
        undefined,
        undefined,
      ],
      [
        'Petra Probe',
        'Ausschussmitglieder mit Stimmrecht',
        undefined,
        'Sachk. Bürger/in (mit Stimmr.)',
        true,
        undefined,
        undefined,
      ],
      [
        'Karl Platzhalter',
        'Ausschussmitglieder mit beratender Stimme',
        'Seniorenbeirat',
        'Beratendes Mitglied',
        false,
        undefined,
        undefined,
      ],
      [
        'Eva Exempel',
        'Ausschussmitglieder mit beratender Stimme',
        undefined,
        'Beratendes Mitglied',
        false,
        undefined,
        undefined,
      ],
      [
        'Otto Vorlage',
        'Ausschussmitglieder mit Stimmrecht',
        'Partei B',
        'Ratsmitglied',
        true,
        '2020-11-01',
        '2025-10-31',
      ],
    ]);
    // Linked members are the person pages; the others get a stable id on the roster page itself.
    expect(org.memberships[0]?.person.id).toBe(`${base}pe0051.asp?__kpenr=501`);
    expect(org.memberships[3]?.person.id).toBe(`${orgUrl}#person-hans-beispiel`);
    const ids = shapeOrganization(org, shapeCtx)
      .filter((o) => o.type === 'membership')
      .map((o) => o.id);
    expect(new Set(ids).size).toBe(8);
  });

  it('ISSUE-26: a member without a person page is a person stub no full scrape tries to fetch', () => {
    const base = SITES.asp;
    const org = parseSessionNetRoster(page('asp', 'kp0040_2'), `${base}kp0040.asp?__kgrnr=2`, 'committee');
    const persons = shapeOrganization(org, shapeCtx).filter((o) => o.type === 'person');
    expect(persons).toHaveLength(8);
    // Only the pe0051 pages are asked; `…kp0040.asp?__kgrnr=2#person-…` is the roster again, not a page.
    expect(stubTasks(persons, [], 'full').map((t) => ('url' in t ? t.url : undefined))).toEqual(
      [501, 502, 503].map((k) => `${base}pe0051.asp?__kpenr=${k}`),
    );
  });

  it('ISSUE-26: kp0040 .php — "stellv. Vorsitz" is a group of its own', () => {
    const base = SITES.php;
    const org = parseSessionNetRoster(
      page('php', 'kp0040_107'),
      `${base}kp0040.php?__kgrnr=107`,
      'committee',
    );
    expect(org.memberships.map((m) => [m.person.key, m.role])).toEqual([
      ['601', 'Vorsitz'],
      ['602', 'stellv. Vorsitz'],
      ['603', 'Ausschussmitglieder mit Stimmrecht'],
      ['name-tom-testfall', 'Ausschussmitglieder mit Stimmrecht'],
      ['name-ute-unbekannt', 'Ausschussmitglieder mit beratender Stimme'],
    ]);
  });
});
