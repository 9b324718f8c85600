import { FetchTimeoutError, HttpStatusError, type RunContext } from '../fetch';
import type { FailureKind } from '../schedule';
import { hostKeyOrUndefined } from '../util';
import type { SyncFailure } from './types';

/**
 * Failure classification shared by every source kind: the polite fetcher's typed errors as failure
 * codes, the ERR-5 classes that end a run, and ROB-8's "robots.txt allowed nothing".
 */

/** What went wrong with one `get`, as the engine branches on it. */
export type FetchFailureCode =
  /** The server answered with a non-2xx status (after the fetcher's retries). `status` is set. */
  | 'HTTP_STATUS'
  /** No answer within `timeoutMs` (SCH-12). */
  | 'TIMEOUT'
  /** Connection refused/reset, DNS, TLS … after the fetcher's retries. */
  | 'NETWORK'
  /** ROB-8: robots.txt forbids this URL; the request was not made. */
  | 'ROBOTS_DISALLOWED'
  /** ROB-7: robots.txt unreachable and no valid copy; the request was deferred. */
  | 'ROBOTS_UNREACHABLE'
  /** ID-4: the comparison request showed our User-Agent is blocked. */
  | 'UA_BLOCKED'
  /** ERR-2 / ERR-3: the server is in a failure series; the fetcher refuses further requests for now. */
  | 'SERVER_ERROR_SERIES'
  /**
   * Nothing was sent and asking again in this run is pointless: the run's breaker is open (ERR-2) or no
   * host slot came free within the wait budget.
   */
  | 'DEFERRED'
  /** Redirect refused (another host disallowed, non-public address, > 5 hops). */
  | 'REDIRECT_REFUSED'
  /** The answer was too large or malformed at the transport level. */
  | 'BAD_RESPONSE'
  /** The run's time was up (RunContext.endsAtMs): the page is the next invocation's; not a failure. */
  | 'RUN_DEADLINE'
  | 'OTHER';

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
  const host = hostKeyOrUndefined(url) ?? '';
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

/** ERR-5 classes that end the run at once; other failures are noted and the run goes on. */
export function runEndingKind(failure: FetchFailureCode): FailureKind | undefined {
  switch (failure) {
    case 'UA_BLOCKED':
      return 'ua-blocked';
    case 'SERVER_ERROR_SERIES':
      return '5xx-series';
    case 'ROBOTS_UNREACHABLE':
      return 'robots-unreachable';
    case 'DEFERRED':
      return 'other';
    default:
      return undefined;
  }
}

/**
 * ROB-8: robots.txt allowed not a single request of this run — the failure to record, once per run.
 * Both engines (OParl and scraper) keep these counts and failures in their cursors.
 */
export function robotsForbadeAll(run: {
  flags: { disallowed: number; answered: number };
  failures: SyncFailure[];
}): SyncFailure | undefined {
  const { disallowed, answered } = run.flags;
  if (disallowed === 0 || answered > 0) return undefined;
  if (run.failures.some((f) => f.kind === 'robots-forbids-all')) return undefined;
  return { kind: 'robots-forbids-all', detail: `robots.txt disallowed all ${disallowed} request(s)` };
}
