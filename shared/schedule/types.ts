import type { DateTime } from 'luxon';
import type { SourceConfig } from '../config';
import type { FailureKind, FirstTimePauseKind, PeriodId } from './constants';

export type { FailureKind, FirstTimePauseKind, PeriodId } from './constants';

/** An instant: a luxon DateTime or an ISO string (with offset, or local Europe/Berlin without). */
export type Instant = DateTime | string;

/** What a run covers; the one home of the word (the engine's runs and reports use it too). */
export type SyncKind = 'incremental' | 'full' | 'sliced';
export type SyncTrigger = 'schedule' | 'manual';

/** The installation-wide knobs the planner reads (from the environment, see `scheduleSettingsFromEnv`). */
export interface ScheduleSettings {
  /** INGESTOR_INTERVAL: base of weekday 07–19 in minutes (SCH-1, default 10). */
  weekdayDayBaseMinutes: number;
  /** INGESTOR_FULL_SYNC_HOUR: start hour of the default full-sync window (FULL-1, default 3). */
  fullSyncHour: number;
  /** INGESTOR_MAX_CONCURRENT_SYNCS: sources synced at once (SCH-5, default 4). */
  maxConcurrentSyncs: number;
}

/** The part of a source's config the planner reads. */
export type ScheduleSourceConfig = Pick<
  SourceConfig,
  'sourceId' | 'active' | 'cadenceMinutes' | 'fullSyncWindow' | 'fullSyncMinDays' | 'fullSyncSliced'
>;

/** Why a source is paused: the ERR-4 ladder or one of the ERR-5 first-time findings. */
export type PauseKind = 'failure-streak' | FirstTimePauseKind;

export interface SchedulePause {
  /** ISO instant; the source is not synced before it (SCH-7). */
  until: string;
  kind: PauseKind;
  minutes: number;
  /** Human, e.g. "a 5xx series (ERR-5)". */
  because: string;
  ruleIds: string[];
}

export interface ManualRequest {
  kind: 'sync' | 'full';
  requestedAt: string;
}

/** The lease a started sync holds (SCH-5). */
export interface RunningSync {
  kind: SyncKind;
  trigger: SyncTrigger;
  startedAt: string;
  leaseUntil: string;
  /** FULL-2: the window this full sync was started in. */
  windowId?: string;
  /** FULL-4/FULL-6: no further page after this instant. */
  deadline?: string;
}

/**
 * Cadence, sparing and full-sync bookkeeping of one source: one item in the State table
 * (`SOURCE#<id>` / `STATE`). Machine-written, plain JSON: instants are ISO strings with offset,
 * local dates are 'YYYY-MM-DD'. Every optional field may be absent on a fresh source.
 */
export interface SourceScheduleState {
  schemaVersion: 1;
  /** SCH-4: the interval counts from the end of the previous sync (any kind). */
  lastSyncStartedAt?: string;
  lastSyncEndedAt?: string;
  lastSyncKind?: SyncKind;
  /** SCH-3: the period the previous sync started in; a sync in another period resets to base. */
  lastSyncPeriod?: PeriodId;
  lastSyncChanged?: boolean;
  /** SCH-3: syncs without change in a row within the current period (the first of a period included). */
  quietStreak: number;
  /** Display copy of the interval running after the last sync; decisions always recompute it. */
  intervalMinutes?: number;
  /** ERR-4/ERR-6: failed runs in a row; 0 after a run that succeeded. */
  failureStreak: number;
  lastSuccessAt?: string;
  /** ERR-4/ERR-5: the pause in force (the longer one wins; never shortened). */
  pause?: SchedulePause;
  /** FULL-1: while set and leased, the same source's incremental syncs rest. */
  fullSyncInProgress: boolean;
  fullSyncLastStartedAt?: string;
  /** FULL-2: id (start instant) of the last window a full sync was started in — once per window. */
  fullSyncLastWindowId?: string;
  /** FULL-4/FULL-8: the last *complete* full sync, for the minimum distance and FULL-3 ordering. */
  fullSyncLastCompleteStartedAt?: string;
  fullSyncLastCompletedAt?: string;
  fullSyncLastCompleteWindowId?: string;
  /** FULL-7: until this instant full syncs run only as incremental syncs. */
  incrementalOnlyUntil?: string;
  /** SCH-2: local dates of upcoming meetings (cancelled and deleted ones excluded by the writer). */
  sessionDays: string[];
  /** SCH-7/FULL-8: a request from the admin or the CLI, cleared when a sync for it starts. */
  manualRequest?: ManualRequest;
  /** SCH-5: the lease of the sync running now. */
  running?: RunningSync;
  /**
   * RATE-9: the requests (and seconds) of the source's last runs, newest last, at most
   * `RECENT_RUNS_KEPT`; the host model learns each run kind's expected requests from them.
   */
  recentRuns?: RecentRun[];
}

/** RATE-9: what one finished run asked of its host. */
export interface RecentRun {
  kind: SyncKind;
  requests: number;
  seconds: number;
}

/** What the sync function reports when a run ends. */
export interface RunOutcome {
  kind: SyncKind;
  startedAt: string;
  endedAt: string;
  /** SCH-3: the run found at least one change. */
  changed: boolean;
  /** All lists done (a full sync skipping a slow list is not complete, SCH-12). */
  complete: boolean;
  /** ERR-4: the run failed as a whole. */
  failed: boolean;
  /** ERR-5 findings of this run ('other' only counts towards the ERR-4 streak via `failed`). */
  failures: FailureKind[];
  /** FULL-7: a slice returned objects far outside its range. */
  filterNotHonoured?: boolean;
  /** SCH-2: the source's session days as now mirrored; replaces the stored list when given. */
  sessionDays?: string[];
  /** RATE-9: requests the run sent (all its invocations); the host model learns from it. */
  requests?: number;
}

export interface CadenceDue {
  /** ISO instant the next incremental sync is due (may be in the past: due now). */
  at: string;
  /** The interval running after the previous sync. */
  intervalMinutes: number;
  /** The period of `at`. */
  period: PeriodId;
  quietStreak: number;
  /** SCH-2 cap in force for the previous sync's day. */
  sessionCapped: boolean;
  reason: string;
  ruleIds: string[];
}

export type DecisionAction = 'sync' | 'wait' | 'skip';

export interface SourceDecision {
  sourceId: string;
  action: DecisionAction;
  kind?: SyncKind;
  trigger?: SyncTrigger;
  /** FULL-4/FULL-6: ISO instant after which the sync fetches no further page. */
  deadline?: string;
  /** FULL-2: the window a full sync starts in (to be stored with the lease). */
  windowId?: string;
  /** For `wait`: the earliest instant the decision may change. For `sync`: when it became due. */
  dueAt?: string;
  /** FULL-3: a full sync that finds no slot falls back to this if its cadence is due now. */
  incrementalDue?: boolean;
  /** SCH-4: when the incremental cadence is (or was) due; RATE-9 stretches it on a saturated host. */
  cadenceAt?: string;
  /** FULL-3: a freed slot goes first to the oldest last (complete) full sync; absent = never. */
  lastFullSyncAt?: string;
  /** Human, for on-call. */
  reason: string;
  ruleIds: string[];
}

/** How `decideSource` decides, beside the source, its state and the instant. */
export interface DecideOptions {
  /** The deployment's schedule settings (default `DEFAULT_SCHEDULE_SETTINGS`). */
  settings?: ScheduleSettings;
  /** Scheduled full syncs (default true). The cadence simulation switches them off. */
  scheduledFullSyncs?: boolean;
}
