import type { SourceConfig } from '../config/source';
import {
  FetchTimeoutError,
  fetchSourceOf,
  HttpStatusError,
  MAX_ATTEMPTS_BY_PURPOSE,
  type PoliteFetcher,
  type RunContext,
} from '../fetch';
import { type FetchFailureCode, OParlFetchError, type OParlFetcher } from './ports';

/**
 * The production adapter: the engine's port over the polite fetcher (shared/fetch), which keeps ROB,
 * RATE, RED, ID and ERR-1…3. One `RunContext` per source run gives the breaker, the 5xx series and the
 * ID-4 comparison their "per source run" scope; its findings come back here as typed failures.
 */
export interface PolitePortOptions {
  fetcher: PoliteFetcher;
  source: Pick<SourceConfig, 'sourceId' | 'userAgent' | 'requestIntervalSeconds' | 'robotsException'>;
  runContext: RunContext;
  /** RATE-2: the largest interval of any source on the host, ms (from the planner's source list). */
  hostIntervalMs?: number;
}

const MAX_API_ATTEMPTS = MAX_ATTEMPTS_BY_PURPOSE.api;

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

export function politeFetcherPort(options: PolitePortOptions): OParlFetcher {
  const { fetcher, runContext } = options;
  const fetchSource = fetchSourceOf(options.source);
  return {
    async get(url, opts) {
      try {
        const result = await fetcher.fetch(url, {
          purpose: 'api',
          source: fetchSource,
          runContext,
          headersTimeoutMs: opts.timeoutMs,
          ...(options.hostIntervalMs !== undefined ? { hostIntervalMs: options.hostIntervalMs } : {}),
          ...(opts.conditional ? { conditional: opts.conditional } : {}),
        });
        return {
          status: result.status,
          url: result.finalUrl,
          headers: result.headers,
          text: result.notModified ? '' : result.body.toString('utf8'),
          requests: result.attempts + result.redirects.length,
        };
      } catch (err) {
        throw toPortError(url, err, runContext);
      }
    },
  };
}

/** A failed fetch as the engines branch on it, with the HTTP requests it cost. */
export interface FetchFailure {
  failure: FetchFailureCode;
  requests: number;
  status?: number;
  bodySnippet?: string;
}

/**
 * The polite fetcher's typed errors mapped to the engines' failure codes — one table for the OParl and
 * the scraper engine. `maxAttempts` is what a retried failure cost (ERR-1). `undefined` for an error the
 * fetcher does not type (a programming error).
 */
export function classifyFetchFailure(
  url: string,
  err: unknown,
  runContext: RunContext,
  maxAttempts: number,
): FetchFailure | undefined {
  const code = (err as { code?: unknown }).code;
  const host = hostOf(url);
  if (err instanceof HttpStatusError) {
    // ID-4: the fetcher made the comparison request after this 403; 2xx there means we are blocked.
    if (err.status === 403 && runContext.comparison(host)?.state === 'blocked') {
      return { failure: 'UA_BLOCKED', status: 403, requests: 2 };
    }
    const requests = err.status >= 500 ? maxAttempts : 1;
    if (err.status >= 500 && runContext.hasServerErrorSeries(host)) {
      return { failure: 'SERVER_ERROR_SERIES', status: err.status, requests };
    }
    return {
      failure: 'HTTP_STATUS',
      status: err.status,
      requests,
      ...(err.bodySnippet !== undefined ? { bodySnippet: err.bodySnippet } : {}),
    };
  }
  if (err instanceof FetchTimeoutError) return { failure: 'TIMEOUT', requests: maxAttempts };
  switch (code) {
    case 'NETWORK':
      return { failure: 'NETWORK', requests: maxAttempts };
    case 'BODY_INCOMPLETE':
    case 'RESPONSE_TOO_LARGE':
    case 'CONTENT_ENCODING':
      return { failure: 'BAD_RESPONSE', requests: 1 };
    // Nothing was sent when robots.txt, the breaker or the slot wait stopped the call before it left.
    case 'ROBOTS_DISALLOWED':
      return { failure: 'ROBOTS_DISALLOWED', requests: 0 };
    case 'ROBOTS_UNREACHABLE':
      return { failure: 'ROBOTS_UNREACHABLE', requests: 0 };
    case 'CIRCUIT_OPEN':
      return {
        failure: runContext.hasServerErrorSeries(host) ? 'SERVER_ERROR_SERIES' : 'DEFERRED',
        requests: 0,
      };
    case 'HOST_SLOT_TIMEOUT':
    case 'SEND_LATE':
      return { failure: 'DEFERRED', requests: 0 };
    case 'ADDRESS_NOT_PUBLIC':
      return { failure: 'REDIRECT_REFUSED', requests: 0 };
    // Not started, or cut when the run's time ran out (the fetch log counts what was sent).
    case 'RUN_DEADLINE':
      return { failure: 'RUN_DEADLINE', requests: 0 };
    case 'TOO_MANY_REDIRECTS':
    case 'REDIRECT_SCHEME':
    case 'REDIRECT_INVALID':
      return { failure: 'REDIRECT_REFUSED', requests: 1 };
    default:
      return undefined;
  }
}

function toPortError(url: string, err: unknown, runContext: RunContext): OParlFetchError {
  const message = err instanceof Error ? err.message : String(err);
  const f = classifyFetchFailure(url, err, runContext, MAX_API_ATTEMPTS) ?? { failure: 'OTHER', requests: 0 };
  return new OParlFetchError(f.failure, url, message, {
    requests: f.requests,
    cause: err,
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.bodySnippet !== undefined ? { bodyText: f.bodySnippet } : {}),
  });
}
