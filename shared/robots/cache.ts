/**
 * What a robots.txt fetch outcome means (ROB-5, ROB-6, ROB-7) and the per-(hostname, agent) cache
 * entry it leads to. Pure: the fetcher performs the request, hands the outcome in, and stores the
 * returned entry. Time is always an argument.
 */
import {
  ROBOTS_CACHE_TTL_MS,
  ROBOTS_MAX_REDIRECTS,
  ROBOTS_RETRY_AFTER_CAP_MS,
  ROBOTS_UNREACHABLE_RETRY_MS,
} from './constants';
import { parseRobots } from './parse';
import type { EpochMs, EpochOrDate, ParsedRobots } from './types';

/** How a robots.txt fetch ended, as the fetcher reports it (after following ≤ 5 redirects). */
export type RobotsFetchOutcome =
  | {
      kind: 'response';
      status: number;
      /** Body of a 2xx answer; the fetcher may stop reading after 500 KiB (ROB-5). */
      body?: string | Uint8Array | null;
      etag?: string;
      lastModified?: string;
      /** RATE-8: `Retry-After` of a 429/503 answer, already converted to milliseconds. */
      retryAfterMs?: number;
    }
  | { kind: 'network-error'; message?: string }
  | { kind: 'too-many-redirects'; redirects?: number };

export type RobotsFetchAction = 'parse' | 'revalidated' | 'absent' | 'unreachable';

export interface RobotsFetchPolicyRow {
  /** An exact status (`'429'`), a status class (`'4xx'`), `'network-error'`, `'too-many-redirects'` or `'other'`. */
  outcome: string;
  action: RobotsFetchAction;
  rule: string;
  note: string;
}

/**
 * ROB-5/6/7 as data (also rendered on the generated rules page). Looked up by exact status first,
 * then by status class, then `other` — so 408 and 429 are unreachable although they are 4xx.
 */
export const ROBOTS_FETCH_POLICY: readonly RobotsFetchPolicyRow[] = [
  { outcome: '2xx', action: 'parse', rule: 'ROB-5', note: 'robots.txt found: at most 500 KiB are evaluated' },
  {
    outcome: '304',
    action: 'revalidated',
    rule: 'B-1',
    note: 'unchanged since the copy we hold (conditional request): that copy is fresh again',
  },
  { outcome: '408', action: 'unreachable', rule: 'ROB-7', note: 'request timeout: unreachable, not absent' },
  {
    outcome: '429',
    action: 'unreachable',
    rule: 'ROB-7',
    note: 'too many requests: unreachable, not absent',
  },
  {
    outcome: '4xx',
    action: 'absent',
    rule: 'ROB-6',
    note: 'any other 4xx (401, 403, 404, 406, 410 …): no robots.txt, everything allowed',
  },
  {
    outcome: '5xx',
    action: 'unreachable',
    rule: 'ROB-7',
    note: 'server error: a previous valid copy stays in force, else the fetch is deferred',
  },
  {
    outcome: 'network-error',
    action: 'unreachable',
    rule: 'ROB-7',
    note: 'no answer (DNS, connect, timeout)',
  },
  {
    outcome: 'too-many-redirects',
    action: 'unreachable',
    rule: 'ROB-7',
    note: `more than ${ROBOTS_MAX_REDIRECTS} redirects`,
  },
  {
    outcome: 'other',
    action: 'unreachable',
    rule: 'ROB-7',
    note: 'any other answer (1xx, an unfollowed 3xx): no rules to read, and unreachable never means allowed',
  },
];

function policyRow(outcome: string): RobotsFetchPolicyRow | undefined {
  return ROBOTS_FETCH_POLICY.find((row) => row.outcome === outcome);
}

/** The policy row that applies to a fetch outcome (exact status, status class, then `other`). */
export function robotsFetchPolicy(outcome: RobotsFetchOutcome): RobotsFetchPolicyRow {
  const candidates =
    outcome.kind === 'response'
      ? [String(outcome.status), `${Math.floor(outcome.status / 100)}xx`, 'other']
      : [outcome.kind, 'other'];
  for (const candidate of candidates) {
    const row = policyRow(candidate);
    if (row) return row;
  }
  // 'other' is always in the table; this keeps the type checker and a future editor honest.
  throw new Error('ROBOTS_FETCH_POLICY has no "other" row');
}

/** A robots.txt we could read (2xx). */
export interface RobotsRulesEntry {
  kind: 'rules';
  robots: ParsedRobots;
  fetchedAt: EpochMs;
  status: number;
  /** Validators for the next conditional request (B-1). */
  etag?: string;
  lastModified?: string;
}

/** ROB-6: the server answered 4xx — there is no robots.txt, everything is allowed. */
export interface RobotsAbsentEntry {
  kind: 'absent';
  fetchedAt: EpochMs;
  status: number;
}

/** ROB-7: robots.txt could not be read. */
export interface RobotsUnreachableEntry {
  kind: 'unreachable';
  /** First failed attempt of the current run of failures. */
  since: EpochMs;
  /** Not retried before this (≥ 15 min after the last attempt). */
  retryAt: EpochMs;
  /** Failed attempts in a row. */
  attempts: number;
  /** What went wrong, e.g. `HTTP 503`, `network error: ECONNRESET`. */
  cause: string;
  /** The previous valid copy, which stays in force until a fetch succeeds again. */
  lastGood?: RobotsRulesEntry;
}

/** Cache state per (hostname, agent) (ROB-5). Plain data: store and reload it as it is. */
export type RobotsCacheEntry = RobotsRulesEntry | RobotsAbsentEntry | RobotsUnreachableEntry;

export function toEpochMs(instant: EpochOrDate): EpochMs {
  return typeof instant === 'number' ? instant : instant.getTime();
}

function describeFailure(outcome: RobotsFetchOutcome): string {
  switch (outcome.kind) {
    case 'response':
      return `HTTP ${outcome.status}`;
    case 'network-error':
      return outcome.message ? `network error: ${outcome.message}` : 'network error';
    case 'too-many-redirects':
      return `more than ${ROBOTS_MAX_REDIRECTS} redirects`;
  }
}

function lastGoodOf(previous: RobotsCacheEntry | null | undefined): RobotsRulesEntry | undefined {
  if (!previous) return undefined;
  if (previous.kind === 'rules') return previous;
  if (previous.kind === 'unreachable') return previous.lastGood;
  // An earlier 4xx is no copy of rules: after it, an unreachable robots.txt defers (the careful side).
  return undefined;
}

function unreachableEntry(
  previous: RobotsCacheEntry | null | undefined,
  cause: string,
  nowMs: EpochMs,
  retryAfterMs: number | undefined,
): RobotsUnreachableEntry {
  const waitMs = Math.max(
    ROBOTS_UNREACHABLE_RETRY_MS,
    Math.min(retryAfterMs !== undefined && retryAfterMs > 0 ? retryAfterMs : 0, ROBOTS_RETRY_AFTER_CAP_MS),
  );
  const lastGood = lastGoodOf(previous);
  const entry: RobotsUnreachableEntry = {
    kind: 'unreachable',
    since: previous?.kind === 'unreachable' ? previous.since : nowMs,
    retryAt: nowMs + waitMs,
    attempts: previous?.kind === 'unreachable' ? previous.attempts + 1 : 1,
    cause,
  };
  if (lastGood) entry.lastGood = lastGood;
  return entry;
}

/**
 * The cache entry after a robots.txt fetch (ROB-5/6/7):
 * - 2xx: the body is parsed and replaces whatever we had;
 * - 304: the copy we hold (also a last good copy behind an unreachable state) is fresh again;
 * - 4xx other than 408/429: absent, everything allowed;
 * - unreachable: the last valid copy is carried along and stays in force; retry ≥ 15 min later
 *   (later if the answer carried `Retry-After`, RATE-8).
 */
export function nextCacheEntry(
  previous: RobotsCacheEntry | null | undefined,
  outcome: RobotsFetchOutcome,
  now: EpochOrDate,
): RobotsCacheEntry {
  const nowMs = toEpochMs(now);
  const { action } = robotsFetchPolicy(outcome);
  const response = outcome.kind === 'response' ? outcome : undefined;
  switch (action) {
    case 'parse': {
      const entry: RobotsRulesEntry = {
        kind: 'rules',
        robots: parseRobots(response?.body ?? ''),
        fetchedAt: nowMs,
        status: response?.status ?? 200,
      };
      if (response?.etag) entry.etag = response.etag;
      if (response?.lastModified) entry.lastModified = response.lastModified;
      return entry;
    }
    case 'revalidated': {
      const copy = lastGoodOf(previous);
      if (!copy) return unreachableEntry(previous, 'HTTP 304 without a copy to revalidate', nowMs, undefined);
      const entry: RobotsRulesEntry = { ...copy, fetchedAt: nowMs };
      if (response?.etag) entry.etag = response.etag;
      if (response?.lastModified) entry.lastModified = response.lastModified;
      return entry;
    }
    case 'absent':
      return { kind: 'absent', fetchedAt: nowMs, status: response?.status ?? 404 };
    case 'unreachable':
      return unreachableEntry(previous, describeFailure(outcome), nowMs, response?.retryAfterMs);
  }
}

/** When robots.txt should be fetched again: 24 h after a fetch (ROB-5), or at `retryAt` (ROB-7). */
export function nextRobotsFetchAt(entry: RobotsCacheEntry): EpochMs {
  return entry.kind === 'unreachable' ? entry.retryAt : entry.fetchedAt + ROBOTS_CACHE_TTL_MS;
}

/**
 * Whether the entry may be used without fetching robots.txt again: a fetched copy or absence for
 * 24 h (ROB-5), an unreachable state until its retry time (ROB-7: not retried earlier).
 */
export function isFresh(entry: RobotsCacheEntry, now: EpochOrDate): boolean {
  return toEpochMs(now) < nextRobotsFetchAt(entry);
}

/** Headers for a conditional refresh of the copy we hold (B-1), empty when we hold none. */
export function revalidationHeaders(entry: RobotsCacheEntry | null | undefined): Record<string, string> {
  const copy = lastGoodOf(entry);
  const headers: Record<string, string> = {};
  if (copy?.etag) headers['If-None-Match'] = copy.etag;
  if (copy?.lastModified) headers['If-Modified-Since'] = copy.lastModified;
  return headers;
}
