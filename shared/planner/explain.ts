import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config';
import {
  type HostConditions,
  hostStateView,
  isSaturated,
  saturationText,
  type WaitingFor,
  type WaitingRun,
} from '../hosts';
import type { ScheduleSettings, SourceDecision, SourceScheduleState, SyncKind } from '../schedule';
import { sparedUntil } from '../schedule';
import type { HostLedger } from '../slots';
import { loadAllSources, readSourceStates, type SourceStateItem } from '../store';
import { hostKey } from '../util';
import { readHostConditions } from './conditions';
import { type FleetPlan, planFleet } from './fleet';
import { scheduleStateOf } from './tick';

/**
 * What on-call looks at first: per source, whether it is active, what the planner would do now and
 * why, when it is next due, the last run and the failure streak. The same pure decision as the
 * planner's tick (`planFleet`: decision, RATE-9 stretch, per-host admission), so status never
 * disagrees with what actually happens.
 */
export interface SourceStatus {
  sourceId: string;
  valid: boolean;
  active: boolean | null;
  problems: { field: string; message: string }[];
  warnings: { field: string; message: string }[];
  action: 'sync' | 'wait' | 'skip';
  kind: string | null;
  nextDueAt: string | null;
  reason: string;
  ruleIds: string[];
  paused: { until: string; reason: string } | null;
  running: { kind: string; since: string; leaseUntil: string } | null;
  failureStreak: number;
  lastRun: Record<string, unknown> | null;
  /** RATE-2: the host key the source's pace is kept under (null for an invalid item). */
  host: string | null;
  /** RATE-9: "host saturated: needs 2.3 requests/s of 1; intervals × 2.3", when its host is. */
  hostSaturated: string | null;
  /** FULL-3 / RATE-9: why its full sync is behind tonight, when it is. */
  fullSyncBehind: string | null;
}

/** RATE-9: one host as `ingestor hosts` shows it. */
export interface HostStatus {
  host: string;
  sources: string[];
  /** Requests per second the host's pace serves, and of it what the syncs may use. */
  paceRequestsPerSecond: number;
  capacity: number;
  /** Requests per second the sources' cadence asks for (unstretched). */
  demand: number;
  utilisation: number;
  saturated: boolean;
  /** RATE-9: every source's interval on the host × this (in the full-sync window with `fullSyncShare` counted). */
  stretch: number;
  /**
   * FULL-3 / RATE-9: on a saturated host in the full-sync window, the share of its time its full syncs take
   * tonight — the reason its factor is stretch ÷ (1 − share) rather than demand ÷ capacity; null otherwise.
   */
  fullSyncShare: number | null;
  /** How many runs at once keep the host busy (RATE-4: ≤ 2; 0 while paused). */
  runLimit: number;
  running: number;
  /** The runs holding their lease on the host (who keeps it busy), by source id. */
  runningSources: { sourceId: string; kind: string }[];
  /** Due runs waiting for this host (not for a slot). */
  queuedRuns: number;
  /**
   * Every due run of the host's sources that does not start now, with what it waits for (the admission's
   * `waitingFor`: its busy or paused host, a free sync slot, tonight's full-sync budget) and why.
   */
  waiting: { sourceId: string; waitingFor: WaitingFor['kind']; reason: string }[];
  /** FULL-3: full syncs that go to a later night for lack of host capacity. */
  fullSyncBacklog: string[];
  /**
   * ERR-4/ERR-5, SCH-7: the host's sources spared by their own errors — they wait for their pause, not
   * for the host, and still count in its demand (RATE-9).
   */
  pausedSources: { sourceId: string; until: string; reason: string }[];
  /** Item 5 of issue 27: requests per second other fetches take of the pace (at most their share). */
  otherRequestsPerSecond: number;
  /** RATE-8: paused until (ISO), while a Retry-After pause is in force. */
  pausedUntil: string | null;
  /** ROB-10: the Crawl-delay in force, ms (it sets the pace when above the sources' intervals). */
  crawlDelayMs: number | null;
}

export interface FleetStatus {
  at: string;
  sources: SourceStatus[];
  hosts: HostStatus[];
  /** The host ledger could not be read (its error code): pauses and other fetches' shares are unknown. */
  hostLedgerUnavailable?: string;
}

/** Where `status` and `hosts` read the fleet: the Sources and State tables, and the host ledger if any. */
export interface FleetReadPeers {
  doc: DynamoDBDocumentClient;
  tables: { sources: string; state: string };
  hostLedger?: HostLedger | undefined;
}

export async function explainSources(
  peers: FleetReadPeers,
  settings: ScheduleSettings,
  now: Date,
): Promise<SourceStatus[]> {
  return (await explainFleet(peers, settings, now)).sources;
}

/** Sources and hosts at `now`, from one read of the Sources table and the State items. */
export async function explainFleet(
  { doc, tables, hostLedger }: FleetReadPeers,
  settings: ScheduleSettings,
  now: Date,
): Promise<FleetStatus> {
  const [{ parsed }, states, ledger] = await Promise.all([
    loadAllSources(doc, tables.sources),
    // Whole items: lease and last run are not in the planner's index (issue 28).
    readSourceStates<SourceScheduleState>({ doc, table: tables.state }),
    readHostConditions(hostLedger),
  ]);
  const stateById = new Map(states.map((s) => [s.sourceId, s]));
  const valid = parsed.flatMap((p) => (p.ok ? [p.source] : []));
  const fleet = planFleet({
    sources: valid,
    hostStateOf: (id) => {
      const schedule = stateById.get(id)?.schedule;
      return schedule === undefined ? undefined : hostStateView(schedule);
    },
    // Every valid source is decided, as if all were due: a waiting one simply stays a wait.
    due: valid.map((source) => ({ source, state: scheduleStateOf(stateById.get(source.sourceId), now) })),
    running: valid.flatMap((source) => {
      const lease = leaseOf(stateById.get(source.sourceId), now);
      return lease === undefined ? [] : [{ sourceId: source.sourceId, kind: lease, source }];
    }),
    now,
    settings,
    conditions: ledger.conditions,
  });
  const lookup: FleetLookup = {
    fleet,
    candidates: new Map(fleet.candidates.map((c) => [c.source.sourceId, c.decision])),
    started: new Map(fleet.admission.start.map((d) => [d.sourceId, d])),
    waiting: new Map(fleet.admission.waiting.map((w) => [w.sourceId, w])),
  };
  const sources = parsed.map((p): SourceStatus => {
    const item = stateById.get(p.ok ? p.source.sourceId : p.sourceId);
    if (!p.ok) {
      return {
        sourceId: p.sourceId,
        valid: false,
        active: null,
        problems: p.problems,
        warnings: [],
        action: 'skip',
        kind: null,
        nextDueAt: null,
        reason: `invalid config: ${p.problems.map((x) => `${x.field} ${x.message}`).join('; ')}`,
        ruleIds: [],
        paused: null,
        running: null,
        failureStreak: item?.schedule?.failureStreak ?? 0,
        lastRun: (item?.lastRun as Record<string, unknown> | undefined) ?? null,
        host: null,
        hostSaturated: null,
        fullSyncBehind: null,
      };
    }
    return statusOf(p, item, lookup, now);
  });
  return {
    at: now.toISOString(),
    sources,
    hosts: hostStatuses(fleet, ledger.conditions, sources),
    ...(ledger.unavailable === undefined ? {} : { hostLedgerUnavailable: ledger.unavailable }),
  };
}

function leaseOf(item: SourceStateItem<SourceScheduleState> | undefined, now: Date): SyncKind | undefined {
  if (item?.leaseUntil === undefined || item.leaseUntil <= now.toISOString()) return undefined;
  return (item.leaseKind as SyncKind | undefined) ?? 'incremental';
}

/** The fleet plan by source id. */
interface FleetLookup {
  fleet: FleetPlan;
  candidates: Map<string, SourceDecision>;
  started: Map<string, SourceDecision>;
  waiting: Map<string, WaitingRun>;
}

function statusOf(
  { source, warnings }: { source: SourceConfig; warnings: { field: string; message: string }[] },
  item: SourceStateItem<SourceScheduleState> | undefined,
  { fleet, candidates, started: startedById, waiting: waitingById }: FleetLookup,
  now: Date,
): SourceStatus {
  const state = scheduleStateOf(item, now);
  const started = startedById.get(source.sourceId);
  const waiting = waitingById.get(source.sourceId);
  // The decision as the tick would act on it: started as allocated, or waiting with admission's reason.
  let decision = started ?? (candidates.get(source.sourceId) as SourceDecision);
  if (waiting !== undefined) {
    decision = { ...waiting.decision, action: 'wait', reason: waiting.reason, ruleIds: waiting.ruleIds };
  }
  const spared = sparedUntil(state, now.toISOString());
  const host = hostKey(source.host);
  const model = fleet.hosts.get(host);
  return {
    sourceId: source.sourceId,
    valid: true,
    active: source.active,
    problems: [],
    warnings,
    action: decision.action,
    kind: decision.kind ?? null,
    nextDueAt:
      decision.action === 'sync' || waiting !== undefined ? now.toISOString() : (decision.dueAt ?? null),
    reason: decision.reason,
    ruleIds: decision.ruleIds,
    paused: spared.spared && spared.until ? { until: spared.until, reason: spared.reason } : null,
    running: state.running
      ? { kind: state.running.kind, since: state.running.startedAt, leaseUntil: state.running.leaseUntil }
      : null,
    failureStreak: state.failureStreak,
    lastRun: (item?.lastRun as Record<string, unknown> | undefined) ?? null,
    host,
    hostSaturated: source.active && model !== undefined && isSaturated(model) ? saturationText(model) : null,
    fullSyncBehind: fleet.fullPlans.behind.get(source.sourceId) ?? null,
  };
}

function hostStatuses(
  fleet: FleetPlan,
  conditions: ReadonlyMap<string, HostConditions>,
  sources: readonly SourceStatus[],
): HostStatus[] {
  const waitingByHost = groupByHost(
    fleet.admission.waiting.map((w) => ({
      host: w.host,
      row: { sourceId: w.sourceId, waitingFor: w.waitingFor.kind, reason: w.reason },
    })),
  );
  // `hosts` names every source of a host that is not idle: the runs holding it and those spared by errors.
  const runningByHost = groupByHost(
    sources.flatMap((s) =>
      s.host === null || s.running === null
        ? []
        : [{ host: s.host, row: { sourceId: s.sourceId, kind: s.running.kind } }],
    ),
  );
  const pausedByHost = groupByHost(
    sources.flatMap((s) =>
      s.host === null || s.paused === null || !s.active
        ? []
        : [{ host: s.host, row: { sourceId: s.sourceId, until: s.paused.until, reason: s.paused.reason } }],
    ),
  );
  return [...fleet.hosts.values()]
    .map((m) => ({
      host: m.host,
      sources: m.sourceIds,
      paceRequestsPerSecond: m.paceRequestsPerSecond,
      capacity: m.capacity,
      demand: m.demand,
      utilisation: m.utilisation,
      saturated: isSaturated(m),
      stretch: m.stretch,
      fullSyncShare: m.fullSyncShare ?? null,
      runLimit: m.runLimit,
      running: fleet.runningByHost.get(m.host) ?? 0,
      runningSources: runningByHost.get(m.host) ?? [],
      queuedRuns: fleet.admission.queuedByHost.get(m.host) ?? 0,
      waiting: waitingByHost.get(m.host) ?? [],
      fullSyncBacklog: fleet.fullPlans.byHost.get(m.host)?.nextNight ?? [],
      pausedSources: pausedByHost.get(m.host) ?? [],
      otherRequestsPerSecond: m.otherRequestsPerSecond,
      pausedUntil: m.pausedUntil ?? null,
      crawlDelayMs: conditions.get(m.host)?.crawlDelayMs ?? null,
    }))
    .sort((a, b) => b.utilisation - a.utilisation || a.host.localeCompare(b.host));
}

/** Rows per host key, each list by source id. */
function groupByHost<T extends { sourceId: string }>(
  rows: readonly { host: string; row: T }[],
): Map<string, T[]> {
  const byHost = new Map<string, T[]>();
  for (const { host, row } of rows) {
    const list = byHost.get(host) ?? [];
    list.push(row);
    byHost.set(host, list);
  }
  for (const list of byHost.values()) list.sort((a, b) => a.sourceId.localeCompare(b.sourceId));
  return byHost;
}
