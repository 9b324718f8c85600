/**
 * Numbers and tables of the polite fetcher (SPEC ID, RATE, RED, ERR). One constant each, exported,
 * so the generated rules page and the tests read the same values as the code.
 */

/** ID-1: defaults of the identification when no operator value is set. */
export const DEFAULT_INFO_URL = 'https://mandari.de/ingestor/';
export const DEFAULT_CONTACT = 'support@mandari.de';

/**
 * What a request is for. Decides Accept (ID-2), limits, timeouts and retries. `service` is an other
 * fetch (OTH): a geo service or streaming provider, not a council system — robots.txt is not
 * evaluated (OTH-3) and no per-source User-Agent applies (OTH-1); everything else is as for `api`.
 */
export const FETCH_PURPOSES = ['api', 'robots', 'scraper', 'file', 'comparison', 'service'] as const;
export type FetchPurpose = (typeof FETCH_PURPOSES)[number];

/** ID-2: Accept per purpose. Files take whatever the source serves (mostly PDF). */
export const ACCEPT_BY_PURPOSE: Readonly<Record<FetchPurpose, string>> = {
  api: 'application/json',
  robots: 'text/plain',
  scraper: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
  file: '*/*',
  comparison: '*/*',
  // GeoJSON first (OGC API Features, WFS), then JSON (stream status), then anything (HLS playlists).
  service: 'application/geo+json, application/json;q=0.9, */*;q=0.8',
};

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Size limits per call site, enforced while streaming (STYLE). robots.txt is cut at 500 KiB and the
 * start evaluated (ROB-5) rather than failed; every other purpose fails with RESPONSE_TOO_LARGE.
 * Files: DOC-3 (80 MB per file). Comparison answers (ID-4) are only looked at, never stored.
 */
export const DEFAULT_MAX_BYTES: Readonly<Record<FetchPurpose, number>> = {
  api: 20 * MiB,
  robots: 500 * KiB,
  scraper: 10 * MiB,
  file: 80 * 1000 * 1000,
  comparison: 64 * KiB,
  // A page of plan boundaries of a large town; a stream status is a few bytes.
  service: 50 * MiB,
};

/** Waiting for the response head. SCH-12 calls a list slow after 60 s without an answer. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

/**
 * Whole-body deadline from the response head to the last byte, per call site. undici's own
 * `bodyTimeout` is an idle timer between chunks, which a slowloris body (1 byte per second) never
 * trips — this deadline does.
 */
export const DEFAULT_BODY_TIMEOUT_MS: Readonly<Record<FetchPurpose, number>> = {
  api: 120_000,
  robots: 30_000,
  scraper: 60_000,
  file: 300_000,
  comparison: 30_000,
  service: 120_000,
};

/**
 * The page of an error answer (4xx/5xx) is read for diagnosis only (a snippet: gate pages, the error
 * text): at most this long, whatever the purpose's body deadline. Callers answer by the status — a
 * tarpitted error page (issue 13 (2)) must hold neither them (PRV-1: the preview's 5 s) nor, for
 * minutes, the host's place (RATE-4).
 */
export const ERROR_PAGE_TIMEOUT_MS = 2_000;

/**
 * ERR-1: attempts per fetch after network error, timeout or 5xx, and the pauses between them.
 * Files follow DOC-4 (retried by the caller's schedule, not within the run), robots.txt follows
 * ROB-7 (unreachable → deferred), a comparison request is sent exactly once (ID-4).
 */
export const MAX_ATTEMPTS_BY_PURPOSE: Readonly<Record<FetchPurpose, number>> = {
  api: 3,
  robots: 1,
  scraper: 3,
  file: 1,
  comparison: 1,
  service: 3,
};
export const RETRY_PAUSES_MS: readonly number[] = [1_000, 2_000];

/** RATE-1 / RATE-2: the host interval is at least 1 s; a source may ask for up to 30 s. */
export const MIN_HOST_INTERVAL_MS = 1_000;
export const MAX_SOURCE_INTERVAL_MS = 30_000;

/**
 * 4xx statuses that say "not now" rather than "no": the server's own timeout and too many requests.
 * With every 5xx they make the transient statuses (`isTransientStatus`).
 */
export const TRANSIENT_CLIENT_ERROR_STATUSES: ReadonlySet<number> = new Set([408, 429]);

/**
 * A status worth asking again later: 408, 429 and every 5xx. One set for every rule that reads it:
 * retryable later (ERR-1 itself repeats only 5xx within the run), robots.txt unreachable rather than
 * absent (ROB-7), a file on the short retry ladder rather than weekly (DOC-4).
 */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || TRANSIENT_CLIENT_ERROR_STATUSES.has(status);
}

/** RATE-8: a Retry-After is honoured up to 24 h. */
export const RETRY_AFTER_CAP_MS = 24 * 60 * 60 * 1000;
/** RATE-8: Retry-After counts on these statuses only. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * How long a fetch may wait in total for its slots (and robots.txt) before giving up with
 * HOST_SLOT_TIMEOUT, when the caller does not say. PRV-1 passes 5 s.
 */
export const DEFAULT_MAX_WAIT_MS = 120_000;

/** RED-1: redirects followed per fetch; the sixth ends the fetch with TOO_MANY_REDIRECTS. */
export const MAX_REDIRECTS = 5;
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** RED: only these schemes may be followed. */
export const ALLOWED_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:']);

/** ERR-2: failed attempts against one server in one source run that open the breaker, and for how long. */
export const BREAKER_FAILURE_THRESHOLD = 5;
export const BREAKER_OPEN_MS = 60_000;
/** ERR-2: statuses that are an answer, not a failure of the server (404 = "does not exist"). */
export const BREAKER_IGNORED_STATUSES: ReadonlySet<number> = new Set([404]);

/** ERR-3: server errors in a row at one server that make a "5xx series". */
export const SERVER_ERROR_SERIES_LENGTH = 5;

/**
 * ID-4: the comparison request uses the HTTP library's default identification. undici's
 * Dispatcher API (`request`, which the fetcher uses) sends NO User-Agent header at all unless one
 * is given — that is its default, so the comparison request carries none. (undici's `fetch()`
 * would add `User-Agent: undici`/`node`; we do not use `fetch()`.)
 */
export const COMPARISON_USER_AGENT: string | undefined = undefined;

/** DOC-5: bytes sniffed at the start of a file for an HTML page (bot protection) instead of the file. */
export const HTML_SNIFF_BYTES = 1024;

/**
 * Content encodings we decode. We advertise them (smaller transfers for small council servers);
 * decoded output counts against `maxBytes`, so a gzip bomb ends as RESPONSE_TOO_LARGE.
 */
export const ACCEPT_ENCODING = 'gzip, deflate, br';
