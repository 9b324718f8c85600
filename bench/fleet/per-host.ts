import {
  admitRuns,
  type DueRun,
  decideOnHost,
  expectedRequests,
  type FullSyncCandidate,
  fullSyncSlotsFor,
  type HostConditions,
  type HostModel,
  type HostSourceInput,
  hostKeyOf as hostKey,
  hostModelOf,
  hostSourceInputOf,
  hostStateView,
  planHostFullSyncs,
  type RunningRun,
} from '../../shared/hosts';
import {
  FULL_SYNC_DEFAULT_WINDOW_HOURS,
  localHourOf,
  msOf,
  type ScheduleSettings,
} from '../../shared/schedule';
import type { Fleet } from './model';
import type { PerHostAdmission, SimSourceView, TickView } from './types';

/**
 * The per-host allocation (issue 27, RATE-9) as the planner makes it, from `shared/hosts`' pure API:
 * the host model per host (`hostModelOf` over `hostSourceInputOf`: pace, Crawl-delay, demand learnt
 * from the sources' recent runs), a fresh decision stretched on a saturated host (`decideOnHost`),
 * tonight's full syncs fitted into each host's window budget (`planHostFullSyncs`, FULL-3 oldest first)
 * and the slots admitted per host (`admitRuns`: SCH-5, RATE-4, no head-of-line blocking).
 *
 * The planner does not know the bench's latencies: the models learn from what the runs report
 * (`requests` in the outcome → `recentRuns`). A source's demand is recomputed when its run ends and
 * when a period or day begins (00:00, 07:00, 19:00) — the instants its interval may change.
 *
 * One shortcut, result-preserving: due runs whose host has no room at the tick's start are not handed
 * to `admitRuns` (it would only mark them blocked — a host's room only shrinks during a pass), nor are
 * their full-sync candidates (the window budget is per host).
 */
export function perHostAdmission(fleet: Fleet, settings: ScheduleSettings): PerHostAdmission {
  // As the planner's tick: no host conditions known to it (Crawl-delay, pauses and other fetches are
  // not fed to its model yet) — the simulated hosts still enforce their Crawl-delay.
  const conditions = new Map<string, HostConditions>();
  const sourcesOf = new Map<string, string[]>();
  // RATE-2's key per source, computed once (the tick asks it of every waiting and running run).
  const keyBySource = new Map<string, string>();
  const keyOf = (view: SimSourceView) => keyBySource.get(view.fleet.sourceId) as string;
  for (const s of fleet.sources) {
    const key = hostKey(s.host);
    keyBySource.set(s.sourceId, key);
    const list = sourcesOf.get(key);
    if (list) list.push(s.sourceId);
    else sourcesOf.set(key, [s.sourceId]);
  }
  const inputs = new Map<string, HostSourceInput>();
  const models = new Map<string, HostModel>();
  const dirty = new Set<string>(sourcesOf.keys());
  let inputsHour = Number.NaN;
  let allInputsStale = true;
  const views = new Map<string, SimSourceView>();
  let slotsNeeded = 0;

  const inputOf = (view: SimSourceView, nowIso: string) =>
    hostSourceInputOf(
      {
        sourceId: view.fleet.sourceId,
        host: view.fleet.host,
        requestIntervalSeconds: view.fleet.requestIntervalSeconds,
        cadenceMinutes: {},
      },
      hostStateView(view.state),
      nowIso,
      settings,
    );

  const refresh = (nowMs: number, nowIso: string) => {
    // A period or a day begins: every source's interval may change.
    // The wall-clock hour from the calendar's arithmetic: `toBerlin` parsed every lane step's instant.
    const hour = localHourOf(nowMs);
    if (hour !== inputsHour) {
      if (hour === 0 || hour === 7 || hour === 19 || Number.isNaN(inputsHour)) allInputsStale = true;
      inputsHour = hour;
    }
    if (allInputsStale) {
      for (const view of views.values()) inputs.set(view.fleet.sourceId, inputOf(view, nowIso));
      for (const key of sourcesOf.keys()) dirty.add(key);
      allInputsStale = false;
    }
    for (const key of dirty) {
      const list = (sourcesOf.get(key) ?? [])
        .map((id) => inputs.get(id))
        .filter((x): x is HostSourceInput => x !== undefined);
      if (list.length > 0) models.set(key, hostModelOf(key, list, conditions.get(key) ?? {}, nowMs));
    }
    dirty.clear();
  };

  return {
    register(view) {
      views.set(view.fleet.sourceId, view);
    },
    adjust(view, decision, nowIso) {
      refresh(msOf(nowIso), nowIso);
      // RATE-9: decided on the source's own cycles (SCH-3) and stretched; the sim's decision reused when
      // the host has capacity (`decideOnHost`).
      return decideOnHost({
        source: view.config,
        state: view.state,
        now: nowIso,
        settings,
        model: models.get(keyOf(view)),
        decided: decision,
      });
    },
    stretchOf(view) {
      return models.get(keyOf(view))?.stretch ?? 1;
    },
    runEnded(view, nowIso) {
      inputs.set(view.fleet.sourceId, inputOf(view, nowIso));
      dirty.add(keyOf(view));
    },
    slotsNeeded() {
      return slotsNeeded;
    },
    resetSlotsNeeded() {
      slotsNeeded = 0;
    },
    starts(tick: TickView) {
      refresh(tick.nowMs, tick.nowIso);
      const running: RunningRun[] = tick.running.map((r) => ({
        sourceId: r.source.fleet.sourceId,
        host: r.source.fleet.host,
        kind: r.kind,
      }));
      const inFlight = new Map<string, number>();
      const runningFullRequests = new Map<string, number>();
      for (const r of tick.running) {
        const key = keyOf(r.source);
        inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
        if (r.kind !== 'incremental') {
          runningFullRequests.set(
            key,
            (runningFullRequests.get(key) ?? 0) + expectedRequests(r.source.state, r.kind),
          );
        }
      }
      const hasRoom = (key: string) => (inFlight.get(key) ?? 0) < (models.get(key)?.runLimit ?? 1);
      const due: DueRun[] = [];
      const fullCandidates: FullSyncCandidate[] = [];
      for (const w of tick.waiting) {
        const key = keyOf(w.source);
        if (!hasRoom(key)) continue;
        due.push({
          decision: w.decision,
          host: w.source.fleet.host,
          sessionDay: inputs.get(w.source.fleet.sourceId)?.sessionDay === true,
        });
        if (
          w.decision.kind !== undefined &&
          w.decision.kind !== 'incremental' &&
          w.decision.trigger !== 'manual'
        ) {
          fullCandidates.push({
            decision: w.decision,
            host: w.source.fleet.host,
            expectedRequests: expectedRequests(w.source.state, w.decision.kind),
          });
        }
      }
      if (due.length === 0) return [];
      const plans =
        fullCandidates.length === 0
          ? undefined
          : planHostFullSyncs(inFullSyncOrder(fullCandidates), {
              hosts: models,
              nowMs: tick.nowMs,
              defaultWindowEndMs: tick.nowMs + FULL_SYNC_DEFAULT_WINDOW_HOURS * 3_600_000,
              runningRequests: runningFullRequests,
            });
      // SCH-5's slot-sizing signal, as the planner computes it (`FullSyncSlots.needed`).
      const needed = fullSyncSlotsFor(models, settings, plans?.slotsNeeded).needed;
      if (needed > slotsNeeded) slotsNeeded = needed;
      // With every slot taken `admitRuns` starts nothing (SCH-5): only the figure above is asked.
      if (running.length >= settings.maxConcurrentSyncs) return [];
      return admitRuns({
        due: inUrgencyOrder(due),
        running,
        hosts: models,
        settings,
        ...(plans ? { fullSyncBehind: plans.behind, fullSyncSlotsNeeded: plans.slotsNeeded } : {}),
      }).start;
    },
  };
}

/**
 * The candidates in FULL-3's order (`byOldestFullSync`: the oldest last full sync, then the id — a
 * total order), each key read once: `planHostFullSyncs` sorts them again by the same comparator, which
 * on a sorted list is one pass. At 10,000 sources thousands of fulls wait at night and the sort's
 * instant parses per comparison were a fifth of the bench's CPU; the order, and so the plan, is the same.
 */
function inFullSyncOrder(candidates: readonly FullSyncCandidate[]): FullSyncCandidate[] {
  const keyed = candidates.map((c) => ({
    c,
    at: c.decision.lastFullSyncAt === undefined ? Number.NEGATIVE_INFINITY : msOf(c.decision.lastFullSyncAt),
  }));
  keyed.sort((a, b) => a.at - b.at || a.c.decision.sourceId.localeCompare(b.c.decision.sourceId));
  return keyed.map((k) => k.c);
}

/**
 * The due runs in SCH-5's order (`byUrgency`: manual first, then the longest overdue, then the id — a
 * total order), each key read once, for the same reason: `admitRuns` sorts its incrementals by it.
 */
function inUrgencyOrder(due: readonly DueRun[]): DueRun[] {
  const keyed = due.map((d) => ({
    d,
    manual: d.decision.trigger === 'manual' ? 1 : 0,
    at: d.decision.dueAt === undefined ? Number.POSITIVE_INFINITY : msOf(d.decision.dueAt),
  }));
  keyed.sort(
    (a, b) =>
      b.manual - a.manual || a.at - b.at || a.d.decision.sourceId.localeCompare(b.d.decision.sourceId),
  );
  return keyed.map((k) => k.d);
}
