import {
  type LaneCandidate,
  laneAfterRun,
  laneStepAt,
  nextLaneRun,
  pickedCandidate,
} from '../../shared/hosts';
import type { SourceDecision } from '../../shared/schedule';
import { LANE_START_MIN_MS } from '../../shared/sync';

/**
 * The fleet bench's model of host lanes (issues 27/28; shared/hosts/lanes.ts, shared/sync/lane.ts): a
 * run the planner starts carries its host's lane; when it ends, the same invocation re-plans the host —
 * its sources due by then, decided afresh (RATE-9's stretch applied) — and starts the one `nextLaneRun`
 * picks (the fair-queueing order), at once, one run at a time (the slot is kept, SCH-5 unchanged). With
 * less than `LANE_START_MIN_MS` of the invocation left (15 minutes less the 1-minute reserve) the lane
 * hands on (`laneStepAt`): the next run starts in a new invocation after the queue's delivery delay.
 * After `LANE_MAX_LIFE_MS` the lane ends and the next planner tick admits the host afresh. A full sync
 * follows only in a full lane (FULL-3). The pace stays the simulated host's (RATE-1/RATE-4).
 */
export interface SimLane {
  /** The planner tick that started the lane's first run. */
  plannedAtMs: number;
  /** The current invocation's start. */
  invocationStartMs: number;
  /** The first run's kind: fulls join only a full lane. */
  full: boolean;
  /** Invocations handed on to so far. */
  handOns: number;
  /** RATE-9 on a saturated host (a full lane): its full syncs' share of the host's time (`Lane.fullShare`). */
  fullShare?: number;
  /** The lane's next full sync not before this instant (`laneAfterRun`). */
  fullsNotBefore?: string;
}

/** A sync invocation's life (infra SYNC_TIMEOUT) less BUDGET_RESERVE_MS. */
export const LANE_INVOCATION_DEADLINE_MS = 14 * 60_000;
/** A handed-on lane's next run starts this long after the hand-on (SQS delivery to a new invocation). */
export const HAND_ON_DELAY_MS = 1_000;

export function newLane(nowMs: number, decision: SourceDecision, fullShare?: number): SimLane {
  const full = (decision.kind ?? 'incremental') !== 'incremental';
  return {
    plannedAtMs: nowMs,
    invocationStartMs: nowMs,
    full,
    handOns: 0,
    ...(full && fullShare !== undefined ? { fullShare } : {}),
  };
}

/** The lane after its run ended (`laneAfterRun`, as shared/sync's lane does): a full defers the next. */
export function noteLaneRunEnded(
  lane: SimLane,
  run: { kind: 'incremental' | 'full' | 'sliced'; startedMs: number; endedMs: number },
): void {
  const notBefore = laneAfterRun(lane, run);
  if (notBefore !== undefined) lane.fullsNotBefore = notBefore;
}

/** A source of the host due at the run's end, as the lane sees it. */
export interface SimLaneCandidate<S> extends LaneCandidate {
  source: S;
}

/**
 * The run the lane starts next when its run ends at `endAtMs`, and when: at once in the same invocation,
 * or after a hand-on in a new one; undefined when the lane ends (nothing due, or its life is over).
 */
export function laneSuccessor<S>(
  lane: SimLane,
  endAtMs: number,
  candidates: readonly SimLaneCandidate<S>[],
):
  | { candidate: SimLaneCandidate<S>; decision: SourceDecision; startMs: number; handOn: boolean }
  | undefined {
  const move = laneStepAt({
    nowMs: endAtMs,
    plannedAtMs: lane.plannedAtMs,
    deadlineMs: lane.invocationStartMs + LANE_INVOCATION_DEADLINE_MS,
    minStartMs: LANE_START_MIN_MS,
    canHandOn: true,
  });
  if (move === 'end') return undefined;
  const notBefore = lane.fullsNotBefore === undefined ? undefined : Date.parse(lane.fullsNotBefore);
  const decision = nextLaneRun(candidates, lane.full ? 'full' : 'incremental', endAtMs, notBefore);
  const candidate = pickedCandidate(candidates, decision);
  if (decision === undefined || candidate === undefined) return undefined;
  // The decision may be a waiting full sync's incremental fallback (FULL-3), not the candidate's own.
  return move === 'run'
    ? { candidate, decision, startMs: endAtMs, handOn: false }
    : { candidate, decision, startMs: endAtMs + HAND_ON_DELAY_MS, handOn: true };
}
