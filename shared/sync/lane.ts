import { randomUUID } from 'node:crypto';
import { initialScheduleState, type SourceScheduleState } from '../schedule';
import { getSourceState, loadSource, storeOutageOf } from '../store';
import { hostKey } from '../util';
import type { SyncLane, SyncMessage } from './message';
import { runSyncMessage, type SyncRunDeps, type SyncRunResult } from './run';
import { idleScheduleState, startRun } from './start';

/**
 * Host lanes (issues 27/28): a run that ends `done` hands its slot to the next source of its host that
 * waits only because the host is busy, in the same invocation — load config and state, `startRun` (the
 * lease, SCH-5, only while the source is still due as planned), run. Until the lane is empty or the
 * invocation's time is short; the rest is simply left: those sources stay due and the next planner tick
 * admits them. One lease at a time per lane, so the sync slots (SCH-5) count as before, and every
 * request still takes its host slot (RATE-1/RATE-4): a lane never makes a host busier, only less idle.
 */

/**
 * A lane entry starts only with this much time before the invocation's deadline. An incremental run is
 * ~16 requests at ≥ 1 s (RATE-1) plus the council's response times (1–3 s for a page of 100 objects):
 * 20–30 s. With less time left it would end cut, as a continuation message and a second invocation —
 * dearer than leaving the source to the next tick, which admits it within a minute.
 */
export const LANE_START_MIN_MS = 30_000;

/** Where a run stands in its lane, for the log (`lane` fields on "sync message done"). */
export interface LanePosition {
  host: string;
  /** 1 for the first entry after the run the planner started. */
  position: number;
  /** Entries still behind this one. */
  left: number;
}

export type LaneStep =
  | { status: 'ran'; sourceId: string; runId: string; result: SyncRunResult; lane: LanePosition }
  | { status: 'skipped'; sourceId: string; reason: string; lane: LanePosition }
  | { status: 'left'; reason: string; host: string; left: number; sourceIds: string[] }
  | { status: 'store-outage'; sourceId: string; host: string; error: unknown };

export interface LaneBudget {
  /** No run of the lane starts a request later (the invocation's end − BUDGET_RESERVE_MS). */
  deadlineMs: number;
  /** When the invocation is killed at the latest. */
  endsAtMs: number;
  signal?: AbortSignal;
}

/** Runs the lane's entries one after another; `onStep` sees each run, skip and the part left. */
export async function runLane(
  deps: SyncRunDeps,
  lane: SyncLane,
  budget: LaneBudget,
  onStep: (step: LaneStep) => void,
): Promise<void> {
  for (let i = 0; i < lane.entries.length; i += 1) {
    const entry = lane.entries[i] as SyncLane['entries'][number];
    const rest: SyncLane = { ...lane, entries: lane.entries.slice(i + 1) };
    const position: LanePosition = { host: lane.host, position: i + 1, left: rest.entries.length };
    const short = budget.deadlineMs - Date.now() < LANE_START_MIN_MS;
    if (short || budget.signal?.aborted) {
      onStep({
        status: 'left',
        reason: short ? 'invocation time short: left for the next planner tick' : 'stopped by the operator',
        host: lane.host,
        left: lane.entries.length - i,
        sourceIds: lane.entries.slice(i).map((e) => e.sourceId),
      });
      return;
    }
    let started: SyncMessage | string;
    let result: SyncRunResult;
    try {
      started = await startEntry(deps, lane, entry, rest);
      if (typeof started === 'string') {
        onStep({ status: 'skipped', sourceId: entry.sourceId, reason: started, lane: position });
        continue;
      }
      result = await runSyncMessage(deps, started, budget);
    } catch (err) {
      // Our store failed (issue 13): the run that was started keeps its lease until it expires, then the
      // planner decides again (as for a lost message); the rest of the lane is left to the planner.
      if (storeOutageOf(err) === undefined) throw err;
      onStep({ status: 'store-outage', sourceId: entry.sourceId, host: lane.host, error: err });
      return;
    }
    onStep({ status: 'ran', sourceId: entry.sourceId, runId: started.runId, result, lane: position });
    // A continued run carries the rest of the lane in its continuation message; anything else ends it.
    if (result.status !== 'done') return;
  }
}

/** The entry's first message (its lease taken), or why it is skipped. */
async function startEntry(
  deps: SyncRunDeps,
  lane: SyncLane,
  entry: SyncLane['entries'][number],
  rest: SyncLane,
): Promise<SyncMessage | string> {
  const parsed = await loadSource(deps.doc, deps.tables.sources, entry.sourceId);
  if (parsed === undefined) return 'source no longer exists';
  if (!parsed.ok) return 'invalid config: the planner reports it';
  const source = parsed.source;
  // ERR-7: deactivated while waiting. A manual run may sync an inactive source once (ONB-3).
  if (!source.active && entry.trigger !== 'manual') return 'source is inactive (ERR-7)';
  // RATE-2: its host changed since the plan; the lane's host is no longer its budget.
  if (hostKey(source.host) !== lane.host) return `source moved off host ${lane.host}`;
  const now = deps.now();
  const item = await getSourceState<SourceScheduleState>(deps.doc, deps.tables.state, entry.sourceId);
  if (item?.leaseUntil !== undefined && item.leaseUntil > now.toISOString())
    return 'another run holds the lease (SCH-5)';
  const message = await startRun(deps, {
    source,
    decision: entry,
    state: idleScheduleState(item?.schedule ?? initialScheduleState()),
    now,
    runId: randomUUID(),
    // Stale when the source ran or was decided again since the plan (its due time moved on).
    dueBy: new Date(lane.plannedAt),
    lane: rest,
  });
  return message ?? 'another run holds the lease or it is no longer due as planned (SCH-5)';
}
