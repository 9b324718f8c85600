import {
  QUIET_SYNCS_PER_DOUBLING,
  type RecentRun,
  type SourceScheduleState,
  type SyncKind,
} from '../schedule';
import { CRAWL_DELAY_CAP_MS, MIN_INTERVAL_MS } from '../slots';
import {
  DEFAULT_EXPECTED_REQUESTS,
  EXPECTED_FROM_LAST_RUNS,
  MAX_OTHER_FETCH_SHARE,
  MAX_RUNS_PER_HOST,
  PLANNER_TICK_SECONDS,
  SECOND_RUN_FROM,
} from './constants';
import { hostKeyOf as hostKey } from './key';

/**
 * RATE-9, pure: the host model. Every source on one host key (RATE-2: lower-cased, no port, no trailing
 * dot — `hostKey`) shares one pace; the model says how many requests per second that pace serves
 * (capacity), how many the sources' cadence asks for (demand) and by which factor every source on a
 * saturated host is slowed (stretch).
 */

/** What the model needs of one source. */
export interface HostSourceInput {
  sourceId: string;
  /** Host name or URL; keyed with `hostKey`. */
  host: string;
  /** RATE-2: the source's own interval, seconds. */
  requestIntervalSeconds: number;
  /** The incremental interval its cadence asks for now (SCH-1…SCH-3, unstretched), minutes. */
  intervalMinutes: number;
  /**
   * SCH-3 on a saturated host (RATE-9, `ownQuietStreak`): its quiet streak now and the interval after
   * each doubling (`[10, 20, 40, 80, 120]` on a weekday day; one entry while capped, SCH-2), so the host
   * model can count the streak in the source's own cycles. Absent without a quiet streak.
   */
  quietLadder?: { quietStreak: number; minutes: readonly number[] };
  /** Expected requests of its next incremental run (`expectedRequests`). */
  expectedIncrementalRequests: number;
  /** SCH-2: a session day or the day before (served first on a saturated host). */
  sessionDay?: boolean;
  /** Learnt seconds per request of its recent runs (includes server latency), when known. */
  secondsPerRequest?: number;
}

/** What is known of a host besides its sources (from the slot store and the other fetches). */
export interface HostConditions {
  /** ROB-10: Crawl-delay in force, ms. */
  crawlDelayMs?: number;
  /** RATE-8: no request before this instant (ms since epoch). */
  pausedUntilMs?: number;
  /** Item 5: requests per second other fetches (documents, deletion checks, photos, previews) ask of it. */
  otherRequestsPerSecond?: number;
  /** The server's answer time per request, ms, when measured (the bench knows it; the planner learns it). */
  latencyMs?: number;
}

export interface HostModel {
  host: string;
  sourceIds: string[];
  /** RATE-1/2, ROB-10: the host's interval between two requests, ms. */
  intervalMs: number;
  /** Requests per second the pace serves (1000 / intervalMs). */
  paceRequestsPerSecond: number;
  /**
   * Of the pace, what other fetches take (item 5), capped at `MAX_OTHER_FETCH_SHARE`. Capacity is the
   * pace (or, with a server slower than it, runLimit requests per answer time) minus this.
   */
  otherRequestsPerSecond: number;
  /** Requests per second left for sync runs. */
  capacity: number;
  /**
   * Requests per second the sources' cadence asks for (unstretched; on a saturated host each quiet
   * streak counted in the source's own cycles at `stretch`, SCH-3 — `ownIntervalMinutes`).
   */
  demand: number;
  /** demand / capacity. */
  utilisation: number;
  /**
   * RATE-9: every source's interval on this host × this (≥ 1) — the least factor at which the pace
   * serves the demand counted at that factor (`stretchOf`).
   */
  stretch: number;
  /**
   * RATE-9 with FULL-3: in the full-sync window, the share of a saturated host's time its full syncs take
   * (`withFullSyncShare`); `stretch` then counts it (the incrementals get the rest). Absent otherwise.
   */
  fullSyncShare?: number;
  /** RATE-8: paused until (ISO), when a pause is in force now. */
  pausedUntil?: string;
  /** RATE-4 and the pace: how many sync runs at once keep this host busy (0 while paused). */
  runLimit: number;
  /**
   * FULL-3, SCH-5: the sync slots its incremental runs hold on average (`incrementalSlotsOf`), capped at
   * `runLimit`.
   */
  incrementalSlots: number;
  /** The seconds one request of a run takes on this host: the pace or the server's answer, the slower. */
  secondsPerRunRequest: number;
}

/** RATE-9: a run's expected requests, from the source's last runs of that kind; a default at first. */
export function expectedRequests(
  state: Pick<SourceScheduleState, 'recentRuns'> | undefined,
  kind: SyncKind,
): number {
  const same = (state?.recentRuns ?? []).filter((r) => sameKind(r, kind)).slice(-EXPECTED_FROM_LAST_RUNS);
  if (same.length === 0) return DEFAULT_EXPECTED_REQUESTS[kind];
  return same.reduce((sum, r) => sum + r.requests, 0) / same.length;
}

/** Learnt seconds per request of the source's recent runs (undefined before its first run). */
export function secondsPerRequestOf(
  state: Pick<SourceScheduleState, 'recentRuns'> | undefined,
): number | undefined {
  const runs = (state?.recentRuns ?? []).slice(-EXPECTED_FROM_LAST_RUNS);
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  if (requests === 0) return undefined;
  return runs.reduce((sum, r) => sum + r.seconds, 0) / requests;
}

/** A sliced full sync is a full sync run in parts: both learn from each other. */
function sameKind(run: RecentRun, kind: SyncKind): boolean {
  return kind === 'incremental' ? run.kind === 'incremental' : run.kind !== 'incremental';
}

/**
 * The model of every host the sources name, by host key. `conditions` is keyed by host key too
 * (callers key with `hostKey`).
 */
export function hostModelsOf(
  sources: readonly HostSourceInput[],
  conditions: ReadonlyMap<string, HostConditions> = new Map(),
  nowMs = Date.now(),
): Map<string, HostModel> {
  const byHost = new Map<string, HostSourceInput[]>();
  for (const s of sources) {
    const key = hostKey(s.host);
    const list = byHost.get(key);
    if (list) list.push(s);
    else byHost.set(key, [s]);
  }
  const models = new Map<string, HostModel>();
  for (const [host, list] of byHost)
    models.set(host, hostModelOf(host, list, conditions.get(host) ?? {}, nowMs));
  return models;
}

/** One host's model from its sources (all on `host`) and conditions. */
export function hostModelOf(
  host: string,
  sources: readonly HostSourceInput[],
  conditions: HostConditions,
  nowMs: number,
): HostModel {
  // RATE-2: the largest interval of any source on the host; RATE-1 floor; ROB-10 Crawl-delay (≤ 60 s).
  const intervalMs = Math.max(
    MIN_INTERVAL_MS,
    ...sources.map((s) => s.requestIntervalSeconds * 1000),
    Math.min(conditions.crawlDelayMs ?? 0, CRAWL_DELAY_CAP_MS),
  );
  const pace = 1000 / intervalMs;
  const perRequestMs = perRequestMsOf(sources, conditions.latencyMs);
  const runLimit = runLimitOf(intervalMs, perRequestMs);
  // A server slower than the pace caps what the runs can use: runLimit requests per answer time.
  const usable = perRequestMs > intervalMs ? Math.min(pace, (runLimit * 1000) / perRequestMs) : pace;
  const other = Math.min(Math.max(0, conditions.otherRequestsPerSecond ?? 0), usable * MAX_OTHER_FETCH_SHARE);
  const capacity = usable - other;
  const stretch = stretchOf(sources, capacity);
  const demand = demandAt(sources, stretch);
  const utilisation = demand / capacity;
  const paused = conditions.pausedUntilMs !== undefined && conditions.pausedUntilMs > nowMs;
  const model: HostModel = {
    host,
    sourceIds: sources.map((s) => s.sourceId).sort(),
    intervalMs,
    paceRequestsPerSecond: pace,
    otherRequestsPerSecond: other,
    capacity,
    demand,
    utilisation,
    stretch,
    runLimit: paused ? 0 : runLimit,
    incrementalSlots: Math.min(
      paused ? 0 : runLimit,
      incrementalSlotsOf(sources, intervalMs, perRequestMs, stretch),
    ),
    secondsPerRunRequest: Math.max(intervalMs, perRequestMs) / 1000,
  };
  if (paused) model.pausedUntil = new Date(conditions.pausedUntilMs as number).toISOString();
  return model;
}

/**
 * RATE-9 with SCH-3 (pure): a source on a host stretched by `stretch` syncs once where its unstretched
 * self would have synced `stretch` times, so its quiet streak of n stretched syncs stands for n × stretch
 * of its own cycles — and its quiet doubling follows the wall time its own cadence would have taken.
 * Counted in stretched syncs instead, a quiet source stayed at short intervals `stretch` times longer
 * than its cadence alone and took more than its share (fleet bench, a week at 1,000 sources: a quiet
 * council 13 syncs of a fair 8.3 on one Thursday, a session-day one 20 of 23.9). The streak unchanged
 * on a host with capacity (SCH-3 as published).
 */
export function ownQuietStreak(quietStreak: number, stretch: number): number {
  return stretch <= 1 ? quietStreak : Math.floor(quietStreak * stretch);
}

/** The interval a source's own cadence asks on a host stretched by `stretch` (SCH-3 in its own cycles). */
export function ownIntervalMinutes(
  s: Pick<HostSourceInput, 'intervalMinutes' | 'quietLadder'>,
  stretch: number,
): number {
  const ladder = s.quietLadder;
  if (stretch <= 1 || ladder === undefined || ladder.minutes.length === 0) return s.intervalMinutes;
  const doublings = Math.floor(ownQuietStreak(ladder.quietStreak, stretch) / QUIET_SYNCS_PER_DOUBLING);
  return ladder.minutes[Math.min(doublings, ladder.minutes.length - 1)] as number;
}

/** Requests per second the sources' own cadences ask on a host stretched by `stretch`. */
function demandAt(sources: readonly HostSourceInput[], stretch: number): number {
  let demand = 0;
  for (const s of sources)
    demand += s.expectedIncrementalRequests / (Math.max(1, ownIntervalMinutes(s, stretch)) * 60);
  return demand;
}

/** Halvings of the search for the stretch: (first guess − 1) ÷ 2^16, far below the 0.01 status shows. */
const STRETCH_SEARCH_STEPS = 16;

/**
 * RATE-9's factor, pure: the least F ≥ 1 with demandAt(F) ≤ F × capacity. The demand falls as F grows
 * (quiet streaks count more own cycles, `ownQuietStreak`), so F lies between 1 and the factor of the
 * streaks as counted (demandAt(1) ÷ capacity) — found by halving. Without quiet streaks F is that
 * first factor, as before.
 */
function stretchOf(sources: readonly HostSourceInput[], capacity: number): number {
  const first = demandAt(sources, 1) / capacity;
  if (first <= 1 || !sources.some((s) => s.quietLadder !== undefined)) return Math.max(1, first);
  let lo = 1;
  let hi = first;
  for (let i = 0; i < STRETCH_SEARCH_STEPS; i += 1) {
    const mid = (lo + hi) / 2;
    if (demandAt(sources, mid) <= mid * capacity) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * FULL-3, SCH-5: the slots the sources' incremental runs hold on average (Little's law: runs per second ×
 * how long each holds its slot). A run holds it for its requests × the time one takes (the pace or the
 * server's answer, whichever is slower) — and a freed slot is handed on only at the next planner tick, so
 * a short run holds it one tick, a longer one half a tick more on average.
 */
function incrementalSlotsOf(
  sources: readonly HostSourceInput[],
  intervalMs: number,
  perRequestMs: number,
  stretch: number,
): number {
  const perRequestSeconds = Math.max(intervalMs, perRequestMs) / 1000;
  let slots = 0;
  for (const s of sources) {
    const runSeconds = s.expectedIncrementalRequests * perRequestSeconds;
    const holdSeconds = Math.max(PLANNER_TICK_SECONDS, runSeconds + PLANNER_TICK_SECONDS / 2);
    slots += holdSeconds / (Math.max(1, ownIntervalMinutes(s, stretch)) * 60);
  }
  return slots;
}

/**
 * RATE-4 and the pace: one run sends its requests one after another, so one run keeps a host busy unless
 * the server answers slower than the host's interval; then a second run fills the gaps (never more than
 * RATE-4's two in flight). Server latency is learnt from the sources' runs (seconds per request above
 * the interval); unknown latency counts as fast — one run.
 */
function runLimitOf(intervalMs: number, perRequestMs: number): number {
  // A pace-bound run measures a little over the interval (parsing, storing, the send allowance); only a
  // run clearly slower than the pace leaves room for a second one.
  return perRequestMs >= intervalMs * SECOND_RUN_FROM ? MAX_RUNS_PER_HOST : 1;
}

/**
 * The time one request of a run takes, ms: the server latency when measured, else learnt — the fastest
 * source's seconds per request (a run that shared the host waited for the others' slots too, which says
 * nothing about the server; any excess only makes the model slower, never faster). 0 when unknown.
 */
function perRequestMsOf(sources: readonly HostSourceInput[], latencyMs?: number): number {
  if (latencyMs !== undefined) return latencyMs;
  const known = sources.map((s) => s.secondsPerRequest).filter((x): x is number => x !== undefined);
  return known.length === 0 ? 0 : Math.min(...known) * 1000;
}

/** "host saturated: needs 2.3 requests/s of 1; intervals × 2.3" — the RATE-9 sentence for status. */
export function saturationText(
  model: Pick<HostModel, 'host' | 'demand' | 'capacity' | 'stretch' | 'fullSyncShare'>,
): string {
  const full =
    model.fullSyncShare === undefined
      ? ''
      : `, full syncs take ${Math.round(model.fullSyncShare * 100)} % of its time tonight (FULL-3)`;
  return `host ${model.host} saturated: needs ${round(model.demand)} requests/s of ${round(model.capacity)}${full}; intervals × ${round(model.stretch)} (RATE-9)`;
}

export function round(x: number): number {
  return Math.round(x * 100) / 100;
}
