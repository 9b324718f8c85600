import { describe, expect, it } from 'vitest';
import { type HostRun, SimHost } from '../../bench/fleet/host';
import { seededRandom } from '../../bench/fleet/model';

/** A run of `requests` sequential requests, ready at `at`, each answering after `latencyMs`. */
function run(at: number, requests: number, latencyMs: number | ((i: number) => number)): HostRun {
  return {
    readyAt: at,
    requestsLeft: requests,
    sent: 0,
    waitMs: 0,
    latencyOf: typeof latencyMs === 'number' ? () => latencyMs : latencyMs,
  };
}

describe('fleet bench: simulated host (RATE-1, RATE-4)', () => {
  it('serves one fast run at the pace: a request per interval, no wait after the first', () => {
    const sends: number[] = [];
    const host = new SimHost(1000, (t) => sends.push(t));
    const r = run(0, 4, 300);
    host.add(r);
    const done = host.advance(10_000);
    expect(sends).toEqual([0, 1000, 2000, 3000]);
    expect(done).toEqual([r]);
    expect(r.endAt).toBe(3300);
    // The run was ready at 300, 1300, 2300 and sent at the next free moment: 3 × 700 ms waited —
    // its own pace, nobody else's (no queue wait).
    expect(r.waitMs).toBe(2100);
    expect(r.queuedMs ?? 0).toBe(0);
  });

  it('a slow server: two runs share the pace, never more than two requests open (RATE-4)', () => {
    const sends: number[] = [];
    const host = new SimHost(1000, (t) => sends.push(t));
    // Three runs at once against a server answering in 3 s: the third waits for a place.
    const runs3 = [run(0, 5, 3000), run(0, 5, 3000), run(0, 5, 3000)];
    for (const r of runs3) host.add(r);
    host.advance(100_000);
    expect(host.figures.maxInFlight).toBe(2);
    expect(host.figures.spacingViolations).toBe(0);
    expect(host.figures.requests).toBe(15);
    expect(sends.slice(0, 4)).toEqual([0, 1000, 3000, 4000]);
    // The third run's first request waited 3 s for a place and for the others' slots.
    expect(runs3[2]?.queuedMs).toBeGreaterThanOrEqual(3000);
  });

  it('random runs and latencies: spacing ≥ the interval and ≤ 2 in flight, checked apart from the rule', () => {
    const random = seededRandom(3);
    for (let round = 0; round < 50; round += 1) {
      const interval = random() < 0.5 ? 1000 : 2000;
      const sends: number[] = [];
      const host = new SimHost(interval, (t) => sends.push(t));
      const runs = Array.from({ length: 1 + Math.floor(random() * 5) }, () =>
        run(Math.floor(random() * 5000), 1 + Math.floor(random() * 20), () => 100 + random() * 4000),
      );
      for (const r of runs) host.add(r);
      // Served in steps, as the simulation does at each tick.
      for (let t = 0; t <= 400_000; t += 60_000) host.advance(t);
      expect(host.figures.spacingViolations).toBe(0);
      expect(host.figures.maxInFlight).toBeLessThanOrEqual(2);
      for (let i = 1; i < sends.length; i += 1) {
        expect((sends[i] as number) - (sends[i - 1] as number)).toBeGreaterThanOrEqual(interval - 0.001);
      }
      expect(host.figures.requests).toBe(runs.reduce((sum, r) => sum + r.sent, 0));
      for (const r of runs) expect(r.requestsLeft).toBe(0);
    }
  });
});
