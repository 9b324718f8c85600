import { byUrgency, type SourceDecision, type SyncKind, type SyncTrigger } from '../schedule';
import { hostKey } from '../util';
import type { Admission, WaitingRun } from './admission';
import { DEFAULT_EXPECTED_REQUESTS } from './constants';

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

export interface Lane {
  /** The RATE-2 host key all entries share. */
  host: string;
  /**
   * The planner tick that built the lane. An entry runs only while its source's stored due time is no
   * later than this: a source that ran (or was decided again) since has a later due time — stale.
   */
  plannedAt: string;
  entries: LaneEntry[];
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
    if (!waitingByHost.has(key)) continue;
    const heads = headsByHost.get(key);
    if (heads) heads.push(d);
    else headsByHost.set(key, [d]);
  }
  const lanes = new Map<string, Lane>();
  for (const [host, heads] of headsByHost) {
    const queue = (waitingByHost.get(host) ?? []).map((w) => w.decision).sort(byUrgency);
    const built = heads.map((head) => ({
      head,
      lane: { host, plannedAt: nowIso, entries: [] as LaneEntry[] },
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
    for (const { head, lane } of built) if (lane.entries.length > 0) lanes.set(head.sourceId, lane);
  }
  return lanes;
}
