import { describe, expect, it } from 'vitest';
import { decodeHtml } from '../../shared/scraper/decode';
import { PageLayoutError } from '../../shared/scraper/errors';
import { parseSessionNetCalendar } from '../../shared/scraper/sessionnet/calendar';
import { parseSessionNetMeeting } from '../../shared/scraper/sessionnet/meeting';
import { sessionNetCalendarUrl, sessionNetSite } from '../../shared/scraper/sessionnet/urls';
import { sessionNetEmptyCalendar, sessionNetMeetingPage } from '../support/fake-ris-html/pages';

/**
 * SessionNet parsers (issue 8) on pages of our own in the shape of a SessionNet 5 installation
 * (`smc_page_si0040_contenttable1`, `td.siday` only on a day's first row, `.smc-el-h` committee
 * headings, `si0057.asp?__ksinr=` links). They run in every clone; the trimmed samples of a real
 * installation (sessionnet.test.ts) need the RIS HTML corpus.
 */

const BASE = 'https://rat.example.test/bi/';

const CALENDAR = `<!DOCTYPE html>
<html lang="de"><head><meta charset="utf-8" /><title>Sitzungen November 2025</title></head><body>
<table id="smc_page_si0040_contenttable1" class="table smc-table">
<tr><td class="siday"><div class="date"><span class="weekday">3.</span></div></td>
<td class="silink"><div class="smc-el-h">Ausschuss für Umwelt und Grün</div>
<a href="si0057.asp?__ksinr=6810">Sitzung Umwelt und Grün</a>
<ul class="smc-detail-list"><li>18:00-19:30 Uhr</li><li>Rathaus, Ratssaal</li></ul></td></tr>
<tr><td class="siday"></td>
<td class="silink"><a href="si0057.asp?__ksinr=6811">Ortsrat Nord</a>
<ul class="smc-detail-list"><li>19:00 Uhr</li></ul></td></tr>
<tr><td class="siday"><div class="date"><span class="weekday">20.</span></div></td>
<td class="silink"><div class="smc-el-h">Rat der Stadt</div>
<a href="si0057.asp?__ksinr=6901">abgesagt: Ratssitzung</a></td></tr>
</table></body></html>
`;

describe('SessionNet pages of our own', () => {
  const calendarUrl = `${BASE}si0040.asp?__cjahr=2025&__cmonat=11&__canz=1`;

  it('ISSUE-8: si0040 — meetings with __ksinr ids, the day carried to following rows, committee, time, room', () => {
    const { rows } = parseSessionNetCalendar(CALENDAR, calendarUrl, 2025, 11);
    expect(rows.map((r) => [r.key, r.date, r.name])).toEqual([
      ['6810', '2025-11-03', 'Sitzung Umwelt und Grün'],
      ['6811', '2025-11-03', 'Ortsrat Nord'],
      ['6901', '2025-11-20', 'abgesagt: Ratssitzung'],
    ]);
    expect(rows[0]).toEqual({
      meetingId: `${BASE}si0057.asp?__ksinr=6810`,
      key: '6810',
      detailUrl: `${BASE}si0057.asp?__ksinr=6810`,
      date: '2025-11-03',
      name: 'Sitzung Umwelt und Grün',
      organizationName: 'Ausschuss für Umwelt und Grün',
      startTime: '18:00',
      endTime: '19:30',
      room: 'Rathaus, Ratssaal',
      cancelled: false,
    });
    // No committee heading in the row: no organization name is invented.
    expect(rows[1]?.organizationName).toBeUndefined();
    expect(rows[1]?.startTime).toBe('19:00');
  });

  it('ISSUE-8: si0040 — a cancelled meeting is marked, an empty month has no rows, no table is a layout error', () => {
    expect(parseSessionNetCalendar(CALENDAR, calendarUrl, 2025, 11).rows[2]?.cancelled).toBe(true);
    const empty = decodeHtml(sessionNetEmptyCalendar(2025, 12)).text;
    expect(parseSessionNetCalendar(empty, calendarUrl, 2025, 12).rows).toEqual([]);
    expect(() =>
      parseSessionNetCalendar('<html><body><p>Wartung</p></body></html>', calendarUrl, 2025, 11),
    ).toThrow(PageLayoutError);
  });

  it('ISSUE-8: the calendar URL asks one month; .php installations keep .php in every link', () => {
    expect(sessionNetCalendarUrl(sessionNetSite(`${BASE}info.asp`), 2025, 11)).toBe(
      `${BASE}si0040.asp?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0`,
    );
    const rows = parseSessionNetCalendar(
      CALENDAR,
      'https://rat.example.test/bi/si0040.php?__cjahr=2025',
      2025,
      11,
    ).rows;
    expect(rows[0]?.meetingId).toBe('https://rat.example.test/bi/si0057.php?__ksinr=6810');
  });

  it('ISSUE-8: si0057 — agenda items with __ktonr ids, number, result, paper and documents', () => {
    const html = decodeHtml(
      sessionNetMeetingPage({ ksinr: '6810', item: '5001', paper: '4001', file: '3001' }),
    ).text;
    const meeting = parseSessionNetMeeting(html, `${BASE}si0057.asp?__ksinr=6810`);
    expect(meeting).toMatchObject({ id: `${BASE}si0057.asp?__ksinr=6810`, key: '6810' });
    expect(meeting.agenda).toEqual([
      {
        id: `${BASE}to0050.asp?__ktonr=5001`,
        key: '5001',
        name: 'Bürgeranfragen zur Grünfläche',
        public: true,
        order: 0,
        number: 'Ö 1',
        detailUrl: `${BASE}to0050.asp?__ktonr=5001`,
        result: 'beschlossen',
        paper: { id: `${BASE}vo0050.asp?__kvonr=4001`, key: '4001', reference: 'VO/2025/4001' },
        files: [
          {
            id: `${BASE}getfile.asp?id=3001&type=do`,
            name: 'Beschlussvorlage',
            accessUrl: `${BASE}getfile.asp?id=3001&type=do`,
            role: 'auxiliary',
          },
        ],
      },
    ]);
  });
});
