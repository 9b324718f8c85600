import type { FetchFailureCode } from '../engine';
import { IngestorError } from '../errors';

/**
 * The one door the sync engine uses to reach a council server. Production wires it to the polite
 * fetcher (`shared/fetch`, see `politeFetcherPort`); tests wire it to a plain loopback client. The engine
 * never sees robots.txt, slots, retries or redirects — those are the fetcher's (ROB, RATE, RED, ERR-1).
 */
export interface OParlFetcher {
  /**
   * GET one API page. Resolves for 2xx and for 304 (only when `conditional` was given); any other
   * outcome rejects with an `OParlFetchError`.
   */
  get(url: string, options: OParlGetOptions): Promise<OParlResponse>;
}

export interface OParlGetOptions {
  /** Which list the page belongs to (`body`, `meeting` …) — for logs, metrics and per-list limits. */
  list: string;
  /** Give up waiting for the answer after this long (SCH-12: 60 s marks a list slow). */
  timeoutMs: number;
  /** B-1: validators of our previous copy of this exact URL; a 304 then costs the server nothing. */
  conditional?: { etag?: string; lastModified?: string };
}

export interface OParlResponse {
  /** 2xx, or 304 when a conditional request matched. */
  status: number;
  /** The final URL after redirects (page URLs of `links.next` resolve against it). */
  url: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The body as text (UTF-8 decoded). Parsing is ours: some vendors send invalid JSON (control characters). */
  text: string;
  /** HTTP requests this call cost (retries, redirect hops); 1 when absent. robots.txt fetches excluded. */
  requests?: number;
}

export class OParlFetchError extends IngestorError {
  readonly url: string;
  readonly failure: FetchFailureCode;
  readonly status: number | undefined;
  /** For 4xx answers: the first bytes of the body (SD.NET answers an empty filtered page with 404 `[]`). */
  readonly bodyText: string | undefined;
  /** HTTP requests this failed call cost; 1 when absent, 0 when nothing was sent (robots, breaker). */
  readonly requests: number;

  constructor(
    failure: FetchFailureCode,
    url: string,
    message: string,
    options: { status?: number; bodyText?: string; requests?: number; cause?: unknown } = {},
  ) {
    super(`OPARL_FETCH_${failure}`, message, {
      retryable: failure !== 'ROBOTS_DISALLOWED' && failure !== 'UA_BLOCKED',
      cause: options.cause,
    });
    this.url = url;
    this.failure = failure;
    this.status = options.status;
    this.bodyText = options.bodyText;
    // Nothing was sent when robots.txt or the breaker stopped the call before it left.
    const sentNothing =
      failure === 'ROBOTS_DISALLOWED' ||
      failure === 'ROBOTS_UNREACHABLE' ||
      failure === 'SERVER_ERROR_SERIES' ||
      failure === 'DEFERRED';
    this.requests = options.requests ?? (sentNothing ? 0 : 1);
  }
}

export function isOParlFetchError(value: unknown): value is OParlFetchError {
  return value instanceof OParlFetchError;
}
