// A fake council website on loopback for the scraper (issue 8): an ALLRIS 3 installation at
// `allris.test` serving the captured Hamburg pages as raw ISO-8859-1 bytes (as the real servers do) and a
// SessionNet installation at `sessionnet.test` serving the two trimmed samples plus small synthetic
// pages, and two SessionNet 5.5.4 Layout-6 installations (.asp and .php) at `layout6.test`. Hostnames reach 127.0.0.1 only through the explicit test resolver (shared/net).
//
// Switches: a changed agenda (a "Nachtrags-TOP" with a new paper appears on a meeting page while its
// calendar row stays the same), a changed calendar row, a removed meeting, a gate page instead of every
// page, ISO-8859-1 announced in the header or only in the pages' meta tags.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AllrisDistrict,
  type AllrisPageFile,
  allrisManifest,
  allrisPage,
  hasRisHtmlFixtures,
  type ManifestEntry,
  type SessionNetLayout6Variant,
  sessionNetLayout6Files,
  sessionNetLayout6Page,
  sessionNetSample,
} from './fixtures';
import {
  allrisCalendarPage,
  allrisNoAuthPage,
  allrisOrganizationListPage,
  allrisPersonPage,
  type CalendarEntry,
  encodeCp1252,
  type GateKind,
  gatePage,
  sessionNetEmptyCalendar,
  sessionNetMeetingPage,
  sessionNetOrganizationListPage,
  sessionNetPaperPage,
  sessionNetPersonPage,
  sessionNetRosterPage,
} from './pages';

/** What the captured to010 pages say about their meeting (all on Monday 3 November 2025). */
export const DISTRICT_MEETINGS: Record<
  AllrisDistrict,
  { time: string; name: string; room: string; committee: string }
> = {
  altona: {
    time: '18:00 - 19:45',
    name: 'Sitzung des Mobilitätsausschusses',
    room: 'Sitzungsraum des Technischen Rathauses (EG)',
    committee: 'Mobilitätsausschuss',
  },
  eimsbuettel: {
    time: '18:00 - 18:46',
    name: 'Sitzung des Kerngebietsausschusses',
    room: 'Ferdinand-Streb-Saal (Raum 1275), 12.Stock',
    committee: 'Kerngebietsausschuss',
  },
  hamburg_nord: {
    time: '18:00 - 19:16',
    name: 'Sitzung des Regionalausschusses Langenhorn-Fuhlsbüttel-Ohlsdorf-Alsterdorf-Groß Borstel',
    room: 'Sitzungssaal Langenhorn',
    committee: 'Regionalausschuss Langenhorn-Fuhlsbüttel-Ohlsdorf-Alsterdorf-Groß Borstel',
  },
  harburg: {
    time: '18:00 - 18:10',
    name: 'Sitzung des Ausschusses für Bildung und Sport',
    room: 'Mehrzwecksaal im SDZ',
    committee: 'Ausschuss für Bildung und Sport',
  },
  wandsbek: {
    time: '17:30 - 18:00',
    name: 'Sitzung des Hauptausschusses',
    room: 'Bürgersaal Wandsbek',
    committee: 'Hauptausschuss',
  },
};

export const MEETING_DATE = '2025-11-03';
/** Calendar rows without a page of their own, and one whose page is not public. */
export const EXTRA_MEETINGS = {
  factionBoard: {
    key: '990001',
    date: '2025-11-04',
    name: 'Sitzung des Vorstandes Fraktion Bündnis 90/DIE GRÜNEN',
  },
  cancelled: {
    key: '990002',
    date: '2025-11-05',
    name: 'ENTFÄLLT! Sitzung des Stadtentwicklungsausschusses',
  },
  notPublic: {
    key: '990003',
    date: '2025-11-06',
    name: 'Sitzung des Haushaltsausschusses (nichtöffentlich)',
  },
} as const;
/** The "Nachtrags-TOP" the agenda switch adds, and its paper. */
export const NACHTRAG = {
  item: '1999999',
  paper: '1999998',
  reference: '22-9999',
  name: 'Nachtrag: Antrag „Grünfläche Süd“ – Überweisung an den Ausschuss',
};

export interface FakeRisHtmlOptions {
  /** ALLRIS districts whose meeting pages are served (default harburg, eimsbuettel). */
  districts?: AllrisDistrict[];
  /** Announce `charset=iso-8859-1` in the Content-Type of ALLRIS pages; default false (meta only). */
  charsetHeader?: boolean;
  /** Delay every answer (ms), so overlapping requests would show in `maxInFlight`. */
  delayMs?: number;
}

export interface RecordedRisCall {
  host: string;
  path: string;
  userAgent: string;
}

export interface FakeRisHtml {
  port: number;
  /** `http://allris.test:<port>/bi/` */
  allrisUrl: string;
  /** `http://sessionnet.test:<port>/bi/` */
  sessionNetUrl: string;
  /**
   * SessionNet 5.5.4 "Layout 6" (test/fixtures/sessionnet-layout6): `http://layout6.test:<port>/bi/`
   * (`.asp`, KP4) and `http://layout6.test:<port>/buergerinfo/` (`.php`). November 2025 has meetings,
   * every other month is an empty month of the same layout.
   */
  layout6Urls: Record<SessionNetLayout6Variant, string>;
  readonly calls: RecordedRisCall[];
  /** Page requests (robots.txt excluded), optionally of one host. */
  pageCalls(host?: string): RecordedRisCall[];
  /** Most requests the server had open at one time. */
  readonly maxInFlight: number;
  districts: AllrisDistrict[];
  manifest: Record<string, ManifestEntry>;
  setAgendaChanged(on: boolean): void;
  setCalendarChanged(on: boolean): void;
  setRemoved(district: AllrisDistrict | null): void;
  setGate(kind: GateKind | null): void;
  /** Layout 6: the November calendar loses its day numbers (a vendor layout change). */
  setLayout6DaysRemoved(on: boolean): void;
  /** Layout 6: the November calendar is served from another fixture file (`null`: `si0040_2025-11`). */
  setLayout6November(file: string | null): void;
  resetCalls(): void;
  close(): Promise<void>;
}

const latin1 = (b: Buffer) => b.toString('latin1');

/** The record numbers a captured to010 page links (agenda items and papers). */
function linkedKeys(page: Buffer, param: string): Set<string> {
  return new Set([...latin1(page).matchAll(new RegExp(`${param}=(\\d+)`, 'g'))].map((m) => m[1] as string));
}

/**
 * A captured page presented as another record of the same kind: the objectID meta tag and the record
 * parameter are renumbered, document numbers derived from the new key (so two papers never share one).
 */
function asRecord(page: Buffer, param: string, from: string, to: string): Buffer {
  let s = latin1(page);
  s = s.replaceAll(`name="objectID" content="${from}"`, `name="objectID" content="${to}"`);
  s = s.replaceAll(`${param}=${from}`, `${param}=${to}`);
  s = s.replaceAll(`name="${param}" value="${from}"`, `name="${param}" value="${to}"`);
  s = s.replace(
    /(name="DOLFDNR" value=")(\d+)(")/g,
    (_m, a: string, d: string, c: string) => `${a}${to}${d.slice(-2)}${c}`,
  );
  return Buffer.from(s, 'latin1');
}

function withNachtrag(page: Buffer, meetingKey: string): Buffer {
  const s = latin1(page);
  const start = s.indexOf('<table class="tl1"');
  const end = s.indexOf('</table>', start);
  if (start < 0 || end < 0) return page;
  const row = `\t<tr class="zl11">
\t\t<td class="text4" nowrap="nowrap"><a href="to010.asp?SILFDNR=${meetingKey}&TOLFDNR=${NACHTRAG.item}&BES=1#beschluss" title="Beschlüsse anzeigen (Nachtrags-TOP)"><span style="background-color:#8ae234" title="Nachtrags-TOP">Ö&nbsp;9</span></a></td>
\t\t<td>&nbsp;</td>
<td><form action="to020.asp" method="post" style="margin:0"><input type="hidden" name="TOLFDNR" value="${NACHTRAG.item}"  /><input type="submit" class="il1_naz" value="PA" title="(offen)"  /></form></td>
<td><a href="to020.asp?TOLFDNR=${NACHTRAG.item}">${NACHTRAG.name}</a></td>
<td>&nbsp;</td>
<td><form action="vo020.asp" method="post" style="margin:0"><input type="hidden" name="VOLFDNR" value="${NACHTRAG.paper}"  /><input type="submit" class="il1_vo" value="VO" title="Drucksache"  /></form></td>
<td nowrap="nowrap"><a href="vo020.asp?VOLFDNR=${NACHTRAG.paper}">${NACHTRAG.reference}</a></td>
<td>&nbsp;</td>
\t</tr>
`;
  return Buffer.concat([
    Buffer.from(s.slice(0, end), 'latin1'),
    encodeCp1252(row),
    Buffer.from(s.slice(end), 'latin1'),
  ]);
}

function personName(roster: Buffer, key: string): string | undefined {
  return new RegExp(`KPLFDNR=${key}">([^<]+)<`).exec(latin1(roster))?.[1];
}

export async function startFakeRisHtml(options: FakeRisHtmlOptions = {}): Promise<FakeRisHtml> {
  // Without the RIS HTML corpus the ALLRIS installation has no district (its pages are captures from
  // there); the Layout-6 SessionNet installations are in the repository and serve regardless.
  const districts = hasRisHtmlFixtures() ? (options.districts ?? ['harburg', 'eimsbuettel']) : [];
  const manifest = allrisManifest();
  const entryOf = (d: AllrisDistrict) => manifest[d] as ManifestEntry;
  const pages = new Map<string, Buffer>();
  const page = (d: AllrisDistrict, p: AllrisPageFile): Buffer => {
    const key = `${d}/${p}`;
    let b = pages.get(key);
    if (!b) {
      b = allrisPage(d, p);
      pages.set(key, b);
    }
    return b;
  };
  const itemsOf = new Map(districts.map((d) => [d, linkedKeys(page(d, 'to010'), 'TOLFDNR')]));
  const papersOf = new Map(districts.map((d) => [d, linkedKeys(page(d, 'to010'), 'VOLFDNR')]));

  let agendaChanged = false;
  let calendarChanged = false;
  let removed: AllrisDistrict | null = null;
  let gate: GateKind | null = null;
  let layout6DaysRemoved = false;
  let layout6November: string | null = null;
  const calls: RecordedRisCall[] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  const calendarEntries = (): CalendarEntry[] => {
    const entries: CalendarEntry[] = [];
    districts.forEach((d, i) => {
      if (d === removed) return;
      const m = DISTRICT_MEETINGS[d];
      entries.push({
        key: entryOf(d).meeting_id,
        date: MEETING_DATE,
        time: i === 0 && calendarChanged ? '18:30 - 19:30' : m.time,
        name: m.name,
        room: m.room,
        agenda: true,
      });
    });
    const x = EXTRA_MEETINGS;
    entries.push({
      key: x.factionBoard.key,
      date: x.factionBoard.date,
      time: '18:00 - 19:00',
      name: x.factionBoard.name,
      room: '',
      agenda: false,
    });
    entries.push({
      key: x.cancelled.key,
      date: x.cancelled.date,
      time: '18:00',
      name: x.cancelled.name,
      room: 'Großer Sitzungssaal',
      agenda: false,
    });
    entries.push({
      key: x.notPublic.key,
      date: x.notPublic.date,
      time: '17:00 - 18:00',
      name: x.notPublic.name,
      room: 'Raum 101',
      agenda: true,
    });
    return entries;
  };

  const districtOfKey = (kind: 'item' | 'paper', key: string): AllrisDistrict | undefined =>
    districts.find((d) => (kind === 'item' ? itemsOf : papersOf).get(d)?.has(key));

  function allris(res: ServerResponse, url: URL) {
    const file = (url.pathname.split('/').pop() ?? '').toLowerCase();
    const q = (name: string) => url.searchParams.get(name) ?? '';
    const type = options.charsetHeader ? 'text/html; charset=iso-8859-1' : 'text/html';
    const send = (body: Buffer, status = 200) => {
      res.writeHead(status, { 'content-type': type, 'content-length': String(body.length) });
      res.end(body);
    };
    const notFound = () => send(encodeCp1252('<html><body><h1>Seite nicht gefunden</h1></body></html>'), 404);
    const first = districts[0] as AllrisDistrict;
    switch (file) {
      case 'si010_e.asp': {
        const headline = 'Bezirksversammlung Eimsbüttel';
        return send(
          allrisCalendarPage({
            year: Number(q('YY')),
            month: Number(q('MM')),
            headline,
            entries: calendarEntries(),
            holidays: { '2025-10-31': 'Reformationstag' },
          }),
        );
      }
      case 'to010.asp': {
        const key = q('SILFDNR');
        if (key === EXTRA_MEETINGS.notPublic.key) {
          res.writeHead(302, { location: '/bi/noauth.asp' });
          res.end();
          return;
        }
        const d = districts.find((x) => entryOf(x).meeting_id === key);
        if (!d || d === removed) return notFound();
        const body = page(d, 'to010');
        return send(agendaChanged && d === first ? withNachtrag(body, key) : body);
      }
      case 'noauth.asp':
        return send(allrisNoAuthPage());
      case 'to020.asp': {
        const key = q('TOLFDNR');
        const d = key === NACHTRAG.item ? first : districtOfKey('item', key);
        if (!d) return notFound();
        return send(asRecord(page(d, 'to020'), 'TOLFDNR', entryOf(d).agenda_item_id, key));
      }
      case 'vo020.asp': {
        const key = q('VOLFDNR');
        const d = key === NACHTRAG.paper ? first : districtOfKey('paper', key);
        if (!d) return notFound();
        return send(asRecord(page(d, 'vo020'), 'VOLFDNR', entryOf(d).document_id, key));
      }
      case 'au020.asp': {
        const d = districts.find((x) => entryOf(x).committee_id === q('AULFDNR'));
        return d ? send(page(d, 'au020')) : notFound();
      }
      case 'fr020.asp': {
        const d = districts.find((x) => entryOf(x).party_id === q('FRLFDNR'));
        return d ? send(page(d, 'fr020')) : notFound();
      }
      case 'au010.asp':
        return send(
          allrisOrganizationListPage(
            'committee',
            districts.map((d) => ({ key: entryOf(d).committee_id, name: DISTRICT_MEETINGS[d].committee })),
          ),
        );
      case 'fr010.asp':
        return send(
          allrisOrganizationListPage(
            'faction',
            districts.map((d) => ({ key: entryOf(d).party_id, name: `Fraktion ${entryOf(d).name}` })),
          ),
        );
      case 'kp020.asp': {
        const key = q('KPLFDNR');
        const memberships: { page: 'au020' | 'fr020'; key: string; name: string; role: string }[] = [];
        let name: string | undefined;
        for (const d of districts) {
          for (const [p, param] of [
            ['au020', 'committee_id'],
            ['fr020', 'party_id'],
          ] as const) {
            const found = personName(page(d, p), key);
            if (found) {
              name ??= found;
              memberships.push({
                page: p,
                key: entryOf(d)[param],
                name: p === 'au020' ? DISTRICT_MEETINGS[d].committee : `Fraktion ${entryOf(d).name}`,
                role: 'Mitglied',
              });
            }
          }
        }
        return name ? send(allrisPersonPage({ key, name, memberships })) : notFound();
      }
      default:
        return notFound();
    }
  }

  function sessionNet(res: ServerResponse, url: URL) {
    const file = (url.pathname.split('/').pop() ?? '').toLowerCase();
    const q = (name: string) => url.searchParams.get(name) ?? '';
    const send = (body: Buffer, status = 200) => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': String(body.length),
      });
      res.end(body);
    };
    const notFound = () => send(Buffer.from('<html><body><h1>Nicht gefunden</h1></body></html>'), 404);
    switch (file) {
      case 'si0040.asp':
        return send(
          q('__cjahr') === '2025' && q('__cmonat') === '10'
            ? sessionNetSample('si0040_oct2025')
            : sessionNetEmptyCalendar(Number(q('__cjahr')), Number(q('__cmonat'))),
        );
      case 'si0057.asp': {
        const k = q('__ksinr');
        if (k === '6773') return send(sessionNetSample('si0057_sample'));
        if (k === '6810')
          return send(sessionNetMeetingPage({ ksinr: k, item: '5001', paper: '4001', file: '3001' }));
        if (k === '6901')
          return send(sessionNetMeetingPage({ ksinr: k, item: '5002', paper: '4002', file: '3002' }));
        return notFound();
      }
      case 'vo0050.asp': {
        const k = q('__kvonr');
        if (k === '4001') return send(sessionNetPaperPage({ kvonr: k, ksinr: '6810', file: '3101' }));
        if (k === '4002') return send(sessionNetPaperPage({ kvonr: k, ksinr: '6901', file: '3102' }));
        return notFound();
      }
      case 'gr0040.asp':
        return send(
          sessionNetOrganizationListPage([
            { kgrnr: '77', name: 'Ausschuss für Finanzen und Beteiligungen' },
            { kgrnr: '78', name: 'CDU-Fraktion' },
          ]),
        );
      case 'kp0040.asp':
        return q('__kgrnr') === '77' || q('__kgrnr') === '78'
          ? send(
              sessionNetRosterPage({
                name: q('__kgrnr') === '77' ? 'Ausschuss für Finanzen und Beteiligungen' : 'CDU-Fraktion',
                members: [
                  { kpenr: '501', name: 'Boßmann, Jürgen', role: 'Vorsitz', faction: 'CDU-Fraktion' },
                  {
                    kpenr: '502',
                    name: 'Müller-Lüdenscheidt, Käthe',
                    role: 'Mitglied',
                    faction: 'SPD-Fraktion',
                  },
                ],
              }),
            )
          : notFound();
      case 'pe0051.asp':
        return ['501', '502'].includes(q('__kpenr'))
          ? send(
              sessionNetPersonPage({
                name: q('__kpenr') === '501' ? 'Herr Jürgen Boßmann' : 'Frau Käthe Müller-Lüdenscheidt',
                memberships: [
                  { kgrnr: '77', name: 'Ausschuss für Finanzen und Beteiligungen', role: 'Mitglied' },
                ],
              }),
            )
          : notFound();
      default:
        return notFound();
    }
  }

  const layout6Files = {
    asp: new Set(sessionNetLayout6Files('asp')),
    php: new Set(sessionNetLayout6Files('php')),
  };
  /** Layout 6: the fixture files served as they are, by page code and record number. */
  function layout6(res: ServerResponse, url: URL) {
    const variant: SessionNetLayout6Variant | undefined = url.pathname.startsWith('/bi/')
      ? 'asp'
      : url.pathname.startsWith('/buergerinfo/')
        ? 'php'
        : undefined;
    const [code, ext] = (url.pathname.split('/').pop() ?? '').toLowerCase().split('.');
    const q = (name: string) => url.searchParams.get(name) ?? '';
    const file =
      variant === undefined || ext !== variant
        ? undefined
        : code === 'si0040'
          ? q('__cjahr') === '2025' && q('__cmonat') === '11'
            ? q('__cpanr') === '2'
              ? 'si0040_2025-11_kp1-unlinked' // a second body (Mandant) of the installation
              : (layout6November ?? 'si0040_2025-11')
            : 'si0040_empty'
          : code === 'si0057'
            ? `si0057_${q('__ksinr')}`
            : code === 'vo0050'
              ? `vo0050_${q('__kvonr')}`
              : code === 'kp0040'
                ? `kp0040_${q('__kgrnr')}`
                : code;
    if (variant === undefined || file === undefined || !layout6Files[variant].has(file)) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body><h1>Nicht gefunden</h1></body></html>');
      return;
    }
    let body = sessionNetLayout6Page(variant, file);
    if (layout6DaysRemoved && file === 'si0040_2025-11')
      body = Buffer.from(body.toString('utf8').replace(/<span class="weekday">\d+<\/span>/g, ''), 'utf8');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length) });
    res.end(body);
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const host = String(req.headers.host ?? '')
      .replace(/:\d+$/, '')
      .toLowerCase();
    const url = new URL(req.url ?? '/', `http://${host}`);
    calls.push({ host, path: req.url ?? '/', userAgent: String(req.headers['user-agent'] ?? '') });
    if (url.pathname === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
      return;
    }
    if (gate) {
      const g = gatePage(gate);
      res.writeHead(g.status, g.headers);
      res.end(g.body);
      return;
    }
    if (host === 'allris.test') return allris(res, url);
    if (host === 'sessionnet.test') return sessionNet(res, url);
    if (host === 'layout6.test') return layout6(res, url);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('unknown host');
  };

  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => {
      inFlight -= 1;
    });
    const run = () => {
      try {
        handle(req, res);
      } catch (error) {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      }
    };
    if (options.delayMs) setTimeout(run, options.delayMs);
    else run();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    allrisUrl: `http://allris.test:${port}/bi/`,
    sessionNetUrl: `http://sessionnet.test:${port}/bi/`,
    layout6Urls: {
      asp: `http://layout6.test:${port}/bi/`,
      php: `http://layout6.test:${port}/buergerinfo/`,
    },
    calls,
    pageCalls: (host) =>
      calls.filter((c) => !c.path.startsWith('/robots.txt') && (host === undefined || c.host === host)),
    get maxInFlight() {
      return maxInFlight;
    },
    districts,
    manifest,
    setAgendaChanged: (on) => {
      agendaChanged = on;
    },
    setCalendarChanged: (on) => {
      calendarChanged = on;
    },
    setRemoved: (d) => {
      removed = d;
    },
    setGate: (kind) => {
      gate = kind;
    },
    setLayout6DaysRemoved: (on) => {
      layout6DaysRemoved = on;
    },
    setLayout6November: (file) => {
      layout6November = file;
    },
    resetCalls: () => {
      calls.length = 0;
      maxInFlight = inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
