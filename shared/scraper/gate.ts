import { looksLikeRisPage } from './detect';
import { cleanText, elementsOf, loadHtml, textWithout } from './html';

/**
 * Gate pages (issue 8, ERR-5, B-3): bot protection, proof-of-work and captcha challenges, "Zugriff
 * verweigert" walls and login forms served where a council page was expected. They are detected,
 * reported in the ERR-5 "UA blocked" class (the source is spared ≥ 60 min) and never bypassed: no
 * JavaScript is run, no challenge solved, no other client pretended, no retry in the run.
 *
 * Strong markers (a vendor's challenge script, a proof-of-work widget) count on any page. Weak ones (an
 * "access denied" heading, a password field) count only on pages that carry no RIS marker at all, so a
 * SessionNet page with its own login box in the header is not mistaken for a wall.
 */

export const GATE_KINDS = ['bot-protection', 'proof-of-work', 'captcha', 'access-denied', 'login'] as const;
export type GateKind = (typeof GATE_KINDS)[number];

export interface GateVerdict {
  kind: GateKind;
  /** The protection product when a marker names it (cloudflare, anubis, …). */
  vendor?: string;
  evidence: string;
}

export interface GateInput {
  /** HTTP status of the answer (a 403/429/503 body is checked too). */
  status: number;
  url: string;
  headers?: Record<string, string>;
  html: string;
}

interface PageFacts {
  title: string;
  headings: string;
  /** Start of the visible text, lower-cased. */
  text: string;
  scriptSources: string[];
  /** Inline scripts, lower-cased and cut (markers sit at their start). */
  inlineScripts: string;
  idsAndClasses: Set<string>;
  passwordFields: number;
  headers: Record<string, string>;
}

interface Marker {
  kind: GateKind;
  vendor?: string;
  /** Returns the evidence when the marker is present. */
  test(facts: PageFacts): string | undefined;
}

const has = (facts: PageFacts, token: string) => facts.idsAndClasses.has(token);
const scriptFrom = (facts: PageFacts, part: string) => facts.scriptSources.find((s) => s.includes(part));

/** Vendor markers that are a gate wherever they appear. Policy as data (STYLE 2). */
export const STRONG_GATE_MARKERS: readonly Marker[] = [
  {
    kind: 'bot-protection',
    vendor: 'cloudflare',
    test: (f) =>
      f.headers['cf-mitigated']?.toLowerCase() === 'challenge'
        ? 'cf-mitigated: challenge'
        : f.inlineScripts.includes('_cf_chl_opt') || scriptFrom(f, '/cdn-cgi/challenge-platform/')
          ? 'Cloudflare challenge script'
          : has(f, 'cf-error-details') || /attention required! \| cloudflare/.test(f.title)
            ? 'Cloudflare block page'
            : undefined,
  },
  {
    kind: 'proof-of-work',
    vendor: 'anubis',
    test: (f) =>
      has(f, 'anubis_challenge') ||
      scriptFrom(f, '/.within.website/') ||
      /making sure you('|’)re not a bot/.test(f.title)
        ? 'Anubis proof-of-work challenge'
        : undefined,
  },
  {
    kind: 'proof-of-work',
    vendor: 'altcha',
    test: (f) =>
      has(f, 'altcha') || f.inlineScripts.includes('altcha') ? 'ALTCHA proof-of-work widget' : undefined,
  },
  {
    kind: 'proof-of-work',
    vendor: 'friendly-captcha',
    test: (f) => (has(f, 'frc-captcha') ? 'Friendly Captcha proof-of-work widget' : undefined),
  },
  {
    kind: 'proof-of-work',
    vendor: 'mcaptcha',
    test: (f) =>
      has(f, 'mcaptcha') || scriptFrom(f, 'mcaptcha') ? 'mCaptcha proof-of-work widget' : undefined,
  },
  {
    kind: 'captcha',
    test: (f) =>
      has(f, 'g-recaptcha') || scriptFrom(f, 'recaptcha')
        ? 'reCAPTCHA'
        : has(f, 'h-captcha') || scriptFrom(f, 'hcaptcha.com')
          ? 'hCaptcha'
          : has(f, 'cf-turnstile') || scriptFrom(f, 'challenges.cloudflare.com/turnstile')
            ? 'Cloudflare Turnstile'
            : undefined,
  },
  {
    kind: 'bot-protection',
    vendor: 'imperva',
    test: (f) =>
      scriptFrom(f, '_incapsula_resource') || f.text.includes('incapsula incident id')
        ? 'Imperva/Incapsula block'
        : undefined,
  },
  {
    kind: 'bot-protection',
    vendor: 'sucuri',
    test: (f) => (f.title.includes('sucuri website firewall') ? 'Sucuri firewall page' : undefined),
  },
  {
    kind: 'bot-protection',
    vendor: 'ddos-guard',
    test: (f) => (f.title.includes('ddos-guard') ? 'DDoS-Guard page' : undefined),
  },
  {
    kind: 'access-denied',
    vendor: 'akamai',
    test: (f) =>
      f.title.includes('access denied') && f.text.includes('reference #')
        ? 'Akamai "Access Denied"'
        : undefined,
  },
  {
    kind: 'access-denied',
    vendor: 'f5',
    test: (f) =>
      f.text.includes('the requested url was rejected') ? 'F5 "The requested URL was rejected"' : undefined,
  },
];

/** Headings and titles of "no entry" pages (German and English). */
const ACCESS_DENIED_PHRASES = [
  'zugriff verweigert',
  'zugang verweigert',
  'zugriff nicht erlaubt',
  'access denied',
  'access forbidden',
  '403 forbidden',
  'forbidden',
  'you have been blocked',
  'request blocked',
  'anfrage blockiert',
];

const JS_WALL_PHRASES = [
  'enable javascript',
  'javascript aktivieren',
  'checking your browser',
  'browser wird überprüft',
];

/** Elements whose text a visitor does not see (the page's visible text leaves them out). */
const NOT_VISIBLE: ReadonlySet<string> = new Set(['script', 'style', 'noscript']);

function pageFacts(input: GateInput): PageFacts {
  const $ = loadHtml(input.html);
  // One walk over the page's elements for the markers (issue 28: a selector per marker walked it each).
  const idsAndClasses = new Set<string>();
  const scriptSources: string[] = [];
  let inline = '';
  let passwordFields = 0;
  for (const el of elementsOf($.root().toArray())) {
    const { id, class: classes, src, type } = el.attribs;
    if (id) idsAndClasses.add(id.toLowerCase());
    for (const c of (classes ?? '').split(/\s+/)) if (c) idsAndClasses.add(c.toLowerCase());
    if (el.name === 'altcha-widget') idsAndClasses.add('altcha');
    else if (el.name === 'script') {
      if (src) scriptSources.push(src.toLowerCase());
      else if (inline.length < 20_000) inline += `${$(el).text().slice(0, 2_000).toLowerCase()}\n`;
    } else if (el.name === 'input' && type?.toLowerCase() === 'password') passwordFields += 1;
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers ?? {})) headers[k.toLowerCase()] = v;
  const visible = textWithout($('body'), NOT_VISIBLE);
  return {
    title: cleanText($('title').first().text()).toLowerCase(),
    headings: cleanText($('h1, h2').slice(0, 4).text()).toLowerCase(),
    text: `${cleanText(visible).slice(0, 4_000).toLowerCase()} ${cleanText($('noscript').text()).toLowerCase()}`,
    scriptSources,
    inlineScripts: inline,
    idsAndClasses,
    passwordFields,
    headers,
  };
}

/**
 * The gate a page is, or undefined for an ordinary page. Pure: the caller fetched the page (through the
 * polite fetcher) and decides what a gate means for the run (stop, report `ua-blocked`).
 */
export function detectGatePage(input: GateInput): GateVerdict | undefined {
  if (input.html.trim() === '') return undefined;
  const facts = pageFacts(input);
  for (const marker of STRONG_GATE_MARKERS) {
    const evidence = marker.test(facts);
    if (evidence !== undefined) {
      return { kind: marker.kind, ...(marker.vendor ? { vendor: marker.vendor } : {}), evidence };
    }
  }
  if (looksLikeRisPage(input.html, input.url)) return undefined;
  const heading = `${facts.title} ${facts.headings}`;
  const denied = ACCESS_DENIED_PHRASES.find((p) => heading.includes(p));
  if (denied) return { kind: 'access-denied', evidence: `page titled "${denied}" (HTTP ${input.status})` };
  if (facts.passwordFields > 0) {
    return {
      kind: 'login',
      evidence: `login form (${facts.passwordFields} password field(s)) instead of a council page`,
    };
  }
  const wall = JS_WALL_PHRASES.find((p) => facts.text.includes(p));
  if (wall && facts.text.length < 1_500) {
    return { kind: 'bot-protection', evidence: `JavaScript wall ("${wall}") instead of a council page` };
  }
  return undefined;
}
