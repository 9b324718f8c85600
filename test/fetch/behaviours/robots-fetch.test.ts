import { describe, expect, it } from 'vitest';
import {
  CircuitOpenError,
  HostSlotTimeoutError,
  MAX_REDIRECTS,
  NetworkError,
  RunDeadlineError,
  TooManyRedirectsError,
} from '../../../shared/fetch';
import { robotsAnswer, robotsFailure } from '../../../shared/fetch/robots-fetch';
import { AddressNotPublicError } from '../../../shared/net';

/** How a robots.txt answer or failure reaches the gate and the run's breaker (ROB-5/6/7). */

const now = Date.UTC(2026, 11, 1, 4, 0, 0);
const robotsUrl = new URL('https://ris.test/robots.txt');
const answer = (status: number, headers: Record<string, string> = {}) => ({
  status,
  body: Buffer.from('User-agent: *\nDisallow:\n'),
  etag: '"r1"',
  lastModified: undefined,
  headers,
});

describe('robots.txt answers (ROB-5/6/7)', () => {
  it('ROB-5: a 2xx carries its body and validators to the gate and is an answer for the breaker', () => {
    const { outcome, attempt } = robotsAnswer(answer(200), now);
    expect(outcome).toMatchObject({ kind: 'response', status: 200, etag: '"r1"' });
    expect(outcome.kind === 'response' && outcome.body?.toString()).toContain('User-agent');
    expect(attempt).toEqual({ kind: 'answer' });
  });

  it('ROB-6: any other 4xx is "absent" — an answer, no failure, no body', () => {
    for (const status of [401, 403, 404, 410]) {
      const { outcome, attempt } = robotsAnswer(answer(status), now);
      expect(attempt).toEqual({ kind: 'answer' });
      expect(outcome.kind === 'response' && outcome.body).toBeUndefined();
    }
  });

  it('ROB-7: 408, 429 and 5xx are failures of the server; RATE-8 carries Retry-After on 429/503', () => {
    for (const status of [408, 429, 500, 503]) {
      expect(robotsAnswer(answer(status), now).attempt).toEqual({ kind: 'status', status });
    }
    expect(robotsAnswer(answer(503, { 'retry-after': '120' }), now).outcome).toMatchObject({
      retryAfterMs: 120_000,
    });
    expect(robotsAnswer(answer(500, { 'retry-after': '120' }), now).outcome).not.toHaveProperty(
      'retryAfterMs',
    );
  });
});

describe('robots.txt failures (ROB-7)', () => {
  it('ROB-7: too many redirects and no answer are outcomes for the gate (unreachable)', () => {
    const chain = Array.from({ length: MAX_REDIRECTS + 2 }, (_, i) => `https://ris.test/${i}`);
    expect(robotsFailure(new TooManyRedirectsError(robotsUrl.href, chain), robotsUrl)).toEqual({
      outcome: { kind: 'too-many-redirects', redirects: MAX_REDIRECTS + 1 },
      attempt: undefined,
    });
    const reset = robotsFailure(new NetworkError(robotsUrl.href, new Error('reset')), robotsUrl);
    expect(reset?.outcome.kind).toBe('network-error');
    expect(reset?.attempt).toEqual({ kind: 'network' });
  });

  it("no slot, an open breaker, the run's end and a host that is not public are the caller's, passed on", () => {
    for (const error of [
      new HostSlotTimeoutError(robotsUrl.href, 1_000),
      new CircuitOpenError(robotsUrl.href, now),
      new RunDeadlineError(robotsUrl.href, now),
      new AddressNotPublicError('ris.test', '10.0.0.1', 'private'),
    ]) {
      expect(robotsFailure(error, robotsUrl)).toBeUndefined();
    }
  });
});
