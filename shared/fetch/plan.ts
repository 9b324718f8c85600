import {
  ACCEPT_BY_PURPOSE,
  ACCEPT_ENCODING,
  ALLOWED_PROTOCOLS,
  COMPARISON_USER_AGENT,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_WAIT_MS,
  FETCH_PURPOSES,
  type FetchPurpose,
  MAX_ATTEMPTS_BY_PURPOSE,
} from './constants';
import { FetchInputError } from './errors';
import type { RunContext } from './run-context';
import type { FetchOptions, FetchSource, RedirectHop } from './types';
import { isValidUserAgent } from './user-agent';

/**
 * The options of one fetch, checked at the boundary (STYLE: inside, values are trusted), and the
 * state a fetch carries from hop to hop and attempt to attempt.
 */

/** B-3: the client is never disguised — callers may not set these. */
const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'user-agent',
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'te',
  'upgrade',
  'keep-alive',
]);

/** Options after boundary checks. */
export interface Plan {
  purpose: FetchPurpose;
  source: FetchSource;
  method: 'GET' | 'HEAD';
  maxBytes: number;
  maxWaitMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxAttempts: number;
  hostIntervalMs: number;
  /** OTH-2: per hop's host, the interval of council sources there (undefined: none). */
  hostIntervalFor: ((host: string) => number | undefined) | undefined;
  extraHeaders: Record<string, string>;
  conditional: { etag?: string; lastModified?: string } | undefined;
  runContext: RunContext | undefined;
  /** The User-Agent header sent, or undefined for the ID-4 comparison (library default: none). */
  sentUserAgent: string | undefined;
  /** The agent whose robots.txt state is used (ID-3: the one the source's requests carry). */
  robotsAgent: string;
  /** Agents checked against robots.txt; all must allow. */
  checkAgents: string[];
  followRedirects: boolean;
  /** robots.txt and comparison requests report every status as a result, not as an error. */
  anyStatus: boolean;
  /** The comparison request is diagnosis: it feeds neither breaker nor series (ERR-2/3). */
  recordAttempts: boolean;
}

/** Where a fetch stands: the URL of the current hop, the hops behind it, the wait so far. */
export interface Progress {
  url: URL;
  hops: RedirectHop[];
  /**
   * Epoch ms (fetcher clock) after which waiting for slots/robots.txt ends with HOST_SLOT_TIMEOUT
   * (RUN_DEADLINE when it is the run's end).
   */
  deadline: number;
  waitMs: number;
}

/**
 * Checks `options` and fills in the purpose's defaults. `userAgent` is the agent the source's
 * requests carry (ID-3); `overrides` are the fetcher's own (robots.txt and comparison requests).
 */
export function planFor(
  url: string,
  options: FetchOptions,
  userAgent: string,
  overrides: Partial<Plan> = {},
): Plan {
  if (!options || !FETCH_PURPOSES.includes(options.purpose)) {
    throw new FetchInputError(url, `purpose must be one of ${FETCH_PURPOSES.join(', ')}`);
  }
  const { purpose, source } = options;
  if (!source || typeof source.sourceId !== 'string') {
    throw new FetchInputError(url, 'source with a sourceId is required');
  }
  const method = options.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') throw new FetchInputError(url, 'method must be GET or HEAD');
  const positive = (name: string, value: number | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    if (!Number.isFinite(value) || value < 0) throw new FetchInputError(url, `${name} must be a number ≥ 0`);
    return value;
  };
  const extraHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const lower = name.toLowerCase();
    // B-3: the client is never disguised; ID-2: API and robots.txt always send their Accept.
    if (FORBIDDEN_HEADERS.has(lower))
      throw new FetchInputError(url, `header ${name} may not be set by callers`);
    if (lower === 'accept' && (purpose === 'api' || purpose === 'robots')) continue;
    extraHeaders[lower] = value;
  }
  if (!isValidUserAgent(userAgent))
    throw new FetchInputError(url, 'the source User-Agent contains control characters');
  const comparison = purpose === 'comparison';
  return {
    purpose,
    source,
    method,
    maxBytes: positive('maxBytes', options.maxBytes, DEFAULT_MAX_BYTES[purpose]),
    maxWaitMs: positive('maxWaitMs', options.maxWaitMs, DEFAULT_MAX_WAIT_MS),
    headersTimeoutMs: positive('headersTimeoutMs', options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS),
    bodyTimeoutMs: positive('bodyTimeoutMs', options.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS[purpose]),
    maxAttempts: Math.max(
      1,
      Math.floor(positive('maxAttempts', options.maxAttempts, MAX_ATTEMPTS_BY_PURPOSE[purpose])),
    ),
    hostIntervalMs: positive('hostIntervalMs', options.hostIntervalMs, 0),
    hostIntervalFor: options.hostIntervalFor,
    extraHeaders,
    conditional: options.conditional,
    runContext: options.runContext,
    sentUserAgent: comparison ? COMPARISON_USER_AGENT : userAgent,
    robotsAgent: userAgent,
    // ID-4 sends no agent of ours, so the `*` rules must allow it too (plus mandari-ingestor, ROB-3).
    checkAgents: comparison ? [userAgent, '*'] : [userAgent],
    followRedirects: !comparison,
    anyStatus: comparison || purpose === 'robots',
    recordAttempts: !comparison,
    ...overrides,
  };
}

/** The first hop's URL: absolute, http(s), no credentials; the fragment is never sent. */
export function parseTarget(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FetchInputError(url, 'not an absolute URL');
  }
  if (!ALLOWED_PROTOCOLS.has(parsed.protocol))
    throw new FetchInputError(url, 'only http and https URLs are fetched');
  if (parsed.username !== '' || parsed.password !== '') {
    throw new FetchInputError(url, 'URLs with credentials are not fetched');
  }
  parsed.hash = '';
  return parsed;
}

/** ID-1/2, B-1: the headers of every hop. */
export function requestHeaders(plan: Plan): Record<string, string> {
  const headers: Record<string, string> = {
    accept: ACCEPT_BY_PURPOSE[plan.purpose],
    'accept-encoding': ACCEPT_ENCODING,
    ...plan.extraHeaders,
  };
  if (plan.sentUserAgent !== undefined) headers['user-agent'] = plan.sentUserAgent;
  if (plan.conditional?.etag) headers['if-none-match'] = plan.conditional.etag;
  if (plan.conditional?.lastModified) headers['if-modified-since'] = plan.conditional.lastModified;
  return headers;
}

/** When waiting for slots and robots.txt ends: the wait budget, and never past the run's end. */
export function waitDeadline(plan: Plan, nowMs: number): number {
  return Math.min(nowMs + plan.maxWaitMs, plan.runContext?.endsAtMs ?? Number.POSITIVE_INFINITY);
}
