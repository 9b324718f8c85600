import { PageLayoutError } from '../errors';
import {
  type AnyNode,
  type Cheerio,
  type CheerioAPI,
  cleanText,
  type Element,
  isRecordNumber,
  linesOf,
  textOf,
} from '../html';
import type { FileRole, OrganizationKind, ParsedFile } from '../types';
import { ALLRIS_KEYS, type AllrisKind, allrisKeyOf, allrisUrl, organizationKindOfPage } from './urls';

/** Shared reading of ALLRIS 3 pages: the record number, the label/value table, side-box documents. */

/** `<meta name="objectID">` — ALLRIS puts the page's record number there. */
export function metaObjectId($: CheerioAPI): string | undefined {
  const value = $('meta[name="objectID"]').attr('content')?.trim();
  return isRecordNumber(value) ? value : undefined;
}

/**
 * The record number of the page: the URL parameter it was fetched with, cross-checked with the meta
 * tag. Both missing, or disagreeing, means this is not the page we asked for.
 */
export function pageKey($: CheerioAPI, pageUrl: string, kind: AllrisKind, pageType: string): string {
  const fromUrl = allrisKeyOf(pageUrl, kind);
  const fromMeta = metaObjectId($);
  if (fromUrl !== undefined && fromMeta !== undefined && fromUrl !== fromMeta) {
    throw new PageLayoutError(
      pageType,
      pageUrl,
      `objectID ${fromMeta} differs from ${ALLRIS_KEYS[kind]}=${fromUrl}`,
    );
  }
  const key = fromUrl ?? fromMeta;
  if (key === undefined)
    throw new PageLayoutError(pageType, pageUrl, `no ${ALLRIS_KEYS[kind]} and no objectID`);
  return key;
}

/** Requires the ALLRIS container of the page type (`div#allriscontainer.to010`). */
export function requireContainer($: CheerioAPI, pageUrl: string, pageClass: string, pageType: string): void {
  const container = $('#allriscontainer');
  if (container.length === 0) throw new PageLayoutError(pageType, pageUrl, 'no ALLRIS container');
  const classes = (container.attr('class') ?? '').toLowerCase().split(/\s+/);
  if (!classes.includes(pageClass)) {
    throw new PageLayoutError(
      pageType,
      pageUrl,
      `container is "${classes.join(' ')}", expected "${pageClass}"`,
    );
  }
}

/** `#rishead .topHeadline`: "Bezirksversammlung Altona". */
export function headline($: CheerioAPI): string | undefined {
  const text = textOf($('#rishead .topHeadline').first());
  return text === '' ? undefined : text;
}

/** `<h1>Tagesordnung - Sitzung des …</h1>` without the page-type prefix. */
export function heading($: CheerioAPI, prefix?: string): string {
  const h1 = textOf($('#risname h1').first());
  if (prefix && h1.toLowerCase().startsWith(`${prefix.toLowerCase()} - `))
    return h1.slice(prefix.length + 3).trim();
  return h1;
}

export interface LabelledValue {
  text: string;
  lines: string[];
  cell: Cheerio<Element>;
}

/**
 * The label/value pairs of ALLRIS detail tables: `<td class="kb1">Gremium:</td><td …>value</td>`. The
 * first occurrence of a label wins (the paper block inside to020 repeats "Status:").
 */
export function labelledValues($: CheerioAPI, scope?: Cheerio<AnyNode>): Map<string, LabelledValue> {
  const values = new Map<string, LabelledValue>();
  const cells = scope ? scope.find('td.kb1') : $('td.kb1');
  cells.each((_, el) => {
    const label = cleanText($(el).text()).replace(/:$/, '').toLowerCase();
    if (label === '' || values.has(label)) return;
    const cell = $(el).nextAll('td').first();
    if (cell.length === 0) return;
    values.set(label, { text: textOf(cell), lines: linesOf($, cell), cell });
  });
  return values;
}

/** What a document button's label says the file is (OParl Meeting file roles). */
export function fileRoleOf(label: string): FileRole {
  const l = label.toLowerCase();
  if (l.includes('einladung') || l.includes('tagesordnung') || l === 'aktuelle to') return 'invitation';
  if (l.includes('wortprotokoll')) return 'verbatimProtocol';
  if (l.includes('niederschrift') || l.includes('protokoll')) return 'resultsProtocol';
  return 'auxiliary';
}

/**
 * Document buttons: `<form action="do027.asp"><input name="DOLFDNR" value="…"><input type="submit"
 * value="Einladung" title="…">`. DOLFDNR is the document's record number: a stable id and download
 * address (`do027.asp?DOLFDNR=…`), unlike the `___tmp/` links of attachments.
 */
export function documentForms($: CheerioAPI, scope: Cheerio<AnyNode>, base: string): ParsedFile[] {
  const files: ParsedFile[] = [];
  scope.find('form').each((_, el) => {
    const form = $(el);
    if (!/do027\.asp/i.test(form.attr('action') ?? '')) return;
    const key = form.find('input[name="DOLFDNR" i]').attr('value')?.trim();
    if (!isRecordNumber(key)) return;
    const button = form.find('input[type="submit"]').first();
    const value = cleanText(button.attr('value'));
    const title = cleanText(button.attr('title')).replace(/\s*\(Öffnet.*$/i, '');
    const name = title || value || `Dokument ${key}`;
    const id = allrisUrl(base, 'file', key);
    if (files.some((f) => f.id === id)) return;
    files.push({ id, name, accessUrl: id, role: fileRoleOf(`${value} ${title}`) });
  });
  return files;
}

/** ALLRIS `Ö 2.1` / `N 3`: public unless the number starts with N. */
export function isPublicNumber(number: string | undefined): boolean {
  return number === undefined || !/^N\b/.test(number);
}

/** The first record number a cell's forms or links carry for `kind`. */
export function keyInScope($: CheerioAPI, scope: Cheerio<AnyNode>, kind: AllrisKind): string | undefined {
  let key: string | undefined;
  scope.find(`input[name="${ALLRIS_KEYS[kind]}" i]`).each((_, el) => {
    const v = $(el).attr('value')?.trim();
    if (key === undefined && isRecordNumber(v)) key = v;
  });
  if (key !== undefined) return key;
  scope.find('a[href]').each((_, el) => {
    const v = allrisKeyOf($(el).attr('href'), kind);
    if (key === undefined && v !== undefined) key = v;
  });
  return key;
}

/** The committee and faction list pages (`au010.asp`, `fr010.asp`) the navigation menu links to. */
export function organizationListLinks(
  $: CheerioAPI,
  pageUrl: string,
): { url: string; kind: OrganizationKind }[] {
  const found: { url: string; kind: OrganizationKind }[] = [];
  $('#rismenu a[href], #menu a[href]').each((_, el) => {
    const href = $(el).attr('href');
    const kind = organizationKindOfPage(href);
    if (!href || kind === undefined || !/^(au010|fr010)/i.test(href.split('/').pop() ?? '')) return;
    try {
      const url = new URL(href, pageUrl).toString();
      if (!found.some((f) => f.kind === kind)) found.push({ url, kind });
    } catch {
      // not a URL
    }
  });
  return found;
}

/** A decision state as ALLRIS prints it; "(offen)" / "offen" means no result yet. */
export function resultOf(text: string | undefined): string | undefined {
  const t = cleanText(text);
  return t === '' || /^\(?offen\)?$/i.test(t) ? undefined : t;
}
