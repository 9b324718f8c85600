import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ParsedSource, SourceConfig } from '../config';
import {
  type HostModel,
  type HostStateView,
  hostStateView,
  isSaturated,
  lanesOf,
  slotsShortText,
} from '../hosts';
import { paceOf } from '../pace';
import type { ScheduleSettings, SourceDecision, SourceScheduleState, SyncKind } from '../schedule';
import { decisionRecord, initialScheduleState } from '../schedule';
import type { HostLedger } from '../slots';
import {
  idOf,
  listSourceStates,
  loadAllSources,
  patchSourceState,
  releaseSyncLease,
  type SourceStateItem,
  SQS_BATCH_MAX,
  SyncQueue,
  stampSourceHostKey,
} from '../store';
import { type SyncMessage, startRun } from '../sync';
import { mapLimit } from '../util';
import { readHostConditions } from './conditions';
import { type FleetCandidate, planFleet } from './fleet';
import { type Starvation, starvationOf } from './starvation';

/**
 * One planner tick: load config and state, decide per source (pure, shared/schedule), take the leases
 * of the sources that start now and send one sync message each. It never fetches from a council server.
 */
export interface PlannerDeps {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
  tables: { sources: string; state: string };
  syncQueueUrl: string;
  settings: ScheduleSettings;
  /** How long a sync lease lasts before another run may take over (an instance may die). */
  leaseMinutes: number;
  /** Kept by a warm instance between ticks; without it every tick re-reads the Sources table. */
  cache?: PlannerCache;
  sourcesTtlMs?: number;
  newRunId?: () => string;
  /**
   * RATE-8 / ROB-10 / item 5 of issue 27: the host ledger (pauses, Crawl-delays, other fetches' use),
   * read once per tick. Without it the host model knows only the sources' own intervals.
   */
  hostLedger?: HostLedger;
}

export interface PlannedSource {
  sourceId: string;
  action: 'sync' | 'wait' | 'skip';
  kind?: string;
  reason: string;
  dueAt?: string;
  started: boolean;
}

/** RATE-9: one host as this tick saw it (hosts that are saturated or have runs queued). */
export interface PlannedHost {
  host: string;
  sources: number;
  capacity: number;
  demand: number;
  utilisation: number;
  stretch: number;
  saturated: boolean;
  queuedRuns: number;
  /** Item 5: requests per second other fetches take of its pace (capped at their share). */
  otherRequestsPerSecond: number;
  /** RATE-8: paused until (ISO), when a pause is in force. */
  pausedUntil?: string;
}

export interface PlannerTickResult {
  at: string;
  sources: number;
  invalid: number;
  started: PlannedSource[];
  decisions: PlannedSource[];
  /** RATE-9: the hosts that are saturated or have runs waiting for them (for the metric and the log). */
  hosts: PlannedHost[];
  /**
   * RATE-9's "none is starved" (`starvationOf`): the due sources this tick leaves waiting long past their
   * stretched due instant — the "source starved" alarm's figure.
   */
  starvation: Starvation;
  /**
   * SCH-5's sizing signal (issue 27): "sync slots short: demand needs 71 of 64 …" when the incremental
   * cadence and tonight's full syncs need more slots than INGESTOR_MAX_CONCURRENT_SYNCS.
   */
  slotsShort?: string;
  /** SCH-5: the slots the fleet needs now (Little's law over every host plus tonight's full syncs). */
  slotsNeeded?: number;
  /** The host ledger could not be read (its error code): this tick planned without pauses and shares. */
  hostLedgerUnavailable?: string;
  /**
   * Issue 27: sources whose `hostKey` this tick wrote (missing — an item added by hand in the console —
   * or stale after a hand edit of `systemUrl`), so running host lanes find them through `byHost`.
   */
  hostKeysStamped?: string[];
}

export type StoredState = SourceStateItem<SourceScheduleState>;

/** The schedule state as the pure core sees it: the stored one plus the lease that is in force now. */
export function scheduleStateOf(item: StoredState | undefined, now: Date): SourceScheduleState {
  const schedule = item?.schedule ?? initialScheduleState();
  const leaseActive = item?.leaseUntil !== undefined && item.leaseUntil > now.toISOString();
  if (!leaseActive) {
    const { running: _stale, ...rest } = schedule;
    return rest;
  }
  return {
    ...schedule,
    running: {
      kind: (item?.leaseKind as 'incremental' | 'full' | 'sliced') ?? 'incremental',
      trigger: schedule.running?.trigger ?? 'schedule',
      startedAt: schedule.running?.startedAt ?? now.toISOString(),
      leaseUntil: item?.leaseUntil as string,
      ...(schedule.running?.windowId ? { windowId: schedule.running.windowId } : {}),
      ...(schedule.running?.deadline ? { deadline: schedule.running.deadline } : {}),
    },
  };
}

/**
 * SCH-5 / issue 28: a leased item stays due while leased (the lease moves no index key), so the due read
 * holds the running syncs too: those whose lease is in force are running, not due; a lease that has
 * expired (its run died) leaves the item due, to be decided again.
 */
function leaseInForce(item: StoredState, nowIso: string): boolean {
  return item.leaseUntil !== undefined && item.leaseUntil > nowIso;
}

/**
 * What a warm planner instance keeps between ticks so that a tick reads only what changed: the parsed
 * Sources table (re-read every `sourcesTtlMs`; RATE-2 allows 5 minutes for config changes to reach
 * fetches, and the sync function re-checks `active` itself) and which sources already have a STATE item.
 */
export interface PlannerCache {
  sources?: { loadedAtMs: number; parsed: ParsedSource[] };
  knownStateIds?: Set<string>;
  /**
   * RATE-9: per source, what the host model reads of its state (cadence, learnt requests). Filled by a
   * cold instance's one read of all STATE items, then kept fresh from the items each tick reads anyway
   * (a finished run makes its source due, so its new figures arrive with the next tick).
   */
  hostStates?: Map<string, HostStateView>;
}

export const DEFAULT_SOURCES_TTL_MS = 5 * 60_000;
/**
 * An inactive, invalid or otherwise idle source is looked at again at least this often, and at once when a
 * warm instance sees its config change (a cold instance cannot tell what changed without reading all).
 */
const IDLE_RECHECK_MS = 60 * 60_000;
/**
 * Store writes in flight at once during a tick. Each start is one conditional lease write, and the SDK's
 * CPU per call falls with more calls in flight (fewer event-loop turns, coalesced socket writes): 900
 * lease writes measured ~1.6 s CPU at 16 and ~1.0–1.2 s at 48 (issue 18). Below the SDK's 50 sockets.
 */
const STORE_CONCURRENCY = 48;

/** What every phase of one tick shares: its peers, its instant, its warm cache and the result it fills. */
interface Tick {
  deps: PlannerDeps;
  now: Date;
  nowIso: string;
  cache: PlannerCache;
  result: PlannerTickResult;
}

/** Phase 2's read: the due items (with their leases) and every item whose lease is in the index. */
interface TickState {
  due: StoredState[];
  stateById: Map<string, StoredState>;
  hostStates: Map<string, HostStateView>;
}

type ValidSource = Extract<ParsedSource, { ok: true }>;

export async function plannerTick(deps: PlannerDeps, now: Date): Promise<PlannerTickResult> {
  const nowIso = now.toISOString();
  const tick: Tick = {
    deps,
    now,
    nowIso,
    cache: deps.cache ?? {},
    result: {
      at: nowIso,
      sources: 0,
      invalid: 0,
      started: [],
      decisions: [],
      hosts: [],
      starvation: { starved: [], longestOverdueMinutes: 0 },
    },
  };
  const configById = await readConfig(tick);
  const state = await readState(tick);
  const fleet = await decideFleet(tick, configById, state);
  const outbox = await leaseAndRecord(tick, fleet, state.stateById);
  return handOut(tick, outbox);
}

/**
 * Phase 1 — config: from the cache, or re-read; a changed or new source is made due at once, an invalid
 * one is recorded as skipped. Returns the valid sources by id.
 */
async function readConfig(tick: Tick): Promise<Map<string, SourceConfig>> {
  const { deps, now, cache, result } = tick;
  const ttl = deps.sourcesTtlMs ?? DEFAULT_SOURCES_TTL_MS;
  let changedIds = new Set<string>();
  if (cache.sources === undefined || now.getTime() - cache.sources.loadedAtMs >= ttl) {
    const warm = cache.sources !== undefined;
    const previous = new Map((cache.sources?.parsed ?? []).map((p) => [idOf(p), JSON.stringify(p)]));
    const { parsed, raw } = await loadAllSources(deps.doc, deps.tables.sources);
    if (warm)
      changedIds = new Set(parsed.filter((p) => previous.get(idOf(p)) !== JSON.stringify(p)).map(idOf));
    cache.sources = { loadedAtMs: now.getTime(), parsed };
    const stamped = await stampHostKeys(deps, parsed, raw);
    if (stamped.length > 0) result.hostKeysStamped = stamped;
  }
  const parsed = cache.sources.parsed;
  result.sources = parsed.length;
  const knownStateIds = await knownStates(tick);
  const isNew = (id: string) => changedIds.has(id) || !knownStateIds.has(id);
  const becomeDue: SourceConfig[] = [];
  for (const p of parsed) {
    if (p.ok) {
      if (isNew(idOf(p))) becomeDue.push(p.source);
    } else await recordInvalid(tick, p, isNew(idOf(p)));
  }
  await mapLimit(becomeDue, STORE_CONCURRENCY, async (source) => {
    // RATE-2: the pace of a new or changed valid item is remembered, should the item break later.
    await patchSourceState(
      { doc: deps.doc, table: deps.tables.state },
      source.sourceId,
      { dueAt: tick.nowIso, lastValidPace: paceOf(source) },
      ['configProblems'],
    );
    knownStateIds.add(source.sourceId);
  });
  return new Map(parsed.filter((p): p is ValidSource => p.ok).map((p) => [p.source.sourceId, p.source]));
}

/** Which sources have a STATE item: a cold instance reads every item once (and what the host model needs). */
async function knownStates(tick: Tick): Promise<Set<string>> {
  const { deps, cache } = tick;
  if (cache.knownStateIds === undefined || cache.hostStates === undefined) {
    const all = await listSourceStates<SourceScheduleState>(deps.doc, deps.tables.state);
    cache.knownStateIds = new Set(all.map((s) => s.sourceId));
    cache.hostStates = new Map(
      all.flatMap((s) =>
        s.schedule === undefined ? [] : [[s.sourceId, hostStateView(s.schedule)] as const],
      ),
    );
  }
  return cache.knownStateIds;
}

/** An invalid source is skipped; its problems are written when they are news (new or changed item). */
async function recordInvalid(
  tick: Tick,
  p: Extract<ParsedSource, { ok: false }>,
  isNew: boolean,
): Promise<void> {
  const { deps, now, nowIso, result } = tick;
  const id = idOf(p);
  result.invalid += 1;
  const reason = `invalid config: ${p.problems.map((x) => `${x.field} ${x.message}`).join('; ')}`;
  result.decisions.push({ sourceId: id, action: 'skip', reason, started: false });
  if (!isNew) return;
  await patchSourceState({ doc: deps.doc, table: deps.tables.state }, id, {
    configProblems: p.problems,
    dueAt: new Date(now.getTime() + IDLE_RECHECK_MS).toISOString(),
    lastDecision: decisionRecord({ action: 'skip', reason, ruleIds: [] }, nowIso),
  });
  tick.cache.knownStateIds?.add(id);
}

/** Phase 2 — state: the due items, the running ones among them, through one index (issue 28). */
async function readState(tick: Tick): Promise<TickState> {
  const { deps, nowIso, cache } = tick;
  // Only the due items through one index — the running ones among them (SCH-5, issue 28).
  const dueRead = await listSourceStates<SourceScheduleState>(deps.doc, deps.tables.state, {
    dueBefore: nowIso,
  });
  const due = dueRead.filter((s) => !leaseInForce(s, nowIso));
  const stateById = new Map(dueRead.map((s) => [s.sourceId, s]));
  const hostStates = cache.hostStates ?? new Map<string, HostStateView>();
  for (const item of due)
    if (item.schedule !== undefined) hostStates.set(item.sourceId, hostStateView(item.schedule));
  return { due, stateById, hostStates };
}

/** Phase 3 — expire: the runs whose lease is still in force (an expired lease's run counts as dead). */
function runningAt(stateById: ReadonlyMap<string, StoredState>, now: Date): StoredState[] {
  const nowIso = now.toISOString();
  return [...stateById.values()].filter((s) => leaseInForce(s, nowIso));
}

/** What phases 4–5 (decide, admit) hand to the lease phase. */
interface FleetTurn {
  candidates: FleetCandidate[];
  toStart: Map<string, SourceDecision>;
  waitingReason: Map<string, string>;
  lanes: ReturnType<typeof lanesOf>;
}

/**
 * Phases 4–5 — decide and admit. SCH-5 / FULL-3 / RATE-9: decisions, the stretch of saturated hosts,
 * full syncs per host window and per-host admission — one pure picture, the same `status` and `hosts` show.
 */
async function decideFleet(
  tick: Tick,
  configById: ReadonlyMap<string, SourceConfig>,
  state: TickState,
): Promise<FleetTurn> {
  const { deps, now, nowIso, result } = tick;
  // RATE-8 / ROB-10 / item 5: one read of the host ledger for every host's pause, Crawl-delay and share.
  const ledger = await readHostConditions(deps.hostLedger);
  if (ledger.unavailable !== undefined) result.hostLedgerUnavailable = ledger.unavailable;
  const running = runningAt(state.stateById, now);
  const fleet = planFleet({
    sources: [...configById.values()],
    hostStateOf: (id) => state.hostStates.get(id),
    due: state.due.flatMap((item) => {
      const source = configById.get(item.sourceId);
      return source === undefined ? [] : [{ source, state: scheduleStateOf(item, now) }];
    }),
    running: running.map((s) => ({
      sourceId: s.sourceId,
      kind: (s.leaseKind as SyncKind | undefined) ?? 'incremental',
      source: configById.get(s.sourceId),
    })),
    now,
    settings: deps.settings,
    conditions: ledger.conditions,
  });
  const { candidates, admission: allocation, hosts } = fleet;
  result.hosts = plannedHosts(hosts, allocation.queuedByHost);
  result.slotsNeeded = allocation.slotsNeeded;
  // RATE-9: the due sources left waiting by this tick's admission, measured against their stretched turn.
  const starting = new Set(allocation.start.map((d) => d.sourceId));
  result.starvation = starvationOf(
    candidates
      .filter((c) => !starting.has(c.source.sourceId))
      .map((c) => ({
        sourceId: c.source.sourceId,
        host: c.source.host,
        config: c.source,
        state: c.state,
        decision: c.decision,
      })),
    (key) => hosts.get(key),
    now,
    deps.settings,
  );
  const slotsShort = slotsShortText({ needed: allocation.slotsNeeded }, deps.settings.maxConcurrentSyncs);
  if (slotsShort !== undefined) result.slotsShort = slotsShort;
  return {
    candidates,
    toStart: new Map(allocation.start.map((d) => [d.sourceId, d])),
    waitingReason: new Map(allocation.waiting.map((w) => [w.sourceId, w.reason])),
    // Host lanes: each started run carries its host's runs that wait only for the busy host; its sync
    // invocation starts them one after another as the run ends (shared/sync/lane.ts).
    // Issue 27: each lane carries its host's pool and re-plans as its runs end (due now, fair order).
    lanes: lanesOf(allocation, (id) => configById.get(id)?.host, nowIso, {
      hosts,
      poolOf: fleet.lanePool,
      fullShareOf: fleet.fullShareOf,
    }),
  };
}

/**
 * Phase 6 — lease and record. Independent per-source writes (lease, decision) fan out; each is one
 * conditional item write. Returns the messages to hand out for the leases taken.
 */
async function leaseAndRecord(
  tick: Tick,
  turn: FleetTurn,
  stateById: ReadonlyMap<string, StoredState>,
): Promise<Outgoing[]> {
  const outbox: Outgoing[] = [];
  await mapLimit(turn.candidates, STORE_CONCURRENCY, async (candidate) => {
    const { source, state } = candidate;
    const startDecision = turn.toStart.get(source.sourceId);
    const { message, finalDecision } = startDecision
      ? await leaseRun(tick, { source, state, startDecision, turn, stateById })
      : { message: undefined, finalDecision: waitingDecision(candidate, turn) };
    const started = message !== undefined;
    const planned: PlannedSource = {
      sourceId: source.sourceId,
      action: finalDecision.action,
      reason: finalDecision.reason,
      started,
      ...(finalDecision.kind ? { kind: finalDecision.kind } : {}),
      ...(finalDecision.dueAt ? { dueAt: finalDecision.dueAt } : {}),
    };
    tick.result.decisions.push(planned);
    if (message !== undefined) {
      tick.result.started.push(planned);
      outbox.push({ message, state, planned });
      // The lease write recorded decision and due time already.
      return;
    }
    // The lease was lost: the run that holds it (or ran meanwhile) wrote the state after this tick read
    // it — its due time and decision stand; this tick's are stale.
    if (startDecision) return;
    await recordDecision(tick, candidate, finalDecision, stateById.get(source.sourceId));
  });
  return outbox;
}

/** A source the admission did not start: one that would sync waits (for its host or a free slot). */
function waitingDecision({ source, decision }: FleetCandidate, turn: FleetTurn): SourceDecision {
  if (decision.action !== 'sync') return decision;
  return {
    ...decision,
    action: 'wait',
    reason:
      turn.waitingReason.get(source.sourceId) ?? `${decision.reason}; waiting for a free sync slot (SCH-5)`,
  };
}

/**
 * The lease (SCH-5) and the start in one conditional write, the FULL-2 window recorded with it — only
 * while the source's due time is still the one this tick read: a host lane may have run it since (lease
 * taken and given back, due time moved to the run's end), and a second run now would fetch the same again.
 */
async function leaseRun(
  tick: Tick,
  run: {
    source: SourceConfig;
    state: SourceScheduleState;
    startDecision: SourceDecision;
    turn: FleetTurn;
    stateById: ReadonlyMap<string, StoredState>;
  },
): Promise<{ message: SyncMessage | undefined; finalDecision: SourceDecision }> {
  const { deps, now } = tick;
  const { source, startDecision } = run;
  const lane = run.turn.lanes.get(source.sourceId);
  const readDueAt = run.stateById.get(source.sourceId)?.dueAt;
  const message = await startRun(deps, {
    source,
    decision: startDecision,
    state: run.state,
    now,
    runId: (deps.newRunId ?? randomUUID)(),
    dueBy: readDueAt === undefined ? now : new Date(readDueAt),
    ...(lane ? { lane } : {}),
  });
  const finalDecision: SourceDecision =
    message !== undefined
      ? startDecision
      : {
          ...startDecision,
          action: 'wait',
          reason: `${startDecision.reason}; another run holds the lease or ran it since this tick read it (SCH-5)`,
        };
  return { message, finalDecision };
}

/**
 * Every decided item gets its next due time, so the next ticks do not read it again before then: a
 * waiting one when its decision may change; one waiting only for a free slot stays due.
 */
async function recordDecision(
  tick: Tick,
  candidate: FleetCandidate,
  finalDecision: SourceDecision,
  previous: StoredState | undefined,
): Promise<void> {
  const { deps, now, nowIso } = tick;
  const waitsForSlot = candidate.decision.action === 'sync';
  const nextDueAt = waitsForSlot
    ? (previous?.dueAt ?? nowIso)
    : finalDecision.dueAt !== undefined && Date.parse(finalDecision.dueAt) > now.getTime()
      ? // The index sorts strings: always store UTC ISO, whatever offset the decision carries.
        new Date(finalDecision.dueAt).toISOString()
      : finalDecision.action === 'skip'
        ? new Date(now.getTime() + IDLE_RECHECK_MS).toISOString()
        : new Date(now.getTime() + 60_000).toISOString();
  // Write only what changed: a source waiting for a slot costs a read per tick, not a write.
  if (
    previous?.dueAt === nextDueAt &&
    previous?.lastDecision?.reason === finalDecision.reason &&
    previous?.configProblems === undefined
  )
    return;
  await patchSourceState(
    { doc: deps.doc, table: deps.tables.state },
    candidate.source.sourceId,
    {
      dueAt: nextDueAt,
      lastDecision: decisionRecord(finalDecision, nowIso),
    },
    previous?.configProblems !== undefined ? ['configProblems'] : [],
  );
}

/** Phases 7–8 — hand out the messages of the leases taken, and report in a stable order. */
async function handOut(tick: Tick, outbox: Outgoing[]): Promise<PlannerTickResult> {
  const { result } = tick;
  result.decisions.sort((a, b) => a.sourceId.localeCompare(b.sourceId));
  result.started.sort((a, b) => a.sourceId.localeCompare(b.sourceId));
  await sendMessages(tick.deps, outbox, result);
  return result;
}

/**
 * `hostKey` writes per read of the Sources table. A release that first stamps a fleet of older items
 * spreads the writes over the next reads (every `sourcesTtlMs`) instead of one long tick; a hand-written
 * item or two, the usual case, is stamped by the tick that first reads it.
 */
const HOST_KEY_STAMPS_PER_READ = 500;

/**
 * Issue 27: the planner reads every source anyway; where an item's `hostKey` is not the one its
 * `systemUrl` gives (RATE-2's key), it writes it — one conditional UpdateItem per such item, once (the
 * next read finds it right). A running host lane then finds the source through the `byHost` index at its
 * next step, like one added by the tools, instead of only at the next plan. Valid items only: a broken
 * one is not synced until repaired, and its repair by the tools stamps it.
 */
async function stampHostKeys(
  deps: PlannerDeps,
  parsed: readonly ParsedSource[],
  raw: ReadonlyMap<string, Record<string, unknown>>,
): Promise<string[]> {
  const stale = parsed.flatMap((p) => {
    if (!p.ok) return [];
    const item = raw.get(p.source.sourceId);
    if (item?.hostKey === p.source.host || typeof item?.systemUrl !== 'string') return [];
    return [{ sourceId: p.source.sourceId, systemUrl: item.systemUrl, hostKey: p.source.host }];
  });
  const written: string[] = [];
  await mapLimit(stale.slice(0, HOST_KEY_STAMPS_PER_READ), STORE_CONCURRENCY, async (s) => {
    const ok = await stampSourceHostKey({ doc: deps.doc, table: deps.tables.sources }, s.sourceId, s);
    if (ok) written.push(s.sourceId);
  });
  return written.sort();
}

/** RATE-9: the hosts worth reporting — saturated, or with runs waiting for them. */
function plannedHosts(
  hosts: ReadonlyMap<string, HostModel>,
  queued: ReadonlyMap<string, number>,
): PlannedHost[] {
  const out: PlannedHost[] = [];
  for (const m of hosts.values()) {
    const queuedRuns = queued.get(m.host) ?? 0;
    if (!isSaturated(m) && queuedRuns === 0) continue;
    out.push({
      host: m.host,
      sources: m.sourceIds.length,
      capacity: m.capacity,
      demand: m.demand,
      utilisation: m.utilisation,
      stretch: m.stretch,
      saturated: isSaturated(m),
      queuedRuns,
      otherRequestsPerSecond: m.otherRequestsPerSecond,
      ...(m.pausedUntil === undefined ? {} : { pausedUntil: m.pausedUntil }),
    });
  }
  return out.sort((a, b) => a.host.localeCompare(b.host));
}

interface Outgoing {
  message: SyncMessage;
  state: SourceScheduleState;
  planned: PlannedSource;
}

/**
 * Send the sync messages of the leases taken this tick, ten per call. A message that cannot be sent
 * gives its lease back at once (nobody would release it before it expires) and its source waits.
 */
async function sendMessages(deps: PlannerDeps, outbox: Outgoing[], result: PlannerTickResult): Promise<void> {
  let firstError: unknown;
  const batches: Outgoing[][] = [];
  for (let i = 0; i < outbox.length; i += SQS_BATCH_MAX) batches.push(outbox.slice(i, i + SQS_BATCH_MAX));
  const queue = new SyncQueue({ sqs: deps.sqs, queueUrl: deps.syncQueueUrl });
  await mapLimit(batches, 4, async (batch) => {
    let failedIds: Set<string>;
    try {
      const sent = await queue.sendBatch(
        batch.map((o, i) => ({ id: String(i), body: JSON.stringify(o.message) })),
      );
      failedIds = new Set(sent.failedIds);
    } catch (err) {
      firstError ??= err;
      failedIds = new Set(batch.map((_, i) => String(i)));
    }
    await mapLimit(
      batch.filter((_, i) => failedIds.has(String(i))),
      STORE_CONCURRENCY,
      async (o) => {
        await releaseSyncLease(
          { doc: deps.doc, table: deps.tables.state },
          o.message.sourceId,
          o.message.runId,
          {
            schedule: o.state,
            dueAt: result.at,
          },
        );
        o.planned.started = false;
        o.planned.action = 'wait';
        o.planned.reason = `${o.planned.reason}; the sync message could not be sent, the lease was given back`;
      },
    );
  });
  result.started = result.started.filter((p) => p.started);
  if (firstError !== undefined) throw firstError;
}
