import {
  asIncrementalFallback,
  byOldestFullSync,
  byUrgency,
  msOf,
  type SourceDecision,
  type SyncKind,
  type SyncTrigger,
} from '../schedule';
import { hostKey } from '../util';
import type { Admission, WaitingRun } from './admission';
import { DEFAULT_EXPECTED_REQUESTS } from './constants';
import { nextFullTurnMs } from './full-sync-budget';
import type { HostModel } from './model';
import { stretchedDueMs } from './stretch';
import { cadenceAtMsOf, type OwnCadence, ownTurnsWaited, type TurnState, turnBeganMs } from './turns';

/**
 * Host lanes (issues 27 and 28), pure. The admission gives each host one run per planner tick; a
 * 16-request run ends after ~20 s and its host then idles until the next tick. A lane is the queue of
 * the host's sources that wait only because the host is busy, handed to the run admitted on it: when
 * that run ends, the same invocation starts the next one of the queue (shared/sync), so the host's one
 * budget (RATE-9) stays in use and no invocation bills a wait for another host. The slot count (SCH-5)
 * does not change — one lease at a time per lane — and the pace stays with the host slots (RATE-1/4).
 */

/** One waiting run of a lane: the decision the planner made for it (RATE-9's stretch applied). */
export interface LaneEntry {
  sourceId: string;
  kind: SyncKind;
  trigger: SyncTrigger;
  reason: string;
  ruleIds: string[];
  /** FULL-4/FULL-6: no further page after this instant. */
  deadline?: string;
  /** FULL-2: the window a full sync starts in. */
  windowId?: string;
  /** When the run became due (most overdue first). */
  dueAt?: string;
}

/**
 * One source of the lane's host the lane looks at again when a run ends (issue 27: re-planning): when
 * the planner expects it to be due. Only a hint of when to read its state: whether it runs is decided
 * afresh from that state (`nextLaneRun`).
 */
export interface LanePoolEntry {
  sourceId: string;
  /** When it is expected due (the cadence, RATE-9's stretch applied); a missing one is read at once. */
  dueAt?: string;
}

/** RATE-9's stretch as the planner saw the host (the lane decides with it; `stretchDecision`). */
export interface LaneStretch {
  factor: number;
  demand: number;
  capacity: number;
  /**
   * The full syncs' share counted in `factor` (`withFullSyncShare`): a lane planned in the window lives
   * past its end, and its decisions then count the bare factor (`factorInForceAt`).
   */
  fullSyncShare?: number;
}

export interface Lane {
  /** The RATE-2 host key all entries share. */
  host: string;
  /**
   * The planner tick that built the lane. An entry runs only while its source's stored due time is no
   * later than this: a source that ran (or was decided again) since has a later due time — stale.
   * A lane with a `pool` re-plans instead (its starts are checked against the instant they are decided).
   */
  plannedAt: string;
  entries: LaneEntry[];
  /**
   * Re-planning (issue 27): every other active source of the host, each with when it is expected due.
   * When a run ends, the lane reads the state of those due by then, decides them afresh and starts the
   * one `nextLaneRun` picks — not only the runs that waited when the lane was planned. Absent in lanes of
   * older planners: those run their entries as planned.
   */
  pool?: LanePoolEntry[];
  /** The slot's kind (FULL-3): a full lane may start full syncs, an incremental lane only incrementals. */
  kind?: 'incremental' | 'full';
  stretch?: LaneStretch;
  /**
   * RATE-9 with FULL-3 (a full lane only): the share of the host's time its full syncs take
   * (`fullSyncShareOf`; on a host with capacity at most its spare). After a full sync the lane serves the incremental syncs until `fullsNotBefore`
   * (`laneAfterRun`), so the two demands interleave instead of the full syncs chaining all night.
   */
  fullShare?: number;
  /** The lane's next full sync not before this instant (set by `laneAfterRun`). */
  fullsNotBefore?: string;
}

/**
 * Bound of a lane. A sync invocation lives 15 minutes and keeps one back (BUDGET_RESERVE_MS); a run
 * takes at least its expected requests at ≥ 1 s each (RATE-1): 14 min / 16 s ≈ 52 incremental runs
 * fit at most. Entries beyond could never run in the same invocation and would only grow the message
 * (and go stale); the planner admits them at a later tick anyway.
 */
export const MAX_LANE_ENTRIES = Math.floor((14 * 60) / DEFAULT_EXPECTED_REQUESTS.incremental);

/**
 * A waiting run that waits only because its host is busy (RATE-9 / RATE-4), not for a slot (SCH-5),
 * not for a paused host (RATE-8) and not for tonight's full-sync budget (FULL-3): the admission's
 * typed `waitingFor`.
 */
export function waitsOnlyForBusyHost(w: Pick<WaitingRun, 'waitingFor'>): boolean {
  return w.waitingFor.kind === 'host';
}

function entryOf(d: SourceDecision): LaneEntry {
  return {
    sourceId: d.sourceId,
    kind: d.kind ?? 'incremental',
    trigger: d.trigger ?? 'schedule',
    reason: d.reason,
    ruleIds: d.ruleIds,
    ...(d.deadline ? { deadline: d.deadline } : {}),
    ...(d.windowId ? { windowId: d.windowId } : {}),
    ...(d.dueAt ? { dueAt: d.dueAt } : {}),
  };
}

/**
 * Per admitted run (source id), its lane: the host's runs waiting for the busy host, most overdue first
 * (manual first, as `byUrgency`), each in one lane only (a host with two admitted runs deals them out
 * in turn), at most `MAX_LANE_ENTRIES`. A full sync joins only a lane whose run is a full sync itself:
 * the lane keeps its slot's kind, so FULL-3's share of the slots does not grow. Runs without a waiting
 * queue get no lane.
 */
export function lanesOf(
  admission: Pick<Admission, 'start' | 'waiting'>,
  hostOf: (sourceId: string) => string | undefined,
  nowIso: string,
  replan?: LaneReplanInput,
): Map<string, Lane> {
  const waitingByHost = new Map<string, WaitingRun[]>();
  for (const w of admission.waiting) {
    if (!waitsOnlyForBusyHost(w) || w.decision.action !== 'sync') continue;
    const list = waitingByHost.get(w.host);
    if (list) list.push(w);
    else waitingByHost.set(w.host, [w]);
  }
  const headsByHost = new Map<string, SourceDecision[]>();
  for (const d of admission.start) {
    const host = hostOf(d.sourceId);
    if (host === undefined) continue;
    const key = hostKey(host);
    if (!waitingByHost.has(key) && (replan?.poolOf(key).length ?? 0) <= 1) continue;
    const heads = headsByHost.get(key);
    if (heads) heads.push(d);
    else headsByHost.set(key, [d]);
  }
  const lanes = new Map<string, Lane>();
  for (const [host, heads] of headsByHost) {
    const queue = (waitingByHost.get(host) ?? []).map((w) => w.decision).sort(byUrgency);
    const model = replan?.hosts.get(host);
    const built = heads.map((head) => ({
      head,
      lane: {
        host,
        plannedAt: nowIso,
        entries: [] as LaneEntry[],
        ...(replan
          ? {
              // The head itself is in the pool too: it may come due again while the lane lives.
              pool: replan.poolOf(host),
              kind: (head.kind ?? 'incremental') === 'incremental' ? 'incremental' : 'full',
              ...(model && model.stretch > 1
                ? {
                    stretch: {
                      factor: model.stretch,
                      demand: model.demand,
                      capacity: model.capacity,
                      ...(model.fullSyncShare === undefined ? {} : { fullSyncShare: model.fullSyncShare }),
                    },
                  }
                : {}),
              ...fullShareOfLane(head, replan.fullShareOf?.(host)),
            }
          : {}),
      } as Lane,
    }));
    let turn = 0;
    for (const d of queue) {
      const full = d.kind !== undefined && d.kind !== 'incremental';
      // The next lane in turn that may take this run (room left; a full only behind a full).
      for (let tried = 0; tried < built.length; tried += 1) {
        const at = built[(turn + tried) % built.length];
        if (at === undefined || at.lane.entries.length >= MAX_LANE_ENTRIES) continue;
        if (full && (at.head.kind ?? 'incremental') === 'incremental') continue;
        at.lane.entries.push(entryOf(d));
        turn = (turn + tried + 1) % built.length;
        break;
      }
    }
    for (const { head, lane } of built)
      if (lane.entries.length > 0 || (lane.pool?.length ?? 0) > 1) lanes.set(head.sourceId, lane);
  }
  return lanes;
}

/** A full lane carries its host's full syncs' share of the host's time (RATE-9, FULL-3). */
function fullShareOfLane(head: SourceDecision, share: number | undefined): Pick<Lane, 'fullShare'> {
  if (share === undefined || (head.kind ?? 'incremental') === 'incremental') return {};
  return { fullShare: share };
}

/** What the planner hands `lanesOf` so that its lanes re-plan (issue 27). */
export interface LaneReplanInput {
  hosts: ReadonlyMap<string, Pick<HostModel, 'demand' | 'capacity' | 'stretch' | 'fullSyncShare'>>;
  /** The host's active sources with when each is expected due (`lanePoolOf`). */
  poolOf: (hostKey: string) => LanePoolEntry[];
  /** RATE-9 / FULL-3: a host's full-sync share tonight (`HostFullSyncPlan.share`); none without full syncs. */
  fullShareOf?: (hostKey: string) => number | undefined;
}

/**
 * The lane after one of its runs ended, pure (RATE-9, FULL-3): in a full lane with its host's share
 * (`fullShare`), a full sync that ended defers the lane's next full sync by its share (`nextFullTurnMs`);
 * the lane serves the incremental syncs meanwhile. A turn beyond the lane's life (a share near 0: a host
 * with hardly any spare) is the lane's life — no further full in it; the planner admits the next. Any
 * other lane, or run, leaves the lane as it is.
 */
export function laneAfterRun(
  lane: Pick<Lane, 'fullShare' | 'fullsNotBefore'>,
  run: { kind: SyncKind; startedMs: number; endedMs: number },
): string | undefined {
  if (lane.fullShare === undefined || run.kind === 'incremental') return lane.fullsNotBefore;
  const notBefore = nextFullTurnMs({
    endedMs: run.endedMs,
    durationMs: run.endedMs - run.startedMs,
    share: lane.fullShare,
  });
  // Bounded: a share of 1e-9 put the turn past what a Date holds (fleet bench, 10,000 sources).
  return new Date(Math.ceil(Math.min(notBefore, run.endedMs + LANE_MAX_LIFE_MS))).toISOString();
}

/** A host's source as the planner knows it, for the lane's pool. */
export interface LanePoolSource {
  sourceId: string;
  /** SCH-4: the end of its last sync (the cadence counts from it). */
  lastSyncEndedAt?: string;
  /** Its own cadence interval now (unstretched; SCH-3 in its own cycles, `ownIntervalMinutes`), minutes. */
  intervalMinutes: number;
  /** Due now (the planner decided it `sync` this tick): read at the first re-plan. */
  dueNow?: boolean;
}

/**
 * The lane's pool, pure: each source with when it is expected due — the end of its last sync plus its
 * interval stretched as `stretchDecision` measures (`stretchedDueMs`), none for a source due now or never synced
 * (read at once). A hint only: the lane decides from the state it reads, so a wrong guess costs a read
 * (too early) or a later turn (too late — the lane's life is short, and the planner admits it after).
 */
export function lanePoolOf(sources: readonly LanePoolSource[], stretch: number): LanePoolEntry[] {
  return sources.map((s) => {
    if (s.dueNow || s.lastSyncEndedAt === undefined) return { sourceId: s.sourceId };
    const endedMs = msOf(s.lastSyncEndedAt);
    const dueMs = stretchedDueMs(endedMs, endedMs + s.intervalMinutes * 60_000, stretch);
    return { sourceId: s.sourceId, dueAt: new Date(Math.trunc(dueMs)).toISOString() };
  });
}

/**
 * A lane lives this long from its plan, across invocations (a lane whose invocation's time is short
 * hands on to a new message, `laneStepAt`). Each step loads its sources' items afresh (a config change
 * counts at once) and joins a source added to the host or switched active through the Sources table's
 * `byHost` index (shared/sync/lane.ts); what the index does not list — an item written by hand without
 * `hostKey`, or the RATE-9 stretch of a host whose demand changed — reaches it only with a new plan, so
 * after this the lane ends and the host is free for the next tick (≤ one tick of idle host every half
 * hour, 1.7 %).
 */
export const LANE_MAX_LIFE_MS = 30 * 60_000;

/**
 * A lane's next step when a run has ended, pure (issue 27):
 * - `run`: enough of the invocation is left for another run (`minStartMs`, see shared/sync);
 * - `hand-on`: the invocation is short of time but the lane still lives — its last act starts the next
 *   run (the lease, SCH-5) and sends that run's message with the lane on (the sync queue delivers it to a
 *   new invocation within a second or so). Chosen over "the planner admits the host again": the planner
 *   ticks once a minute, so a lane that ended left its host idle for half a tick on average (−3.5 % of a
 *   saturated host's pace at one lane end per 14 minutes); a handed-on lane keeps its one lease, so the
 *   slot count (SCH-5) and the host's runs (RATE-4) are as if the invocation had gone on;
 * - `end`: stopped by the operator, or the lane's life is over (`LANE_MAX_LIFE_MS`): the rest is left
 *   to the planner, whose next tick admits the host afresh.
 */
export type LaneMove = 'run' | 'hand-on' | 'end';

export function laneStepAt(input: {
  nowMs: number;
  plannedAtMs: number;
  /** The invocation's last instant for starting a request (its end less the reserve). */
  deadlineMs: number;
  /** A run starts only with this much left before the deadline. */
  minStartMs: number;
  aborted?: boolean;
  /** Whether the lane may hand on at all (a lane of an older planner without a pool may not). */
  canHandOn: boolean;
}): LaneMove {
  if (input.aborted) return 'end';
  if (input.nowMs - input.plannedAtMs >= LANE_MAX_LIFE_MS) return 'end';
  if (input.deadlineMs - input.nowMs >= input.minStartMs) return 'run';
  return input.canHandOn ? 'hand-on' : 'end';
}

/** A source of the lane's host decided afresh when a run ended (`decideSource` + `stretchDecision`). */
export interface LaneCandidate {
  decision: SourceDecision;
  /** `fullSyncCreditMs(state)`: the last full sync's duration, not charged to its incremental turns. */
  fullSyncCreditMs?: number;
  /**
   * Its STATE's last sync (the schedule fields the lane reads anyway): the fair order measures the
   * source's wait from its last turn (`laneTurnShare`). Without it the order falls back to the due time.
   */
  state?: TurnState;
  /**
   * Its per-period cadence (SCH-1) and the host's factor: its turns waited are counted at the interval
   * of each period the wait spans (`ownTurnsWaited`). Without it, at the one interval to `cadenceAt`.
   */
  own?: OwnCadence;
}

/**
 * How far a due incremental is into its next turn, as a multiple of its own cadence, pure (RATE-9):
 * the time since its last turn began ÷ its cycle — the interval its cadence asks (SCH-1…SCH-3, to
 * `cadenceAt`) plus the run that began the cycle. A turn begins where the last sync started; a full
 * sync is no incremental turn (`fullSyncCreditMs`), so after one the turn begins at its end.
 * Infinity for a source never synced (first). Undefined without the state or the cadence.
 *
 * Why a share and not a due time: on a backlogged host every due source waits; served by earliest due
 * time, each waits the same queue delay D per turn, so a source's rate is 1 ÷ (interval + D) and a
 * 10-minute session-day cadence lost far more of its share than a 60-minute one (fleet bench, a week
 * at 1,000 sources: least served the councils that ask most, 1.38 max/min at the host's factor).
 * Served by the largest share, every source's turn comes at the same multiple R of its own cycle —
 * R is the host's factor as it is achieved, whatever the model's estimate — which is RATE-9's "slowed
 * by the same factor".
 */
export function laneTurnShare(c: LaneCandidate, nowMs: number): number | undefined {
  const cadenceAt = c.decision.cadenceAt;
  // A full sync that waits (FULL-3) is ranked as its fallback incremental: its cadence from its state.
  if (c.own !== undefined && c.state !== undefined && (cadenceAt !== undefined || isFull(c.decision)))
    return ownTurnsWaited(c.state, cadenceAtMsOf(c.decision, c.state, c.own, nowMs), c.own, nowMs);
  if (c.state === undefined || cadenceAt === undefined) return undefined;
  const began = turnBeganMs(c.state);
  if (began === undefined) return Number.POSITIVE_INFINITY;
  const cycle = msOf(cadenceAt) - began;
  if (!(cycle > 0)) return Number.POSITIVE_INFINITY;
  return (nowMs - began) / cycle;
}

/**
 * The lane's next run among its host's sources decided at `nowMs`, pure (issue 27, RATE-9). Only a
 * `sync` decision is a candidate (a source not due now, its stretched cadence applied, waits). The order
 * is a fair-queueing rule, not raw overdue time:
 * 1. manual requests (SCH-7: someone waits for them);
 * 2. in a full lane, full syncs by FULL-3's order (oldest complete full sync first) — a full sync joins
 *    only a full lane, so FULL-3's share of the slots does not grow;
 * 3. the largest share of its own cycle waited (`laneTurnShare`): weighted fair queueing, each source
 *    weighted by its own cadence (SCH-1…SCH-3), so each is slowed by the same factor;
 * 4. then the earliest due time less a full sync's credit (candidates without their state), the most
 *    overdue, the id (deterministic).
 * Session days (SCH-2) are not put first here: RATE-9 slows every source by the same factor, and a
 * session day's shorter interval already makes its source due more often — and its share grows faster
 * (its SCH-2 advantage, kept); served first as well, session-day sources took the host's turns at their
 * unstretched cap and the others fell beyond the factor (fleet bench, a Monday at 1,000 sources:
 * fairness 1.45 with them first). They still go first where the planner admits a host's run
 * (`admitRuns`, the lane's head).
 */
export function nextLaneRun(
  candidates: readonly LaneCandidate[],
  laneKind: 'incremental' | 'full',
  nowMs?: number,
  /** RATE-9 on a saturated host (`laneAfterRun`): no full sync before this; incrementals meanwhile. */
  fullsNotBeforeMs?: number,
): SourceDecision | undefined {
  let best: Ranked | undefined;
  const fullsWait = fullsNotBeforeMs !== undefined && (nowMs === undefined || nowMs < fullsNotBeforeMs);
  for (const c of candidates) {
    if (c.decision.action !== 'sync') continue;
    const full = (c.decision.kind ?? 'incremental') !== 'incremental';
    const fullWaits = full && (laneKind !== 'full' || (fullsWait && c.decision.trigger !== 'manual'));
    // FULL-3: a full sync this lane may not start keeps its incremental cadence meanwhile, as in the
    // admission (`incrementalDue`, RATE-9's stretch applied by `stretchDecision`).
    if (fullWaits && c.decision.incrementalDue !== true) continue;
    const share = nowMs === undefined ? undefined : laneTurnShare(c, nowMs);
    const ranked: Ranked = { c, share, fallback: fullWaits };
    if (best === undefined || byLaneOrder(ranked, best) < 0) best = ranked;
  }
  if (best === undefined) return undefined;
  if (!best.fallback) return best.c.decision;
  const why =
    laneKind === 'full'
      ? "full sync waits for its share's turn of the host's time (RATE-9)"
      : 'full sync waits for a full-sync slot (FULL-3)';
  return asIncrementalFallback(best.c.decision, why);
}

/**
 * The lane candidate whose run `nextLaneRun` picked (by source: a full sync that waits comes back as its
 * incremental fallback, a new decision).
 */
export function pickedCandidate<C extends LaneCandidate>(
  candidates: readonly C[],
  picked: SourceDecision | undefined,
): C | undefined {
  return picked === undefined ? undefined : candidates.find((c) => c.decision.sourceId === picked.sourceId);
}

interface Ranked {
  c: LaneCandidate;
  share: number | undefined;
  /** A full sync that waits, ranked as its incremental fallback. */
  fallback: boolean;
}

function byLaneOrder(a: Ranked, b: Ranked): number {
  // A fallback answers the cadence, not a manual request (`asIncrementalFallback`).
  const aManual = !a.fallback && a.c.decision.trigger === 'manual';
  const bManual = !b.fallback && b.c.decision.trigger === 'manual';
  const manual = Number(bManual) - Number(aManual);
  if (manual !== 0) return manual;
  const aFull = !a.fallback && (a.c.decision.kind ?? 'incremental') !== 'incremental';
  const bFull = !b.fallback && (b.c.decision.kind ?? 'incremental') !== 'incremental';
  if (aFull !== bFull) return aFull ? -1 : 1;
  if (aFull) return byOldestFullSync(a.c.decision, b.c.decision);
  if (a.share !== undefined && b.share !== undefined && a.share !== b.share) return b.share - a.share;
  return virtualFinishMs(a.c) - virtualFinishMs(b.c) || byUrgency(a.c.decision, b.c.decision);
}

function isFull(d: Pick<SourceDecision, 'kind'>): boolean {
  return (d.kind ?? 'incremental') !== 'incremental';
}

function virtualFinishMs(c: LaneCandidate): number {
  const due = c.decision.dueAt === undefined ? Number.NEGATIVE_INFINITY : msOf(c.decision.dueAt);
  return due - (c.fullSyncCreditMs ?? 0);
}

/** The pool entries to read at `nowMs`: those expected due by then (a missing due time: at once). */
export function poolDueBy(pool: readonly LanePoolEntry[], nowMs: number): LanePoolEntry[] {
  return pool.filter((p) => p.dueAt === undefined || msOf(p.dueAt) <= nowMs);
}
