import { describe, expect, it } from 'vitest';
import type { FetchEvent } from '../../shared/fetch';
import { MetricsBuffer } from '../../shared/observability/metrics';
import { logRequestEvent, requestLogLevel } from '../../shared/observability/request-log';

const event = (extra: Partial<FetchEvent>): FetchEvent => ({
  kind: 'request',
  sourceId: 'src',
  host: 'ris.example.de',
  url: 'https://ris.example.de/oparl/v1/body/1/paper?page=2',
  purpose: 'api',
  method: 'GET',
  attempt: 1,
  hop: 0,
  durationMs: 12,
  ...extra,
});

// Issue 18: CloudWatch Logs bills every ingested byte. A sync of hundreds of answered requests logs
// them at debug; the run's summary line ("sync message done") carries the counts at info. What an
// operator must see — refusals, errors, unusual statuses — stays at info, line by line.
describe('request log level (issue 18: log volume)', () => {
  it('answered requests (2xx, 304) are debug lines', () => {
    expect(requestLogLevel(event({ status: 200 }))).toBe('debug');
    expect(requestLogLevel(event({ status: 304 }))).toBe('debug');
  });

  it('refusals, errors and unusual statuses stay at info', () => {
    expect(requestLogLevel(event({ status: 503 }))).toBe('info');
    expect(requestLogLevel(event({ status: 404 }))).toBe('info');
    expect(requestLogLevel(event({ status: 301 }))).toBe('info');
    expect(requestLogLevel(event({ kind: 'refused', errorCode: 'ROBOTS_DISALLOWED' }))).toBe('info');
    expect(requestLogLevel(event({ errorCode: 'TIMEOUT' }))).toBe('info');
  });

  it('logRequestEvent hands the level to its target with the line', () => {
    const logs: { message: string; level: string | undefined }[] = [];
    const targets = {
      metrics: new MetricsBuffer({ write: () => {}, now: () => 0 }),
      log: (message: string, _fields: Record<string, unknown>, level?: string) =>
        logs.push({ message, level }),
    };
    logRequestEvent(event({ status: 200 }), targets);
    logRequestEvent(event({ status: 429 }), targets);
    expect(logs).toEqual([
      { message: 'request', level: 'debug' },
      { message: 'request', level: 'info' },
    ]);
  });
});
