import { cleanText, loadHtml, pageName } from './html';
import type { ScraperProduct } from './types';

/**
 * Product detection for the onboarding probe (ONB-1) and the scraper: which council system a fetched
 * page comes from, from markers the products put into every page, and whether the installation also
 * offers OParl — then it is synced through OParl instead (issue 8). Pure: the probe fetches (at most 5
 * requests per body, ONB-1), these functions only look at what it fetched.
 */

export type DetectedProduct = ScraperProduct | 'allris4' | 'unknown';

export interface ProductDetection {
  product: DetectedProduct;
  /** "3.9.5" from `ALLRIS net Version 3.9.5 (221117m)`; SessionNet version when a page states it. */
  version?: string;
  /** What gave it away, for the probe's report. */
  evidence: string[];
}

export interface FetchedPage {
  url: string;
  /** Decoded HTML (see `decodeHtml`). */
  html: string;
  headers?: Record<string, string>;
}

/** SessionNet page codes: two letters and four digits (`si0040`, `vo0050`, `kp0040`, `pe0051`). */
const SESSIONNET_PAGE = /^(si|to|vo|kp|pe|gr|yw)\d{4}$/;
/** The `sessionnet` meta of SessionNet 5.x: `V:050504` (major, minor, patch, two digits each), `.L:5` optional. */
const SESSIONNET_FINGERPRINT = /^V:(\d{2})(\d{2})(\d{2})\b/i;
/** ALLRIS 3 page codes: two letters and three digits, some with a suffix (`si010_e`, `to010`). */
const ALLRIS_PAGE = /^(si|to|vo|au|fr|kp|pa|do|yw)\d{3}(_[a-z])?$/;

export function detectProduct(page: FetchedPage): ProductDetection {
  const $ = loadHtml(page.html);
  const evidence: string[] = [];
  let allris = 0;
  let allris4 = 0;
  let sessionnet = 0;
  let version: string | undefined;

  $('meta').each((_, el) => {
    const name = ($(el).attr('name') ?? '').toLowerCase();
    const content = cleanText($(el).attr('content'));
    const m = /ALLRIS\s*net\s*Version\s*([\d.]+)/i.exec(content);
    if ((name === 'description' || name === 'generator') && m) {
      allris += 3;
      version = m[1];
      evidence.push(`meta ${name}: ${content}`);
    }
    // SessionNet 5.5 names itself in the author meta: "Somacos …, SessionNet Version 5.5.4 KP4 bi (Layout 6)".
    if ((name === 'generator' || name === 'author') && /sessionnet/i.test(content)) {
      sessionnet += 3;
      version ??=
        /SessionNet\D{0,20}(\d+(?:\.\d+)+)/i.exec(content)?.[1] ?? /(\d+(?:\.\d+)+)/.exec(content)?.[1];
      evidence.push(`meta ${name}: ${content}`);
    }
    // Every SessionNet 5.x page, error and logon pages too: `<meta name="sessionnet" content="V:050504.L:5">`
    // — the version as two digits per part (05 05 04 → 5.5.4), then the layout.
    const fingerprint = SESSIONNET_FINGERPRINT.exec(content);
    if (name === 'sessionnet' && fingerprint) {
      sessionnet += 3;
      version ??= fingerprint
        .slice(1, 4)
        .map((part) => String(Number(part)))
        .join('.');
      evidence.push(`meta ${name}: ${content}`);
    }
  });
  if ($('#allriscontainer').length > 0) {
    allris += 2;
    evidence.push('div#allriscontainer');
  }
  const smcIds = $('[id^="smc_page_"], [id^="smc"]').length + $('[class*="smc-"], [class^="smc"]').length;
  if (smcIds > 0) {
    sessionnet += 2;
    evidence.push(`${smcIds} SessionNet smc element(s)`);
  }
  const footer = cleanText($('body').text());
  const snVersion = /SessionNet[^\d]{0,20}(\d+(?:\.\d+)+)/i.exec(footer);
  if (snVersion) {
    sessionnet += 2;
    version ??= snVersion[1];
    evidence.push(`text: SessionNet ${snVersion[1]}`);
  }
  let allrisLinks = 0;
  let sessionnetLinks = 0;
  $('a[href], form[action]').each((_, el) => {
    const href = $(el).attr('href') ?? $(el).attr('action');
    const name = pageName(href, page.url);
    if (!name) return;
    if (/[?&]__k[a-z]+=/i.test(href ?? '') || SESSIONNET_PAGE.test(name)) sessionnetLinks += 1;
    else if (ALLRIS_PAGE.test(name)) allrisLinks += 1;
    if (/\/public\/(si|to|vo|kp|gr)\d{3,4}/i.test(href ?? '')) allris4 += 1;
  });
  if (allrisLinks >= 3) {
    allris += 1;
    evidence.push(`${allrisLinks} ALLRIS page link(s)`);
  }
  if (sessionnetLinks >= 3) {
    sessionnet += 1;
    evidence.push(`${sessionnetLinks} SessionNet page link(s)`);
  }
  if (allris4 >= 3 || /ALLRIS\s*4/i.test(footer)) {
    evidence.push('ALLRIS 4 /public/ pages');
    allris4 += 3;
  }

  const best = Math.max(allris, sessionnet, allris4);
  if (best < 2) return { product: 'unknown', evidence };
  const product: DetectedProduct =
    allris4 === best && allris4 > allris ? 'allris4' : allris >= sessionnet ? 'allris' : 'sessionnet';
  return { product, ...(version !== undefined ? { version } : {}), evidence };
}

/** Product detection from a page that carries any RIS marker at all (gate detection uses this). */
export function looksLikeRisPage(html: string, url = 'http://x.invalid/'): boolean {
  return detectProduct({ url, html }).product !== 'unknown';
}

/**
 * ONB-1 / issue 8: the usual OParl endpoints of an installation, in the order the probe should ask
 * them (its 5-request budget: robots.txt, home page, then these). ALLRIS 3 serves OParl under
 * `/bi/oparl/1.0/system.asp`, ALLRIS 4 under `/public/oparl/system`.
 */
export function oparlEndpointCandidates(startUrl: string, product?: DetectedProduct): string[] {
  const origin = new URL(startUrl).origin;
  const allris3 = `${origin}/bi/oparl/1.0/system.asp`;
  const allris4 = `${origin}/public/oparl/system`;
  if (product === 'allris4') return [allris4, allris3];
  return [allris3, allris4];
}

/** OParl endpoints a page links to itself (`<link rel="alternate" …>` or plain links to …/oparl/…). */
export function oparlLinksInPage(page: FetchedPage): string[] {
  const $ = loadHtml(page.html);
  const found = new Set<string>();
  $('a[href], link[href]').each((_, el) => {
    const href = $(el).attr('href');
    if (!href || !/(^|\/)oparl\//i.test(href)) return;
    try {
      found.add(new URL(href, page.url).toString());
    } catch {
      // not a URL
    }
  });
  return [...found];
}

export interface OParlAnswer {
  url: string;
  status: number;
  contentType?: string;
  body: string;
}

export interface OParlOffering {
  offersOParl: boolean;
  /** The System URL to configure as an `oparl` source instead of the scraper. */
  systemUrl?: string;
  oparlVersion?: string;
  evidence: string;
}

/**
 * Whether an answer of an OParl endpoint is an OParl System: 2xx, JSON, `type` on schema.oparl.org
 * ending in `System`. An HTML page (many installations answer unknown paths with their start page),
 * a 404 or junk is not.
 */
export function assessOParlAnswer(answer: OParlAnswer): OParlOffering {
  if (answer.status < 200 || answer.status >= 300) {
    return { offersOParl: false, evidence: `HTTP ${answer.status} at ${answer.url}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body.replace(/^\uFEFF/, ''));
  } catch {
    return { offersOParl: false, evidence: `not JSON at ${answer.url} (${answer.contentType ?? 'no type'})` };
  }
  const record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const type = typeof record.type === 'string' ? record.type : '';
  const m = /schema\.oparl\.org\/(\d+\.\d+)\/System\/?$/i.exec(type);
  if (!m) return { offersOParl: false, evidence: `JSON without an OParl System type at ${answer.url}` };
  const id = typeof record.id === 'string' ? record.id : answer.url;
  return {
    offersOParl: true,
    systemUrl: id,
    ...(m[1] !== undefined ? { oparlVersion: m[1] } : {}),
    evidence: `OParl ${m[1]} System at ${answer.url}`,
  };
}

/** The first OParl System among the probe's answers (the installation is synced through OParl). */
export function oparlOffering(answers: OParlAnswer[]): OParlOffering {
  const evidence: string[] = [];
  for (const answer of answers) {
    const verdict = assessOParlAnswer(answer);
    if (verdict.offersOParl) return verdict;
    evidence.push(verdict.evidence);
  }
  return { offersOParl: false, evidence: evidence.join('; ') || 'no OParl endpoint asked' };
}
