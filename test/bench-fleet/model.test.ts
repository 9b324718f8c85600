import { describe, expect, it } from 'vitest';
import {
  buildFleet,
  changeInstants,
  hostIntervalMs,
  hostingSizesFor,
  LATENCY_SECONDS,
  latencyMs,
  runPlanOf,
  seededRandom,
  triangular,
} from '../../bench/fleet/model';

describe('fleet bench: world model (shaped like the OParl endpoint list)', () => {
  it('puts a third of the sources on hosting hosts of 20–200 councils, the rest one to a host', () => {
    for (const count of [1000, 10_000]) {
      const fleet = buildFleet(count, 27);
      expect(fleet.sources).toHaveLength(count);
      const hosting = fleet.hosts.filter((h) => h.hosting);
      const hosted = hosting.reduce((sum, h) => sum + h.sourceIndexes.length, 0);
      expect(hosted / count).toBeCloseTo(42 / 128, 2);
      for (const h of hosting) {
        expect(h.sourceIndexes.length).toBeGreaterThanOrEqual(20);
        expect(h.sourceIndexes.length).toBeLessThanOrEqual(200);
      }
      for (const h of fleet.hosts.filter((x) => !x.hosting)) expect(h.sourceIndexes).toHaveLength(1);
      const scraped = fleet.sources.filter((s) => s.kind === 'scraped').length;
      expect(scraped / count).toBeCloseTo(0.4, 2);
    }
    // 1,000 sources: two hosting hosts, like 26 + 16 of 128 scaled.
    expect(hostingSizesFor(328)).toEqual([200, 128]);
  });

  it('a host paces at the largest interval of its sources and its Crawl-delay (RATE-1/2/3, ROB-10)', () => {
    const fleet = buildFleet(1000, 27);
    const scrapedHost = fleet.hosts.find((h) => h.kind === 'scraped' && h.crawlDelayMs === 0);
    const slowHost = fleet.hosts.find((h) => h.crawlDelayMs === 10_000);
    expect(scrapedHost && hostIntervalMs(scrapedHost, fleet)).toBe(2000);
    expect(slowHost && hostIntervalMs(slowHost, fleet)).toBe(10_000);
  });

  it('draws latencies within the stated triangles, with the stated mean', () => {
    const random = seededRandom(1);
    expect(triangular(0, 1, 1.6, 3)).toBe(1);
    expect(triangular(0.999999, 1, 1.6, 3)).toBeCloseTo(3, 2);
    const draws = Array.from({ length: 20_000 }, () => latencyMs('large', random));
    const l = LATENCY_SECONDS.large;
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(l.min * 1000);
    expect(Math.max(...draws)).toBeLessThanOrEqual(l.max * 1000);
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(mean / 1000).toBeCloseTo((l.min + l.mode + l.max) / 3, 1);
  });

  it('counts a run’s requests per kind: incremental, incremental with a change, full', () => {
    const fleet = buildFleet(1000, 27);
    const oparl = fleet.sources.find((s) => s.kind === 'oparl');
    const scraped = fleet.sources.find((s) => s.kind === 'scraped');
    if (!oparl || !scraped) throw new Error('fleet without both kinds');
    expect(runPlanOf(oparl, 'incremental', false).requests).toBe(16);
    const changed = runPlanOf(oparl, 'incremental', true);
    expect(changed.requests).toBe(18);
    expect([changed.pageOf(0), changed.pageOf(17)]).toEqual(['small', 'large']);
    expect(runPlanOf(oparl, 'full', false).requests).toBe(oparl.fullRequests);
    expect(oparl.fullRequests).toBeGreaterThanOrEqual(112);
    expect(runPlanOf(scraped, 'incremental', true)).toMatchObject({ requests: 11 });
  });

  it('changes fall only inside the given windows', () => {
    const windows: [number, number][] = [
      [1000, 2000],
      [5000, 6000],
    ];
    const at = changeInstants(windows, 50, seededRandom(2));
    expect(at.length).toBeGreaterThan(50);
    for (const t of at) expect((t >= 1000 && t < 2000) || (t >= 5000 && t < 6000)).toBe(true);
  });
});
