// Pages the fake RIS site generates where the captured fixtures have none: the ALLRIS month calendar
// (si010_e), the committee/faction lists (au010/fr010), person pages (kp020), the noauth page, gate
// pages, and SessionNet pages beyond the two samples. The ALLRIS calendar follows the layout of a real
// si010_e page (ALLRIS net 3.9.5: table.tl1, weekday and day only in a day's first row, the meeting's
// SILFDNR in its calendar-export form, "TO" and "Pro" buttons, room in the last td.text4). Written for
// this project, not copied.

/** Windows-1252 bytes (what ALLRIS pages declared as ISO-8859-1 really contain: „ “ – € …). */
const CP1252_EXTRA: Record<string, number> = {
  '€': 0x80,
  '‚': 0x82,
  '„': 0x84,
  '…': 0x85,
  '‘': 0x91,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '–': 0x96,
  '—': 0x97,
};

export function encodeCp1252(text: string): Buffer {
  const bytes: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0x3f;
    const extra = CP1252_EXTRA[ch];
    if (extra !== undefined) bytes.push(extra);
    else if (code <= 0xff && (code < 0x80 || code > 0x9f)) bytes.push(code);
    else bytes.push(0x3f);
  }
  return Buffer.from(bytes);
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const ALLRIS_HEAD = (title: string, extra = '') => `<?xml version="1.0" encoding="iso-8859-1"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="de" lang="de">
<head>
\t<link rel="stylesheet" href="conf/styles/defaults/styles.css" />
\t<meta http-equiv="content-type" content="text/html; charset=iso-8859-1" />
\t<title>${title}</title>
\t<meta name="description" content="ALLRIS net Version 3.9.5 (221117m)" />
${extra}</head>`;

const ALLRIS_MENU = `<div id="risleft"><div id="riswrap"><div id="rismenu"><ul id="menu">
<li><strong><a href="/bi/si010_e.asp?toggleMenu=1">Bürgerinfo</a></strong></li>
<li><ul>
<li><a href="allris.net.asp" title="Startseite">Home</a></li>
<li><a href="au010.asp?T1=Aussch%FCsse&amp;AU=Ausschuss&amp;SORTVON=1&amp;SORTBIS=400">Ausschüsse</a></li>
<li><a href="fr010.asp?SELECT=1&amp;T1=Fraktionen&amp;FR=Fraktion" title="Fraktionen">Fraktionen</a></li>
<li><a href="si010_e.asp" title="Sitzungstermine aller Gremien">Kalender</a></li>
<li><a href="vo040.asp" title="Recherche">Übersicht</a></li>
</ul></li></ul></div></div></div>`;

export interface CalendarEntry {
  key: string;
  /** YYYY-MM-DD */
  date: string;
  /** "18:00 - 19:45" */
  time: string;
  name: string;
  room: string;
  /** "TO" button and name link to to010. */
  agenda: boolean;
  /** "Pro" (minutes) button. */
  minutes?: boolean;
}

const WEEKDAYS = ['So', 'Mo', 'Di', 'Mi', 'Do', 'Fr', 'Sa'];
const MONTHS = [
  'Januar',
  'Februar',
  'März',
  'April',
  'Mai',
  'Juni',
  'Juli',
  'August',
  'September',
  'Oktober',
  'November',
  'Dezember',
];

/** si010_e.asp?MM=&YY= of one month: every day a row, meetings in rows, holidays as plain text rows. */
export function allrisCalendarPage(input: {
  year: number;
  month: number;
  headline: string;
  entries: CalendarEntry[];
  holidays?: Record<string, string>;
}): Buffer {
  const { year, month } = input;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const rows: string[] = [];
  for (let day = 1; day <= days; day++) {
    const date = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    const weekday = WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()] ?? '';
    const dayCells = `<td class="text2" width="20">${weekday}</td><td class="text2" width="20">&nbsp;&nbsp;${day}</td>`;
    const blank = '\t\t<td>&nbsp;</td>\n\t\t<td>&nbsp;</td>';
    const meetings = input.entries.filter((e) => e.date === date);
    const holiday = input.holidays?.[date];
    if (meetings.length === 0 && holiday === undefined) {
      rows.push(`\t<tr class="zl11">\n${dayCells}\n\t\t<td colspan="8">&nbsp;</td>\n\t</tr>`);
      continue;
    }
    let first = true;
    if (holiday !== undefined) {
      rows.push(
        `\t<tr class="zl1m" valign="top">\n${dayCells}\n\t\t<td class="text2">&nbsp;</td>\n<td>&nbsp;</td>\n<td>&nbsp;</td>\n<td>${escapeHtml(holiday)}</td>\n<td>&nbsp;</td>\n<td>&nbsp;</td>\n\n\t\t<td class="text4">&nbsp;</td>\n\t</tr>`,
      );
      first = false;
    }
    for (const m of meetings) {
      const ics = `<td><form action="to010.asp" method="post" style="margin:0"><input type="hidden" name="SILFDNR" value="${m.key}"  /><input type="hidden" name="selfaction" value="Termin exportieren"  /><input type="hidden" name="template" value="ics"  /><input type="image" class="il1" src="images/calexp.gif" alt="Sitzungstermin exportieren" title="Sitzungstermin exportieren"  /></form></td>`;
      const to = m.agenda
        ? `<td><form action="to010.asp" method="post" style="margin:0"><input type="hidden" name="SILFDNR" value="${m.key}"  /><input type="submit" class="il1_to" value="TO" title="Tagesordnung"  /></form></td>`
        : '<td>&nbsp;</td>';
      const name = m.agenda
        ? `<td><a href="to010.asp?SILFDNR=${m.key}">${escapeHtml(m.name)}</a></td>`
        : `<td>${escapeHtml(m.name)}</td>`;
      const pro = m.minutes
        ? `<td><form action="si016.asp?SELECT=1" method="post" style="margin:0"><input type="hidden" name="SILFDNR" value="${m.key}"  /><input type="submit" class="il1_ns" value="Pro" title="Niederschrift"  /></form></td>`
        : '<td>&nbsp;</td>';
      rows.push(
        `\t<tr class="zl11" valign="top">\n${first ? dayCells : blank}\n\t\t<td class="text2">${escapeHtml(m.time)}&nbsp;</td>\n${ics}\n${to}\n${name}\n${pro}\n<td>&nbsp;</td>\n\n\t\t<td class="text4">${m.room ? escapeHtml(m.room) : '&nbsp;'}</td>\n\t</tr>`,
      );
      first = false;
    }
  }
  // A per-visit token, as real pages carry (RSS sid, form nonce): the row hash must not see it.
  const nonce = Math.random().toString(36).slice(2);
  const html = `${ALLRIS_HEAD('Sitzungskalender', `\t<link href="si010_e.asp?selfaction=ws&amp;template=rss1&amp;sid=${nonce}" rel="alternate" type="application/rss+xml" title="Aktuelle Sitzungen" />\n`)}<body><div>
<div id="allriscontainer" class="si010">
<div class="borderframe"><div class="mainframe">${ALLRIS_MENU}
<div id="risright"><div id="rishead"><p class="topHeadline">${escapeHtml(input.headline)}</p></div>
<div id="risname"><h1>Sitzungskalender&nbsp;&nbsp;</h1></div>
<div id="rismain">
\t<table width="100%"><tr><td nowrap="nowrap"><h2 align="center">${MONTHS[month - 1]}&nbsp;${year}</h2></td></tr></table>
\t<form method="post" action="/bi/si010_e.asp"><input type="hidden" name="NAVM_token" value="${nonce}"  /></form>
<table class="tl1" cellspacing="0" cellpadding="1" border="0">
\t<tr class="zw1"><th colspan="2">Datum</th><th>Uhrzeit</th><th>&nbsp;</th><th colspan="4" width="65%">Sitzung</th><th>Raum</th>\t</tr>
${rows.join('\n')}
</table>
</div></div></div></div></div></div>
</body>
</html>
`;
  return encodeCp1252(html);
}

/** au010 / fr010: the list of committees or factions. */
export function allrisOrganizationListPage(
  kind: 'committee' | 'faction',
  orgs: { key: string; name: string }[],
): Buffer {
  const page = kind === 'faction' ? 'fr020' : 'au020';
  const param = kind === 'faction' ? 'FRLFDNR' : 'AULFDNR';
  const rows = orgs
    .map(
      (o) =>
        `\t<tr class="zl11"><td><a href="${page}.asp?${param}=${o.key}">${escapeHtml(o.name)}</a></td></tr>`,
    )
    .join('\n');
  const container = kind === 'faction' ? 'fr010' : 'au010';
  return encodeCp1252(`${ALLRIS_HEAD(kind === 'faction' ? 'Fraktionen' : 'Gremien')}<body><div>
<div id="allriscontainer" class="${container}"><div id="risright">
<div id="risname"><h1>${kind === 'faction' ? 'Fraktionen' : 'Gremien'}&nbsp;&nbsp;</h1></div>
<div id="rismain"><table class="tl1">
${rows}
</table></div></div></div></div></body></html>
`);
}

/** kp020: a person (layout as au020/fr020: heading with the name, rows linking organizations). */
export function allrisPersonPage(input: {
  key: string;
  name: string;
  memberships: { page: 'au020' | 'fr020'; key: string; name: string; role: string }[];
}): Buffer {
  const rows = input.memberships
    .map((m) => {
      const param = m.page === 'fr020' ? 'FRLFDNR' : 'AULFDNR';
      return `\t<tr class="zl11"><td class="text4"><a href="${m.page}.asp?${param}=${m.key}">${escapeHtml(m.name)}</a></td><td class="text1">${escapeHtml(m.role)}</td></tr>`;
    })
    .join('\n');
  return encodeCp1252(`${ALLRIS_HEAD('Person', `\t<meta name="objectID" content="${input.key}" />\n`)}<body><div>
<div id="allriscontainer" class="kp020"><div id="risright">
<div id="risname"><h1>${escapeHtml(input.name)}&nbsp;&nbsp;</h1></div>
<div id="rismain"><h3>Mitarbeit</h3><table class="tl1">
${rows}
</table></div></div></div></div></body></html>
`);
}

export function allrisNoAuthPage(): Buffer {
  return encodeCp1252(`${ALLRIS_HEAD('Keine Berechtigung')}<body><div>
<div id="allriscontainer" class="noauth"><div id="risright">
<div id="risname"><h1>Keine Berechtigung&nbsp;&nbsp;</h1></div>
<div id="rismain"><p>Sie haben keine Berechtigung, diese Seite zu sehen.</p></div></div></div></div></body></html>
`);
}

export type GateKind = 'cloudflare' | 'anubis' | 'login' | 'denied';

/** Gate pages as protection products and web servers serve them (status, headers, body). */
export function gatePage(kind: GateKind): { status: number; headers: Record<string, string>; body: string } {
  switch (kind) {
    case 'cloudflare':
      return {
        status: 403,
        headers: {
          'content-type': 'text/html; charset=UTF-8',
          'cf-mitigated': 'challenge',
          server: 'cloudflare',
        },
        body: `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body><div class="main-wrapper" role="main"><div class="main-content"><h1>ratsinfo.example.de</h1><p>Verifying you are human. This may take a few seconds.</p></div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: 'ratsinfo.example.de',cType: 'managed'};var a=document.createElement('script');a.src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=1';document.getElementsByTagName('head')[0].appendChild(a);}());</script></body></html>`,
      };
    case 'anubis':
      return {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!doctype html><html lang="en"><head><title>Making sure you&#39;re not a bot!</title><script id="anubis_version" type="application/json">"v1.21.0"</script><script id="anubis_challenge" type="application/json">{"challenge":"f1c3","rules":{"algorithm":"fast","difficulty":4}}</script><script async type="module" src="/.within.website/x/cmd/anubis/static/js/main.mjs"></script></head><body><main><h1 id="title">Making sure you&#39;re not a bot!</h1><p id="status">Loading...</p></main></body></html>`,
      };
    case 'login':
      return {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!DOCTYPE html><html lang="de"><head><title>Anmeldung</title></head><body><h1>Anmeldung erforderlich</h1><form method="post" action="/login"><label>Benutzername <input type="text" name="user"></label><label>Passwort <input type="password" name="pass"></label><button>Anmelden</button></form></body></html>`,
      };
    case 'denied':
      return {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!DOCTYPE html><html lang="de"><head><title>Zugriff verweigert</title></head><body><h1>Zugriff verweigert</h1><p>Ihre Anfrage wurde von der Sicherheitsrichtlinie blockiert.</p></body></html>`,
      };
  }
}

// --- SessionNet ---------------------------------------------------------------------------------------

/** si0040 for a month with no meetings (the layout of the sample, no rows). */
export function sessionNetEmptyCalendar(year: number, month: number): Buffer {
  return Buffer.from(
    `<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8" /><title>Sitzungen ${MONTHS[month - 1]} ${year}</title></head><body>\n<table id="smc_page_si0040_contenttable1">\n<tr><td class="siday"><span class="weekday">-</span></td><td><p>Keine Sitzung</p></td></tr>\n</table></body></html>\n`,
    'utf8',
  );
}

/** A small si0057 (synthetic): one agenda item with an item link, a paper link and one document. */
export function sessionNetMeetingPage(input: {
  ksinr: string;
  item: string;
  paper: string;
  file: string;
}): Buffer {
  return Buffer.from(
    `<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8" /><title>Sitzung ${input.ksinr}</title></head><body>
<table id="smc_page_si0057_contenttable1" class="table smc-table Tagesordnung"><tbody>
<tr><td class="tofnum"><span class="badge">&Ouml; 1</span></td>
<td class="tolink"><a href="to0050.asp?__ktonr=${input.item}">Bürgeranfragen zur Grünfläche</a></td>
<td class="tostatus">beschlossen</td>
<td class="todocs"><a href="vo0050.asp?__kvonr=${input.paper}">VO/2025/${input.paper}</a> <a href="getfile.asp?id=${input.file}&amp;type=do">Beschlussvorlage</a></td></tr>
</tbody></table></body></html>\n`,
    'utf8',
  );
}

/** vo0050 (synthetic, "Layout 6" cells): subject, reference, type, consultation, documents. */
export function sessionNetPaperPage(input: { kvonr: string; ksinr: string; file: string }): Buffer {
  return Buffer.from(
    `<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8" /><title>Vorlage</title></head><body>
<h1 class="smc_h1">Vorlage - VO/2025/${input.kvonr}</h1>
<div class="smc-table smccontenttable smc_page_vo0050_contenttable">
<div class="smc-table-row"><div class="smc-table-cell">Betreff:</div><div class="smc-table-cell vobetr">Änderung der Gebührensatzung für Straßenreinigung</div></div>
<div class="smc-table-row"><div class="smc-table-cell">Vorlage:</div><div class="smc-table-cell voname">VO/2025/${input.kvonr}</div></div>
<div class="smc-table-row"><div class="smc-table-cell">Art:</div><div class="smc-table-cell voart">Beschlussvorlage</div></div>
<div class="smc-table-row"><div class="smc-table-cell">Datum:</div><div class="smc-table-cell vodat">01.10.2025</div></div>
<div class="smc-table-row"><div class="smc-table-cell">Federführend:</div><div class="smc-table-cell">Fachbereich Finanzen</div></div>
</div>
<table id="smc_page_vo0050_contenttable1"><tbody>
<tr><td>12.10.2025</td><td><a href="kp0040.asp?__kgrnr=77">Ausschuss für Finanzen und Beteiligungen</a></td><td><a href="si0057.asp?__ksinr=${input.ksinr}">Sitzung Finanzen und Beteiligungen</a></td><td>Vorberatung</td></tr>
</tbody></table>
<div class="smc-documents"><div class="smc-dg-ds-1"><div class="smc-doc-icon"><i>VO</i></div><div class="smc-doc-content"><a href="getfile.asp?id=${input.file}&amp;type=do" class="smc-link-normal">Vorlage (öffentlich)</a></div></div></div>
</body></html>\n`,
    'utf8',
  );
}

/** gr0040 (synthetic): committees and a faction. */
export function sessionNetOrganizationListPage(orgs: { kgrnr: string; name: string }[]): Buffer {
  const rows = orgs
    .map((o) => `<tr><td><a href="kp0040.asp?__kgrnr=${o.kgrnr}">${escapeHtml(o.name)}</a></td></tr>`)
    .join('\n');
  return Buffer.from(
    `<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8" /><title>Gremien</title></head><body><h1>Gremien</h1>
<table id="smc_page_gr0040_contenttable1"><tbody>
${rows}
</tbody></table></body></html>\n`,
    'utf8',
  );
}

/** kp0040 (synthetic): a committee's members with role and faction. */
export function sessionNetRosterPage(input: {
  name: string;
  members: { kpenr: string; name: string; role: string; faction: string }[];
}): Buffer {
  const rows = input.members
    .map(
      (m) =>
        `<tr><td><a href="pe0051.asp?__kpenr=${m.kpenr}">${escapeHtml(m.name)}</a></td><td>${escapeHtml(m.role)}</td><td>${escapeHtml(m.faction)}</td></tr>`,
    )
    .join('\n');
  return Buffer.from(
    `<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8" /><title>${escapeHtml(input.name)}</title></head><body><h1>${escapeHtml(input.name)}</h1>
<table id="smc_page_kp0040_contenttable1"><tbody>
${rows}
</tbody></table></body></html>\n`,
    'utf8',
  );
}

/** pe0051 (synthetic): a person with their committees. */
export function sessionNetPersonPage(input: {
  name: string;
  memberships: { kgrnr: string; name: string; role: string }[];
}): Buffer {
  const rows = input.memberships
    .map(
      (m) =>
        `<tr><td><a href="kp0040.asp?__kgrnr=${m.kgrnr}">${escapeHtml(m.name)}</a></td><td>${escapeHtml(m.role)}</td></tr>`,
    )
    .join('\n');
  return Buffer.from(
    `<!DOCTYPE html>\n<html lang="de"><head><meta charset="utf-8" /><title>Person</title></head><body><h1>${escapeHtml(input.name)}</h1>
<table id="smc_page_pe0051_contenttable1"><tbody>
${rows}
</tbody></table></body></html>\n`,
    'utf8',
  );
}
