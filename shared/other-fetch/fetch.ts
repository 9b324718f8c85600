import { REQUEST_INTERVAL_MIN_SECONDS } from '../config';
import type { FetchResult, FetchSource, PoliteFetcher, RunContext } from '../fetch';

/**
 * Other fetches (OTH-1…3): geo services and streaming providers, through the one polite fetcher in
 * its `service` mode — the same identity as council fetches and never a per-source one (OTH-1), the
 * same shared slot store before every request and every redirect (OTH-2), no robots.txt (OTH-3), and
 * every other safeguard unchanged: SSRF guard on every hop, size and time limits, Retry-After, the
 * run's breaker (ERR-2) and retries (ERR-1).
 */

/**
 * OTH-2: the pace of other fetches is set by the code per service ("Den Takt der anderen Abrufe legt
 * der Code je Dienst fest"): one request per second and server, the RATE-1 floor — raised by any
 * council source on the same hostname (its pace, also when inactive).
 */
export const OTHER_FETCH_INTERVAL_SECONDS = REQUEST_INTERVAL_MIN_SECONDS;

/**
 * RATE-2 / OTH-2: the largest interval configured for any council source on a hostname, active or not
 * (`createHostIntervalIndex` of shared/fetch-runtime re-reads the Sources table at most every 5 minutes).
 */
export interface CouncilHostIntervals {
  refresh(): Promise<void>;
  /** ms; undefined when no council source is on `host`. */
  forHost(host: string): number | undefined;
}

export interface OtherFetchDeps {
  fetcher: PoliteFetcher;
  hostIntervals: CouncilHostIntervals;
}

export interface OtherFetchRequest {
  /** The geo or broadcast source the request is made for (logs, breaker). */
  sourceId: string;
  /** ERR-2 / ERR-3 bookkeeping of the source's run (`createRunContext`). */
  runContext?: RunContext;
  /** Body limit; default the `service` purpose's (`DEFAULT_MAX_BYTES.service`). */
  maxBytes?: number;
  /** Total wait for slots; default the fetcher's. */
  maxWaitMs?: number;
  /** Extra request headers (e.g. Accept); User-Agent and framing headers are refused (B-3). */
  headers?: Record<string, string>;
  /**
   * Attempts on network error, timeout or 5xx (ERR-1); default the `service` purpose's. A caller whose
   * rule allows one request per period (OTH-5: once a minute) passes 1 — its next period is the retry.
   */
  maxAttempts?: number;
}

export interface OtherFetch {
  fetch(url: string, request: OtherFetchRequest): Promise<FetchResult>;
}

/** The source as the fetcher sees it: an id and the code's pace — no User-Agent, no robots exception. */
function serviceSource(sourceId: string): FetchSource {
  return { sourceId, requestIntervalSeconds: OTHER_FETCH_INTERVAL_SECONDS };
}

export function createOtherFetch(deps: OtherFetchDeps): OtherFetch {
  return {
    async fetch(url, request) {
      // Before every fetch: a council interval changed on a shared host applies within 5 minutes. A
      // failing read fails the fetch — pacing on a guess is never the fallback.
      await deps.hostIntervals.refresh();
      return deps.fetcher.fetch(url, {
        purpose: 'service',
        source: serviceSource(request.sourceId),
        hostIntervalFor: (host) => deps.hostIntervals.forHost(host),
        ...(request.runContext ? { runContext: request.runContext } : {}),
        ...(request.maxBytes === undefined ? {} : { maxBytes: request.maxBytes }),
        ...(request.maxWaitMs === undefined ? {} : { maxWaitMs: request.maxWaitMs }),
        ...(request.headers ? { headers: request.headers } : {}),
        ...(request.maxAttempts === undefined ? {} : { maxAttempts: request.maxAttempts }),
      });
    },
  };
}
