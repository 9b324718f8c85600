import { describe, expect, it } from 'vitest';
import type { FetchEvent } from '../../shared/fetch';
import {
  ALARMED_METRICS,
  METRIC_LOG_FIELD,
  METRIC_NAMESPACE,
  METRICS,
  PAUSED_TOO_LONG_HOURS,
} from '../../shared/observability/constants';
import { formatEmf, MetricsBuffer } from '../../shared/observability/metrics';
import { pauseMetrics, putPauseMetrics } from '../../shared/observability/planner-metrics';
import {
  logRequestEvent,
  recordSyncReport,
  requestLogLevel,
  requestOutcome,
} from '../../shared/observability/request-log';

const event = (extra: Partial<FetchEvent>): FetchEvent => ({
  kind: 'request',
  sourceId: 'src',
  host: 'ris.example.de',
  url: 'https://ris.example.de/oparl/system',
  purpose: 'api',
  method: 'GET',
  attempt: 1,
  hop: 0,
  durationMs: 12,
  ...extra,
});

function recorder() {
  const lines: Record<string, unknown>[] = [];
  const logs: { message: string; fields: Record<string, unknown> }[] = [];
  const metrics = new MetricsBuffer({
    write: (line) => lines.push(JSON.parse(line)),
    now: () => 1_700_000_000_000,
  });
  return {
    lines,
    logs,
    targets: {
      metrics,
      log: (message: string, fields: Record<string, unknown>) => logs.push({ message, fields }),
    },
  };
}

describe('EMF metrics (no package: a log line CloudWatch turns into metrics)', () => {
  it('formats one directive with namespace, dimension set and metric values as top-level fields', () => {
    const line = JSON.parse(
      formatEmf({
        namespace: METRIC_NAMESPACE,
        timestampMs: 1_700_000_000_000,
        dimensions: { Outcome: '2xx' },
        metrics: [{ name: 'Requests', unit: 'Count', value: 3 }],
        properties: { sourceId: 'src' },
      }),
    );
    expect(line).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: 'MandariIngestor',
            Dimensions: [['Outcome']],
            Metrics: [{ Name: 'Requests', Unit: 'Count' }],
          },
        ],
      },
      Outcome: '2xx',
      Requests: 3,
      sourceId: 'src',
    });
  });

  it('sums counts per dimension set and writes one line per set on flush', () => {
    const { lines, targets } = recorder();
    targets.metrics.count('Requests', { Outcome: '2xx' });
    targets.metrics.count('Requests', { Outcome: '2xx' }, 2);
    targets.metrics.count('Requests', { Outcome: '404' });
    expect(lines).toEqual([]);
    targets.metrics.flush();
    expect(lines.map((l) => [l.Outcome, l.Requests])).toEqual([
      ['2xx', 3],
      ['404', 1],
    ]);
    targets.metrics.flush();
    expect(lines).toHaveLength(2);
  });
});

describe('issue 28: only alarmed metrics are custom metrics (EMF); the rest are plain log lines', () => {
  it('writes an alarmed metric as EMF and a dashboard-only one of the same set as a log line without _aws', () => {
    const { lines, targets } = recorder();
    targets.metrics.gauge(METRICS.longestPauseHours, {}, 30);
    targets.metrics.gauge(METRICS.pausedSources, {}, 4, 'Count');
    targets.metrics.count(METRICS.requests, { Outcome: '2xx' }, 5);
    targets.metrics.flush();
    const emf = lines.filter((l) => l._aws !== undefined);
    const logged = lines.filter((l) => l._aws === undefined);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({ [METRICS.longestPauseHours]: 30 });
    expect(emf[0]).not.toHaveProperty(METRICS.pausedSources);
    expect(logged).toEqual([
      { [METRIC_LOG_FIELD]: METRIC_NAMESPACE, Timestamp: 1_700_000_000_000, [METRICS.pausedSources]: 4 },
      { [METRIC_LOG_FIELD]: METRIC_NAMESPACE, Timestamp: 1_700_000_000_000, Outcome: '2xx', Requests: 5 },
    ]);
  });

  it('metric-hours: the longest pause is a datapoint only above the alarm’s day, a log line below it', () => {
    // SourcePausedTooLong reads the hourly Maximum > 24 and treats no data as not breaching: a value of
    // 24 or less can never breach, and CloudWatch bills the series only for hours with data.
    const at = (hours: number) => {
      const { lines, targets } = recorder();
      putPauseMetrics(
        { paused: 1, byKind: { 'failure-streak': 1 }, longestPauseHours: hours, sources: [] },
        targets.metrics,
      );
      targets.metrics.flush();
      return {
        emf: lines.filter((l) => l._aws !== undefined),
        logged: lines.filter((l) => l._aws === undefined && l[METRICS.longestPauseHours] !== undefined),
      };
    };
    // 24.004 h is written rounded to 24 (not > 24): before, a datapoint that never breached.
    for (const hours of [0, 2.5, PAUSED_TOO_LONG_HOURS, 24.004]) {
      const { emf, logged } = at(hours);
      expect(emf, `${hours} h`).toEqual([]);
      expect(logged, `${hours} h`).toEqual([
        expect.objectContaining({ [METRIC_LOG_FIELD]: METRIC_NAMESPACE, [METRICS.pausedSources]: 1 }),
      ]);
    }
    for (const hours of [24.01, 30, 400]) {
      const { emf } = at(hours);
      expect(emf, `${hours} h`).toEqual([
        expect.objectContaining({ [METRICS.longestPauseHours]: hours, [METRIC_LOG_FIELD]: METRIC_NAMESPACE }),
      ]);
      expect(emf[0]?._aws).toMatchObject({
        CloudWatchMetrics: [{ Metrics: [{ Name: METRICS.longestPauseHours }] }],
      });
    }
  });

  it('the alarmed set is a subset of the metric names (a renamed metric cannot linger in it)', () => {
    const names = new Set<string>(Object.values(METRICS));
    for (const name of ALARMED_METRICS) expect(names.has(name)).toBe(true);
    expect(ALARMED_METRICS.size).toBeLessThan(names.size);
  });
});

describe('request log and metrics: source, host, outcome — never headers or bodies', () => {
  it.each([
    [{ status: 200 }, '2xx'],
    [{ status: 304 }, '304'],
    [{ status: 403 }, '403'],
    [{ status: 418 }, '4xx'],
    [{ status: 503 }, '503'],
    [{ errorCode: 'TIMEOUT' }, 'timeout'],
    [{ errorCode: 'NETWORK' }, 'network'],
    [{ kind: 'refused' as const, errorCode: 'ROBOTS_DISALLOWED' }, 'robots-disallowed'],
    [{ kind: 'refused' as const, errorCode: 'ROBOTS_UNREACHABLE' }, 'robots-deferred'],
    [{ kind: 'refused' as const, errorCode: 'HOST_SLOT_TIMEOUT' }, 'slot-timeout'],
  ])('%o → %s', (extra, outcome) => {
    expect(requestOutcome(event(extra))).toBe(outcome);
  });

  it('ROB-5/6/7: robots.txt fetches are counted by the shared policy; refusals as verdicts', () => {
    const { lines, logs, targets } = recorder();
    logRequestEvent(
      event({ purpose: 'robots', url: 'https://ris.example.de/robots.txt', status: 404 }),
      targets,
    );
    logRequestEvent(event({ purpose: 'robots', status: 503 }), targets);
    logRequestEvent(event({ kind: 'refused', errorCode: 'ROBOTS_DISALLOWED' }), targets);
    targets.metrics.flush();
    const values = lines.map((l) => ({ ...l, _aws: undefined }));
    expect(values).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Result: 'absent', [METRICS.robotsFetches]: 1 }),
        expect.objectContaining({ Result: 'unreachable', [METRICS.robotsFetches]: 1 }),
        expect.objectContaining({ Verdict: 'disallowed', [METRICS.robotsVerdicts]: 1 }),
      ]),
    );
    expect(logs[0]).toEqual({
      message: 'request',
      fields: expect.objectContaining({
        sourceId: 'src',
        host: 'ris.example.de',
        outcome: '404',
        status: 404,
      }),
    });
    expect(Object.keys(logs[0]?.fields ?? {})).not.toContain('headers');
  });

  it('syncs are counted by kind and outcome', () => {
    const { lines, targets } = recorder();
    const base = { requests: 3, changed: false, complete: true, continued: false, failures: [] as string[] };
    recordSyncReport('a', { ...base, kind: 'incremental' }, targets);
    recordSyncReport('b', { ...base, kind: 'full', continued: true, complete: false }, targets);
    recordSyncReport(
      'c',
      { ...base, kind: 'incremental', complete: false, failures: ['5xx-series'] },
      targets,
    );
    targets.metrics.flush();
    expect(lines.map((l) => [l.Kind, l.Outcome, l.SyncRuns])).toEqual([
      ['incremental', 'ok', 1],
      ['full', 'continued', 1],
      ['incremental', 'failed', 1],
    ]);
  });
});

describe('pause metrics (ERR-4, ERR-5) for the "paused for more than a day" alarm', () => {
  const now = new Date('2026-10-16T12:00:00Z');
  const pause = (untilIso: string, minutes: number, kind = 'robots-forbids-all') => ({
    until: untilIso,
    minutes,
    kind: kind as 'robots-forbids-all',
    because: 'x',
    ruleIds: [],
  });

  it('counts active paused sources and the longest time without success', () => {
    const result = pauseMetrics(
      [
        // ROB-8 / ERR-5: a second 24 h pause in a row; last success two days ago.
        {
          sourceId: 'a',
          active: true,
          schedule: { pause: pause('2026-10-17T06:00:00Z', 1440), lastSuccessAt: '2026-10-14T12:00:00Z' },
        },
        { sourceId: 'b', active: true, schedule: { pause: pause('2026-10-16T12:30:00Z', 30, '5xx-series') } },
        // Inactive (ERR-7) and ended pauses do not count.
        { sourceId: 'c', active: false, schedule: { pause: pause('2026-10-17T00:00:00Z', 1440) } },
        {
          sourceId: 'd',
          active: true,
          schedule: { pause: pause('2026-10-16T11:00:00Z', 10, 'failure-streak') },
        },
      ],
      now,
    );
    expect(result.paused).toBe(2);
    expect(result.byKind).toEqual({ 'robots-forbids-all': 1, '5xx-series': 1 });
    expect(result.longestPauseHours).toBe(48);
    const { lines, targets } = recorder();
    putPauseMetrics(result, targets.metrics);
    targets.metrics.flush();
    // The alarm's gauge as EMF (a custom metric), the dashboard's count as a log line of the same set.
    expect(lines[0]).toMatchObject({ [METRICS.longestPauseHours]: 48 });
    expect(lines[0]?._aws).toBeDefined();
    expect(lines[1]).toMatchObject({ [METRICS.pausedSources]: 2 });
    expect(lines[1]?._aws).toBeUndefined();
  });
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
