import { randomUUID } from 'node:crypto';
import type { SourceConfig } from '../config';
import {
  decideOnHost,
  fullSyncCreditMs,
  type LaneCandidate,
  type LanePoolEntry,
  laneAfterRun,
  laneStepAt,
  nextLaneRun,
  pickedCandidate,
  poolDueBy,
} from '../hosts';
import { initialScheduleState, type SourceDecision, type SourceScheduleState } from '../schedule';
import { getSourceState, listHostSources, loadSource, releaseSyncLease, storeOutageOf } from '../store';
import { hostKey, mapLimit } from '../util';
import type { SyncLane, SyncMessage } from './message';
import { laneStretchModel, runSyncMessage, type SyncRunDeps, type SyncRunResult } from './run';
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
  /** Issue 27: the invocation was short of time; the next run's message carries the lane on. */
  | { status: 'handed-on'; sourceId: string; runId: string; lane: LanePosition }
  | { status: 'store-outage'; sourceId: string; host: string; error: unknown };

export interface LaneBudget {
  /** No run of the lane starts a request later (the invocation's end − BUDGET_RESERVE_MS). */
  deadlineMs: number;
  /** When the invocation is killed at the latest. */
  endsAtMs: number;
  signal?: AbortSignal;
}

/** One lane's run: its peers, the lane, its invocation's budget and who hears each step. */
interface LaneRun {
  deps: SyncRunDeps;
  lane: SyncLane;
  budget: LaneBudget;
  onStep: (step: LaneStep) => void;
}

/** Runs the lane's entries one after another; `onStep` sees each run, skip and the part left. */
export async function runLane(
  deps: SyncRunDeps,
  lane: SyncLane,
  budget: LaneBudget,
  onStep: (step: LaneStep) => void,
): Promise<void> {
  if (lane.pool !== undefined) return replanLane({ deps, lane, budget, onStep }, lane.pool);
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

/** Reads of the pool's due sources in flight at once (a hosting host's pool is ≤ a few hundred). */
const POOL_READS = 8;
/** A pool source found leased, or whose start lost the race, is looked at again this much later. */
const POOL_RECHECK_MS = 60_000;

/**
 * Issue 27, re-planning: the lane does not run a list frozen at planning time. Whenever a run ends, it
 * reads the state of its host's sources expected due by now (the pool), decides them afresh
 * (`decideSource`, RATE-9's stretch as the planner saw the host) and starts the one `nextLaneRun` picks
 * (the fair order) — a source that became due meanwhile included. `laneStepAt` says whether it runs in
 * this invocation, hands on (time short: the run's lease is taken and its message sent with the lane, so
 * the host goes on without a planner tick's gap) or ends (stopped, or the lane's life is over). One
 * lease at a time (SCH-5), each start conditional on the source being due now (`dueBy`), so a source
 * another run or lane took meanwhile is skipped; the requests keep their host slots (RATE-1/RATE-4).
 */
async function replanLane(run: LaneRun, initialPool: readonly LanePoolEntry[]): Promise<void> {
  const { deps, lane, budget, onStep } = run;
  const pool: LanePool = {
    entries: new Map(initialPool.map((p) => [p.sourceId, { ...p }])),
    movedOff: new Set(),
  };
  // Runs that waited at the plan are due now: read them first.
  for (const e of lane.entries) pool.entries.set(e.sourceId, { sourceId: e.sourceId });
  const plannedAtMs = Date.parse(lane.plannedAt);
  const replan: Replan = { deps, lane, pool, laneKind: lane.kind ?? 'incremental' };
  for (let position = 1; ; position += 1) {
    const now = deps.now();
    const move = laneStepAt({
      nowMs: now.getTime(),
      plannedAtMs,
      // The budget runs on the real clock, the schedule on `deps.now()`: the time left, on the latter.
      deadlineMs: now.getTime() + (budget.deadlineMs - Date.now()),
      minStartMs: LANE_START_MIN_MS,
      aborted: budget.signal?.aborted === true,
      canHandOn: true,
    });
    if (move === 'end') {
      const due = poolDueBy([...pool.entries.values()], now.getTime()).map((p) => p.sourceId);
      onStep({
        status: 'left',
        reason: budget.signal?.aborted
          ? 'stopped by the operator'
          : 'lane life over: left for the next planner tick',
        host: lane.host,
        left: due.length,
        sourceIds: due,
      });
      return;
    }
    let picked: Picked | undefined;
    try {
      await joinHostSources(deps, lane.host, pool);
      picked = await pickNext(replan, now);
    } catch (err) {
      if (storeOutageOf(err) === undefined) throw err;
      onStep({ status: 'store-outage', sourceId: '', host: lane.host, error: err });
      return;
    }
    if (picked === undefined) {
      onStep({ status: 'left', reason: 'nothing due on the host', host: lane.host, left: 0, sourceIds: [] });
      return;
    }
    const { source, decision, state } = picked;
    const rest: SyncLane = { ...replan.lane, entries: [], pool: [...pool.entries.values()] };
    const at: LanePosition = { host: lane.host, position, left: Math.max(0, (picked.due ?? 1) - 1) };
    let message: SyncMessage | undefined;
    let result: SyncRunResult;
    try {
      message = await startRun(deps, {
        source,
        decision,
        state,
        now,
        runId: randomUUID(),
        // Decided from the state just read: only while its due time is still the one read — a run that
        // took the source meanwhile moved it on (its lease's end, then its next due time). A source new
        // to the host has no item yet: the lease alone decides (a run since would have left one).
        ...(picked.dueAtRead === undefined ? {} : { dueBy: new Date(picked.dueAtRead) }),
        lane: rest,
      });
      if (message === undefined) {
        recheckLater(pool.entries, source.sourceId, now);
        onStep({
          status: 'skipped',
          sourceId: source.sourceId,
          reason: 'another run holds the lease or it is no longer due (SCH-5)',
          lane: at,
        });
        continue;
      }
      // The run's own next due time is known only after it: read it at the next re-plan.
      pool.entries.set(source.sourceId, { sourceId: source.sourceId });
      if (move === 'hand-on') {
        const handed: SyncMessage = { ...message, lane: { ...rest, pool: [...pool.entries.values()] } };
        await handOn(deps, handed, state);
        onStep({ status: 'handed-on', sourceId: source.sourceId, runId: handed.runId, lane: at });
        return;
      }
      result = await runSyncMessage(deps, message, budget);
    } catch (err) {
      if (storeOutageOf(err) === undefined) throw err;
      onStep({ status: 'store-outage', sourceId: source.sourceId, host: lane.host, error: err });
      return;
    }
    onStep({ status: 'ran', sourceId: source.sourceId, runId: message.runId, result, lane: at });
    if (result.status !== 'done') return;
    noteRunEnded(replan, decision, now);
  }
}

/**
 * RATE-9 on a saturated host: after a full sync the lane gives the incremental syncs their share of the
 * host's time before its next full sync (`laneAfterRun`); a hand-on carries the instant on.
 */
function noteRunEnded(replan: Replan, decision: SourceDecision, startedAt: Date): void {
  const fullsNotBefore = laneAfterRun(replan.lane, {
    kind: decision.kind ?? 'incremental',
    startedMs: startedAt.getTime(),
    endedMs: replan.deps.now().getTime(),
  });
  if (fullsNotBefore !== undefined) replan.lane = { ...replan.lane, fullsNotBefore };
}

/** The lane's pool while it runs: the entries to look at, and the sources it let go for another host. */
interface LanePool {
  entries: Map<string, LanePoolEntry>;
  /**
   * Found on another host when loaded (RATE-2): not joined again from the `byHost` index, whose copy of
   * the host may be stale after a hand edit of the URL. (Gone, broken or inactive sources are joined
   * again when the index lists them active: re-activated or repaired.)
   */
  movedOff: Set<string>;
  /** The Sources table has no `byHost` index (a local `.data/` of an older release): the pool only. */
  noHostIndex?: boolean;
}

/**
 * Issue 27: a source added to the lane's host since the plan — a new item, or one switched active
 * (ONB-3: tools add sources inactive, on-call activates them) — joins the pool and is read at once, so
 * the running lane runs it when it is due instead of leaving it for the next plan (≤ LANE_MAX_LIFE_MS).
 * One Query on the Sources table's `byHost` index per step: keys and `active`, ≈ 70 bytes a source, so
 * 0.5 read units for a host of up to ~100 sources (an index read is eventually consistent: a source
 * added a moment ago joins at the next step). Whether it runs is decided from its item and state
 * (`pickNext`), never from the index.
 */
async function joinHostSources(deps: SyncRunDeps, host: string, pool: LanePool): Promise<void> {
  if (pool.noHostIndex) return;
  let listed: Awaited<ReturnType<typeof listHostSources>>;
  try {
    listed = await listHostSources({ doc: deps.doc, table: deps.tables.sources }, host);
  } catch (err) {
    // DynamoDB's answer for an index the table lacks. `provisionLocal` creates tables, never indexes on
    // an existing one, so a persisted local store stays without it (in AWS the deploy adds it first).
    if ((err as { name?: string }).name !== 'ValidationException') throw err;
    pool.noHostIndex = true;
    return;
  }
  for (const s of listed)
    if (s.active && !pool.entries.has(s.sourceId) && !pool.movedOff.has(s.sourceId))
      pool.entries.set(s.sourceId, { sourceId: s.sourceId });
}

interface Picked {
  source: SourceConfig;
  decision: SourceDecision;
  state: SourceScheduleState;
  /** How many of the host's sources were due (this one included), for the log's `left`. */
  due?: number;
  /**
   * Its stored due time when read. Not "due by now": a source switched on again carries the planner's
   * idle re-check time (an hour on), yet is due from its state.
   */
  dueAtRead?: string;
}

/** What a re-planning lane decides from: its peers, the lane as planned, its pool and its kind. */
interface Replan {
  deps: SyncRunDeps;
  lane: SyncLane;
  pool: LanePool;
  laneKind: 'incremental' | 'full';
}

/** Reads the pool's sources due by `now`, decides them and returns the fair pick (`nextLaneRun`). */
async function pickNext(replan: Replan, now: Date): Promise<Picked | undefined> {
  const { deps, lane, pool, laneKind } = replan;
  const nowIso = now.toISOString();
  const due = poolDueBy([...pool.entries.values()], now.getTime());
  const read = await mapLimit(due, POOL_READS, async (p): Promise<(LaneCandidate & Picked) | undefined> => {
    const item = await getSourceState<SourceScheduleState>(deps.doc, deps.tables.state, p.sourceId);
    if (item?.leaseUntil !== undefined && item.leaseUntil > nowIso) {
      recheckLater(pool.entries, p.sourceId, now);
      return undefined;
    }
    const parsed = await loadSource(deps.doc, deps.tables.sources, p.sourceId);
    // Gone, broken, inactive or moved off the host: not this lane's any more (the planner reports it).
    if (
      parsed === undefined ||
      !parsed.ok ||
      !parsed.source.active ||
      hostKey(parsed.source.host) !== lane.host
    ) {
      pool.entries.delete(p.sourceId);
      if (parsed?.ok && hostKey(parsed.source.host) !== lane.host) pool.movedOff.add(p.sourceId);
      return undefined;
    }
    const state = idleScheduleState(item?.schedule ?? initialScheduleState());
    const decision = decideOnHost({
      source: parsed.source,
      state,
      now: nowIso,
      settings: deps.settings,
      model: laneStretchModel(lane),
    });
    if (decision.action !== 'sync') {
      // Not due: look again when it is (a skip, an hour on; the lane ends long before).
      const at =
        decision.dueAt !== undefined ? Date.parse(decision.dueAt) : now.getTime() + 60 * POOL_RECHECK_MS;
      pool.entries.set(p.sourceId, {
        sourceId: p.sourceId,
        dueAt: new Date(Math.max(at, now.getTime() + 1)).toISOString(),
      });
      return undefined;
    }
    return {
      decision,
      fullSyncCreditMs: fullSyncCreditMs(state),
      source: parsed.source,
      state,
      own: { config: parsed.source, settings: deps.settings, stretch: lane.stretch?.factor ?? 1 },
      ...(item?.dueAt === undefined ? {} : { dueAtRead: item.dueAt }),
    };
  });
  const candidates = read.filter((c): c is LaneCandidate & Picked => c !== undefined);
  const notBefore = lane.fullsNotBefore === undefined ? undefined : Date.parse(lane.fullsNotBefore);
  const decision = nextLaneRun(candidates, laneKind, now.getTime(), notBefore);
  // By source: a full sync that waits comes back as its incremental fallback (FULL-3), a new decision.
  const picked = pickedCandidate(candidates, decision);
  return picked === undefined || decision === undefined
    ? undefined
    : { ...picked, decision, due: candidates.length };
}

function recheckLater(pool: Map<string, LanePoolEntry>, sourceId: string, now: Date): void {
  pool.set(sourceId, { sourceId, dueAt: new Date(now.getTime() + POOL_RECHECK_MS).toISOString() });
}

/**
 * The lane's last act when its invocation is short of time: the next run's lease is taken already; its
 * first message goes to the queue with the lane, and a new invocation runs it. Should the send fail,
 * the lease is given back at once (nobody else would before it expires) and the source stays due.
 */
async function handOn(deps: SyncRunDeps, message: SyncMessage, state: SourceScheduleState): Promise<void> {
  try {
    await deps.queue.send(JSON.stringify(message));
  } catch (err) {
    await releaseSyncLease({ doc: deps.doc, table: deps.tables.state }, message.sourceId, message.runId, {
      schedule: state,
      dueAt: deps.now().toISOString(),
    });
    throw err;
  }
}
