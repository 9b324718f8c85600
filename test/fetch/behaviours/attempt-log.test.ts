import { describe, expect, it } from 'vitest';
import { createRunContext, type FetchEvent, HttpStatusError, SendLateError } from '../../../shared/fetch';
import { createAttemptLog } from '../../../shared/fetch/attempt-log';
import { planFor } from '../../../shared/fetch/plan';

/** What each attempt tells: one event (logs, metrics) and the run's record (ERR-2/3), a real RunContext. */

const UA = 'mandari-ingestor/1.0';
const source = { sourceId: 'src-1', requestIntervalSeconds: 1 };
const url = new URL('https://ris.test/oparl/v1/system');
const now = Date.UTC(2026, 11, 1, 4, 0, 0);
const sent = { url, attempt: 2, hop: 1, started: 0 };

function logWith(runContext = createRunContext('src-1')) {
  const events: FetchEvent[] = [];
  return { events, runContext, log: createAttemptLog((event) => events.push(event), { now: () => now }) };
}

describe('attempt log', () => {
  it('an answer is a request event with its status and one attempt in the run', () => {
    const { events, runContext, log } = logWith();
    log.answered(planFor(url.href, { purpose: 'api', source, runContext }, UA), sent, 503);
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'request',
        host: 'ris.test',
        attempt: 2,
        hop: 1,
        status: 503,
        sourceId: 'src-1',
      }),
    ]);
    expect(runContext.summary().hosts).toEqual([
      expect.objectContaining({ host: 'ris.test', requests: 1, failedAttempts: 1 }),
    ]);
  });

  it('ID-4: a comparison is logged but feeds neither breaker nor series', () => {
    const { events, runContext, log } = logWith();
    log.answered(planFor(url.href, { purpose: 'comparison', source, runContext }, UA), sent, 200);
    log.failed(
      planFor(url.href, { purpose: 'comparison', source, runContext }, UA),
      sent,
      new HttpStatusError(url.href, 500),
    );
    expect(events).toHaveLength(2);
    expect(runContext.summary().hosts).toEqual([]);
  });

  it('a request that never left (SEND_LATE) is a refusal and no attempt; a failing logger changes nothing', () => {
    const { events, runContext, log } = logWith();
    log.failed(
      planFor(url.href, { purpose: 'api', source, runContext }, UA),
      sent,
      new SendLateError(url.href),
    );
    expect(events).toEqual([expect.objectContaining({ kind: 'refused', errorCode: 'SEND_LATE' })]);
    expect(runContext.summary().hosts).toEqual([]);
    const throwing = createAttemptLog(
      () => {
        throw new Error('logger down');
      },
      { now: () => now },
    );
    expect(() =>
      throwing.answered(planFor(url.href, { purpose: 'api', source }, UA), sent, 200),
    ).not.toThrow();
  });
});
