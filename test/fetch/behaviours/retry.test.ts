import { describe, expect, it } from 'vitest';
import {
  FetchTimeoutError,
  HttpStatusError,
  isTransientStatus,
  NetworkError,
  RETRY_PAUSES_MS,
  RedirectInvalidError,
} from '../../../shared/fetch';
import { attemptOutcomeOf, retryAfterOf, retryDecision } from '../../../shared/fetch/retry';

/** Repetition within a run (ERR-1) and Retry-After (RATE-8), as pure decisions. */

const url = 'https://ris.test/oparl/v1/system';
const now = Date.UTC(2026, 11, 1, 4, 0, 0);
const base = { attempt: 1, maxAttempts: 3, nowMs: now, runEndsAtMs: undefined };

describe('retry decision (ERR-1, RATE-8)', () => {
  it('ERR-1: network errors, timeouts and 5xx are repeated after 1 s, then 2 s', () => {
    for (const error of [
      new NetworkError(url, new Error('reset')),
      new FetchTimeoutError(url, 'headers', 60_000),
    ]) {
      expect(retryDecision({ ...base, error })).toEqual({ kind: 'retry', pauseMs: RETRY_PAUSES_MS[0] });
    }
    const error = new HttpStatusError(url, 502);
    expect(retryDecision({ ...base, attempt: 2, error })).toEqual({
      kind: 'retry',
      pauseMs: RETRY_PAUSES_MS[1],
    });
  });

  it('ERR-1: nothing else is repeated (4xx, 408, 429, an unusable redirect), and not past maxAttempts', () => {
    for (const status of [403, 404, 408, 429]) {
      expect(retryDecision({ ...base, error: new HttpStatusError(url, status) })).toEqual({ kind: 'fail' });
    }
    expect(retryDecision({ ...base, error: new RedirectInvalidError(url, 'no Location') })).toEqual({
      kind: 'fail',
    });
    expect(retryDecision({ ...base, attempt: 3, error: new HttpStatusError(url, 500) })).toEqual({
      kind: 'fail',
    });
  });

  it('RATE-8: a Retry-After longer than the pause leaves the fetch to a later run; a shorter one does not', () => {
    const long = new HttpStatusError(url, 503, { retryAfterMs: 120_000 });
    expect(retryDecision({ ...base, error: long })).toEqual({ kind: 'fail' });
    const short = new HttpStatusError(url, 503, { retryAfterMs: 500 });
    expect(retryDecision({ ...base, error: short })).toEqual({ kind: 'retry', pauseMs: RETRY_PAUSES_MS[0] });
  });

  it("a retry the run has no time left for is the next invocation's (run-ends), not a pause past the end", () => {
    const error = new HttpStatusError(url, 500);
    const pause = RETRY_PAUSES_MS[0] ?? 0;
    expect(retryDecision({ ...base, error, runEndsAtMs: now + pause })).toEqual({
      kind: 'run-ends',
      runEndsAtMs: now + pause,
    });
    expect(retryDecision({ ...base, error, runEndsAtMs: now + pause + 1 })).toEqual({
      kind: 'retry',
      pauseMs: pause,
    });
  });
});

describe('Retry-After of an answer (RATE-8)', () => {
  it('counts on 429 and 503 only', () => {
    expect(retryAfterOf(429, { 'retry-after': '30' }, now)).toBe(30_000);
    expect(retryAfterOf(503, { 'retry-after': '5' }, now)).toBe(5_000);
    expect(retryAfterOf(500, { 'retry-after': '30' }, now)).toBeUndefined();
    expect(retryAfterOf(200, { 'retry-after': '30' }, now)).toBeUndefined();
    expect(retryAfterOf(429, {}, now)).toBeUndefined();
  });
});

describe('attempt outcomes for the breaker and the series (ERR-2/3)', () => {
  it('statuses, timeouts and network errors count; refusals and bad redirects do not', () => {
    expect(attemptOutcomeOf(new HttpStatusError(url, 503))).toEqual({ kind: 'status', status: 503 });
    expect(attemptOutcomeOf(new FetchTimeoutError(url, 'body', 1))).toEqual({ kind: 'timeout' });
    expect(attemptOutcomeOf(new NetworkError(url, new Error('x')))).toEqual({ kind: 'network' });
    expect(attemptOutcomeOf(new RedirectInvalidError(url, 'x'))).toBeUndefined();
  });
});

describe('transient statuses (one set: ERR-1 later, ROB-7, DOC-4)', () => {
  it('408, 429 and every 5xx are worth asking again later; other 4xx are not', () => {
    for (const status of [408, 429, 500, 502, 503, 599]) expect(isTransientStatus(status)).toBe(true);
    for (const status of [200, 304, 400, 403, 404, 410]) expect(isTransientStatus(status)).toBe(false);
    expect(new HttpStatusError(url, 408).retryable).toBe(true);
    expect(new HttpStatusError(url, 404).retryable).toBe(false);
  });
});
