import { describe, expect, it } from 'vitest';
import { decodeHtml } from '../../shared/scraper/decode';
import {
  assessOParlAnswer,
  detectProduct,
  oparlEndpointCandidates,
  oparlLinksInPage,
  oparlOffering,
} from '../../shared/scraper/detect';
import { detectGatePage } from '../../shared/scraper/gate';
import { CORPUS_OPTIONS, risHtml } from '../support/corpora';
import {
  ALLRIS_DISTRICTS,
  ALLRIS_PAGE_FILES,
  allrisPage,
  gatePage,
  sessionNetSample,
} from '../support/fake-ris-html';
import { allrisCalendarPage, sessionNetMeetingPage } from '../support/fake-ris-html/pages';

/** Gate pages (ERR-5, B-3) and product / OParl detection for the probe (ONB-1). Pure functions. */

// The captured pages come from the RIS HTML corpus outside the repository; without it their cases are
// collected with empty text and skipped. The generated pages (written for this project) always run.
const ris = risHtml();
const captured = (bytes: () => Buffer) => (ris.present ? decodeHtml(bytes()).text : '');
const allrisPages = ALLRIS_DISTRICTS.flatMap((d) =>
  ALLRIS_PAGE_FILES.map((p) => [`${d}/${p}`, captured(() => allrisPage(d, p))] as const),
);
const sessionNetPages = (['si0040_oct2025', 'si0057_sample'] as const).map(
  (n) => [n, captured(() => sessionNetSample(n))] as const,
);
const ownPages = [
  [
    'ALLRIS calendar (generated)',
    decodeHtml(
      allrisCalendarPage({ year: 2025, month: 11, headline: 'Bezirksversammlung Musterstadt', entries: [] }),
    ).text,
  ],
  [
    'SessionNet meeting (generated)',
    decodeHtml(sessionNetMeetingPage({ ksinr: '6810', item: '5001', paper: '4001', file: '3001' })).text,
  ],
] as const;

describe('detectGatePage', () => {
  it.each([
    ['cloudflare', 'bot-protection', 'cloudflare'],
    ['anubis', 'proof-of-work', 'anubis'],
    ['login', 'login', undefined],
    ['denied', 'access-denied', undefined],
  ] as const)('ERR-5 / B-3: the %s page is a gate (%s)', (kind, gate, vendor) => {
    const page = gatePage(kind);
    const verdict = detectGatePage({
      status: page.status,
      url: 'https://ris.example.de/bi/si010_e.asp',
      headers: page.headers,
      html: page.body,
    });
    expect(verdict?.kind).toBe(gate);
    expect(verdict?.vendor).toBe(vendor);
  });

  it.each([
    [
      'ALTCHA',
      '<html><body><form><altcha-widget challengeurl="/altcha"></altcha-widget></form></body></html>',
      'proof-of-work',
    ],
    [
      'Friendly Captcha',
      '<html><body><div class="frc-captcha" data-sitekey="x"></div></body></html>',
      'proof-of-work',
    ],
    [
      'reCAPTCHA',
      '<html><body><div class="g-recaptcha"></div><script src="https://www.google.com/recaptcha/api.js"></script></body></html>',
      'captcha',
    ],
    [
      'Imperva',
      '<html><head><script src="/_Incapsula_Resource?SWJIYLWA=1"></script></head><body></body></html>',
      'bot-protection',
    ],
    [
      'Akamai',
      "<html><head><title>Access Denied</title></head><body>You don't have permission. Reference #18.abc</body></html>",
      'access-denied',
    ],
    [
      'JavaScript wall',
      '<html><body><noscript>Please enable JavaScript to continue.</noscript></body></html>',
      'bot-protection',
    ],
  ])('ERR-5: %s', (_name, html, kind) => {
    expect(detectGatePage({ status: 200, url: 'https://ris.example.de/', html })?.kind).toBe(kind);
  });

  it.skipIf(!ris.present).each([...allrisPages, ...sessionNetPages])(
    'ISSUE-8: the real council page %s is no gate',
    CORPUS_OPTIONS,
    (_name, html) => {
      expect(detectGatePage({ status: 200, url: 'https://ris.example.de/bi/x.asp', html })).toBeUndefined();
    },
  );

  it.each(ownPages)('ISSUE-8: the council page %s is no gate', (_name, html) => {
    expect(detectGatePage({ status: 200, url: 'https://ris.example.de/bi/x.asp', html })).toBeUndefined();
  });

  it('ISSUE-8: a SessionNet page with its own login box is no gate; the same box alone is', () => {
    const login = '<form action="si0010.asp"><input name="u"><input type="password" name="p"></form>';
    const [, calendar] = ownPages[1];
    expect(calendar).toContain('<body>');
    expect(
      detectGatePage({ status: 200, url: 'https://x/', html: calendar.replace('<body>', `<body>${login}`) }),
    ).toBeUndefined();
    expect(
      detectGatePage({ status: 200, url: 'https://x/', html: `<html><body>${login}</body></html>` })?.kind,
    ).toBe('login');
  });
});

describe('detectProduct and the OParl offering (ONB-1)', () => {
  it.skipIf(!ris.present).each(allrisPages)(
    'ONB-1: %s is ALLRIS net 3.9.5',
    CORPUS_OPTIONS,
    (_name, html) => {
      expect(detectProduct({ url: 'https://ris.example.de/bi/', html })).toMatchObject({
        product: 'allris',
        version: '3.9.5',
      });
    },
  );

  it('ONB-1: the generated ALLRIS page is ALLRIS net 3.9.5, the generated SessionNet page SessionNet', () => {
    expect(detectProduct({ url: 'https://ris.example.de/bi/', html: ownPages[0][1] })).toMatchObject({
      product: 'allris',
      version: '3.9.5',
    });
    expect(detectProduct({ url: 'https://ris.example.de/bi/', html: ownPages[1][1] }).product).toBe(
      'sessionnet',
    );
  });

  it.skipIf(!ris.present).each(sessionNetPages)(
    'ONB-1: the SessionNet sample %s is SessionNet (page codes, smc markup)',
    CORPUS_OPTIONS,
    (_name, html) => {
      expect(detectProduct({ url: 'https://ris.example.de/bi/', html }).product).toBe('sessionnet');
    },
  );

  it('ONB-1: a generator meta tag names SessionNet and its version; unrelated pages are unknown', () => {
    const page =
      '<html><head><meta name="generator" content="SessionNet 5.5.4 KP4"></head><body></body></html>';
    expect(detectProduct({ url: 'https://x/', html: page })).toMatchObject({
      product: 'sessionnet',
      version: '5.5.4',
    });
    expect(detectProduct({ url: 'https://x/', html: gatePage('anubis').body }).product).toBe('unknown');
    expect(
      detectProduct({ url: 'https://x/', html: '<html><body><h1>Stadt Musterstadt</h1></body></html>' })
        .product,
    ).toBe('unknown');
  });

  it('ONB-1 / ISSUE-8: the usual OParl endpoints, and whether an answer is an OParl System', () => {
    expect(oparlEndpointCandidates('https://sitzungsdienst-altona.hamburg.de/bi/allris.net.asp')).toEqual([
      'https://sitzungsdienst-altona.hamburg.de/bi/oparl/1.0/system.asp',
      'https://sitzungsdienst-altona.hamburg.de/public/oparl/system',
    ]);
    expect(oparlEndpointCandidates('https://ris.example.de/', 'allris4')[0]).toBe(
      'https://ris.example.de/public/oparl/system',
    );
    const system = {
      url: 'https://ris.example.de/bi/oparl/1.0/system.asp',
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({
        id: 'https://ris.example.de/bi/oparl/1.0/system.asp',
        type: 'https://schema.oparl.org/1.0/System',
      }),
    };
    const html = {
      url: 'https://ris.example.de/public/oparl/system',
      status: 200,
      contentType: 'text/html',
      body: '<html></html>',
    };
    const missing = { url: 'https://ris.example.de/bi/oparl/1.0/system.asp', status: 404, body: '' };
    expect(assessOParlAnswer(system)).toEqual({
      offersOParl: true,
      systemUrl: 'https://ris.example.de/bi/oparl/1.0/system.asp',
      oparlVersion: '1.0',
      evidence: 'OParl 1.0 System at https://ris.example.de/bi/oparl/1.0/system.asp',
    });
    expect(oparlOffering([missing, html]).offersOParl).toBe(false);
    expect(oparlOffering([missing, system]).systemUrl).toBe(system.url);
    expect(
      oparlLinksInPage({
        url: 'https://ris.example.de/bi/',
        html: '<a href="oparl/1.0/system.asp">OParl</a><a href="x.asp">x</a>',
      }),
    ).toEqual(['https://ris.example.de/bi/oparl/1.0/system.asp']);
  });
});
