import { describe, expect, it } from 'vitest';
import { reduceForSlots, todayStarts } from '../../bench/fleet/allocation';
import { seededRandom } from '../../bench/fleet/model';
import { planSyncSlots, resolveScheduleSettings, type SourceDecision } from '../../shared/schedule';

/**
 * The fleet bench reproduces today's allocation (SCH-5, FULL-3) by handing `planSyncSlots` only the
 * decisions that can start this tick. These tests hold it to the real thing on random due lists.
 */
function randomDecisions(random: () => number, count: number): SourceDecision[] {
  const base = Date.parse('2026-11-30T03:00:00+01:00');
  const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');
  return Array.from({ length: count }, (_, i) => {
    const kind = random() < 0.3 ? (random() < 0.8 ? 'full' : 'sliced') : 'incremental';
    const d: SourceDecision = {
      sourceId: `src-${String(Math.floor(random() * count * 2)).padStart(4, '0')}-${i % 3}`,
      action: random() < 0.9 ? 'sync' : 'wait',
      kind,
      trigger: random() < 0.1 ? 'manual' : 'schedule',
      // Ties on purpose: several sources due at the same instant (the id decides, SCH-5).
      dueAt: iso(base - Math.floor(random() * 20) * 60_000),
      incrementalDue: random() < 0.5,
      reason: 'test',
      ruleIds: [],
    };
    if (random() < 0.8) d.lastFullSyncAt = iso(base - Math.floor(random() * 10) * 86_400_000);
    return d;
  });
}

describe('fleet bench: today allocation (SCH-5, FULL-3)', () => {
  it('starts exactly what planSyncSlots starts on the whole due list, in the same order', () => {
    const random = seededRandom(5);
    for (let round = 0; round < 400; round += 1) {
      const settings = resolveScheduleSettings({ maxConcurrentSyncs: 1 + Math.floor(random() * 8) });
      const decisions = randomDecisions(random, Math.floor(random() * 40));
      const running = Math.floor(random() * (settings.maxConcurrentSyncs + 2));
      const runningFull = Math.min(running, Math.floor(random() * 4));
      const whole = planSyncSlots(decisions, running, runningFull, settings).start;
      const reduced = todayStarts(decisions, running, runningFull, settings);
      expect(reduced.map((d) => [d.sourceId, d.kind, d.trigger])).toEqual(
        whole.map((d) => [d.sourceId, d.kind, d.trigger]),
      );
    }
  });

  it('keeps no more decisions than can start, so a long due list costs no sort', () => {
    const random = seededRandom(9);
    const decisions = randomDecisions(random, 2000);
    const kept = reduceForSlots(decisions, 3, 2);
    expect(kept.length).toBeLessThanOrEqual(3 + 2);
    expect(reduceForSlots(decisions, 0, 3)).toEqual([]);
  });
});
