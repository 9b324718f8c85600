import { RETRY_AFTER_STATUSES, RETRY_PAUSES_MS } from './constants';
import { FetchTimeoutError, HttpStatusError, NetworkError } from './errors';
import { parseRetryAfter } from './retry-after';
import type { AttemptOutcome } from './run-context';

/**
 * Repetition within a run (ERR-1) and the server's own word on when to come back (RATE-8, B-2), as
 * pure decisions; the fetcher sleeps, notes the floor in the slots and sends again.
 */

/** ERR-1: network errors, timeouts and 5xx are repeated within the run; nothing else. */
export function isRetryableInRun(error: unknown): boolean {
  if (error instanceof HttpStatusError) return error.status >= 500;
  if (error instanceof FetchTimeoutError) return true;
  return error instanceof NetworkError;
}

/** What an attempt's failure tells the run's breaker and series (ERR-2/3); undefined: nothing. */
export function attemptOutcomeOf(error: unknown): AttemptOutcome | undefined {
  if (error instanceof HttpStatusError) return { kind: 'status', status: error.status };
  if (error instanceof FetchTimeoutError) return { kind: 'timeout' };
  if (error instanceof NetworkError) return { kind: 'network' };
  return undefined;
}

/** ERR-1: the pause after attempt `attempt` (1-based) failed — 1 s, then 2 s (and 2 s after that). */
export function retryPauseMs(attempt: number): number {
  return RETRY_PAUSES_MS[Math.min(attempt - 1, RETRY_PAUSES_MS.length - 1)] ?? 0;
}

export type RetryDecision =
  /** Give up with the error. */
  | { kind: 'fail' }
  /** Worth another attempt, but the run ends before the pause does: the next invocation's (RUN_DEADLINE). */
  | { kind: 'run-ends'; runEndsAtMs: number }
  | { kind: 'retry'; pauseMs: number };

/**
 * After attempt `attempt` failed with `error`: another attempt within this run? Not past
 * `maxAttempts`, only for what ERR-1 repeats, never sooner than the server's Retry-After (RATE-8:
 * one longer than the pause leaves the fetch to a later run), and only when the run has time left.
 */
export function retryDecision(input: {
  error: unknown;
  attempt: number;
  maxAttempts: number;
  nowMs: number;
  runEndsAtMs: number | undefined;
}): RetryDecision {
  const { error, attempt } = input;
  const pauseMs = retryPauseMs(attempt);
  const retryAfterTooLong =
    error instanceof HttpStatusError && error.retryAfterMs !== undefined && error.retryAfterMs > pauseMs;
  if (attempt >= input.maxAttempts || !isRetryableInRun(error) || retryAfterTooLong) return { kind: 'fail' };
  if (input.runEndsAtMs !== undefined && input.nowMs + pauseMs >= input.runEndsAtMs) {
    return { kind: 'run-ends', runEndsAtMs: input.runEndsAtMs };
  }
  return { kind: 'retry', pauseMs };
}

/** RATE-8: the Retry-After of an answer, ms from `nowMs` — counted on 429/503 only. */
export function retryAfterOf(
  status: number,
  headers: Record<string, string>,
  nowMs: number,
): number | undefined {
  return RETRY_AFTER_STATUSES.has(status) ? parseRetryAfter(headers['retry-after'], nowMs) : undefined;
}
