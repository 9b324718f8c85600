import type { SourceConfig } from '../config';
import { classifyFetchFailure } from '../engine';
import { fetchSourceOf, MAX_ATTEMPTS_BY_PURPOSE, type PoliteFetcher, type RunContext } from '../fetch';
import { OParlFetchError, type OParlFetcher } from './ports';

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
