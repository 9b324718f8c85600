import { describe, expect, it } from 'vitest';
import { hostModelsOf } from '../../shared/hosts';
import { DIMENSIONS, METRICS, MetricsBuffer, putHostMetrics } from '../../shared/observability';

/** RATE-9: the planner's host gauges, as the EMF lines CloudWatch reads (the HostSaturated alarm). */
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
});
