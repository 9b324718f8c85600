import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { simulateFleet } from '../../bench/fleet/simulate';
import type { Allocation } from '../../bench/fleet/types';
import golden from './night-world-golden.json';

/**
 * The speed work's guard (issue 27: "make it fast without changing any decision"): a night and a
 * morning of 240 sources — one saturated hosting host (RATE-9's stretch), the full-sync window (FULL-3's
 * budget and order), 10 slots for a fleet that needs 26 (SCH-5, slots full and free) — must give every
 * figure exactly as recorded before the simulation was made faster, for all three allocations.
 * small-world-golden.json covers a Monday morning without a saturated host or a window; this one the
 * paths a week at 10,000 sources spends its time in. A change meant to change decisions (the fair
 * order, say) regenerates it: FLEET_GOLDEN_WRITE=1 with this file alone.
 */
const world = golden.world;
const ALLOCATIONS: Allocation[] = ['today', 'per-host', 'lanes'];

describe('fleet bench: the same figures after the speed work (RATE-9, SCH-5, FULL-3)', () => {
  if (process.env.FLEET_GOLDEN_WRITE === '1') {
    it('writes the record', () => {
      const out: Record<string, unknown> = { recordedAt: golden.recordedAt, world };
      for (const allocation of ALLOCATIONS) {
        const { wallSeconds: _w, cpuSeconds: _c, ...figures } = simulateFleet({ ...world, allocation });
        out[allocation] = figures;
      }
      writeFileSync(
        new URL('./night-world-golden.json', import.meta.url),
        `${JSON.stringify(out, null, 1)}\n`,
      );
    });
    return;
  }
  for (const allocation of ALLOCATIONS) {
    it(`RATE-9: ${allocation} — every figure as recorded (saturated host, full-sync window, slots short)`, () => {
      const figures = simulateFleet({ ...world, allocation }) as unknown as Record<string, unknown>;
      const recorded = golden[allocation] as Record<string, unknown>;
      // Compared field by field, so a failure names the figure that moved (figures added since are not
      // in the record; the times never are).
      for (const key of Object.keys(recorded)) {
        expect({ [key]: figures[key] }).toEqual({ [key]: recorded[key] });
      }
    });
  }
});
