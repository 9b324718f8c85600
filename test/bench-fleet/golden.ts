import { expect } from 'vitest';
import type { FleetSimResult } from '../../bench/fleet/types';
import golden from './small-world-golden.json';

/**
 * The small world's figures as recorded before the bench's speed work (issue 27: "make it fast without
 * changing its decisions"): a faster simulation must give the same runs, requests, waits and verdicts
 * for the same seed. Fields added since are not in the record; the wall time never is.
 */
export function expectSameFiguresAsRecorded(result: FleetSimResult): void {
  const recorded = golden[result.allocation] as Record<string, unknown>;
  const now = result as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(recorded)) {
    if (key === 'wallSeconds' || key === 'cpuSeconds') continue;
    expect({ [key]: now[key] }).toEqual({ [key]: value });
  }
}
