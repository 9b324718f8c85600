import type { SourceConfig } from '../config/source';
import {
  FetchTimeoutError,
  HttpStatusError,
  MAX_ATTEMPTS_BY_PURPOSE,
  type PoliteFetcher,
  type RunContext,
} from '../fetch';
import type { FetchFailureCode } from '../oparl/ports';
import { type DecodedPage, decodeHtml } from './decode';
import { detectGatePage, type GateVerdict } from './gate';

/**
 * One scraper page through the polite fetcher (ROB, RATE, RED, ID, ERR-1…3 are the fetcher's), decoded
 * (`decode.ts`) and classified: a page, a "not public" redirect, a gate page, or a typed failure. The
 * failure codes are the OParl port's (`FetchFailureCode`) so both engines report alike (ERR-5 kinds).
 * Exactly one call at a time per source: the engine awaits each page before the next (RATE-3).
 */

export type PageOutcome =
  | {
      kind: 'page';
      url: string;
      finalUrl: string;
      status: number;
      headers: Record<string, string>;
      html: string;
      decoded: Omit<DecodedPage, 'text'>;
      requests: number;
    }
  | { kind: 'not-public'; url: string; finalUrl: string; requests: number }
  | { kind: 'gate'; url: string; finalUrl: string; status: number; gate: GateVerdict; requests: number }
  | {
      kind: 'failure';
      url: string;
      failure: FetchFailureCode;
      status?: number;
      message: string;
      requests: number;
    };

export interface ScraperPageFetcher {
  page(url: string): Promise<PageOutcome>;
}

export interface ScraperFetchOptions {
  fetcher: PoliteFetcher;
  source: Pick<SourceConfig, 'sourceId' | 'userAgent' | 'requestIntervalSeconds' | 'robotsException'>;
  runContext: RunContext;
  /** RATE-2: the largest interval of any source on the host, ms. */
  hostIntervalMs?: number;
  /** The product's "not public" redirect target (ALLRIS noauth.asp). */
  isNotPublic(finalUrl: string): boolean;
}

const MAX_SCRAPER_ATTEMPTS = MAX_ATTEMPTS_BY_PURPOSE.scraper;
/** Gate pages come with these statuses too (Cloudflare 403/503, Imperva 403, rate walls 429). */
const GATE_STATUSES = new Set([401, 403, 429, 503]);

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

export function scraperPageFetcher(options: ScraperFetchOptions): ScraperPageFetcher {
  const { fetcher, runContext } = options;
  const source = {
    sourceId: options.source.sourceId,
    requestIntervalSeconds: options.source.requestIntervalSeconds,
    ...(options.source.userAgent !== undefined ? { userAgent: options.source.userAgent } : {}),
    ...(options.source.robotsException !== undefined
      ? { robotsException: options.source.robotsException }
      : {}),
  };
  return {
    async page(url) {
      try {
        const result = await fetcher.fetch(url, {
          purpose: 'scraper',
          source,
          runContext,
          ...(options.hostIntervalMs !== undefined ? { hostIntervalMs: options.hostIntervalMs } : {}),
        });
        const requests = result.attempts + result.redirects.length;
        if (options.isNotPublic(result.finalUrl)) {
          return { kind: 'not-public', url, finalUrl: result.finalUrl, requests };
        }
        const { text, ...decoded } = decodeHtml(result.body, result.contentType);
        const gate = detectGatePage({
          status: result.status,
          url: result.finalUrl,
          headers: result.headers,
          html: text,
        });
        if (gate)
          return { kind: 'gate', url, finalUrl: result.finalUrl, status: result.status, gate, requests };
        return {
          kind: 'page',
          url,
          finalUrl: result.finalUrl,
          status: result.status,
          headers: result.headers,
          html: text,
          decoded,
          requests,
        };
      } catch (err) {
        return classify(url, err, runContext);
      }
    },
  };
}

function classify(url: string, err: unknown, runContext: RunContext): PageOutcome {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const host = hostOf(url);
  const failure = (failure: FetchFailureCode, requests: number, status?: number): PageOutcome => ({
    kind: 'failure',
    url,
    failure,
    message,
    requests,
    ...(status !== undefined ? { status } : {}),
  });
  if (err instanceof HttpStatusError) {
    // ID-4: the fetcher made the comparison request after this 403; 2xx there means we are blocked.
    if (err.status === 403 && runContext.comparison(host)?.state === 'blocked')
      return failure('UA_BLOCKED', 2, 403);
    if (GATE_STATUSES.has(err.status) && err.bodySnippet) {
      const gate = detectGatePage({ status: err.status, url, html: err.bodySnippet });
      if (gate) return { kind: 'gate', url, finalUrl: err.url, status: err.status, gate, requests: 1 };
    }
    const requests = err.status >= 500 ? MAX_SCRAPER_ATTEMPTS : 1;
    if (err.status >= 500 && runContext.hasServerErrorSeries(host)) {
      return failure('SERVER_ERROR_SERIES', requests, err.status);
    }
    return failure('HTTP_STATUS', requests, err.status);
  }
  if (err instanceof FetchTimeoutError) return failure('TIMEOUT', MAX_SCRAPER_ATTEMPTS);
  switch (code) {
    case 'NETWORK':
      return failure('NETWORK', MAX_SCRAPER_ATTEMPTS);
    case 'BODY_INCOMPLETE':
    case 'RESPONSE_TOO_LARGE':
    case 'CONTENT_ENCODING':
      return failure('BAD_RESPONSE', 1);
    case 'ROBOTS_DISALLOWED':
      return failure('ROBOTS_DISALLOWED', 0);
    case 'ROBOTS_UNREACHABLE':
      return failure('ROBOTS_UNREACHABLE', 0);
    case 'CIRCUIT_OPEN':
      return runContext.hasServerErrorSeries(host)
        ? failure('SERVER_ERROR_SERIES', 0)
        : failure('DEFERRED', 0);
    case 'HOST_SLOT_TIMEOUT':
      return failure('DEFERRED', 0);
    case 'TOO_MANY_REDIRECTS':
    case 'REDIRECT_SCHEME':
    case 'REDIRECT_INVALID':
    case 'ADDRESS_NOT_PUBLIC':
      return failure('REDIRECT_REFUSED', 1);
    default:
      // A programming error (invalid options …) is a crash of the run, not a page outcome.
      throw err;
  }
}
