import { describe, expect, it } from 'vitest';
import { hostModelsOf } from '../../shared/hosts';
import {
  DIMENSIONS,
  METRIC_LOG_FIELD,
  METRIC_NAMESPACE,
  METRICS,
  MetricsBuffer,
  putHostMetrics,
  putStarvationMetrics,
} from '../../shared/observability';

/**
 * RATE-9: the planner's host gauges — metric log lines the dashboard reads (saturation is lawful, no alarm
 * reads it) — and the starvation gauge, a custom-metric datapoint only while a source starves.
 */
describe('host metrics (RATE-9)', () => {
  function lines(hosts: Parameters<typeof putHostMetrics>[0]) {
    const out: Record<string, unknown>[] = [];
    const buffer = new MetricsBuffer({ write: (l) => out.push(JSON.parse(l)), now: () => 0 });
    const saturated = putHostMetrics(hosts, buffer);
    buffer.flush();
    return { out, saturated };
  }

  it('SaturatedHosts every tick (0 included) and per saturated host its stretch and utilisation', () => {
    const models = hostModelsOf([
      ...Array.from({ length: 30 }, (_, i) => ({
        sourceId: `h${i}`,
        host: 'ris.hosting.example',
        requestIntervalSeconds: 3,
        intervalMinutes: 10,
        expectedIncrementalRequests: 16,
      })),
      {
        sourceId: 'solo',
        host: 'ris.solo.example',
        requestIntervalSeconds: 1,
        intervalMinutes: 10,
        expectedIncrementalRequests: 16,
      },
    ]);
    const input = [...models.values()].map((m) => ({
      host: m.host,
      saturated: m.utilisation >= 1,
      stretch: m.stretch,
      utilisation: m.utilisation,
    }));
    const { out, saturated } = lines(input);
    expect(saturated).toBe(1);
    expect(out).toContainEqual(expect.objectContaining({ [METRICS.saturatedHosts]: 1 }));
    const host = out.find((l) => l[DIMENSIONS.host] === 'ris.hosting.example');
    // 30 × 16 requests / 600 s = 0.8 requests/s of 1/3: × 2.4.
    expect(host).toMatchObject({ [METRICS.hostStretch]: 2.4, [METRICS.hostUtilisation]: 2.4 });
    expect(out.some((l) => l[DIMENSIONS.host] === 'ris.solo.example')).toBe(false);

    expect(lines([]).out).toEqual([expect.objectContaining({ [METRICS.saturatedHosts]: 0 })]);
  });

  it('a saturated host is a log line, not a billed datapoint (no alarm reads SaturatedHosts any more)', () => {
    const { out } = lines([{ host: 'ris.hosting.example', saturated: true, stretch: 5.3, utilisation: 5.3 }]);
    expect(out.filter((l) => l._aws !== undefined)).toEqual([]);
    expect(out).toContainEqual(
      expect.objectContaining({ [METRIC_LOG_FIELD]: METRIC_NAMESPACE, [METRICS.saturatedHosts]: 1 }),
    );
  });

  it('StarvedSources: a datapoint only while a source starves; the longest overdue always on the log line', () => {
    const emitted = (starved: number, longestOverdueMinutes: number) => {
      const out: Record<string, unknown>[] = [];
      const buffer = new MetricsBuffer({ write: (l) => out.push(JSON.parse(l)), now: () => 0 });
      expect(
        putStarvationMetrics({ starved: Array.from({ length: starved }), longestOverdueMinutes }, buffer),
      ).toBe(starved);
      buffer.flush();
      return out;
    };
    expect(emitted(0, 12.345)).toEqual([
      {
        [METRIC_LOG_FIELD]: METRIC_NAMESPACE,
        Timestamp: 0,
        [METRICS.starvedSources]: 0,
        [METRICS.longestOverdueMinutes]: 12.35,
      },
    ]);
    const starving = emitted(2, 94.8);
    const emf = starving.filter((l) => l._aws !== undefined);
    expect(emf).toEqual([expect.objectContaining({ [METRICS.starvedSources]: 2 })]);
    expect(emf[0]?._aws).toMatchObject({
      CloudWatchMetrics: [{ Metrics: [{ Name: METRICS.starvedSources }] }],
    });
    expect(starving).toContainEqual(expect.objectContaining({ [METRICS.longestOverdueMinutes]: 94.8 }));
  });
});
