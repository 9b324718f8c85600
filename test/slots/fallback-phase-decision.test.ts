import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/random';
import {
  FALLBACK_GRID_SLACK_MS,
  FALLBACK_PHASE_MIN_SLOTS,
  MAX_IN_FLIGHT_PER_HOST,
  MIN_INTERVAL_MS,
  SHARED_STORE_RETRY_MS,
} from '../../shared/slots';
import { fallbackGrid, fallbackPhase } from '../../shared/slots/fallback-phase';

const I = MIN_INTERVAL_MS;
const SLOT = I + FALLBACK_GRID_SLACK_MS;

describe('RATE-7 / RATE-1: the fallback phase decision (fallback-phase.ts)', () => {
  it('keeps a phase only from a slot in the window before the process found Redis gone', () => {
    const { windowMs, stepMs } = fallbackGrid(4, I);
    const sinceMs = 100_000;
    expect(fallbackPhase({ instances: 4, baseIntervalMs: I, sinceMs, anchorMs: undefined })).toEqual({
      kind: 'off-host',
      reason: 'never-sent',
    });
    expect(
      fallbackPhase({ instances: 4, baseIntervalMs: I, sinceMs, anchorMs: sinceMs - windowMs - 1 }),
    ).toEqual({
      kind: 'off-host',
      reason: 'stale-slot',
    });
    for (const anchorMs of [sinceMs - windowMs, sinceMs, sinceMs + 2 * SLOT]) {
      expect(fallbackPhase({ instances: 4, baseIntervalMs: I, sinceMs, anchorMs })).toEqual({
        kind: 'grid',
        anchorMs,
        stepMs,
      });
    }
  });

  it('the step is interval × instances (RATE-7) or more, a cycle from 5 instances on; the window the rest of the cycle', () => {
    const slots = (n: number) => {
      const grid = fallbackGrid(n, I);
      return [grid.stepMs / SLOT, grid.windowMs / SLOT];
    };
    const minStep = FALLBACK_PHASE_MIN_SLOTS + MAX_IN_FLIGHT_PER_HOST + 1;
    expect(slots(2)).toEqual([minStep, FALLBACK_PHASE_MIN_SLOTS]);
    expect(slots(4)).toEqual([minStep, FALLBACK_PHASE_MIN_SLOTS]);
    expect(slots(5)).toEqual([5, 2]);
    expect(slots(20)).toEqual([20, 20 - MAX_IN_FLIGHT_PER_HOST - 1]);
    // A Crawl-delay scales the grid with the host's interval.
    expect(fallbackGrid(20, 10_000).stepMs).toBe(20 * (10_000 + FALLBACK_GRID_SLACK_MS));
  });

  // Many outages of a host that processes took turns on under Redis (random turns, allowances up to
  // the slack, idle gaps, up to two slots still ahead when Redis died, each process finding it gone
  // up to 3 s later). Every process that keeps a phase sends on its grid, each send up to a whole
  // allowance late; no two sends may come closer than the interval. The same outages with every
  // anchor kept (the code before the fix) must show the fault, or this test could not fail.
  it('grids kept by the rule never come closer than the interval; keeping every anchor does', () => {
    const random = seededRandom(20_261_204);
    const between = (lo: number, hi: number) => lo + random() * (hi - lo);
    const keptAll = { outages: 0, close: 0 };
    const ruled = { outages: 0, close: 0, kept: 0, processes: 0 };
    for (let outage = 0; outage < 400; outage += 1) {
      const instances = [2, 3, 4, 5, 8][outage % 5]!;
      // Slots Redis gave out: each one interval after the previous slot plus its sender's allowance,
      // or later after an idle spell.
      // Each process asks for its own allowance (how late its sends leave), under Redis and alone.
      const allowances = Array.from({ length: instances }, () => between(20, FALLBACK_GRID_SLACK_MS));
      const slots: Array<{ owner: number; atMs: number; allowanceMs: number }> = [];
      let nextMs = 0;
      for (let k = 0; k < 30; k += 1) {
        const idle = random() < 0.3 ? between(0, 3 * instances * SLOT) : 0;
        const owner = Math.floor(random() * instances);
        const atMs = nextMs + idle;
        slots.push({ owner, atMs, allowanceMs: allowances[owner]! });
        nextMs = atMs + allowances[owner]! + I;
      }
      // Redis dies after slot j was sent; up to two later slots were already given out (chained).
      const j = 10 + Math.floor(random() * 15);
      const diedMs = slots[j]!.atMs + between(0, I);
      const ahead = Math.floor(random() * (MAX_IN_FLIGHT_PER_HOST + 1));
      const given = slots.slice(0, j + 1);
      for (let k = 1; k <= ahead; k += 1) {
        const prev = given.at(-1)!;
        given.push({ ...slots[j + k]!, atMs: prev.atMs + prev.allowanceMs + I });
      }
      const anchors = new Map<number, number>();
      for (const slot of given) anchors.set(slot.owner, slot.atMs);

      const sendsOf = (kept: Array<{ owner: number; anchorMs: number; stepMs: number }>) => {
        const sends: Array<{ atMs: number }> = [];
        // Alone after the quiet minute: the first grid slot after it, then twenty more.
        const fromMs = diedMs + SHARED_STORE_RETRY_MS;
        for (const { owner, anchorMs, stepMs } of kept) {
          const first = Math.ceil((fromMs - anchorMs) / stepMs);
          for (let m = first; m < first + 20; m += 1) {
            sends.push({ atMs: anchorMs + m * stepMs + between(0, allowances[owner]!) });
          }
        }
        sends.sort((x, y) => x.atMs - y.atMs);
        return sends.slice(1).filter((send, i) => send.atMs - sends[i]!.atMs < I).length;
      };

      const oldStep = instances * SLOT;
      const close = sendsOf([...anchors].map(([owner, anchorMs]) => ({ owner, anchorMs, stepMs: oldStep })));
      keptAll.outages += 1;
      if (close > 0) keptAll.close += 1;

      const kept = [...anchors].flatMap(([owner, anchorMs]) => {
        const sinceMs = diedMs + between(0, 3_000);
        const phase = fallbackPhase({ instances, baseIntervalMs: I, sinceMs, anchorMs });
        return phase.kind === 'grid' ? [{ owner, ...phase }] : [];
      });
      ruled.outages += 1;
      ruled.processes += anchors.size;
      ruled.kept += kept.length;
      if (sendsOf(kept) > 0) ruled.close += 1;
    }
    expect(keptAll.close).toBeGreaterThan(0);
    expect(ruled.close).toBe(0);
    // The rule keeps a phase for some processes (else "never close" would be trivially true).
    expect(ruled.kept).toBeGreaterThan(ruled.outages);
  });
});
