import { describe, expect, it } from 'vitest';
import { parseAllrisAgendaItem } from '../../shared/scraper/allris/agenda-item';
import { parseAllrisCalendar } from '../../shared/scraper/allris/calendar';
import { parseAllrisMeeting } from '../../shared/scraper/allris/meeting';
import { parseAllrisPaper } from '../../shared/scraper/allris/paper';
import {
  parseAllrisOrganizationList,
  parseAllrisPerson,
  parseAllrisRoster,
} from '../../shared/scraper/allris/roster';
import { decodeHtml } from '../../shared/scraper/decode';
import { detectProduct, oparlLinksInPage } from '../../shared/scraper/detect';
import { detectGatePage } from '../../shared/scraper/gate';
import { elementsOf, linesOf, loadHtml, textWithout } from '../../shared/scraper/html';
import { parseSessionNetMeeting } from '../../shared/scraper/sessionnet/meeting';
import {
  parseSessionNetOrganizationList,
  parseSessionNetPaper,
  parseSessionNetPerson,
  parseSessionNetRoster,
} from '../../shared/scraper/sessionnet/records';
import { risHtml } from '../support/corpora';
import { ALLRIS_DISTRICTS, ALLRIS_PAGE_FILES, allrisPage } from '../support/fake-ris-html';
import {
  allrisCalendarPage,
  allrisOrganizationListPage,
  allrisPersonPage,
  gatePage,
  sessionNetMeetingPage,
  sessionNetOrganizationListPage,
  sessionNetPaperPage,
  sessionNetPersonPage,
  sessionNetRosterPage,
} from '../support/fake-ris-html/pages';

/**
 * Issue 28 (sync CPU): a scraped page is parsed once and read by the gate check, the product markers and
 * the adapter (shared/scraper/html.ts `loadHtml` keeps the page in hand). That is sound only while no
 * reader edits the parsed document — each page below goes through every reader of its kind, and the
 * document must read as it did before, and each reader must give what it gives on a fresh parse.
 */
const text = (bytes: Buffer) => decodeHtml(bytes).text;
const BASE = 'https://ris.example.de/bi/';

type Reader = (html: string) => unknown;
const GENERIC: Reader[] = [
  (html) => detectGatePage({ status: 200, url: `${BASE}x.asp`, html }),
  (html) => detectProduct({ url: `${BASE}x.asp`, html }),
  (html) => oparlLinksInPage({ url: `${BASE}x.asp`, html }),
  (html) => {
    const $ = loadHtml(html);
    return linesOf($, $('body'));
  },
];

const pages: [string, string, Reader[]][] = [
  [
    'ALLRIS calendar (generated)',
    text(
      allrisCalendarPage({
        year: 2025,
        month: 11,
        headline: 'Bezirksversammlung Musterstadt',
        entries: [
          { key: '7', date: '2025-11-03', time: '18:00', name: 'Sitzung', room: 'Saal', agenda: true },
        ],
      }),
    ),
    [(html) => parseAllrisCalendar(html, `${BASE}si010_e.asp?MM=11&YY=2025`, 2025, 11)],
  ],
  [
    'ALLRIS committees (generated)',
    text(allrisOrganizationListPage('committee', [{ key: '1', name: 'Hauptausschuss' }])),
    [(html) => parseAllrisOrganizationList(html, `${BASE}au010.asp`)],
  ],
  [
    'ALLRIS person (generated)',
    text(
      allrisPersonPage({
        key: '5',
        name: 'Strate, Henrik',
        memberships: [{ page: 'au020', key: '1', name: 'Hauptausschuss', role: 'Mitglied' }],
      }),
    ),
    [(html) => parseAllrisPerson(html, `${BASE}kp020.asp?KPLFDNR=5`)],
  ],
  [
    'SessionNet meeting (generated)',
    text(sessionNetMeetingPage({ ksinr: '6810', item: '5001', paper: '4001', file: '3001' })),
    [(html) => parseSessionNetMeeting(html, `${BASE}si0057.asp?__ksinr=6810`)],
  ],
  [
    'SessionNet paper (generated)',
    text(sessionNetPaperPage({ kvonr: '4001', ksinr: '6810', file: '3001' })),
    [(html) => parseSessionNetPaper(html, `${BASE}vo0050.asp?__kvonr=4001`)],
  ],
  [
    'SessionNet organizations, roster, person (generated)',
    text(sessionNetOrganizationListPage([{ kgrnr: '1', name: 'Rat' }])),
    [(html) => parseSessionNetOrganizationList(html, `${BASE}gr0040.asp`)],
  ],
  [
    'SessionNet roster (generated)',
    text(
      sessionNetRosterPage({
        name: 'Rat',
        members: [{ kpenr: '9', name: 'Anna Müller', role: 'Mitglied', faction: 'SPD' }],
      }),
    ),
    [(html) => parseSessionNetRoster(html, `${BASE}kp0040.asp?__kgrnr=1`)],
  ],
  [
    'SessionNet person (generated)',
    text(
      sessionNetPersonPage({
        name: 'Anna Müller',
        memberships: [{ kgrnr: '1', name: 'Rat', role: 'Mitglied' }],
      }),
    ),
    [(html) => parseSessionNetPerson(html, `${BASE}pe0051.asp?__kpenr=9`)],
  ],
  ['Cloudflare gate (generated)', gatePage('cloudflare').body, []],
  [
    'a page with scripts, styles and noscript in its body',
    '<html><head><title>T</title></head><body><p>A<script>var x = "no";</script>B</p><style>p{}</style>' +
      '<noscript>enable javascript</noscript><div>C<!-- not text --><svg><style>s</style>D</svg></div></body></html>',
    [],
  ],
];

// The captured ALLRIS pages (RIS HTML corpus, when present): the parsers that edit clones of the page.
if (risHtml().present) {
  const parserOf: Record<(typeof ALLRIS_PAGE_FILES)[number], Reader> = {
    to010: (html) => parseAllrisMeeting(html, `${BASE}to010.asp?SILFDNR=1`),
    to020: (html) => parseAllrisAgendaItem(html, `${BASE}to020.asp?TOLFDNR=1`),
    vo020: (html) => parseAllrisPaper(html, `${BASE}vo020.asp?VOLFDNR=1`),
    au020: (html) => parseAllrisRoster(html, `${BASE}au020.asp?AULFDNR=1`, 'committee'),
    fr020: (html) => parseAllrisRoster(html, `${BASE}fr020.asp?FRLFDNR=1`, 'faction'),
  };
  for (const district of ALLRIS_DISTRICTS)
    for (const file of ALLRIS_PAGE_FILES)
      pages.push([
        `${district}/${file}`,
        decodeHtml(allrisPage(district, file), 'text/html').text,
        [parserOf[file]],
      ]);
}

/** A reader's answer, or its error's message (a layout error is an answer too). */
const outcome = (read: Reader, html: string) => {
  try {
    return { value: JSON.parse(JSON.stringify(read(html) ?? null)) as unknown };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
};

describe('a scraped page parsed once, read by all (issue 28)', () => {
  it.each(pages)('ERR-5, ISSUE-8: %s — every reader leaves the parsed page as it was', (_, html, own) => {
    const readers = [...GENERIC, ...own];
    // Each reader on a fresh parse: another page in hand first.
    const fresh = readers.map((read) => {
      loadHtml('<html><body><p>another page</p></body></html>');
      return outcome(read, html);
    });
    const $ = loadHtml(html);
    const before = $.html();
    const shared = readers.map((read) => outcome(read, html));
    expect(loadHtml(html)).toBe($);
    expect($.html()).toBe(before);
    expect(shared).toEqual(fresh);
  });

  it('ERR-5: scripts, styles (an SVG’s too) and noscript are left out, comments are no text, the nodes themselves are read', () => {
    const $ = loadHtml(
      '<html><body><p>A<script>var x = "no";</script>B</p><style>p{}</style><noscript>enable javascript</noscript>' +
        '<div>C<!-- not text --><svg><style>s</style>D</svg></div></body></html>',
    );
    expect(textWithout($('body'), new Set(['script', 'style', 'noscript']))).toBe('ABCD');
    expect(textWithout($('p'), new Set(['p', 'script']))).toBe('AB');
  });

  it.each(pages)('ERR-5: %s — the visible text without a copy is the copy’s text', (_, html) => {
    const $ = loadHtml(html);
    const copy = $('body').clone();
    copy.find('script, style, noscript').remove();
    expect(textWithout($('body'), new Set(['script', 'style', 'noscript']))).toBe(copy.text());
    // The gate's one walk visits what its selectors visited: every element, in document order.
    const walked = elementsOf($.root().toArray());
    const selected = $('*').toArray();
    expect(walked.length).toBe(selected.length);
    expect(walked.every((el, i) => el === selected[i])).toBe(true);
  });
});
