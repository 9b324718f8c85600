import type { SourceConfig } from '../config';
import { classifyFetchFailure, type FetchFailureCode } from '../engine';
import {
  fetchSourceOf,
  HttpStatusError,
  MAX_ATTEMPTS_BY_PURPOSE,
  type PoliteFetcher,
  type RunContext,
} from '../fetch';
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

export function scraperPageFetcher(options: ScraperFetchOptions): ScraperPageFetcher {
  const { fetcher, runContext } = options;
  const source = fetchSourceOf(options.source);
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
  const message = err instanceof Error ? err.message : String(err);
  const failure = (failure: FetchFailureCode, requests: number, status?: number): PageOutcome => ({
    kind: 'failure',
    url,
    failure,
    message,
    requests,
    ...(status !== undefined ? { status } : {}),
  });
  if (err instanceof HttpStatusError && GATE_STATUSES.has(err.status) && err.bodySnippet) {
    const gate = detectGatePage({ status: err.status, url, html: err.bodySnippet });
    if (gate) return { kind: 'gate', url, finalUrl: err.url, status: err.status, gate, requests: 1 };
  }
  const f = classifyFetchFailure(url, err, runContext, MAX_SCRAPER_ATTEMPTS);
  // A programming error (invalid options …) is a crash of the run, not a page outcome.
  if (f === undefined) throw err;
  return failure(f.failure, f.requests, f.status);
}
