import {
  byOldestFullSync,
  type ScheduleSettings,
  SLOTS_KEPT_FOR_INCREMENTAL,
  type SourceDecision,
} from '../schedule';
import { INCREMENTAL_SLOT_HEADROOM, MAX_SATURATED_FULL_SYNC_SHARE, MIN_FULL_SYNC_SLOTS } from './constants';
import { hostKeyOf as hostKey } from './key';
import { type HostModel, round } from './model';

/**
 * FULL-3 per host, RATE-9, pure: a host's full-sync window has a request budget — the window's seconds
 * left × (capacity − the incremental demand meanwhile) — minus what the full syncs already running on it
 * still need. The due full syncs are fitted oldest first (FULL-3's order); those that do not fit go to
 * the next night, and status says why.
 */

export interface FullSyncCandidate {
  decision: SourceDecision;
  host: string;
  /** `expectedRequests(state, kind)`. */
  expectedRequests: number;
}

export interface HostFullSyncPlan {
  host: string;
  /** Requests the rest of tonight's window holds for full syncs. */
  budget: number;
  /** Source ids whose full sync fits tonight, oldest first. */
  tonight: string[];
  /** Source ids whose full sync goes to the next night, oldest first. */
  nextNight: string[];
  /** Slots tonight's full syncs on this host need until the window ends (see `FullSyncPlans`). */
  slotsNeeded: number;
  /**
   * RATE-9 with FULL-3 (`fullSyncShareOf`): the share of the host's time its full syncs take,
   * interleaved with the incremental syncs (`nextFullTurnMs`) — on a saturated host both slowed by one
   * factor, on a host with capacity never more than its spare (the incrementals keep their cadence).
   */
  share?: number;
}

export interface FullSyncPlans {
  byHost: Map<string, HostFullSyncPlan>;
  /** Source id → the reason its full sync is behind (for `admitRuns`' `fullSyncBehind`). */
  behind: Map<string, string>;
  /**
   * FULL-3: the sync slots tonight's full syncs (those that fit, and those running) need to end within
   * the window — per host their requests × seconds per request ÷ the window's seconds left, at most the
   * runs the host keeps busy (for `admitRuns`' `fullSyncSlotsNeeded`).
   */
  slotsNeeded: number;
}

/** The night full syncs are planned into: the hosts' models, now, and what already runs. */
export interface FullSyncNight {
  hosts: ReadonlyMap<string, HostModel>;
  nowMs: number;
  /** Where a decision's window ends when it has no `deadline` of its own (FULL-4/FULL-6). */
  defaultWindowEndMs: number;
  /** Per host key: the requests running full syncs still need (none when absent). */
  runningRequests?: ReadonlyMap<string, number>;
}

/**
 * `windowEndMs` per decision: the decision's `deadline` (FULL-4/FULL-6) or, without one,
 * `defaultWindowEndMs`. `runningRequests` per host key: what running full syncs still need.
 */
export function planHostFullSyncs(
  candidates: readonly FullSyncCandidate[],
  night: FullSyncNight,
): FullSyncPlans {
  const { hosts, nowMs, defaultWindowEndMs, runningRequests = new Map<string, number>() } = night;
  const byHost = new Map<string, HostFullSyncPlan>();
  const behind = new Map<string, string>();
  const sorted = [...candidates]
    .map((c) => ({ ...c, host: hostKey(c.host) }))
    .sort((a, b) => byOldestFullSync(a.decision, b.decision));
  const spent = new Map<string, number>();
  for (const c of sorted) {
    const model = hosts.get(c.host);
    const endMs = c.decision.deadline !== undefined ? Date.parse(c.decision.deadline) : defaultWindowEndMs;
    const seconds = Math.max(0, (endMs - nowMs) / 1000);
    const spare = model === undefined ? Number.POSITIVE_INFINITY : Math.max(0, model.capacity - model.demand);
    const budget = seconds * spare - (runningRequests.get(c.host) ?? 0);
    let plan = byHost.get(c.host);
    if (plan === undefined) {
      plan = { host: c.host, budget: Math.max(0, budget), tonight: [], nextNight: [], slotsNeeded: 0 };
      byHost.set(c.host, plan);
    }
    const used = spent.get(c.host) ?? 0;
    // While none runs on the host, its oldest full sync always gets its chance (never starved, even on
    // a saturated host); it may finish on a later night as FULL-4/FULL-6 allow. One that runs already
    // had it: the next waits for budget — on a saturated host, for its turn in the host's lane, which
    // gives the full syncs their share of the host's time (`share`), not all of it.
    const firstChance = plan.tonight.length === 0 && (runningRequests.get(c.host) ?? 0) === 0;
    if (firstChance || used + c.expectedRequests <= budget) {
      plan.tonight.push(c.decision.sourceId);
      spent.set(c.host, used + c.expectedRequests);
      // What tonight's fitted full syncs (and the running ones) hold of the slots until the window ends.
      const requests = used + c.expectedRequests + (runningRequests.get(c.host) ?? 0);
      const perRequest = model?.secondsPerRunRequest ?? 1;
      plan.slotsNeeded = Math.min(model?.runLimit ?? 1, (requests * perRequest) / Math.max(1, seconds));
      continue;
    }
    plan.nextNight.push(c.decision.sourceId);
    behind.set(
      c.decision.sourceId,
      `full sync behind: host capacity — host ${c.host}'s window holds ~${Math.round(Math.max(0, budget))} requests for full syncs, the ${plan.tonight.length} older ones need ${Math.round(used)} and this one ~${Math.round(c.expectedRequests)}; next night, oldest first (FULL-3, RATE-9; spare ${round(spare)} requests/s)`,
    );
  }
  fullSyncShares(byHost, sorted, night);
  for (const [host, plan] of byHost) {
    if (plan.share === undefined) continue;
    for (const id of plan.nextNight)
      behind.set(id, `${behind.get(id)}; ${fullSyncShareText(host, plan.share, hosts.get(host))}`);
  }
  let slotsNeeded = 0;
  for (const plan of byHost.values()) slotsNeeded += plan.slotsNeeded;
  for (const [host, requests] of runningRequests) {
    if (byHost.has(host)) continue;
    const model = hosts.get(host);
    const seconds = Math.max(1, (defaultWindowEndMs - nowMs) / 1000);
    slotsNeeded += Math.min(model?.runLimit ?? 1, (requests * (model?.secondsPerRunRequest ?? 1)) / seconds);
  }
  return { byHost, behind, slotsNeeded };
}

/**
 * RATE-9 with FULL-3, pure: the share of a host's time its full syncs take while the window is open,
 * interleaved with the incremental syncs (`nextFullTurnMs`) so that neither demand starves the other.
 * Both are demand on one pace; the full syncs' part is what their requests are of all the requests asked
 * of the host until the window ends — tonight's full syncs (due and running) ÷ (those + the window's
 * seconds × the incremental demand) — so that on a saturated host both are slowed by one factor, the
 * full syncs' part at most `MAX_SATURATED_FULL_SYNC_SHARE` (the rest go to later nights, oldest first).
 * On a host with capacity (demand < capacity) FULL-3 promises more: the incremental syncs keep their
 * normal cadence while full syncs run, so the full syncs never take more than the spare less the
 * incrementals' headroom (1 − demand × `INCREMENTAL_SLOT_HEADROOM` ÷ capacity). Without that cap a host with capacity had no share at all, and its full syncs ran back to
 * back as long as the window's budget held one more — the incremental syncs of the hosting centres then
 * waited the whole window (fleet bench, a week at 1,000 sources: 236 sources up to 505 min past their
 * turn at factor 1, SourceStarved ≈ 95 h a month). Undefined when no full sync is asked.
 */
export function fullSyncShareOf(input: {
  /** Requests of the host's full syncs tonight: due ones and what the running ones still need. */
  fullRequests: number;
  /** Seconds left in the window. */
  windowSeconds: number;
  model: Pick<HostModel, 'demand' | 'capacity'>;
}): number | undefined {
  const { fullRequests, windowSeconds, model } = input;
  if (!(fullRequests > 0)) return undefined;
  const incremental = Math.max(0, windowSeconds) * model.demand;
  const asked = fullRequests / (fullRequests + incremental);
  if (model.demand >= model.capacity) return Math.min(asked, MAX_SATURATED_FULL_SYNC_SHARE);
  // Nearly saturated (the headroom leaves nothing): the bare spare, so the full syncs keep a turn.
  const spare = 1 - (model.demand * INCREMENTAL_SLOT_HEADROOM) / model.capacity;
  return Math.min(asked, spare > 0 ? spare : 1 - model.demand / model.capacity);
}

/**
 * RATE-9 with FULL-3, pure: the factor a saturated host's incremental syncs are slowed by while its full
 * syncs take `share` of its time (`fullSyncShareOf`) — its stretch ÷ (1 − share): the incrementals get
 * the rest of the pace, so their turns come that much later, and the host's one factor says so (the lane's
 * fair order, `status` and the SourceStarved alarm measure against it). Counted at the host's bare stretch,
 * the window's full syncs made every due source look starved (fleet bench, a week at 1,000 sources: the
 * two hosting centres at factor 2.5 with a 50 % share, sources 250–270 min past that turn). A host with
 * capacity keeps its stretch: there the share is capped at the spare (FULL-3: normal cadence meanwhile).
 */
export function windowStretchOf(
  model: Pick<HostModel, 'demand' | 'capacity' | 'stretch'>,
  share: number | undefined,
): number {
  if (share === undefined || !(share > 0) || model.demand < model.capacity) return model.stretch;
  return model.stretch / (1 - Math.min(share, MAX_SATURATED_FULL_SYNC_SHARE));
}

/** The host's model with its full syncs' share tonight counted in its factor (`windowStretchOf`). */
export function withFullSyncShare(model: HostModel, share: number | undefined): HostModel {
  const stretch = windowStretchOf(model, share);
  if (stretch === model.stretch || share === undefined) return model;
  return { ...model, stretch, fullSyncShare: share };
}

/**
 * RATE-9, pure: when a host's full lane may start its next full sync after one ended — after the
 * incremental syncs had their share of the time the full sync took: duration × (1 − share) ÷ share.
 * Interleaved so, the host serves both demands at one factor all night; chained, its full syncs held
 * 97 % of the window and its councils' incremental syncs got 1–5 runs in five hours (fleet bench).
 */
export function nextFullTurnMs(ended: { endedMs: number; durationMs: number; share: number }): number {
  const { endedMs, durationMs, share } = ended;
  if (!(share > 0)) return Number.POSITIVE_INFINITY;
  if (share >= 1) return endedMs;
  return endedMs + (Math.max(0, durationMs) * (1 - share)) / share;
}

/** The status clause of a full sync that waits for its share of its host's time (RATE-9, FULL-3). */
export function fullSyncShareText(
  host: string,
  share: number,
  model?: Pick<HostModel, 'demand' | 'capacity'>,
): string {
  const percent = Math.round(share * 100);
  if (model !== undefined && model.demand < model.capacity)
    return `host ${host}: full syncs take ${percent} % of its time, interleaved with the incremental syncs, which keep their cadence (FULL-3, RATE-9)`;
  return `host ${host} saturated: full syncs take ${percent} % of its time, interleaved with the incremental syncs (RATE-9)`;
}

/** Each host's full-sync share, from tonight's candidates on it and its running full syncs. */
function fullSyncShares(
  byHost: Map<string, HostFullSyncPlan>,
  candidates: readonly FullSyncCandidate[],
  night: FullSyncNight,
): void {
  const requests = new Map<string, number>(night.runningRequests ?? []);
  for (const c of candidates) requests.set(c.host, (requests.get(c.host) ?? 0) + c.expectedRequests);
  const windowSeconds = Math.max(0, (night.defaultWindowEndMs - night.nowMs) / 1000);
  for (const [host, plan] of byHost) {
    const model = night.hosts.get(host);
    if (model === undefined) continue;
    const share = fullSyncShareOf({ fullRequests: requests.get(host) ?? 0, windowSeconds, model });
    if (share !== undefined) plan.share = share;
  }
}

export interface FullSyncSlots {
  /** Slots full syncs may hold at most (running ones included). */
  full: number;
  /** Slots kept for incremental syncs: at least FULL-3's one, more as their demand needs. */
  keptForIncrementals: number;
  /**
   * SCH-5: the slots the fleet needs now — the incremental syncs' (Little's law over every host, with
   * headroom) plus tonight's full syncs' — whole slots. Above `maxConcurrentSyncs` the slots are short
   * (`slotsShortText`): the demand shares them, and some runs start late by SCH-5, not by any host.
   */
  needed: number;
}

/**
 * FULL-3 with RATE-9's host model, pure: full syncs use at most all sync slots but those the incremental
 * syncs need — their demand over every host (`HostModel.incrementalSlots`, with headroom), at least
 * FULL-3's one. A fixed one slot starved the incrementals once the night's full syncs held the rest and
 * 07:00 made every source due (fleet bench: 562 late runs, all in the window). Full syncs keep
 * `MIN_FULL_SYNC_SLOTS`, so a busy day never stops the safety net; the host budget orders them.
 */
export function fullSyncSlotsFor(
  hosts: ReadonlyMap<string, HostModel>,
  settings: Pick<ScheduleSettings, 'maxConcurrentSyncs'>,
  fullSyncSlotsNeeded?: number,
): FullSyncSlots {
  let need = 0;
  for (const model of hosts.values()) need += model.incrementalSlots;
  const max = settings.maxConcurrentSyncs;
  let wanted = need * INCREMENTAL_SLOT_HEADROOM;
  const fullNeed = fullSyncSlotsNeeded ?? 0;
  const needed = Math.ceil(wanted + fullNeed - 1e-9);
  // Too few slots for both: each demand gets its share of them, so neither the cadence nor the night's
  // safety net is starved (RATE-9's reading: all slowed by one factor).
  if (fullNeed > 0 && wanted + fullNeed > max) wanted = (max * wanted) / (wanted + fullNeed);
  const kept = Math.max(SLOTS_KEPT_FOR_INCREMENTAL, Math.ceil(wanted - 1e-9));
  const full = Math.max(Math.min(MIN_FULL_SYNC_SLOTS, max - SLOTS_KEPT_FOR_INCREMENTAL), max - kept, 0);
  return { full, keptForIncrementals: max - full, needed };
}

/**
 * SCH-5's slot-sizing signal: "sync slots short: demand needs 71 of 64 (SCH-5)", or undefined when the
 * slots suffice. The planner writes it each tick (`SlotsShort`, status) so an operator learns to raise
 * INGESTOR_MAX_CONCURRENT_SYNCS instead of finding late runs: in the full-sync window the incremental
 * cadence and the night's full syncs together may need more slots than there are (FULL-3 shares them).
 */
export function slotsShortText(
  slots: Pick<FullSyncSlots, 'needed'>,
  maxConcurrentSyncs: number,
): string | undefined {
  if (slots.needed <= maxConcurrentSyncs) return undefined;
  return `sync slots short: demand needs ${slots.needed} of ${maxConcurrentSyncs} (SCH-5; raise INGESTOR_MAX_CONCURRENT_SYNCS)`;
}
