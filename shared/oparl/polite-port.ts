import type { SourceConfig } from '../config/source';
import {
  FetchTimeoutError,
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
  const fetchSource = {
    sourceId: options.source.sourceId,
    requestIntervalSeconds: options.source.requestIntervalSeconds,
    ...(options.source.userAgent !== undefined ? { userAgent: options.source.userAgent } : {}),
    ...(options.source.robotsException !== undefined
      ? { robotsException: options.source.robotsException }
      : {}),
  };
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

function toPortError(url: string, err: unknown, runContext: RunContext): OParlFetchError {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const host = hostOf(url);
  const make = (
    failure: FetchFailureCode,
    extra: { status?: number; bodyText?: string; requests?: number } = {},
  ) => new OParlFetchError(failure, url, message, { ...extra, cause: err });
  if (err instanceof HttpStatusError) {
    // ID-4: the fetcher made the comparison request after this 403; 2xx there means we are blocked.
    if (err.status === 403 && runContext.comparison(host)?.state === 'blocked') {
      return make('UA_BLOCKED', { status: 403, requests: 2 });
    }
    const requests = err.status >= 500 ? MAX_API_ATTEMPTS : 1;
    if (err.status >= 500 && runContext.hasServerErrorSeries(host)) {
      return make('SERVER_ERROR_SERIES', { status: err.status, requests });
    }
    return make('HTTP_STATUS', { status: err.status, bodyText: err.bodySnippet, requests });
  }
  if (err instanceof FetchTimeoutError) return make('TIMEOUT', { requests: MAX_API_ATTEMPTS });
  switch (code) {
    case 'NETWORK':
      return make('NETWORK', { requests: MAX_API_ATTEMPTS });
    case 'BODY_INCOMPLETE':
    case 'RESPONSE_TOO_LARGE':
    case 'CONTENT_ENCODING':
      return make('BAD_RESPONSE');
    case 'ROBOTS_DISALLOWED':
      return make('ROBOTS_DISALLOWED');
    case 'ROBOTS_UNREACHABLE':
      return make('ROBOTS_UNREACHABLE');
    case 'CIRCUIT_OPEN':
      return runContext.hasServerErrorSeries(host) ? make('SERVER_ERROR_SERIES') : make('DEFERRED');
    case 'HOST_SLOT_TIMEOUT':
      return make('DEFERRED');
    case 'TOO_MANY_REDIRECTS':
    case 'REDIRECT_SCHEME':
    case 'REDIRECT_INVALID':
    case 'ADDRESS_NOT_PUBLIC':
      return make('REDIRECT_REFUSED');
    default:
      return make('OTHER', { requests: 0 });
  }
}
