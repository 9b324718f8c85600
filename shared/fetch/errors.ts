import { IngestorError } from '../errors';
import { hostKeyOrUndefined } from '../util';
import { isTransientStatus } from './constants';

/**
 * Errors of the polite fetcher. Each has a stable `code` (logs, metrics, branching) and carries its
 * retry policy (`retryable`, `retryAt`) so callers never re-derive it from status codes (STYLE).
 * Two more codes come from neighbouring modules and pass through unchanged:
 * `ADDRESS_NOT_PUBLIC` (shared/net) and `ROBOTS_DISALLOWED` / `ROBOTS_UNREACHABLE` (shared/robots).
 */

export const FETCH_ERROR_CODES = [
  'FETCH_INVALID_INPUT',
  'HOST_SLOT_TIMEOUT',
  'TOO_MANY_REDIRECTS',
  'REDIRECT_SCHEME',
  'REDIRECT_INVALID',
  'HTTP_STATUS',
  'NETWORK',
  'TIMEOUT',
  'BODY_INCOMPLETE',
  'RESPONSE_TOO_LARGE',
  'CONTENT_ENCODING',
  'HTML_INSTEAD_OF_FILE',
  'CIRCUIT_OPEN',
  'SEND_LATE',
  'RUN_DEADLINE',
] as const;
export type FetchErrorCode = (typeof FETCH_ERROR_CODES)[number];

/** Base of the fetcher's own errors: which URL and server (lower-cased hostname) it concerns. */
export class FetchError extends IngestorError {
  readonly url: string;
  readonly host: string;
  /** Epoch ms before which repeating is pointless (breaker, Retry-After, slot wait), when known. */
  readonly retryAt: number | undefined;

  constructor(
    code: FetchErrorCode,
    url: string,
    message: string,
    options: { retryable?: boolean; cause?: unknown; retryAt?: number } = {},
  ) {
    super(code, message, options);
    this.url = url;
    this.host = hostKeyOrUndefined(url) ?? '';
    this.retryAt = options.retryAt;
  }
}

/**
 * The request could not be written within its slot (a connection still being set up, a busy
 * process): nothing was sent. The fetcher re-times the slot and writes it then; this surfaces only
 * when that failed `MAX_SLOT_RETIMES` times in a row.
 */
export class SendLateError extends FetchError {
  constructor(url: string) {
    super('SEND_LATE', url, 'not written within its host slot; nothing sent', { retryable: true });
  }
}

/**
 * The source run's time is up (RunContext.endsAtMs): the request was not started, or its socket was
 * closed when the time ran out. Not a failure of the server — it feeds neither breaker nor series
 * (ERR-2/3) and is not repeated in this run; the caller checkpoints and the next invocation asks again.
 */
export class RunDeadlineError extends FetchError {
  constructor(url: string, endsAtMs: number) {
    super('RUN_DEADLINE', url, `the run's time was up at ${new Date(endsAtMs).toISOString()} (${url})`, {
      retryable: true,
      retryAt: endsAtMs,
    });
  }
}

/** Options or URL rejected at the boundary (not http(s), credentials in the URL, bad numbers). */
export class FetchInputError extends FetchError {
  constructor(url: string, message: string) {
    super('FETCH_INVALID_INPUT', url, message, { retryable: false });
  }
}

/** RATE-1 / PRV-1: no slot (or robots.txt) within the caller's wait budget; nothing was requested. */
export class HostSlotTimeoutError extends FetchError {
  constructor(url: string, waitedMs: number, retryAt?: number) {
    super('HOST_SLOT_TIMEOUT', url, `no slot for ${hostKeyOrUndefined(url) ?? ''} within ${waitedMs} ms`, {
      retryable: true,
      ...(retryAt === undefined ? {} : { retryAt }),
    });
  }
}

/** RED-1: a sixth redirect. Permanent for this URL until the source changes. */
export class TooManyRedirectsError extends FetchError {
  readonly redirects: readonly string[];

  constructor(url: string, redirects: readonly string[]) {
    super('TOO_MANY_REDIRECTS', url, `more than ${redirects.length - 1} redirects from ${url}`, {
      retryable: false,
    });
    this.redirects = redirects;
  }
}

/** RED: a Location with a scheme other than http/https (file:, ftp:, data:, javascript: …). */
export class RedirectSchemeError extends FetchError {
  readonly location: string;

  constructor(url: string, location: string) {
    super('REDIRECT_SCHEME', url, `redirect from ${url} to a non-http(s) location ${location}`, {
      retryable: false,
    });
    this.location = location;
  }
}

/** A redirect status without a usable Location header, or one with credentials in it. */
export class RedirectInvalidError extends FetchError {
  constructor(url: string, detail: string) {
    super('REDIRECT_INVALID', url, `unusable redirect from ${url}: ${detail}`, { retryable: false });
  }
}

/**
 * The server answered with a status the caller did not ask for (4xx, 5xx, unexpected 3xx).
 * Retryable later for 5xx, 408 and 429 (ERR-1 decides in-run repetition: 5xx only).
 */
export class HttpStatusError extends FetchError {
  readonly status: number;
  /** RATE-8: parsed Retry-After (429/503), capped at 24 h, in ms from the answer. */
  readonly retryAfterMs: number | undefined;
  readonly contentType: string | undefined;
  /** Start of the body as text (≤ 4 KiB), for diagnosis (SD.NET "[]" 404s, bot walls). */
  readonly bodySnippet: string;

  constructor(
    url: string,
    status: number,
    details: { retryAfterMs?: number; retryAt?: number; contentType?: string; bodySnippet?: string } = {},
  ) {
    super('HTTP_STATUS', url, `HTTP ${status} from ${url}`, {
      retryable: isTransientStatus(status),
      ...(details.retryAt === undefined ? {} : { retryAt: details.retryAt }),
    });
    this.status = status;
    this.retryAfterMs = details.retryAfterMs;
    this.contentType = details.contentType;
    this.bodySnippet = details.bodySnippet ?? '';
  }
}

/** Connection refused or reset, DNS failure, TLS failure: no (complete) answer (ERR-1 retries). */
export class NetworkError extends FetchError {
  constructor(url: string, cause: unknown, code: 'NETWORK' | 'BODY_INCOMPLETE' = 'NETWORK') {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(code, url, `${code === 'NETWORK' ? 'network error' : 'incomplete body'} at ${url}: ${detail}`, {
      retryable: true,
      cause,
    });
  }
}

/** Headers, connect or whole-body deadline passed (ERR-1 retries; SCH-12 watches `phase: 'headers'`). */
export class FetchTimeoutError extends FetchError {
  readonly phase: 'connect' | 'headers' | 'body';
  readonly timeoutMs: number;

  constructor(url: string, phase: 'connect' | 'headers' | 'body', timeoutMs: number, cause?: unknown) {
    super('TIMEOUT', url, `${phase} timeout after ${timeoutMs} ms at ${url}`, { retryable: true, cause });
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The body (declared or received, after decompression) exceeds the call site's limit. Permanent
 * (DOC-5: a file larger than 80 MB ends the attempts). `stage: 'decoded'` marks a decompression
 * bomb: small on the wire, huge inflated.
 */
export class ResponseTooLargeError extends FetchError {
  readonly maxBytes: number;
  readonly stage: 'declared' | 'received' | 'decoded';

  constructor(url: string, maxBytes: number, stage: 'declared' | 'received' | 'decoded') {
    const what =
      stage === 'declared'
        ? 'Content-Length exceeds'
        : stage === 'decoded'
          ? 'decompressed body exceeds'
          : 'body exceeds';
    super('RESPONSE_TOO_LARGE', url, `${what} the limit of ${maxBytes} bytes at ${url}`, {
      retryable: false,
    });
    this.maxBytes = maxBytes;
    this.stage = stage;
  }
}

/** A Content-Encoding we cannot decode, or a corrupt compressed body. */
export class ContentEncodingError extends FetchError {
  constructor(url: string, detail: string, cause?: unknown) {
    super('CONTENT_ENCODING', url, `cannot decode body of ${url}: ${detail}`, { retryable: false, cause });
  }
}

/** DOC-5 / DOC-6: an HTML page (bot protection, login, error page) where a file was expected. */
export class HtmlInsteadOfFileError extends FetchError {
  readonly contentType: string | undefined;

  constructor(url: string, contentType: string | undefined) {
    super('HTML_INSTEAD_OF_FILE', url, `HTML page instead of a file at ${url}`, { retryable: false });
    this.contentType = contentType;
  }
}

/** ERR-2: the run's breaker for this server is open; nothing was requested. */
export class CircuitOpenError extends FetchError {
  constructor(url: string, retryAt: number) {
    super(
      'CIRCUIT_OPEN',
      url,
      `circuit open for ${hostKeyOrUndefined(url) ?? ''} until ${new Date(retryAt).toISOString()}`,
      {
        retryable: true,
        retryAt,
      },
    );
  }
}
