import { MAX_LANE_ENTRIES } from '../../shared/hosts';
import type { SourceDecision } from '../../shared/schedule';
import { LANE_START_MIN_MS } from '../../shared/sync';

/**
 * The fleet bench's model of host lanes (issues 27/28; shared/hosts/lanes.ts, shared/sync/lane.ts): a
 * run the planner starts carries the queue of its host's runs that were waiting when it started; when it
 * ends, the same invocation starts the most urgent of them that is still waiting, at once — within the
 * invocation's budget (15 minutes less the 1-minute reserve, and only with `LANE_START_MIN_MS` left),
 * at most `MAX_LANE_ENTRIES` per lane, one run at a time (the slot is kept, SCH-5 unchanged). A full
 * sync follows only a full sync (the lane keeps its slot's kind, FULL-3). The pace stays the simulated
 * host's (RATE-1/RATE-4).
 */
export interface SimLane {
  /** The planner tick that started the lane's first run: entries are the runs waiting then. */
  plannedAtMs: number;
  /** The invocation's start (the first run's start). */
  invocationStartMs: number;
  /** Entries taken so far. */
  taken: number;
  /** The first run's kind: fulls join only a full lane. */
  full: boolean;
}

/** A sync invocation's life (infra SYNC_TIMEOUT) less BUDGET_RESERVE_MS. */
export const LANE_INVOCATION_DEADLINE_MS = 14 * 60_000;

export function newLane(nowMs: number, decision: SourceDecision): SimLane {
  return {
    plannedAtMs: nowMs,
    invocationStartMs: nowMs,
    taken: 0,
    full: (decision.kind ?? 'incremental') !== 'incremental',
  };
}

/** A waiting run of the host, as the lane sees it. */
export interface LaneCandidate<S> {
  source: S;
  decision: SourceDecision;
  /** When the planner first found it due and waiting. */
  sinceMs: number;
}

/**
 * The entry the lane runs next when its run ends at `endAtMs`, or undefined (lane empty, time short,
 * bound reached). Candidates are the host's waiting runs; a run that became due after the lane was
 * planned is not in it (the next tick admits it).
 */
export function laneSuccessor<S>(
  lane: SimLane,
  endAtMs: number,
  candidates: Iterable<LaneCandidate<S>>,
): LaneCandidate<S> | undefined {
  if (lane.taken >= MAX_LANE_ENTRIES) return undefined;
  if (lane.invocationStartMs + LANE_INVOCATION_DEADLINE_MS - endAtMs < LANE_START_MIN_MS) return undefined;
  let best: LaneCandidate<S> | undefined;
  for (const c of candidates) {
    const d = c.decision;
    if (d.action !== 'sync' || c.sinceMs > lane.plannedAtMs) continue;
    if ((d.kind ?? 'incremental') !== 'incremental' && !lane.full) continue;
    if (best === undefined || byUrgency(d, best.decision) < 0) best = c;
  }
  return best;
}

/** `byUrgency` of shared/schedule (manual first, then the longest overdue, then the id), on epoch ms. */
function byUrgency(a: SourceDecision, b: SourceDecision): number {
  const manual = Number(b.trigger === 'manual') - Number(a.trigger === 'manual');
  const due = (d: SourceDecision) => (d.dueAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(d.dueAt));
  return manual || due(a) - due(b) || a.sourceId.localeCompare(b.sourceId);
}
