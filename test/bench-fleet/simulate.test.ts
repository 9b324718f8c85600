import { describe, expect, it } from 'vitest';
import { simulateFleet } from '../../bench/fleet/simulate';
import { expectSameFiguresAsRecorded } from './golden';

/**
 * The fleet bench's simulation on a small world: a Monday morning of 80 sources (one hosting host of 26
 * councils, 54 lone hosts) and 4 sync slots (SCH-5). Today's allocation hands the slots to the shared
 * host's runs, which queue at its pace (RATE-1) while lone hosts' runs wait: the bench must see that
 * (issue 27, RATE-9). Whatever the allocation, the simulated hosts keep RATE-1 and RATE-4.
 */
describe('fleet bench: simulated week (RATE-9, SCH-5, RATE-1, RATE-4)', () => {
  const world = { sources: 80, slots: 4, days: 0.25, warmupHours: 1, weekStart: '2026-11-30T07:00' } as const;

  it("today's allocation starves runs on free hosts while a shared host's runs hold the slots", () => {
    const r = simulateFleet({ ...world, allocation: 'today' });
    expect(r.hostingHosts).toBe(1);
    expect(r.spacingViolations).toBe(0);
    expect(r.maxInFlightPerHost).toBeLessThanOrEqual(2);
    expect(r.runs.incremental).toBeGreaterThan(0);
    expect(r.starvedSyncs).toBeGreaterThan(0);
    expect(r.billedWaitSecondsPerRequest).toBeGreaterThan(0);
    expectSameFiguresAsRecorded(r);
  });

  it('per-host admission keeps the same politeness on the same world', () => {
    const r = simulateFleet({ ...world, allocation: 'per-host' });
    expect(r.spacingViolations).toBe(0);
    expect(r.maxInFlightPerHost).toBeLessThanOrEqual(2);
    expect(r.runs.incremental).toBeGreaterThan(0);
    expectSameFiguresAsRecorded(r);
  });
});
