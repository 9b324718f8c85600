import {
  admitRuns,
  type DueRun,
  decideOnHost,
  expectedRequests,
  type FullSyncCandidate,
  fallbackDueMs,
  fullSyncSlotsFor,
  type HostConditions,
  type HostModel,
  type HostSourceInput,
  hostKeyOf as hostKey,
  hostModelOf,
  hostSourceInputOf,
  hostStateView,
  isSaturated,
  planHostFullSyncs,
  type RunningRun,
  withFullSyncShare,
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
  // Per host key its sources' model inputs, in the fleet's order, each source at a fixed place: a run's
  // end replaces one entry in place (the model is rebuilt from the host's list, as before, without a
  // list built per rebuild — at 10,000 sources a run ends every few simulated seconds).
  const inputsOf = new Map<string, (HostSourceInput | undefined)[]>();
  // RATE-2's key and the place in its host's list per source (fleet index), computed once (the tick
  // asks the key of every waiting and running run).
  const keyByIndex: string[] = [];
  const placeByIndex: number[] = [];
  const keyOf = (view: SimSourceView) => keyByIndex[view.fleet.index] as string;
  for (const s of fleet.sources) {
    const key = hostKey(s.host);
    keyByIndex[s.index] = key;
    const list = inputsOf.get(key);
    placeByIndex[s.index] = list ? list.length : 0;
    if (list) list.push(undefined);
    else inputsOf.set(key, [undefined]);
  }
  const inputOfSource = (view: SimSourceView) =>
    (inputsOf.get(keyOf(view)) as (HostSourceInput | undefined)[])[placeByIndex[view.fleet.index] as number];
  const setInput = (view: SimSourceView, input: HostSourceInput) => {
    (inputsOf.get(keyOf(view)) as (HostSourceInput | undefined)[])[placeByIndex[view.fleet.index] as number] =
      input;
  };
  const models = new Map<string, HostModel>();
  const dirty = new Set<string>(inputsOf.keys());
  let inputsHour = Number.NaN;
  let allInputsStale = true;
  const views: SimSourceView[] = [];
  let slotsNeeded = 0;
  // RATE-9: each host's full-sync share as the last admission planned it (its lanes carry it).
  const fullShares = new Map<string, number>();
  // RATE-9 with FULL-3: the host's model with that share counted in a saturated host's factor, as the
  // planner decides with it (`withFullSyncShare`; here the share of the last admission, ≤ one tick old).
  const modelFor = (key: string): HostModel | undefined => {
    const model = models.get(key);
    return model === undefined ? undefined : withFullSyncShare(model, fullShares.get(key));
  };

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
      for (const view of views) setInput(view, inputOf(view, nowIso));
      for (const key of inputsOf.keys()) dirty.add(key);
      allInputsStale = false;
    }
    for (const key of dirty) {
      const all = inputsOf.get(key) ?? [];
      // Every source of the fleet is registered before the first tick: the list is complete then.
      const list = all.includes(undefined)
        ? all.filter((x): x is HostSourceInput => x !== undefined)
        : (all as HostSourceInput[]);
      if (list.length > 0) models.set(key, hostModelOf(key, list, conditions.get(key) ?? {}, nowMs));
    }
    dirty.clear();
  };

  return {
    register(view) {
      views.push(view);
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
        model: modelFor(keyOf(view)),
        decided: decision,
      });
    },
    stretchOf(view) {
      return modelFor(keyOf(view))?.stretch ?? 1;
    },
    fallbackDueMs(view, decision) {
      const stretch = modelFor(keyOf(view))?.stretch ?? 1;
      return fallbackDueMs(decision, { state: view.state, own: { config: view.config, settings }, stretch });
    },
    fullShareOf(view) {
      return fullShares.get(keyOf(view));
    },
    modelOf(key) {
      return modelFor(key);
    },
    saturatedHosts() {
      let n = 0;
      for (const model of models.values()) if (isSaturated(model)) n += 1;
      return n;
    },
    runEnded(view, nowIso) {
      setInput(view, inputOf(view, nowIso));
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
      // The due runs apart by kind, each in the order `admitRuns` sorts that kind by (fulls: FULL-3's;
      // incrementals: SCH-5's), so that its sorts are one pass each (see `inFullSyncOrder`).
      const dueFulls: WaitingFull[] = [];
      const dueIncrementals: DueRun[] = [];
      for (const w of tick.waiting) {
        const key = keyOf(w.source);
        if (!hasRoom(key)) continue;
        const run: DueRun = {
          decision: w.decision,
          host: w.source.fleet.host,
          sessionDay: inputOfSource(w.source)?.sessionDay === true,
        };
        if (w.decision.kind !== undefined && w.decision.kind !== 'incremental') {
          dueFulls.push({ run, state: w.source.state, kind: w.decision.kind });
        } else dueIncrementals.push(run);
      }
      // A host whose runs the planner looks at (room) with no full sync due has no share tonight any more.
      if (fullShares.size > 0) {
        const withFulls = new Set(dueFulls.map((f) => hostKey(f.run.host)));
        for (const key of [...fullShares.keys()])
          if (hasRoom(key) && !withFulls.has(key)) fullShares.delete(key);
      }
      if (dueFulls.length === 0 && dueIncrementals.length === 0) return [];
      const fulls = inFullSyncOrder(dueFulls);
      const fullCandidates: FullSyncCandidate[] = [];
      for (const f of fulls) {
        if (f.run.decision.trigger === 'manual') continue;
        fullCandidates.push({
          decision: f.run.decision,
          host: f.run.host,
          expectedRequests: expectedRequests(f.state, f.kind),
        });
      }
      const plans =
        fullCandidates.length === 0
          ? undefined
          : planHostFullSyncs(fullCandidates, {
              hosts: models,
              nowMs: tick.nowMs,
              defaultWindowEndMs: tick.nowMs + FULL_SYNC_DEFAULT_WINDOW_HOURS * 3_600_000,
              runningRequests: runningFullRequests,
            });
      for (const [key, plan] of plans?.byHost ?? []) {
        if (plan.share === undefined) fullShares.delete(key);
        else fullShares.set(key, plan.share);
      }
      // SCH-5's slot-sizing signal, as the planner computes it (`FullSyncSlots.needed`).
      const needed = fullSyncSlotsFor(models, settings, plans?.slotsNeeded).needed;
      if (needed > slotsNeeded) slotsNeeded = needed;
      // With every slot taken `admitRuns` starts nothing (SCH-5): only the figure above is asked.
      if (tick.running.length >= settings.maxConcurrentSyncs) return [];
      const running: RunningRun[] = tick.running.map((r) => ({
        sourceId: r.source.fleet.sourceId,
        host: r.source.fleet.host,
        kind: r.kind,
      }));
      const due = fulls.map((f) => f.run);
      for (const d of inUrgencyOrder(dueIncrementals)) due.push(d);
      return admitRuns({
        due,
        running,
        hosts: models,
        settings,
        ...(plans ? { fullSyncBehind: plans.behind, fullSyncSlotsNeeded: plans.slotsNeeded } : {}),
      }).start;
    },
  };
}

/** A due full sync (or sliced part) with what its expected requests are learnt from. */
interface WaitingFull {
  run: DueRun;
  state: SimSourceView['state'];
  kind: 'full' | 'sliced';
}

/**
 * The due fulls in FULL-3's order (`byOldestFullSync`: the oldest last full sync, then the id — a
 * total order), each key read once: `planHostFullSyncs` and `admitRuns` sort them again by the same
 * comparator, which on a sorted list is one pass. At 10,000 sources thousands of fulls wait at night
 * and the sorts' instant parses per comparison were a fifth of the bench's CPU; the order, and so the
 * plan and the admission, is the same (both sorts are total orders: what they get first does not matter).
 */
function inFullSyncOrder(fulls: readonly WaitingFull[]): WaitingFull[] {
  const keyed = fulls.map((f) => ({
    f,
    at:
      f.run.decision.lastFullSyncAt === undefined
        ? Number.NEGATIVE_INFINITY
        : msOf(f.run.decision.lastFullSyncAt),
  }));
  keyed.sort((a, b) => a.at - b.at || a.f.run.decision.sourceId.localeCompare(b.f.run.decision.sourceId));
  return keyed.map((k) => k.f);
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
