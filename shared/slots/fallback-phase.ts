import { FALLBACK_GRID_SLACK_MS, FALLBACK_PHASE_MIN_SLOTS, MAX_IN_FLIGHT_PER_HOST } from './constants';

/**
 * RATE-7 alone, RATE-1 kept: which phase a process may keep on a host while Redis is gone. A pure
 * decision (state + now → decision); LocalSlotStore places the slots.
 *
 * Under Redis the processes that took turns on a host were spaced one slot apart (interval + the
 * sender's allowance ≤ FALLBACK_GRID_SLACK_MS). Alone, each goes on on a grid from its own last slot,
 * one common step apart. Two grids are ≥ 1 s apart only if their anchors were less than a step minus a
 * slot apart: then each pair of anchors is spaced as Redis spaced them, in both directions around the
 * cycle. Anchors of different ages (a slot several steps older than another process's) have an
 * arbitrary phase against each other — the politeness bench's two grids a constant ≈ 975 ms apart.
 *
 * No process sees the others' anchors, but each knows when it found Redis gone (`sinceMs`): the
 * outage began before that. So a process keeps its phase only from a slot no older than `windowMs`
 * before `sinceMs`; every kept anchor then lies after (outage − windowMs). The latest slot Redis gave
 * out lies at most MAX_IN_FLIGHT_PER_HOST slots after the outage (a slot is only granted while a place
 * is free, and the place of a sent request frees after it was sent). Kept anchors thus span at most
 * windowMs + MAX_IN_FLIGHT_PER_HOST slots, and the step is one slot more than that — or
 * interval × instances (RATE-7's bound) when that is larger. A process with an older slot, or none,
 * knows no shared phase: it stays off the host until Redis answers again.
 */
export interface FallbackGrid {
  /** The grid's step: every process's sends to the host, alone, this far apart. */
  stepMs: number;
  /** A slot this much or less before the process found Redis gone anchors its grid. */
  windowMs: number;
}

export type FallbackPhase =
  | { kind: 'grid'; anchorMs: number; stepMs: number }
  /** No phase known to be shared: `never-sent` (no slot on the host), `stale-slot` (too old). */
  | { kind: 'off-host'; reason: 'never-sent' | 'stale-slot' };

/** The grid of `instances` processes pacing alone at `baseIntervalMs` (the host's interval). */
export function fallbackGrid(instances: number, baseIntervalMs: number): FallbackGrid {
  const slotMs = baseIntervalMs + FALLBACK_GRID_SLACK_MS;
  // The whole last cycle before the outage, less the slots Redis may have given out past it and the
  // wrap to the next cycle — at least FALLBACK_PHASE_MIN_SLOTS (then the step grows past the cycle).
  const windowSlots = Math.max(instances - MAX_IN_FLIGHT_PER_HOST - 1, FALLBACK_PHASE_MIN_SLOTS);
  const stepSlots = Math.max(instances, windowSlots + MAX_IN_FLIGHT_PER_HOST + 1);
  return { stepMs: stepSlots * slotMs, windowMs: windowSlots * slotMs };
}

export function fallbackPhase(input: {
  instances: number;
  baseIntervalMs: number;
  /** When this process found Redis gone (its first failed call in this outage). */
  sinceMs: number;
  /** Its latest slot on the host: on this outage's grid, paced through Redis, or being re-timed. */
  anchorMs: number | undefined;
}): FallbackPhase {
  if (input.anchorMs === undefined) return { kind: 'off-host', reason: 'never-sent' };
  const grid = fallbackGrid(input.instances, input.baseIntervalMs);
  if (input.anchorMs < input.sinceMs - grid.windowMs) return { kind: 'off-host', reason: 'stale-slot' };
  return { kind: 'grid', anchorMs: input.anchorMs, stepMs: grid.stepMs };
}
