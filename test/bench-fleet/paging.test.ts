import { describe, expect, it } from 'vitest';
import { PagingReplay } from '../../bench/fleet/paging';
import type { Starvation } from '../../shared/planner';

const MINUTE = 60_000;
// Monday 2026-11-30 00:00 UTC, on the hour (the replay's periods and hours are clock-aligned).
const START = Date.parse('2026-11-30T00:00:00Z');
const starving = (n: number): Starvation => ({
  starved: Array.from({ length: n }, (_, i) => ({
    sourceId: `s${i}`,
    host: 'ris.hosting.example',
    stretch: 1,
    overdueMinutes: 40,
    stretchedIntervalMinutes: 10,
  })),
  longestOverdueMinutes: n > 0 ? 40 : 5,
});

/** The fleet bench's replay of the two RATE-9 alarms, by hand (CloudWatch's evaluation as synthesised). */
describe('fleet bench paging replay', () => {
  it('HostSaturated: an hour counts only when every tick of it had a saturated host (the hour’s minimum)', () => {
    const replay = new PagingReplay();
    for (let m = 0; m < 180; m += 1) {
      // Hour 0: saturated throughout; hour 1: one tick without; hour 2: saturated throughout.
      const saturated = m === 90 ? 0 : 1;
      replay.tick(START + m * MINUTE, 1, { saturatedHosts: saturated, starvation: starving(0) });
    }
    const result = replay.result(1);
    expect(result.hostSaturated.hours).toBe(2);
    // 2 h in a day: 2 × 30.44 days a month.
    expect(result.hostSaturated.hoursPerMonth).toBe(60.88);
    expect(result.sourceStarved.hours).toBe(0);
  });

  it('SourceStarved: in ALARM from the second of three 5-minute periods with a starved source', () => {
    const replay = new PagingReplay();
    // Minutes 0–59: a source starves in minutes 10–24 (periods 2, 3 and 4 of the hour, counting from 0).
    for (let m = 0; m < 60; m += 1) {
      const n = m >= 10 && m < 25 ? 2 : 0;
      replay.tick(START + m * MINUTE, 7, { saturatedHosts: 0, starvation: starving(n) });
    }
    const result = replay.result(1);
    // Periods 2, 3, 4 starved → ALARM after periods 3, 4 (2 of 3) and 5 (periods 3, 4 of 3–5): 15 min.
    expect(result.sourceStarved.hours).toBe(0.25);
    expect(result.sourceStarvedByLocalHour[7]).toBe(0.25);
    expect(result.ticksWithStarved).toBe(15);
    expect(result.mostStarved).toBe(2);
    expect(result.worst?.at).toBe('2026-11-30T00:10:00.000Z');
    expect(result.longestOverdueMinutes).toBe(40);
    // One episode: the three alarm periods from 00:15 UTC (01:15 Berlin), with its host's figures.
    expect(result.episodes).toEqual([
      {
        from: 'Mon 2026-11-30 01:15',
        hours: 0.25,
        hosts: {
          'ris.hosting.example': {
            mostSources: 2,
            longestOverdueMinutes: 40,
            mostOverdue: 's0',
            stretch: [1, 1],
          },
        },
      },
    ]);
  });

  it('a single starved period does not page (1 of 3)', () => {
    const replay = new PagingReplay();
    for (let m = 0; m < 60; m += 1)
      replay.tick(START + m * MINUTE, 0, {
        saturatedHosts: 0,
        starvation: starving(m >= 20 && m < 25 ? 1 : 0),
      });
    expect(replay.result(1).sourceStarved.hours).toBe(0);
  });
});
