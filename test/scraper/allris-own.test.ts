import { describe, expect, it } from 'vitest';
import { parseAllrisMeeting } from '../../shared/scraper/allris/meeting';
import { parseAllrisPaper } from '../../shared/scraper/allris/paper';
import { decodeHtml } from '../../shared/scraper/decode';
import { PageLayoutError } from '../../shared/scraper/errors';
import { encodeCp1252 } from '../support/fake-ris-html/pages';

/**
 * ALLRIS 3 parsers (issue 8) on small pages of our own, written for this project in the shape of an
 * ALLRIS net 3.9.5 installation (container class per page type, `td.kb1` labels, `table.tl1` agenda,
 * `do027.asp` document buttons, Windows-1252 bytes declared as ISO-8859-1). They run in every clone;
 * the captured pages of five real districts (allris.test.ts) need the RIS HTML corpus.
 */

const BASE = 'https://ris.example.test/bi/';

function page(containerClass: string, objectId: string, body: string): string {
  const html = `<?xml version="1.0" encoding="iso-8859-1"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" lang="de"><head>
<meta http-equiv="content-type" content="text/html; charset=iso-8859-1" />
<meta name="description" content="ALLRIS net Version 3.9.5 (221117m)" />
<meta name="objectID" content="${objectId}" />
<title>Musterstadt</title></head><body>
<div id="rishead"><div class="topHeadline">Bezirksversammlung Grünstadt</div></div>
<div id="allriscontainer" class="${containerClass}">${body}</div></body></html>`;
  // As served: Windows-1252 bytes, charset only in the meta tag.
  return decodeHtml(encodeCp1252(html), 'text/html').text;
}

const doc = (key: string, value: string, title: string) =>
  `<form action="do027.asp" method="post"><input type="hidden" name="DOLFDNR" value="${key}" /><input type="submit" class="il2_p" value="${value}" title="${title} (Öffnet Dokument in neuem Fenster)" /></form>`;

const MEETING = page(
  'to010',
  '4711',
  `<div id="risname"><h1>Tagesordnung - Sitzung des Ausschusses für Umwelt</h1></div>
<table><tr><td><table class="tk1">
<tr><td class="kb1">Bezeichnung:</td><td class="text1">Sitzung des Ausschusses für Umwelt</td></tr>
<tr><td class="kb1">Gremium:</td><td class="text1"><a href="au020.asp?AULFDNR=88">Ausschuss für Umwelt</a></td></tr>
<tr><td class="kb1">Datum:</td><td class="text1">Mo, 03.11.2025</td></tr>
<tr><td class="kb1">Zeit:</td><td class="text1">18:00 - 19:30</td></tr>
<tr><td class="kb1">Raum:</td><td class="text1">Sitzungssaal 1</td></tr>
<tr><td class="kb1">Ort:</td><td class="text1">Rathausmarkt 1, 12345 Grünstadt</td></tr>
</table></td><td class="me1">${doc('9001', 'Einladung', 'Einladung')}</td></tr></table>
<table class="tl1">
<tr><th>TOP</th><th></th><th></th><th>Betreff</th><th>Vorlage</th></tr>
<tr class="zl11"><td class="text4"><a href="to010.asp?SILFDNR=4711&amp;TOLFDNR=5001&amp;BES=1#beschluss" title="Beschlüsse anzeigen">Ö 1</a></td><td></td><td></td>
<td class="text1">Eröffnung „Grünfläche Süd“ – Bericht</td><td></td></tr>
<tr class="zl12"><td class="text4"><a href="to010.asp?SILFDNR=4711&amp;TOLFDNR=5002&amp;BES=1#beschluss" title="Beschlüsse anzeigen">Ö 2</a></td><td></td>
<td><form action="to020.asp" method="post"><input type="hidden" name="TOLFDNR" value="5002" /><input type="submit" value="TO" title="beschlossen" /></form></td>
<td class="text1"><a href="to020.asp?TOLFDNR=5002">Antrag Baumpflanzungen</a></td>
<td class="text2"><a href="vo020.asp?VOLFDNR=3001">22-0815</a>${doc('9002', 'Antrag', 'Antrag 22-0815')}</td></tr>
<tr class="zl11"><td class="text4"><a href="to010.asp?SILFDNR=4711&amp;TOLFDNR=5003&amp;BES=1#beschluss" title="Beschlüsse anzeigen">N 3</a></td><td></td><td></td>
<td class="text1">Personalangelegenheiten</td><td></td></tr>
<tr class="zl12"><td class="text4"></td><td></td><td></td><td class="text1">${doc('9003', 'Niederschrift', 'Niederschrift öffentlicher Teil')}</td><td></td></tr>
</table>`,
);

const PAPER = page(
  'vo020',
  '3001',
  `<div id="risname"><h1>Drucksache - 22-0815</h1></div>
<table><tr><td><table class="tk1">
<tr><td class="kb1">Betreff:</td><td class="text1">Antrag Baumpflanzungen<br />in der Südstadt</td></tr>
<tr><td class="kb1">Status:</td><td class="text1">öffentlich</td></tr>
<tr><td class="kb1">Drucksache-Art:</td><td class="text1">Antrag</td></tr>
<tr><td class="kb1">Federführend:</td><td class="text1">Fachamt Stadtgrün</td></tr>
<tr><td class="kb1">Verfasser:</td><td class="text1">Fraktion A<br />Fraktion B</td></tr>
<tr><td class="kb1">Datum:</td><td class="text1">20.10.2025</td></tr>
<tr><td class="kb1">Beratungsfolge:</td><td></td></tr>
<tr><td colspan="2"><table>
<tr><td title="Entscheidung"></td><td class="text1">Ausschuss für Umwelt</td><td class="text1">Entscheidung</td></tr>
<tr><td title="beschlossen"></td><td class="text2">03.11.2025</td><td><a href="to010.asp?SILFDNR=4711">Sitzung</a></td><td>Sitzung des Ausschusses für Umwelt</td></tr>
</table></td></tr>
</table></td><td class="me1">${doc('9002', 'Drucksache', 'Drucksache 22-0815')}${doc('9004', 'Stellungnahme', 'Stellungnahme Fachamt')}</td></tr></table>`,
);

describe('ALLRIS 3 pages of our own', () => {
  const meetingUrl = `${BASE}to010.asp?SILFDNR=4711`;

  it('ISSUE-8: to010 — id from SILFDNR, name, committee, date, time, room and address', () => {
    const meeting = parseAllrisMeeting(MEETING, meetingUrl);
    expect(meeting).toMatchObject({
      id: meetingUrl,
      key: '4711',
      name: 'Sitzung des Ausschusses für Umwelt',
      date: '2025-11-03',
      startTime: '18:00',
      endTime: '19:30',
      room: 'Sitzungssaal 1',
      address: 'Rathausmarkt 1, 12345 Grünstadt',
      headline: 'Bezirksversammlung Grünstadt',
      organization: { id: `${BASE}au020.asp?AULFDNR=88`, key: '88', name: 'Ausschuss für Umwelt' },
    });
  });

  it('ISSUE-8: to010 — agenda items with TOLFDNR ids, public or not by their number, paper and result', () => {
    const { agenda } = parseAllrisMeeting(MEETING, meetingUrl);
    expect(agenda.map((i) => [i.key, i.number, i.public, i.order])).toEqual([
      ['5001', 'Ö 1', true, 0],
      ['5002', 'Ö 2', true, 1],
      ['5003', 'N 3', false, 2],
    ]);
    expect(agenda[0]?.name).toBe('Eröffnung „Grünfläche Süd“ – Bericht');
    expect(agenda[1]).toMatchObject({
      id: `${BASE}to020.asp?TOLFDNR=5002`,
      name: 'Antrag Baumpflanzungen',
      result: 'beschlossen',
      paper: { id: `${BASE}vo020.asp?VOLFDNR=3001`, key: '3001', reference: '22-0815' },
    });
    expect(agenda[1]?.files.map((f) => f.id)).toEqual([`${BASE}do027.asp?DOLFDNR=9002`]);
  });

  it('ISSUE-8: to010 — meeting documents from the side box and from rows without a number, by role', () => {
    const { files } = parseAllrisMeeting(MEETING, meetingUrl);
    expect(files.map((f) => [f.id, f.name, f.role])).toEqual([
      [`${BASE}do027.asp?DOLFDNR=9001`, 'Einladung', 'invitation'],
      [`${BASE}do027.asp?DOLFDNR=9003`, 'Niederschrift öffentlicher Teil', 'resultsProtocol'],
    ]);
  });

  it('ISSUE-8: a page that is not the one asked for is a layout error, never a wrong record', () => {
    expect(() => parseAllrisMeeting(MEETING, `${BASE}to010.asp?SILFDNR=4712`)).toThrow(PageLayoutError);
    expect(() => parseAllrisMeeting(PAPER, `${BASE}to010.asp?SILFDNR=3001`)).toThrow(PageLayoutError);
    expect(() => parseAllrisMeeting('<html><body>Wartung</body></html>', meetingUrl)).toThrow(
      PageLayoutError,
    );
  });

  it('ISSUE-8: vo020 — subject, reference, type, lead, authors, date, consultation and documents', () => {
    const url = `${BASE}vo020.asp?VOLFDNR=3001`;
    const paper = parseAllrisPaper(PAPER, url);
    expect(paper).toMatchObject({
      id: url,
      key: '3001',
      name: 'Antrag Baumpflanzungen\nin der Südstadt',
      reference: '22-0815',
      paperType: 'Antrag',
      underDirectionOf: 'Fachamt Stadtgrün',
      originators: ['Fraktion A', 'Fraktion B'],
      date: '2025-10-20',
      mainFile: { id: `${BASE}do027.asp?DOLFDNR=9002`, role: 'mainFile' },
    });
    expect(paper.files.map((f) => f.id)).toEqual([`${BASE}do027.asp?DOLFDNR=9004`]);
    expect(paper.consultations).toEqual([
      {
        organizationName: 'Ausschuss für Umwelt',
        role: 'Entscheidung',
        state: 'beschlossen',
        date: '2025-11-03',
        meeting: {
          id: `${BASE}to010.asp?SILFDNR=4711`,
          key: '4711',
          name: 'Sitzung des Ausschusses für Umwelt',
        },
      },
    ]);
  });
});
