import type { SourceConfig } from '../config';
import {
  type Admission,
  admitRuns,
  decideOnHost,
  expectedRequests,
  type FullSyncPlans,
  type HostConditions,
  type HostModel,
  type HostStateView,
  hostModelsOf,
  hostSourceInputOf,
  type LanePoolEntry,
  lanePoolOf,
  ownIntervalMinutes,
  planHostFullSyncs,
  withFullSyncShare,
} from '../hosts';
import {
  FULL_SYNC_DEFAULT_WINDOW_HOURS,
  type ScheduleSettings,
  type SourceDecision,
  type SourceScheduleState,
  type SyncKind,
} from '../schedule';
import { hostKey } from '../util';

/**
 * RATE-9, pure: the planner's picture of the fleet at `now` — one model per host, each due source's
 * decision (stretched on a saturated host), tonight's full syncs per host and which runs start now.
 * The tick and `status`/`hosts` both call it, so they never disagree.
 */
export interface FleetInput {
  /** Every valid source (inactive ones are left out of the host demand). */
  sources: readonly SourceConfig[];
  /** What the host model reads of a source's state (undefined: never synced, or not known yet). */
  hostStateOf: (sourceId: string) => HostStateView | undefined;
  /** The sources to decide now, with their schedule state (lease in force applied). */
  due: readonly { source: SourceConfig; state: SourceScheduleState }[];
  /** Runs holding their lease; `source` undefined for a source no longer configured (it keeps its slot). */
  running: readonly { sourceId: string; kind: SyncKind; source: SourceConfig | undefined }[];
  now: Date;
  settings: ScheduleSettings;
  /**
   * Per host key, what the host ledger says besides its sources: RATE-8 pause, ROB-10 Crawl-delay, the
   * other fetches' share (item 5 of issue 27). Absent: none known.
   */
  conditions?: ReadonlyMap<string, HostConditions>;
}

export interface FleetCandidate {
  source: SourceConfig;
  decision: SourceDecision;
  state: SourceScheduleState;
}

export interface FleetPlan {
  /** Per host key its model; a saturated host with full syncs tonight with their share in its factor (`withFullSyncShare`). */
  hosts: Map<string, HostModel>;
  candidates: FleetCandidate[];
  fullPlans: FullSyncPlans;
  admission: Admission;
  /** Runs holding their lease, per host key. */
  runningByHost: Map<string, number>;
  /** Host lanes' re-planning (issue 27): per host key its active sources and when each is expected due. */
  lanePool: (hostKey: string) => LanePoolEntry[];
  /** RATE-9 / FULL-3: a host's full-sync share tonight, for its full lane (`HostFullSyncPlan.share`). */
  fullShareOf: (hostKey: string) => number | undefined;
}

export function planFleet(input: FleetInput): FleetPlan {
  const { now, settings } = input;
  const nowIso = now.toISOString();
  const inputs = new Map(
    input.sources
      .filter((s) => s.active)
      .map((s) => [s.sourceId, hostSourceInputOf(s, input.hostStateOf(s.sourceId), nowIso, settings)]),
  );
  // RATE-9: one model per host key — capacity, demand, stretch, how many runs it keeps busy (the window's
  // full syncs not counted yet: `withWindowShares`).
  const models = hostModelsOf([...inputs.values()], input.conditions ?? new Map(), now.getTime());

  const decided: FleetCandidate[] = input.due.map(({ source, state }) => ({
    source,
    state,
    // RATE-9: on a saturated host the cadence (SCH-3 in the source's own cycles) is stretched by the host's one factor.
    decision: decideOnHost({ source, state, now: nowIso, settings, model: models.get(hostKey(source.host)) }),
  }));

  const runningByHost = new Map<string, number>();
  const runningFullRequests = new Map<string, number>();
  for (const r of input.running) {
    if (r.source === undefined) continue;
    const key = hostKey(r.source.host);
    runningByHost.set(key, (runningByHost.get(key) ?? 0) + 1);
    if (r.kind === 'incremental') continue;
    const needs = expectedRequests(input.hostStateOf(r.sourceId), r.kind);
    runningFullRequests.set(key, (runningFullRequests.get(key) ?? 0) + needs);
  }
  // FULL-3 per host: tonight's scheduled full syncs that fit the host's window budget, oldest first.
  const fullPlans = planHostFullSyncs(
    decided
      .filter(
        (c) =>
          c.decision.action === 'sync' &&
          c.decision.kind !== 'incremental' &&
          c.decision.trigger !== 'manual',
      )
      .map((c) => ({
        decision: c.decision,
        host: c.source.host,
        expectedRequests: expectedRequests(c.state, c.decision.kind ?? 'full'),
      })),
    {
      hosts: models,
      nowMs: now.getTime(),
      defaultWindowEndMs: now.getTime() + FULL_SYNC_DEFAULT_WINDOW_HOURS * 3_600_000,
      runningRequests: runningFullRequests,
    },
  );
  const { hosts, candidates } = withWindowShares(decided, { models, fullPlans, nowIso, settings });
  // SCH-5 / FULL-3 / RATE-9: slots go to runs whose host can serve them now; a full sync without a slot
  // (or without budget on its host tonight) may come back as the incremental that is due.
  const admission = admitRuns({
    due: candidates.map((c) => ({
      decision: c.decision,
      host: c.source.host,
      sessionDay: inputs.get(c.source.sourceId)?.sessionDay === true,
    })),
    running: input.running.map((r) => ({
      sourceId: r.sourceId,
      kind: r.kind,
      ...(r.source === undefined ? {} : { host: r.source.host }),
    })),
    hosts,
    settings,
    fullSyncBehind: fullPlans.behind,
    fullSyncSlotsNeeded: fullPlans.slotsNeeded,
  });
  const dueNow = new Set(
    candidates.filter((c) => c.decision.action === 'sync').map((c) => c.source.sourceId),
  );
  const ownIntervalOf = (id: string, stretch: number) => {
    const own = inputs.get(id);
    return own === undefined ? settings.weekdayDayBaseMinutes : ownIntervalMinutes(own, stretch);
  };
  const lanePool = (key: string): LanePoolEntry[] => {
    const model = hosts.get(key);
    if (model === undefined) return [];
    return lanePoolOf(
      model.sourceIds.map((id) => {
        const lastSyncEndedAt = input.hostStateOf(id)?.lastSyncEndedAt;
        return {
          sourceId: id,
          intervalMinutes: ownIntervalOf(id, model.stretch),
          ...(lastSyncEndedAt === undefined ? {} : { lastSyncEndedAt }),
          ...(dueNow.has(id) ? { dueNow: true } : {}),
        };
      }),
      model.stretch,
    );
  };
  const fullShareOf = (key: string) => fullPlans.byHost.get(key)?.share;
  return { hosts, candidates, fullPlans, admission, runningByHost, lanePool, fullShareOf };
}

/**
 * RATE-9 with FULL-3, pure: a saturated host's factor counts its full syncs' share of its time tonight
 * (`withFullSyncShare`), and its due sources are decided again with it; other hosts keep their model and
 * their decisions.
 */
function withWindowShares(
  decided: readonly FleetCandidate[],
  at: {
    models: ReadonlyMap<string, HostModel>;
    fullPlans: FullSyncPlans;
    nowIso: string;
    settings: ScheduleSettings;
  },
): { hosts: Map<string, HostModel>; candidates: FleetCandidate[] } {
  const { models, fullPlans, nowIso, settings } = at;
  const hosts = new Map(models);
  for (const [key, plan] of fullPlans.byHost) {
    const model = models.get(key);
    if (model !== undefined) hosts.set(key, withFullSyncShare(model, plan.share));
  }
  const candidates = decided.map((c) => {
    const key = hostKey(c.source.host);
    const model = hosts.get(key);
    if (model === undefined || model === models.get(key)) return c;
    return {
      ...c,
      decision: decideOnHost({ source: c.source, state: c.state, now: nowIso, settings, model }),
    };
  });
  return { hosts, candidates };
}
