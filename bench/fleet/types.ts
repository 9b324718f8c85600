import type { HostModel } from '../../shared/hosts';
import type { StarvedSource } from '../../shared/planner';
import type {
  ScheduleSettings,
  ScheduleSourceConfig,
  SourceDecision,
  SourceScheduleState,
} from '../../shared/schedule';
import type { FleetSource } from './model';
import type { PagingHours } from './paging';

/** The fleet bench's shared types (simulation ↔ allocations). */
/** `lanes`: the per-host admission with host lanes (a run that ends hands its slot to its host's next waiting run). */
export type Allocation = 'today' | 'per-host' | 'lanes';

export interface FleetSimOptions {
  sources: number;
  allocation: Allocation;
  /** SCH-5 slots (INGESTOR_MAX_CONCURRENT_SYNCS). */
  slots: number;
  seed?: number;
  /** Measured days (default 7, Monday 00:00 on). */
  days?: number;
  /** Simulated hours before the measured week (default 24: from the Sunday before). */
  warmupHours?: number;
  tickSeconds?: number;
  /** Local Monday 00:00 the measured week starts (default 2026-11-30, no DST change in it). */
  weekStart?: string;
  /** Told of every run that ended (an explanation's data, e.g. ./explain-coverage.ts; no decision reads it). */
  onRunEnded?: (run: EndedRun) => void;
  /**
   * Told at each measured tick where `starvationOf` counts a source starved: the tick and, per starved
   * source, what the planner held of it (an explanation's data, ./explain-starved.ts; no decision reads it).
   */
  onStarved?: (tick: StarvedTick) => void;
}

/** A tick with starved sources, as `onStarved` is told of it. */
export interface StarvedTick {
  nowMs: number;
  starved: {
    figure: StarvedSource;
    source: SimSourceView;
    /** The decision it waits with, and since when (the planner first found it due). */
    waiting: { decision: SourceDecision; sinceMs: number };
  }[];
  /** Per host of a starved source: its runs in flight, and its other waiting sources. */
  hosts: Record<
    string,
    {
      running: { sourceId: string; kind: string; startedAtMs: number; lane: boolean }[];
      waiting: { source: SimSourceView; decision: SourceDecision; sinceMs: number }[];
    }
  >;
}

/** A run that ended, as `onRunEnded` is told of it. */
export interface EndedRun {
  sourceId: string;
  host: string;
  kind: 'incremental' | 'full' | 'sliced';
  startedAtMs: number;
  endAtMs: number;
  requests: number;
}

/** What the per-host allocation sees at a tick and answers. */
export interface PerHostAdmission {
  /** A source of the fleet (its view stays current: the simulation updates its state in place). */
  register(source: SimSourceView): void;
  /** RATE-9 on a fresh decision (stretch on a saturated host); may turn `sync` into `wait`. */
  adjust(source: SimSourceView, decision: SourceDecision, nowIso: string): SourceDecision;
  /** RATE-9's factor of the source's host as the planner last modelled it (1: the host has capacity). */
  stretchOf(source: SimSourceView): number;
  /** FULL-3 with RATE-9: when a waiting full sync's incremental fallback is due, stretched (`fallbackDueMs`). */
  fallbackDueMs(source: SimSourceView, decision: SourceDecision): number | undefined;
  /** RATE-9: the source's host's full-sync share at the last admission (saturated hosts only). */
  fullShareOf(source: SimSourceView): number | undefined;
  starts(tick: TickView): SourceDecision[];
  /** SCH-5: the most slots the fleet needed at a tick so far (`FullSyncSlots.needed`). */
  slotsNeeded(): number;
  /** Forget the figure so far (the warm-up ends). */
  resetSlotsNeeded(): void;
  /** A source's run ended (its host's model may change). */
  runEnded(source: SimSourceView, endedIso: string): void;
  /** RATE-9: the host model by host key, as the planner last modelled it (the paging replay's). */
  modelOf(hostKey: string): HostModel | undefined;
  /** RATE-9: hosts the planner's models count saturated now (the `SaturatedHosts` gauge). */
  saturatedHosts(): number;
}

export interface SimSourceView {
  fleet: FleetSource;
  /** Its cadence (RATE-9 decides a saturated host's sources afresh on their own cycles). */
  config: ScheduleSourceConfig;
  state: SourceScheduleState;
}

export interface TickView {
  nowMs: number;
  nowIso: string;
  waiting: { source: SimSourceView; decision: SourceDecision }[];
  running: { source: SimSourceView; kind: 'incremental' | 'full' | 'sliced' }[];
  settings: ScheduleSettings;
}

export interface FleetSimResult {
  sources: number;
  hosts: number;
  hostingHosts: number;
  saturatedHosts: number;
  allocation: Allocation;
  slots: number;
  /** RATE-1: sends closer than the host's interval (0). */
  spacingViolations: number;
  /** RATE-4 (≤ 2). */
  maxInFlightPerHost: number;
  /**
   * Scheduled incremental runs that waited more than one interval while their host had none of our runs
   * in flight and every sync slot was taken (issue 27: late because of other hosts' runs).
   */
  starvedSyncs: number;
  /** Scheduled incremental runs that started more than one interval after they were due, any cause. */
  lateSyncs: number;
  /** Of the starved, those started while the full-sync window was open (FULL-3). */
  starvedSyncsInFullWindow: number;
  /**
   * RATE-9 (issue 27's `fairness`): over saturated hosts, the worst max/min per source of its syncs ÷
   * its fair count — what its own cadence asks in each hour (./asked.ts) × the host's achieved ÷ asked
   * in that hour (null: a source had none). RATE-9 promises one factor for all at a time, not equal
   * counts: the sources ask for different numbers of syncs (session days — SCH-2 caps the day before
   * too —, changes, SCH-3's quiet doubling), and the host's factor differs between weekday days, nights
   * and the weekend, so a source asking on a quiet weekend gets more of its ask than one asking on a
   * busy Tuesday. Both spreads it rests on are printed beside it.
   */
  fairness: number | null;
  /** The worst max/min of syncs ÷ asked over the whole span (one factor for the week). */
  weekShareFairness: number | null;
  /** The raw count beside it: the worst max/min syncs (any kind) per source on a saturated host. */
  rawFairness: number | null;
  /**
   * The same over incremental syncs only: a source whose full sync ran that night has one incremental
   * fewer (its full sync took its turn on the host, and SCH-4 counts the interval from its end).
   */
  incrementalFairness: number | null;
  /** `fairness` at the host's factor per SCH-1 period block (00–07, 07–19, 19–24) instead of per hour. */
  blockFairness: number | null;
  sourcesWithoutSyncOnSaturatedHosts: number;
  /** Mean over saturated hosts of the pace used on weekdays 07–19 (requests × interval / time). */
  saturatedHostUtilisation: { mean: number; min: number };
  /** The three least used saturated hosts (weekdays 07–19), least first: which host sets `min`. */
  leastUtilisedHosts: { host: string; sources: number; kind: string; utilisation: number }[];
  /** Slot-time idle, or waiting behind other runs on a host, while a run that could start as an incremental on a free host waited, of all slot-time. */
  idleSlotShareWhileDue: number;
  /** A run's wait for the host between ready and sent, per request (billed: the run holds its slot). */
  billedWaitSecondsPerRequest: number;
  /** Of it, the wait behind other runs on the same host (the part an allocation can avoid). */
  queuedWaitSecondsPerRequest: number;
  /** Share of (source, night) with a complete full sync within a day at the window's end (08:00). */
  fullSyncCoverage: { lone: number; hosting: number };
  runs: { incremental: number; full: number };
  requestsPerRun: Record<string, number>;
  incrementalSyncsPerSource: { lone: number; hosting: number };
  /**
   * SCH-5: the most sync slots the planner's demand model said the fleet needed at a measured tick
   * (`FullSyncSlots.needed`; null for today's allocation). Above `slots`: the slots are short.
   */
  slotsNeeded: number | null;
  /** Host lanes: invocations a lane handed on to (its time short, the next run in a new message). */
  laneHandOns: number;
  /**
   * The yardstick's calibration: syncs ÷ asked of a sample of sources alone on a host that is not
   * saturated (≈ 1 when the slots suffice: the replay asks what the simulation gives an idle host).
   */
  loneHostShare: { min: number; max: number };
  /** Per saturated host: both spreads and the sources at their ends (what makes the figure). */
  saturatedHostDetail: SaturatedHostDetail[];
  /**
   * On-call's RATE-9 alarm replayed on the planner's figures each tick: the old HostSaturated (a host
   * saturated a whole hour) against SourceStarved (`starvationOf`); per-host allocations only (null: today's).
   */
  paging: PagingHours | null;
  decisions: number;
  wallSeconds: number;
  /** The process's CPU time during the run (on a loaded machine the wall time is mostly waiting for a core). */
  cpuSeconds: number;
}

/** A source at one end of a saturated host's spread. */
export interface SaturatedHostSource {
  sourceId: string;
  syncs: number;
  incrementalSyncs: number;
  /** Syncs its own cadence asks for over the span (./asked.ts). */
  asked: number;
  /** syncs ÷ asked. */
  weekShare: number;
  /** syncs ÷ its fair count at the host's factor of each hour (1: served as RATE-9 promises). */
  atHostFactor: number;
  sessionDays: string[];
  /** Changes drawn for it over the span. */
  changes: number;
  /** Its syncs per day of the span (how often it was picked), and what it asks per day alone. */
  syncsByDay: number[];
  askedByDay: number[];
  /** Its fair count per day at the host's factor of each hour (what `atHostFactor` divides by). */
  fairByDay: number[];
  /** Syncs and fair counts per SCH-1 period (weekday 07–19, weekday nights, the weekend). */
  byPeriod: PeriodShares;
}

/** Per SCH-1 period: syncs achieved and the fair count at the host's factor of each hour. */
export interface PeriodShares {
  weekdayDay: { syncs: number; fair: number };
  weekdayNight: { syncs: number; fair: number };
  weekend: { syncs: number; fair: number };
}

export interface SaturatedHostDetail {
  host: string;
  sources: number;
  kind: 'oparl' | 'scraped';
  /** max/min syncs. */
  rawFairness: number;
  /** max/min syncs ÷ asked. */
  weekShareFairness: number;
  /** max/min syncs ÷ the fair count at the host's factor of each hour (RATE-9). */
  fairness: number;
  /** The host's syncs per day of the span, and what its sources ask per day alone (÷: its factor). */
  syncsByDay: number[];
  askedByDay: number[];
  leastServed: SaturatedHostSource;
  mostServed: SaturatedHostSource;
  fewestSyncs: SaturatedHostSource;
  mostSyncs: SaturatedHostSource;
}
