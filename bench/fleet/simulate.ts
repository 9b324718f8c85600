import type { DateTime } from 'luxon';
import { fullSyncCreditMs, MAX_RUNS_PER_HOST } from '../../shared/hosts';
import { type StarvationCandidate, starvationOf } from '../../shared/planner';
import {
  applyRunOutcome,
  DEFAULT_LEASE_MINUTES,
  decideSource,
  FULL_SYNC_DEFAULT_WINDOW_HOURS,
  initialScheduleState,
  isoOfMs,
  markSyncStarted,
  nextSyncDue,
  type RunOutcome,
  resolveScheduleSettings,
  type ScheduleSourceConfig,
  type SourceDecision,
  type SourceScheduleState,
  toBerlin,
  toIso,
} from '../../shared/schedule';
import { ASSUMPTIONS } from '../cost/assumptions';
import { todayStarts } from './allocation';
import {
  type AskedSyncs,
  askedSyncs,
  fairByHour,
  hostFactorByHour,
  hourIndexOf,
  sharesAtBlockFactor,
  sharesAtHostFactor,
} from './asked';
import { type HostRun, SimHost } from './host';
import { laneSuccessor, newLane, noteLaneRunEnded, type SimLane, type SimLaneCandidate } from './lanes';
import {
  buildFleet,
  changeInstants,
  type Fleet,
  type FleetHost,
  hostIntervalMs,
  latencyMs,
  RUN_REQUESTS,
  runPlanOf,
  seededRandom,
} from './model';
import { PagingReplay } from './paging';
import { perHostAdmission } from './per-host';
import type {
  FleetSimOptions,
  FleetSimResult,
  PerHostAdmission,
  PeriodShares,
  SaturatedHostDetail,
  SimSourceView,
  StarvedTick,
} from './types';

/**
 * The fleet bench's discrete-event simulation (issue 27): a week of planner ticks on a simulated clock
 * with the real decisions — `decideSource` (SCH-1…SCH-4 cadence, SCH-2 session days, SCH-3 quiet
 * doubling, FULL windows, ERR sparing), `markSyncStarted` and `applyRunOutcome` — and the allocation
 * under test: today's `planSyncSlots` or the per-host admission. Runs then fetch on `SimHost`s (RATE-1,
 * RATE-4, Crawl-delay) with drawn server latencies. Nothing sleeps; a week at 10,000 sources is
 * bounded by the decision code's CPU.
 *
 * How the planner is reproduced (shared/planner/tick.ts): every `tickSeconds` the due sources are
 * decided; a `sync` decision waits for a slot until the allocation starts it (SCH-5: a slot is held
 * from the run's start to its end, waits included); a `wait` decision is looked at again at its
 * `dueAt`; a finished run makes its source due at its end (the sync function writes `dueAt = endedAt`).
 * One shortcut, result-preserving: a waiting `sync` decision is not re-decided every tick but when its
 * state changes or the local hour turns — with no failures, manual requests or own windows in this
 * fleet, a waiting decision's fields change only at the default window's whole-hour edges.
 * Not modelled: failures and pauses (ERR-4/5, RATE-8), other fetches (document passes, deletion checks —
 * item 5 takes their share of a host's pace in the planner's host model), Lambda's 15-minute
 * continuations (a run keeps its slot and lease to its end), SQS delivery delay (a run starts at its tick).
 */

interface SimRun extends HostRun {
  source: SimSource;
  kind: 'incremental' | 'full' | 'sliced';
  startedAt: number;
  startedIso: string;
  changed: boolean;
  measured: boolean;
  /** Allocation `lanes`: the host lane this run belongs to. */
  lane?: SimLane;
}

interface HostEntry {
  fleet: FleetHost;
  sim: SimHost;
  runCount: number;
  saturated: boolean;
  weekdayDayRequests: number;
}

interface SimSource extends SimSourceView {
  config: ScheduleSourceConfig;
  /** The state it started with (what its own cadence asks for is replayed from it: ./asked.ts). */
  initialState: SourceScheduleState;
  host: HostEntry;
  changes: number[];
  changePtr: number;
  lastStartMs: number;
  dueTick: number;
  /** The instant it is due (its bucket is the first tick at or after it). */
  dueMs: number;
  waiting?: { decision: SourceDecision; sinceMs: number; slotBlockedMs: number };
  run?: SimRun;
  incrementalSyncs: number;
  /** On a saturated host, its measured syncs per hour of the span (RATE-9 at each moment: ./asked.ts). */
  syncsByHour?: number[];
  /** Measured syncs of any kind (issue 27's fairness counts syncs; SCH-4 counts from the end of any). */
  syncs: number;
}

/** Lone hosts whose share of their asked syncs is measured (`loneHostShare`). */
const LONE_SHARE_SAMPLE = 20;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function simulateFleet(options: FleetSimOptions): FleetSimResult {
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  const seed = options.seed ?? 27;
  const days = options.days ?? 7;
  const warmupHours = options.warmupHours ?? 24;
  const tickMs = (options.tickSeconds ?? 60) * 1000;
  const settings = resolveScheduleSettings({ maxConcurrentSyncs: options.slots });
  const weekStart = toBerlin(options.weekStart ?? '2026-11-30T00:00');
  const measureFrom = weekStart.toMillis();
  const startMs = measureFrom - warmupHours * HOUR;
  const endMs = measureFrom + days * DAY;
  const random = seededRandom(seed + 1);
  const fleet: Fleet = buildFleet(options.sources, seed);
  // `lanes` is the per-host admission plus host lanes at the runs' ends (./lanes.ts).
  const lanes = options.allocation === 'lanes';
  const perHost: PerHostAdmission | undefined =
    options.allocation === 'per-host' || lanes ? perHostAdmission(fleet, settings) : undefined;

  // Local-time landmarks of the simulated span (luxon once per day, not per event).
  const firstDay = weekStart.minus({ days: Math.ceil(warmupHours / 24) });
  const landmarks = {
    weekdayDay: [] as [number, number][],
    changeWindows: [] as [number, number][],
    windowEnds: [] as number[],
    fullWindows: [] as [number, number][],
  };
  const weekdays: string[] = [];
  for (let d: DateTime = firstDay; d.toMillis() < endMs; d = d.plus({ days: 1 })) {
    const at = (h: number) => d.set({ hour: h, minute: 0, second: 0, millisecond: 0 }).toMillis();
    // FULL-1: the default window, from INGESTOR_FULL_SYNC_HOUR for 5 h.
    const windowStart = at(settings.fullSyncHour);
    const windowEnd = windowStart + FULL_SYNC_DEFAULT_WINDOW_HOURS * HOUR;
    landmarks.fullWindows.push([windowStart, windowEnd]);
    if (windowEnd >= measureFrom && windowEnd < endMs) landmarks.windowEnds.push(windowEnd);
    if (d.weekday <= 5) {
      landmarks.weekdayDay.push([at(7), at(19)]);
      landmarks.changeWindows.push([at(8), at(18)]);
      weekdays.push(d.toISODate() as string);
    }
  }
  const inWeekdayDay = (t: number) =>
    t >= measureFrom && landmarks.weekdayDay.some(([a, b]) => t >= a && t < b);

  const hosts = new Map<string, HostEntry>();
  for (const h of fleet.hosts) {
    const intervalMs = hostIntervalMs(h, fleet);
    const entry: HostEntry = {
      fleet: h,
      sim: new SimHost(intervalMs, (sentAt) => {
        if (inWeekdayDay(sentAt)) entry.weekdayDayRequests += 1;
      }),
      runCount: 0,
      // Saturated by the bench's own count: the unchanged incremental requests its sources' weekday
      // base cadence asks for exceed its pace (RATE-9's demand > capacity).
      saturated:
        (h.sourceIndexes.length * RUN_REQUESTS[h.kind].incremental) / (settings.weekdayDayBaseMinutes * 60) >
        1000 / intervalMs,
      weekdayDayRequests: 0,
    };
    hosts.set(h.host, entry);
  }

  // Steady start: synced before, the last run spread over the hour before, last night's full sync done.
  const lastNight = firstDay.minus({ days: 1 }).set({ hour: 3 });
  const lastWindowId = toIso(lastNight);
  const sources: SimSource[] = fleet.sources.map((f) => {
    const sessionDays = pickSessionDays(weekdays, random);
    const ended = startMs - random() * HOUR;
    const fullStart = lastNight.toMillis() + random() * 2 * HOUR;
    const fullEnd = fullStart + 10 * MINUTE;
    const iso = (ms: number) => isoOfMs(Math.trunc(ms));
    const state = initialScheduleState({
      sessionDays,
      quietStreak: 3,
      lastSyncStartedAt: iso(ended - 20_000),
      lastSyncEndedAt: iso(ended),
      lastSyncKind: 'incremental',
      lastSyncPeriod: 'weekend',
      lastSyncChanged: false,
      lastSuccessAt: iso(ended),
      fullSyncLastStartedAt: iso(fullStart),
      fullSyncLastWindowId: lastWindowId,
      fullSyncLastCompleteStartedAt: iso(fullStart),
      fullSyncLastCompletedAt: iso(fullEnd),
      fullSyncLastCompleteWindowId: lastWindowId,
    });
    return {
      fleet: f,
      config: {
        sourceId: f.sourceId,
        active: true,
        cadenceMinutes: {},
        fullSyncMinDays: 0,
        fullSyncSliced: false,
      },
      state,
      initialState: state,
      host: hosts.get(f.host) as HostEntry,
      changes: changeInstants(landmarks.changeWindows, ASSUMPTIONS.changesPerWeekday, random),
      changePtr: 0,
      lastStartMs: ended - 20_000,
      dueTick: 0,
      dueMs: startMs,
      incrementalSyncs: 0,
      syncs: 0,
    };
  });

  for (const s of sources) perHost?.register(s);
  const sourceById = new Map(sources.map((s) => [s.fleet.sourceId, s]));

  // Due buckets by tick index; a source sits in the bucket of its `dueTick` (stale entries skipped).
  const buckets = new Map<number, SimSource[]>();
  const tickOf = (ms: number) => Math.max(0, Math.ceil((ms - startMs) / tickMs));
  const schedule = (s: SimSource, ms: number, currentTick: number) => {
    s.dueTick = Math.max(currentTick + 1, tickOf(ms));
    s.dueMs = ms;
    const b = buckets.get(s.dueTick);
    if (b === undefined) buckets.set(s.dueTick, [s]);
    else b.push(s);
  };
  buckets.set(0, [...sources]);

  const waiting = new Set<SimSource>();
  const running = new Set<SimRun>();
  const paging = new PagingReplay();
  const finishing: SimRun[] = [];
  const activeHosts = new Set<HostEntry>();
  const m = {
    decisions: 0,
    starved: 0,
    starvedInFullWindow: 0,
    late: 0,
    handOns: 0,
    runsIncremental: 0,
    runsFull: 0,
    requests: 0,
    waitMs: 0,
    queuedMs: 0,
    slotMs: 0,
    idleWhileDueMs: 0,
    requestsByKind: new Map<string, { runs: number; requests: number }>(),
    coverage: { lone: [0, 0], hosting: [0, 0] } as Record<'lone' | 'hosting', [number, number]>,
  };
  let lastHour = -1;
  let idleCondition = false;
  let windowEndIdx = 0;
  const totalTicks = Math.ceil((endMs - startMs) / tickMs);

  for (let tick = 0; tick <= totalTicks; tick += 1) {
    const nowMs = startMs + tick * tickMs;
    const measuring = nowMs > measureFrom;
    if (tick > 0 && nowMs - tickMs <= measureFrom && measuring) perHost?.resetSlotsNeeded();
    // The decisions read instants as stored ISO strings (parsed once, then epoch milliseconds).
    const nowIso = isoOfMs(nowMs);
    const now = toBerlin(nowIso);

    // 1. The hosts serve what was ready until now; runs whose last answer came are done.
    let waitBefore = 0;
    for (const r of running) waitBefore += r.queuedMs ?? 0;
    for (const h of activeHosts) {
      for (const r of h.sim.advance(nowMs)) finishing.push(r as SimRun);
      if (h.sim.runs.length === 0) activeHosts.delete(h);
    }
    let waitAfter = 0;
    for (const r of running) waitAfter += r.queuedMs ?? 0;
    if (measuring) {
      m.slotMs += settings.maxConcurrentSyncs * tickMs;
      // Slot time spent waiting for a host during the last tick, counted when a due run on a free host
      // was left waiting at that tick (idle slots are counted below).
      if (idleCondition) m.idleWhileDueMs += waitAfter - waitBefore;
    }
    finishing.sort((a, b) => (a.endAt as number) - (b.endAt as number));
    while (finishing.length > 0 && (finishing[0]?.endAt as number) <= nowMs) {
      const run = finishing.shift() as SimRun;
      finishRun(run, tick);
      if (run.lane !== undefined) continueLane(run, nowMs);
    }

    // 2. Waiting decisions are decided afresh where they may change: at the default window's edges
    // (whole hours) — and, per host, every hour (a host's stretch may have changed meanwhile).
    const hour = now.hour;
    const hourTurned = hour !== lastHour;
    lastHour = hour;
    const redecideWaiting =
      hourTurned &&
      (perHost !== undefined ||
        hour === settings.fullSyncHour ||
        hour === (settings.fullSyncHour + FULL_SYNC_DEFAULT_WINDOW_HOURS) % 24);

    // FULL coverage at each window's end (08:00).
    while (
      windowEndIdx < landmarks.windowEnds.length &&
      (landmarks.windowEnds[windowEndIdx] as number) <= nowMs
    ) {
      const at = landmarks.windowEnds[windowEndIdx] as number;
      for (const s of sources) {
        const last = s.state.fullSyncLastCompletedAt;
        const covered = last !== undefined && Date.parse(last) >= at - DAY;
        const c = m.coverage[s.fleet.hosting ? 'hosting' : 'lone'];
        c[0] += covered ? 1 : 0;
        c[1] += 1;
      }
      windowEndIdx += 1;
    }

    // 3. Decide the due sources (and, when the hour turned, the waiting ones again).
    const due = buckets.get(tick) ?? [];
    buckets.delete(tick);
    const toDecide = new Set(due.filter((s) => s.dueTick === tick && s.run === undefined));
    if (redecideWaiting) for (const s of waiting) toDecide.add(s);
    for (const s of toDecide) {
      let decision = decideSource(s.config, s.state, nowIso, { settings });
      m.decisions += 1;
      if (perHost) decision = perHost.adjust(s, decision, nowIso);
      if (decision.action === 'sync') {
        const since = s.waiting;
        // Fields, not `{ ...since, decision }`: an object spread with more fields is slow in V8 (issue 27).
        s.waiting = {
          sinceMs: since?.sinceMs ?? nowMs,
          slotBlockedMs: since?.slotBlockedMs ?? 0,
          decision,
        };
        waiting.add(s);
        // A waiting full sync may fall back to the incremental once that is due (FULL-3): look again then.
        // On a saturated host at the fallback's stretched turn (RATE-9, `fallbackDueMs`).
        if (decision.kind !== 'incremental' && decision.incrementalDue === false) {
          const at =
            perHost?.fallbackDueMs(s, decision) ??
            Date.parse(nextSyncDue(s.config, s.state, nowIso, settings).at);
          schedule(s, at, tick);
        }
        continue;
      }
      waiting.delete(s);
      delete s.waiting;
      const dueMs = decision.dueAt === undefined ? Number.NaN : Date.parse(decision.dueAt);
      schedule(s, dueMs > nowMs ? dueMs : nowMs + (decision.action === 'skip' ? HOUR : MINUTE), tick);
    }

    // 4. Allocate the slots.
    let runningFull = 0;
    for (const r of running) if (r.kind !== 'incremental') runningFull += 1;
    let starts: SourceDecision[] = [];
    // The per-host admission is asked with the slots full too: it measures the slots the fleet needs.
    const asked = perHost !== undefined || running.size < settings.maxConcurrentSyncs;
    // Per host, only runs whose host has room left can start (RATE-4: a host's run limit is at most
    // MAX_RUNS_PER_HOST); the others are not handed over — result-preserving, the admission skips a
    // host without room first. Today's allocation looks at every waiting run, busy host or not.
    const waitingList: SimSource[] = [];
    if (asked) {
      for (const s of waiting)
        if (perHost === undefined || s.host.runCount < MAX_RUNS_PER_HOST) waitingList.push(s);
    }
    if (waitingList.length > 0) {
      if (options.allocation === 'today') {
        starts = todayStarts(
          waitingList.map((s) => s.waiting?.decision as SourceDecision),
          running.size,
          runningFull,
          settings,
        );
      } else {
        starts = (perHost as PerHostAdmission).starts({
          nowMs,
          nowIso,
          waiting: waitingList.map((s) => ({ source: s, decision: s.waiting?.decision as SourceDecision })),
          running: [...running],
          settings,
        });
      }
    }
    for (const decision of starts) {
      const s = sourceById.get(decision.sourceId);
      if (s === undefined || s.run !== undefined) continue;
      const lane = lanes ? newLane(nowMs, decision, perHost?.fullShareOf(s)) : undefined;
      startRun(s, decision, nowMs, nowIso, measuring, lane);
    }

    // On-call's RATE-9 alarms on the planner's figures of this tick (the due runs it left waiting).
    if (measuring && perHost !== undefined) notePaging(perHost, nowMs, nowIso, now.hour);

    // 5. Is a due run on a free host (none of ours in flight there) left waiting?
    idleCondition = false;
    const slotsFull = running.size >= settings.maxConcurrentSyncs;
    for (const s of waiting) {
      // Runnable: its host has none of our runs, and it can run as an incremental (a full sync without
      // a full slot or without budget on its host tonight waits by FULL-3, not for lack of a slot).
      if (s.host.runCount !== 0 || !runnableAsIncremental(s.waiting?.decision)) continue;
      idleCondition = true;
      // Until the next tick this run waits for a slot that other hosts' runs hold.
      if (slotsFull && s.waiting) s.waiting.slotBlockedMs += tickMs;
      else if (!slotsFull) break;
    }
    if (measuring && idleCondition) {
      m.idleWhileDueMs += Math.max(0, settings.maxConcurrentSyncs - running.size) * tickMs;
    }
  }

  function notePaging(admission: PerHostAdmission, nowMs: number, nowIso: string, localHour: number): void {
    const candidates: StarvationCandidate[] = [];
    for (const s of waiting) {
      if (s.waiting === undefined) continue;
      candidates.push({
        sourceId: s.fleet.sourceId,
        host: s.fleet.host,
        config: s.config,
        state: s.state,
        decision: s.waiting.decision,
      });
    }
    const starvation = starvationOf(candidates, (key) => admission.modelOf(key), new Date(nowIso), settings);
    paging.tick(nowMs, localHour, { saturatedHosts: admission.saturatedHosts(), starvation });
    if (options.onStarved !== undefined && starvation.starved.length > 0) tellStarved(nowMs, starvation);
  }

  function tellStarved(nowMs: number, starvation: ReturnType<typeof starvationOf>): void {
    const hosts: StarvedTick['hosts'] = {};
    const starved: StarvedTick['starved'] = [];
    for (const figure of starvation.starved) {
      const s = sourceById.get(figure.sourceId);
      if (s?.waiting === undefined) continue;
      starved.push({
        figure,
        source: s,
        waiting: { decision: s.waiting.decision, sinceMs: s.waiting.sinceMs },
      });
      if (hosts[figure.host] !== undefined) continue;
      const h: StarvedTick['hosts'][string] = { running: [], waiting: [] };
      for (const i of s.host.fleet.sourceIndexes) {
        const o = sources[i] as SimSource;
        if (o.run !== undefined)
          h.running.push({
            sourceId: o.fleet.sourceId,
            kind: o.run.kind,
            startedAtMs: o.run.startedAt,
            lane: o.run.lane !== undefined,
          });
        else if (o.waiting !== undefined)
          h.waiting.push({ source: o, decision: o.waiting.decision, sinceMs: o.waiting.sinceMs });
      }
      hosts[figure.host] = h;
    }
    options.onStarved?.({ nowMs, starved, hosts });
  }

  function startRun(
    s: SimSource,
    decision: SourceDecision,
    nowMs: number,
    nowIso: string,
    measuring: boolean,
    lane?: SimLane,
  ): void {
    const kind = decision.kind ?? 'incremental';
    const w = s.waiting;
    // Issue 27: a scheduled incremental is late when it starts more than one interval after the planner
    // first found it due (on a saturated host: after the RATE-9 stretch); it is starved when, for more
    // than one interval of that wait, its own host had none of our runs in flight while every slot was
    // taken — it waited for other hosts' runs.
    if (
      measuring &&
      w !== undefined &&
      kind === 'incremental' &&
      w.decision.kind === 'incremental' &&
      decision.trigger === 'schedule'
    ) {
      const intervalMs = (s.state.intervalMinutes ?? settings.weekdayDayBaseMinutes) * MINUTE;
      if (nowMs - w.sinceMs > intervalMs) m.late += 1;
      if (w.slotBlockedMs > intervalMs) {
        m.starved += 1;
        if (landmarks.fullWindows.some(([a, b]) => nowMs >= a && nowMs < b)) m.starvedInFullWindow += 1;
      }
    }
    waiting.delete(s);
    delete s.waiting;
    s.state = markSyncStarted(s.state, decision, nowIso, DEFAULT_LEASE_MINUTES);
    let changed = false;
    while (s.changePtr < s.changes.length && (s.changes[s.changePtr] as number) <= nowMs) {
      changed = true;
      s.changePtr += 1;
    }
    const plan = runPlanOf(s.fleet, kind, changed);
    // Drawn at the start, in request order (the draws' order is the seeded world's).
    const latencies = new Array<number>(plan.requests);
    for (let i = 0; i < plan.requests; i += 1) latencies[i] = latencyMs(plan.pageOf(i), random);
    const run: SimRun = {
      source: s,
      kind,
      startedAt: nowMs,
      startedIso: nowIso,
      changed,
      measured: measuring,
      readyAt: nowMs,
      requestsLeft: plan.requests,
      sent: 0,
      waitMs: 0,
      latencyOf: (i) => latencies[i] as number,
      ...(lane ? { lane } : {}),
    };
    s.run = run;
    s.lastStartMs = nowMs;
    running.add(run);
    const h = s.host;
    h.runCount += 1;
    h.sim.add(run);
    activeHosts.add(h);
    if (measuring) {
      s.syncs += 1;
      if (h.saturated) {
        s.syncsByHour ??= new Array(Math.ceil((endMs - measureFrom) / HOUR) + 1).fill(0);
        const byHour = s.syncsByHour as number[];
        const b = hourIndexOf(nowMs, measureFrom);
        byHour[b] = (byHour[b] ?? 0) + 1;
      }
      if (kind === 'incremental') {
        m.runsIncremental += 1;
        s.incrementalSyncs += 1;
      } else m.runsFull += 1;
    }
  }

  /**
   * Host lanes: the run ended at `endAt`; its invocation re-plans the host there and then — the host's
   * sources due by `endAt`, decided afresh (a waiting one keeps the decision it waits with; one whose due
   * instant passed since its last decision is decided at `endAt`, as the lane reads and decides it) — and
   * starts the one `nextLaneRun` picks (same slot), which the host serves up to `nowMs`: it may end within
   * this tick and go on.
   */
  function continueLane(run: SimRun, nowMs: number): void {
    const endAt = run.endAt as number;
    const h = run.source.host;
    const candidates: SimLaneCandidate<SimSource>[] = [];
    let atIso: string | undefined;
    for (const i of h.fleet.sourceIndexes) {
      const s = sources[i] as SimSource;
      if (s.run !== undefined) continue;
      if (s.waiting === undefined && s.dueMs <= endAt) {
        atIso ??= isoOfMs(Math.trunc(endAt));
        let decision = decideSource(s.config, s.state, atIso, { settings });
        m.decisions += 1;
        if (perHost) decision = perHost.adjust(s, decision, atIso);
        if (decision.action !== 'sync') {
          const dueMs = decision.dueAt === undefined ? Number.NaN : Date.parse(decision.dueAt);
          const skip = decision.action === 'skip';
          schedule(s, dueMs > endAt ? dueMs : endAt + (skip ? HOUR : MINUTE), tickOf(nowMs));
          continue;
        }
        s.waiting = { decision, sinceMs: endAt, slotBlockedMs: 0 };
        waiting.add(s);
      }
      if (s.waiting === undefined) continue;
      candidates.push({
        source: s,
        decision: s.waiting.decision,
        fullSyncCreditMs: fullSyncCreditMs(s.state),
        state: s.state,
        // The lane counts each source's turns per period of its own cadence (RATE-9, `ownTurnsWaited`).
        own: { config: s.config, settings, stretch: perHost?.stretchOf(s) ?? 1 },
      });
    }
    const lane = run.lane as SimLane;
    noteLaneRunEnded(lane, { kind: run.kind, startedMs: run.startedAt, endedMs: endAt });
    const next = laneSuccessor(lane, endAt, candidates);
    if (next === undefined) return;
    if (next.handOn) {
      lane.invocationStartMs = next.startMs;
      lane.handOns += 1;
      if (run.measured) m.handOns += 1;
    }
    const startIso = isoOfMs(Math.trunc(next.startMs));
    startRun(next.candidate.source, next.decision, next.startMs, startIso, next.startMs > measureFrom, lane);
    for (const r of h.sim.advance(nowMs)) finishing.push(r as SimRun);
    finishing.sort((a, b) => (a.endAt as number) - (b.endAt as number));
  }

  function finishRun(run: SimRun, tick: number): void {
    const s = run.source;
    const endAt = run.endAt as number;
    running.delete(run);
    const h = s.host;
    h.runCount -= 1;
    const endedIso = isoOfMs(Math.trunc(endAt));
    const outcome: RunOutcome & { requests?: number } = {
      kind: run.kind,
      startedAt: run.startedIso,
      endedAt: endedIso,
      changed: run.changed,
      complete: true,
      failed: false,
      failures: [],
      sessionDays: s.state.sessionDays,
      requests: run.sent,
    };
    s.state = applyRunOutcome(s.state, outcome, endedIso, { config: s.config, settings });
    delete s.run;
    if (run.measured) {
      m.requests += run.sent;
      m.waitMs += run.waitMs;
      m.queuedMs += run.queuedMs ?? 0;
      const key = `${s.fleet.kind}.${run.kind === 'incremental' ? 'incremental' : 'full'}`;
      const k = m.requestsByKind.get(key) ?? { runs: 0, requests: 0 };
      k.runs += 1;
      k.requests += run.sent;
      m.requestsByKind.set(key, k);
    }
    perHost?.runEnded(s, endedIso);
    options.onRunEnded?.({
      sourceId: s.fleet.sourceId,
      host: s.fleet.host,
      kind: run.kind,
      startedAtMs: run.startedAt,
      endAtMs: endAt,
      requests: run.sent,
    });
    // The sync function writes dueAt = endedAt: the planner decides it at its next tick.
    schedule(s, endAt, tick - 1);
  }

  // Figures.
  let spacingViolations = 0;
  let maxInFlight = 0;
  const saturatedUse: number[] = [];
  let fairness: number | null = 1;
  let rawFairness: number | null = 1;
  let weekShareFairness: number | null = 1;
  let incrementalFairness: number | null = 1;
  let blockFairness: number | null = 1;
  const saturatedHostDetail: SaturatedHostDetail[] = [];
  const askedSpan = { startMs, measureFromMs: measureFrom, endMs, tickMs, settings };
  let zeroSync = 0;
  const useByHost: FleetSimResult['leastUtilisedHosts'] = [];
  const weekdayDayMs = landmarks.weekdayDay
    .filter(([a]) => a >= measureFrom && a < endMs)
    .reduce((sum, [a, b]) => sum + (b - a), 0);
  /** What a source's own cadence asks over the span, replayed alone on its host's interval. */
  const askedOf = (s: SimSource, hostIntervalMs: number): AskedSyncs =>
    askedSyncs(
      { fleet: s.fleet, config: s.config, initialState: s.initialState, changes: s.changes, hostIntervalMs },
      askedSpan,
    );
  for (const h of hosts.values()) {
    spacingViolations += h.sim.figures.spacingViolations;
    maxInFlight = Math.max(maxInFlight, h.sim.figures.maxInFlight);
    if (!h.saturated) continue;
    saturatedUse.push((h.weekdayDayRequests * h.sim.intervalMs) / weekdayDayMs);
    useByHost.push({
      host: h.fleet.host,
      sources: h.fleet.sourceIndexes.length,
      kind: h.fleet.kind,
      utilisation: round(saturatedUse[saturatedUse.length - 1] as number, 3),
    });
    const syncs = h.fleet.sourceIndexes.map((i) => (sources[i] as SimSource).syncs);
    const incrementals = h.fleet.sourceIndexes.map((i) => (sources[i] as SimSource).incrementalSyncs);
    zeroSync += syncs.filter((x) => x === 0).length;
    // RATE-9's promise: every source slowed by the same factor — the host's factor in force when it
    // asks (`fairness`); over the whole week its syncs ÷ what its own cadence asks (`weekShareFairness`);
    // the raw count beside them.
    const members = h.fleet.sourceIndexes.map((i) => sources[i] as SimSource);
    const asked = members.map((s) => askedOf(s, h.sim.intervalMs));
    const weekShares = members.map((s, i) => s.syncs / Math.max(1, (asked[i] as AskedSyncs).total));
    const atFactor = sharesAtHostFactor(
      members.map((s) => s.syncsByHour ?? []),
      asked.map((a) => a.byHour),
    );
    fairness = worse(fairness, atFactor);
    blockFairness = worse(
      blockFairness,
      sharesAtBlockFactor(
        members.map((s) => s.syncsByHour ?? []),
        asked.map((a) => a.byHour),
      ),
    );
    weekShareFairness = worse(weekShareFairness, weekShares);
    rawFairness = worse(rawFairness, syncs);
    incrementalFairness = worse(incrementalFairness, incrementals);
    const factor = hostFactorByHour(
      members.map((s) => s.syncsByHour ?? []),
      asked.map((a) => a.byHour),
    );
    saturatedHostDetail.push(hostDetail(h, members, { asked, weekShares, atFactor, factor }));
  }
  // The yardstick's calibration: sources alone on a host that is not saturated get what they ask
  // (share ≈ 1 with enough slots). A sample keeps the replay's cost small at 10,000 sources.
  const loneShares: number[] = [];
  for (const h of hosts.values()) {
    if (loneShares.length >= LONE_SHARE_SAMPLE) break;
    if (h.fleet.hosting || h.saturated || h.fleet.sourceIndexes.length !== 1) continue;
    const s = sources[h.fleet.sourceIndexes[0] as number] as SimSource;
    const asked = askedOf(s, h.sim.intervalMs);
    loneShares.push(s.syncs / Math.max(1, asked.total));
  }
  const share = (c: [number, number]) => (c[1] === 0 ? 1 : c[0] / c[1]);
  const perSource = (hosting: boolean) => {
    const list = sources.filter((s) => s.fleet.hosting === hosting);
    return list.length === 0 ? 0 : list.reduce((sum, s) => sum + s.incrementalSyncs, 0) / list.length;
  };
  const requestsPerRun: Record<string, number> = {};
  for (const [k, v] of [...m.requestsByKind].sort()) requestsPerRun[k] = round(v.requests / v.runs, 1);
  return {
    sources: fleet.sources.length,
    hosts: fleet.hosts.length,
    hostingHosts: fleet.hosts.filter((h) => h.hosting).length,
    saturatedHosts: saturatedUse.length,
    allocation: options.allocation,
    slots: settings.maxConcurrentSyncs,
    spacingViolations,
    maxInFlightPerHost: maxInFlight,
    starvedSyncs: m.starved,
    starvedSyncsInFullWindow: m.starvedInFullWindow,
    lateSyncs: m.late,
    fairness: fairness === null ? null : round(fairness, 3),
    weekShareFairness: weekShareFairness === null ? null : round(weekShareFairness, 3),
    rawFairness: rawFairness === null ? null : round(rawFairness, 3),
    incrementalFairness: incrementalFairness === null ? null : round(incrementalFairness, 3),
    blockFairness: blockFairness === null ? null : round(blockFairness, 3),
    sourcesWithoutSyncOnSaturatedHosts: zeroSync,
    saturatedHostUtilisation: {
      mean: round(saturatedUse.reduce((a, b) => a + b, 0) / Math.max(1, saturatedUse.length), 3),
      min: round(saturatedUse.length === 0 ? 0 : Math.min(...saturatedUse), 3),
    },
    leastUtilisedHosts: useByHost.sort((a, b) => a.utilisation - b.utilisation).slice(0, 3),
    idleSlotShareWhileDue: round(m.slotMs === 0 ? 0 : m.idleWhileDueMs / m.slotMs, 4),
    billedWaitSecondsPerRequest: round(m.requests === 0 ? 0 : m.waitMs / 1000 / m.requests, 3),
    queuedWaitSecondsPerRequest: round(m.requests === 0 ? 0 : m.queuedMs / 1000 / m.requests, 3),
    fullSyncCoverage: {
      lone: round(share(m.coverage.lone), 3),
      hosting: round(share(m.coverage.hosting), 3),
    },
    runs: { incremental: m.runsIncremental, full: m.runsFull },
    requestsPerRun,
    incrementalSyncsPerSource: { lone: round(perSource(false), 1), hosting: round(perSource(true), 1) },
    slotsNeeded: perHost ? perHost.slotsNeeded() : null,
    laneHandOns: m.handOns,
    loneHostShare: {
      min: round(loneShares.length === 0 ? 1 : Math.min(...loneShares), 3),
      max: round(loneShares.length === 0 ? 1 : Math.max(...loneShares), 3),
    },
    saturatedHostDetail,
    paging: perHost ? paging.result(days) : null,
    decisions: m.decisions,
    wallSeconds: round((performance.now() - wallStart) / 1000, 1),
    cpuSeconds: cpuSecondsSince(cpuStart),
  };
}

/** A saturated host's most and least served sources (at the host's factor) and its spreads. */
function hostDetail(
  h: HostEntry,
  members: readonly SimSource[],
  shares: {
    asked: readonly AskedSyncs[];
    weekShares: readonly number[];
    atFactor: readonly number[];
    /** The host's factor per hour (`hostFactorByHour`). */
    factor: readonly number[];
  },
): SaturatedHostDetail {
  const { asked, weekShares, atFactor, factor } = shares;
  const of = (i: number) => {
    const s = members[i] as SimSource;
    const fair = fairByHour((asked[i] as AskedSyncs).byHour, factor);
    return {
      sourceId: s.fleet.sourceId,
      syncs: s.syncs,
      incrementalSyncs: s.incrementalSyncs,
      asked: (asked[i] as AskedSyncs).total,
      weekShare: round(weekShares[i] as number, 3),
      atHostFactor: round(atFactor[i] as number, 3),
      sessionDays: s.initialState.sessionDays ?? [],
      changes: s.changes.length,
      syncsByDay: perDay(s.syncsByHour ?? []),
      askedByDay: perDay((asked[i] as AskedSyncs).byHour),
      fairByDay: perDay(fair).map((x) => round(x, 1)),
      byPeriod: byPeriodOf(s.syncsByHour ?? [], fair),
    };
  };
  const ends = (values: readonly number[]) => {
    const order = values.map((_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number));
    return { least: order[0] as number, most: order[order.length - 1] as number };
  };
  const spread = (values: readonly number[]) =>
    round(Math.max(...values) / Math.max(1e-9, Math.min(...values)), 3);
  const syncs = members.map((s) => s.syncs);
  const byFactor = ends(atFactor);
  const hostSum = (rows: readonly (readonly number[])[]) => {
    const sum: number[] = [];
    for (const row of rows) {
      row.forEach((x, b) => {
        sum[b] = (sum[b] ?? 0) + x;
      });
    }
    return perDay(sum);
  };
  const bySyncs = ends(syncs);
  return {
    host: h.fleet.host,
    sources: members.length,
    kind: h.fleet.kind,
    rawFairness: spread(syncs),
    weekShareFairness: spread(weekShares),
    fairness: spread(atFactor),
    leastServed: of(byFactor.least),
    mostServed: of(byFactor.most),
    syncsByDay: hostSum(members.map((s) => s.syncsByHour ?? [])),
    askedByDay: hostSum(asked.map((a) => a.byHour)),
    fewestSyncs: of(bySyncs.least),
    mostSyncs: of(bySyncs.most),
  };
}

/**
 * Syncs and fair counts (at the host's factor of each hour) per period of SCH-1 — weekday 07–19,
 * weekday nights, the weekend —: where a source is served ahead of or behind its share. The span is
 * measured from a Monday 00:00 local (hour index → local hour; no DST change in the bench's week).
 */
function byPeriodOf(syncsByHour: readonly number[], fair: readonly number[]): PeriodShares {
  const out: PeriodShares = {
    weekdayDay: { syncs: 0, fair: 0 },
    weekdayNight: { syncs: 0, fair: 0 },
    weekend: { syncs: 0, fair: 0 },
  };
  fair.forEach((f, b) => {
    const day = Math.floor(b / 24) % 7;
    const hour = b % 24;
    const period = day >= 5 ? out.weekend : hour >= 7 && hour < 19 ? out.weekdayDay : out.weekdayNight;
    period.syncs += syncsByHour[b] ?? 0;
    period.fair += f;
  });
  for (const p of Object.values(out)) p.fair = round(p.fair, 1);
  return out;
}

/** Hourly counts (index: hours since the measured span began) summed per day of the span. */
function perDay(byHour: readonly number[]): number[] {
  const days: number[] = [];
  byHour.forEach((x, b) => {
    const d = Math.floor(b / 24);
    days[d] = (days[d] ?? 0) + x;
  });
  return days;
}

/** Max/min of a host's per-source counts, kept when worse than `so far` (null: a source had none). */
function worse(soFar: number | null, counts: readonly number[]): number | null {
  const min = Math.min(...counts);
  if (soFar === null || min === 0) return null;
  return Math.max(soFar, Math.max(...counts) / min);
}

function runnableAsIncremental(decision: SourceDecision | undefined): boolean {
  return decision !== undefined && (decision.kind === 'incremental' || decision.incrementalDue === true);
}

/** SCH-2: `sessionDaysPerWeek` distinct weekdays of the span. */
function pickSessionDays(weekdays: readonly string[], random: () => number): string[] {
  const pool = [...weekdays];
  const out: string[] = [];
  for (let i = 0; i < ASSUMPTIONS.sessionDaysPerWeek && pool.length > 0; i += 1) {
    out.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as string);
  }
  return out.sort();
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return round((used.user + used.system) / 1e6, 1);
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
