import { type Cheerio, type CheerioAPI, load } from 'cheerio/slim';
import { type AnyNode, type Element, hasChildren, isComment, isTag, isText } from 'domhandler';
import { DateTime } from 'luxon';
import { parse } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import { ZONE } from '../engine';

/**
 * Small, pure helpers over parsed HTML (cheerio on parse5, the maintained HTML parser the issue asks
 * for): whitespace-clean text, query parameters of links and forms, German dates and times. Pages are
 * always walked as a DOM; regular expressions only ever see one short text value.
 */

export type { AnyNode, Cheerio, CheerioAPI, Element };

/**
 * Issue 28 (sync CPU): every scraped page is read three times — the gate check (ERR-5), the product
 * markers it asks for, and the adapter — and each used to parse it: parse5 and cheerio's selectors were
 * most of an unchanged scrape's CPU. The last page parsed is kept (one entry, keyed by its text), so the
 * page in hand is parsed once. Sound only because no reader edits the parsed document: every edit
 * (`linesOf`, the gate's visible text, ALLRIS sections) works on a `.clone()` — test/scraper/parse-once
 * holds the readers to that. Runs at once in one worker may take turns between a page's readers: then
 * the page is parsed again, as before.
 */
let lastPage: { html: string; $: CheerioAPI } | undefined;

/**
 * A page parsed as cheerio's `load(html)` parses it — parse5 into htmlparser2's DOM with scripting on
 * (cheerio's parsers/parse5-adapter.js) — and wrapped by cheerio's slim entry. Issue 28 (sync memory):
 * cheerio's main entry also carries its loaders from buffers, streams and URLs — undici whole, the
 * encoding sniffer with two more copies of iconv-lite's tables, parse5's stream — none of which a scraper
 * calls: ≈ 1 MB of the sync bundle and ≈ 7 MB of its import's resident set (`npm run bench -- rss`).
 * The slim entry's own parser (htmlparser2) only ever sees the line breaks the readers insert (`linesOf`,
 * ALLRIS agenda items); test/scraper/html-parse.test.ts holds the parse to cheerio's.
 */
function parsePage(html: string): CheerioAPI {
  return load(parse(html, { treeAdapter: adapter, scriptingEnabled: true }));
}

export function loadHtml(html: string): CheerioAPI {
  if (lastPage !== undefined && lastPage.html === html) return lastPage.$;
  const $ = parsePage(html);
  lastPage = { html, $ };
  return $;
}

/** NBSP → space, runs of whitespace → one space, trimmed, NFC (umlauts as one code point). */
export function cleanText(value: string | undefined): string {
  if (value === undefined) return '';
  return value
    .replace(/[\u00a0\u2007\u202f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .normalize('NFC');
}

export function textOf(node: Cheerio<AnyNode>): string {
  return cleanText(node.text());
}

/**
 * The text of `nodes` without the elements `skip` names (lower-case tag names, below the nodes): what
 * `.clone()`, `.find(…).remove()` and `.text()` give, without the copy — issue 28: the gate check reads
 * every scraped page's visible text, and cloning its body was a tenth of that check.
 */
export function textWithout(nodes: Cheerio<AnyNode>, skip: ReadonlySet<string>): string {
  let out = '';
  const walk = (node: AnyNode, top: boolean): void => {
    if (!top && isTag(node) && skip.has(node.name)) return;
    if (hasChildren(node) && !isComment(node)) for (const child of node.children) walk(child, false);
    else if (isText(node)) out += node.data;
  };
  for (const node of nodes.toArray()) walk(node, true);
  return out;
}

/** Every element below `nodes`, in document order (what a selector over them visits), in one walk. */
export function elementsOf(nodes: readonly AnyNode[]): Element[] {
  const out: Element[] = [];
  const walk = (node: AnyNode): void => {
    if (isTag(node)) out.push(node);
    if (hasChildren(node)) for (const child of node.children) walk(child);
  };
  for (const node of nodes) if (hasChildren(node)) for (const child of node.children) walk(child);
  return out;
}

/** Like `textOf`, but `<br>` and block ends become line breaks (names of agenda items, subjects). */
export function linesOf($: CheerioAPI, node: Cheerio<AnyNode>): string[] {
  const clone = node.clone();
  clone.find('script, style').remove();
  clone.find('br').replaceWith('\n');
  clone.find('div, p, li').each((_, el) => {
    $(el).append('\n');
  });
  return clone
    .text()
    .split('\n')
    .map((line) => cleanText(line))
    .filter((line) => line !== '');
}

/** A query parameter of a (relative) link, case-insensitive by name (`SILFDNR`, `__ksinr`). */
export function queryParam(
  href: string | undefined,
  name: string,
  base = 'http://x.invalid/',
): string | undefined {
  if (!href) return undefined;
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  const wanted = name.toLowerCase();
  for (const [key, value] of url.searchParams) {
    if (key.toLowerCase() === wanted && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** The page name of a link without extension: `to010.asp?…` → `to010`, `si0057.php` → `si0057`. */
export function pageName(href: string | undefined, base = 'http://x.invalid/'): string | undefined {
  if (!href) return undefined;
  try {
    const last = new URL(href.trim(), base).pathname.split('/').pop() ?? '';
    return last.replace(/\.(asp|php|aspx)$/i, '').toLowerCase();
  } catch {
    return undefined;
  }
}

/** Value of a hidden `<input name=…>` in a form (ALLRIS posts record numbers by form). */
export function formValue(form: Cheerio<AnyNode>, name: string): string | undefined {
  let found: string | undefined;
  form.find('input').each((_, el) => {
    if (found !== undefined) return;
    const input = el as Element;
    if ((input.attribs.name ?? '').toLowerCase() === name.toLowerCase()) {
      const v = (input.attribs.value ?? '').trim();
      if (v !== '') found = v;
    }
  });
  return found;
}

/** Only digits: record numbers are integers; anything else is not an id. */
export function isRecordNumber(value: string | undefined): value is string {
  return value !== undefined && /^\d{1,12}$/.test(value);
}

/** `Mo, 03.11.2025`, `03.11.2025`, `3.11.25` → `2025-11-03`; undefined when no valid date is found. */
export function parseGermanDate(text: string | undefined): string | undefined {
  const m = /(\d{1,2})\.(\d{1,2})\.(\d{2,4})/.exec(cleanText(text));
  if (!m) return undefined;
  const day = Number(m[1]);
  const month = Number(m[2]);
  let year = Number(m[3]);
  if (year < 100) year += 2000;
  const dt = DateTime.fromObject({ year, month, day }, { zone: ZONE });
  return dt.isValid ? (dt.toISODate() ?? undefined) : undefined;
}

/** `18:00 - 19:45`, `18:00`, `19:00 Uhr`, `17.30-19.00 Uhr` → start and end as HH:MM. */
export function parseTimeRange(text: string | undefined): { start?: string; end?: string } {
  const times = [...cleanText(text).matchAll(/(\d{1,2})[:.](\d{2})/g)]
    .map((m) => ({ h: Number(m[1]), min: Number(m[2]) }))
    .filter((t) => t.h < 24 && t.min < 60)
    .map((t) => `${String(t.h).padStart(2, '0')}:${String(t.min).padStart(2, '0')}`);
  const out: { start?: string; end?: string } = {};
  if (times[0] !== undefined) out.start = times[0];
  if (times[1] !== undefined) out.end = times[1];
  return out;
}

/** `dd.mm.yyyy hh:mm:ss` (ALLRIS file timestamps) → ISO with the Berlin offset. */
export function parseGermanDateTime(text: string | undefined): string | undefined {
  const m = /(\d{1,2})\.(\d{1,2})\.(\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?/.exec(cleanText(text));
  if (!m) return undefined;
  const dt = DateTime.fromObject(
    {
      year: Number(m[3]),
      month: Number(m[2]),
      day: Number(m[1]),
      hour: Number(m[4]),
      minute: Number(m[5]),
      second: Number(m[6] ?? 0),
    },
    { zone: ZONE },
  );
  return dt.isValid ? (dt.toISO({ suppressMilliseconds: true }) ?? undefined) : undefined;
}

/** Berlin local date (+ time) → ISO 8601 with offset (`2025-11-03T18:00:00+01:00`), or the date alone. */
export function berlinDateTime(date: string | undefined, time?: string): string | undefined {
  if (date === undefined) return undefined;
  if (time === undefined) return date;
  const dt = DateTime.fromISO(`${date}T${time}`, { zone: ZONE });
  return dt.isValid ? (dt.toISO({ suppressMilliseconds: true }) ?? undefined) : undefined;
}

/** `Strate, Henrik` → family and given name; `Dr. Anna Müller` → given/family by the last word. */
export function splitPersonName(name: string): { familyName?: string; givenName?: string; title?: string } {
  const cleaned = cleanText(name);
  const titleMatch = /^((?:(?:Prof|Dr|Dipl\.-[\wä]+)\.?\s*)+)/.exec(cleaned);
  const title = titleMatch?.[1]?.trim();
  const rest = title ? cleaned.slice(titleMatch?.[0].length ?? 0).trim() : cleaned;
  const out: { familyName?: string; givenName?: string; title?: string } = {};
  if (title) out.title = title;
  if (rest.includes(',')) {
    const [family, ...given] = rest.split(',');
    const familyName = cleanText(family);
    const givenName = cleanText(given.join(','));
    if (familyName) out.familyName = familyName;
    if (givenName) out.givenName = givenName;
    return out;
  }
  const words = rest.split(' ').filter(Boolean);
  if (words.length >= 2) {
    out.familyName = words[words.length - 1] as string;
    out.givenName = words.slice(0, -1).join(' ');
  } else if (words.length === 1) {
    out.familyName = words[0] as string;
  }
  return out;
}

/** "Strate, Henrik" → "Henrik Strate" (the OParl `name` reads naturally). */
export function displayPersonName(name: string): string {
  const parts = splitPersonName(name);
  return (
    cleanText([parts.title, parts.givenName, parts.familyName].filter(Boolean).join(' ')) || cleanText(name)
  );
}

/** The base directory of an installation from its start URL: `…/bi/allris.net.asp` → `…/bi/`. */
export function baseDirectory(url: string): string {
  const u = new URL(url);
  u.search = '';
  u.hash = '';
  if (!u.pathname.endsWith('/')) {
    const last = u.pathname.split('/').pop() ?? '';
    u.pathname = last.includes('.') ? u.pathname.slice(0, u.pathname.length - last.length) : `${u.pathname}/`;
  }
  return u.toString();
}
