import {
  PREVIEW_DEFAULT_RETRY_AFTER_S,
  PREVIEW_DOWNLOAD_PARAM,
  PREVIEW_DOWNLOAD_VALUE,
  PREVIEW_MAX_RETRY_AFTER_S,
} from './constants';
import type { Delivery, ErrorPageKind, PreviewResponse } from './types';

/**
 * Responses of the preview with safe headers only: nothing a source sent is ever rendered as HTML on
 * our origin — PDF is shown inline unless asked for as a download, everything else is an attachment,
 * script-capable types become `application/octet-stream`; `nosniff` everywhere; our own pages escape
 * every value.
 */
const BASE_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/** Types a browser might run or render as a document: never served under their own type. */
const ACTIVE_TYPES =
  /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|text\/javascript|application\/javascript|application\/ecmascript|text\/ecmascript|multipart\/.*|application\/x-shockwave-flash)$/;

export function fileHeaders(
  contentType: string | undefined,
  fileName: string,
  options: { delivery?: Delivery; extra?: Record<string, string> } = {},
): Record<string, string> {
  const mime = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const pdf = mime === 'application/pdf';
  const wellFormed = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(mime);
  const type = pdf
    ? 'application/pdf'
    : wellFormed && !ACTIVE_TYPES.test(mime)
      ? mime
      : 'application/octet-stream';
  // OParl's downloadUrl (`download`) is a download whatever the type; a view shows only a PDF inline.
  const inline = pdf && (options.delivery ?? 'view') === 'view';
  return {
    ...BASE_HEADERS,
    'content-type': type,
    'content-disposition': `${inline ? 'inline' : 'attachment'}; filename="${fileName}"`,
    // A PDF viewer needs its plugin; anything else is downloaded and may run nothing on our origin.
    ...(pdf ? {} : { 'content-security-policy': "default-src 'none'; sandbox" }),
    'cache-control': 'private, max-age=300',
    ...(options.extra ?? {}),
  };
}

/**
 * A file name for Content-Disposition from the URL's last path segment: ASCII letters, digits, `.`,
 * `-`, `_` only (no quotes, no CR/LF, no path), at most 100 characters, `.pdf` added for PDFs.
 */
export function safeFileName(url: string, contentType: string | undefined, fallback: string): string {
  let base = '';
  try {
    const segment =
      new URL(url).pathname
        .split('/')
        .filter((s) => s !== '')
        .pop() ?? '';
    base = decodeURIComponent(segment);
  } catch {
    base = '';
  }
  let name = base
    .normalize('NFKD')
    .replace(/[^\w.-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 100);
  if (name === '' || name === '_') name = fallback;
  const pdf = (contentType ?? '').toLowerCase().startsWith('application/pdf');
  if (pdf && !name.toLowerCase().endsWith('.pdf')) name = `${name.slice(0, 96)}.pdf`;
  return name;
}

/** The name a document's file is served under: from its URL, else `dokument-<first 12 of its id>`. */
export function documentFileName(docId: string, url: string, contentType: string | undefined): string {
  return safeFileName(url, contentType, `dokument-${docId.slice(0, 12)}`);
}

export function retryAfterSeconds(retryAtMs: number | undefined, nowMs: number): number {
  if (retryAtMs === undefined || !Number.isFinite(retryAtMs)) return PREVIEW_DEFAULT_RETRY_AFTER_S;
  return Math.min(PREVIEW_MAX_RETRY_AFTER_S, Math.max(1, Math.ceil((retryAtMs - nowMs) / 1000)));
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function page(
  status: number,
  title: string,
  text: string,
  options: { link?: string; headers?: Record<string, string> } = {},
): PreviewResponse {
  const link =
    options.link === undefined
      ? ''
      : `<p>Original: <a href="${escapeHtml(options.link)}" rel="noopener noreferrer nofollow">${escapeHtml(options.link)}</a></p>`;
  const body = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${link}</body></html>\n`;
  return {
    status,
    headers: {
      ...BASE_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': PAGE_CSP,
      'cache-control': 'no-store',
      ...(options.headers ?? {}),
    },
    body,
  };
}

export const notFound = (): PreviewResponse =>
  page(404, 'Dokument nicht gefunden', 'Unter dieser Adresse ist kein Dokument bekannt.');

export const gone = (reason: string): PreviewResponse =>
  page(410, 'Dokument entfernt', `Dieses Dokument ist nicht mehr verfügbar (${reason}).`);

export const busy = (retryAfterS: number, why: string): PreviewResponse =>
  page(503, 'Bitte später erneut versuchen', `Das Dokument kann gerade nicht abgerufen werden (${why}).`, {
    headers: { 'retry-after': String(retryAfterS) },
  });

/** A query the endpoint does not answer as asked (PreviewBadRequestError): says what it takes. */
export const badRequest = (): PreviewResponse =>
  page(
    400,
    'Ungültige Anfrage',
    `Der Parameter „${PREVIEW_DOWNLOAD_PARAM}“ kennt nur den Wert ${PREVIEW_DOWNLOAD_VALUE}: ?${PREVIEW_DOWNLOAD_PARAM}=${PREVIEW_DOWNLOAD_VALUE} lädt das Dokument herunter, ohne den Parameter wird ein PDF im Browser angezeigt.`,
  );

export const tooManyRequests = (retryAfterS: number): PreviewResponse =>
  page(429, 'Zu viele Anfragen', 'Bitte warten Sie einen Moment und versuchen Sie es erneut.', {
    headers: { 'retry-after': String(retryAfterS) },
  });

const ERROR_PAGES: Record<ErrorPageKind, { status: number; title: string; text: string }> = {
  robots: {
    status: 403,
    title: 'Abruf nicht erlaubt',
    text: 'Die robots.txt des Ratsinformationssystems erlaubt den Abruf dieses Dokuments nicht; wir fragen es deshalb nicht ab.',
  },
  'bot-protection': {
    status: 403,
    title: 'Abruf durch Zugangsschutz verhindert',
    text: 'Das Ratsinformationssystem hat statt des Dokuments eine Schutzseite geliefert; wir umgehen keine Zugangsprüfungen.',
  },
  'too-large': {
    status: 502,
    title: 'Dokument zu groß',
    text: 'Das Dokument ist größer als 80 MB und wird nicht über diese Vorschau ausgeliefert.',
  },
  'source-error': {
    status: 502,
    title: 'Quelle antwortet nicht wie erwartet',
    text: 'Das Ratsinformationssystem hat das Dokument nicht geliefert.',
  },
};

export function errorPage(kind: ErrorPageKind, originalUrl: string | undefined): PreviewResponse {
  const p = ERROR_PAGES[kind];
  return page(p.status, p.title, p.text, originalUrl === undefined ? {} : { link: originalUrl });
}

export function redirect(location: string, extra: Record<string, string> = {}): PreviewResponse {
  return {
    status: 302,
    headers: { ...BASE_HEADERS, location, 'cache-control': 'no-store', ...extra },
    body: '',
  };
}
