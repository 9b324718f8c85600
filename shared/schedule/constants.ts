/**
 * The planner's policy tables, as data. The published fetch rules ("Abrufregeln") promise these numbers
 * to municipalities; the rules page is generated from these constants, so code and page cannot drift.
 * Every value cites the SPEC rule it keeps. Change a number here only together with the published rules.
 */

/** All times of day in the rules are local time (SPEC preamble). */
export const TIME_ZONE = 'Europe/Berlin';

export type PeriodId = 'weekdayDay' | 'weekdayNight' | 'weekend';

export interface CadencePeriod {
  id: PeriodId;
  /** For humans and the rules page. */
  label: string;
  /** Published base interval; `weekdayDay` is replaced by INGESTOR_INTERVAL (SCH-1). */
  baseMinutes: number;
  /** The setting that changes the base for the whole installation, if any. */
  baseSetting?: 'INGESTOR_INTERVAL';
}

/** Start and end hour of weekday daytime (SCH-1: 07–19). */
export const WEEKDAY_DAY_START_HOUR = 7;
export const WEEKDAY_DAY_END_HOUR = 19;

/**
 * SCH-1: base interval per period. Holidays count as weekdays, so only the ISO weekday decides
 * (Saturday and Sunday are `weekend`, from Saturday 00:00 to Monday 00:00).
 */
export const CADENCE_PERIODS: readonly CadencePeriod[] = [
  { id: 'weekdayDay', label: 'Monday–Friday 07:00–19:00', baseMinutes: 10, baseSetting: 'INGESTOR_INTERVAL' },
  { id: 'weekdayNight', label: 'Monday–Friday 19:00–07:00', baseMinutes: 60 },
  { id: 'weekend', label: 'Saturday and Sunday', baseMinutes: 120 },
] as const;

export const PERIOD_IDS: readonly PeriodId[] = ['weekdayDay', 'weekdayNight', 'weekend'];

/** SCH-2: on a session day and the day before, the interval is capped at this many minutes. */
export const SESSION_DAY_CAP_MINUTES = 10;
/**
 * SCH-2: session days are kept this many days ahead (issue 28). The cap looks at today and tomorrow only,
 * and every run replaces the list, so days further out change no decision before the next run — but a
 * council that publishes its calendar months ahead would fill the STATE item, which every lease, claim and
 * release rewrites, past 1 KB (each date ≈ 11 bytes). Two weeks outlast any gap between a source's runs
 * short of a pause, after which the first run brings the list back.
 */
export const SESSION_DAYS_AHEAD_DAYS = 14;

/** SCH-3: after every this-many syncs in a row without change the interval doubles … */
export const QUIET_SYNCS_PER_DOUBLING = 3;
/** … up to this ceiling (a slower per-source base is never lowered by it). */
export const QUIET_CEILING_MINUTES = 120;

/**
 * SCH-6: the published check figure — without changes or meetings and with syncs taking no time, one
 * week from Monday 00:00. Tests and `simulate cadence` reproduce it with the real decision code.
 */
export const CADENCE_CHECK_FIGURE = {
  weekSyncs: 131,
  flatTenMinuteWeekSyncs: 1008,
  weekendDaySyncs: 12,
  weekdayNightSyncs: 7,
  weekdayDaySyncs: 14,
  split: { mondayBefore07: 5, fiveWeekdayDays: 70, fourFullNights: 28, fridayAfter19: 4, weekend: 24 },
  weekdayDaySequence: ['07:00', '07:10', '07:20', '07:40', '08:00', '08:20', '09:00'],
} as const;

/** FULL-1: default full-sync window starts at INGESTOR_FULL_SYNC_HOUR (default 03) and lasts 5 h. */
export const DEFAULT_FULL_SYNC_HOUR = 3;
export const FULL_SYNC_DEFAULT_WINDOW_HOURS = 5;

/** SCH-5: sources synced at once by default (INGESTOR_MAX_CONCURRENT_SYNCS). */
export const DEFAULT_MAX_CONCURRENT_SYNCS = 4;
/** FULL-3: full syncs use at most all slots but this many (default 3 of 4). */
export const SLOTS_KEPT_FOR_INCREMENTAL = 1;

/** SCH-1 default for INGESTOR_INTERVAL. */
export const DEFAULT_WEEKDAY_DAY_BASE_MINUTES = 10;

/** ERR-4: from the 3rd failed run in a row: 10 min, doubling per further failed run, max 6 h. */
export const SPARING_LADDER = {
  fromFailedRun: 3,
  firstPauseMinutes: 10,
  factor: 2,
  maxPauseMinutes: 360,
} as const;

/**
 * Failure kinds the planner branches on (ERR-5 pauses); everything else is `other`. The one home of the
 * word: the engine reports them (`EngineReport.failures`, `SyncFailure.kind`) in these terms.
 */
export type FailureKind = 'ua-blocked' | '5xx-series' | 'robots-unreachable' | 'robots-forbids-all' | 'other';
export type FirstTimePauseKind = Exclude<FailureKind, 'other'>;

export interface FirstTimePause {
  minutes: number;
  /** Completes "paused until 14:20 because of …". */
  because: string;
  ruleIds: readonly string[];
}

/**
 * ERR-5: pauses that apply at the first occurrence already; the longer of this and ERR-4 applies.
 * ROB-8 (robots.txt allows no request → again no earlier than 24 h) is the same promise as the last row.
 */
export const FIRST_TIME_PAUSES: Readonly<Record<FirstTimePauseKind, FirstTimePause>> = {
  'ua-blocked': { minutes: 60, because: 'a blocked User-Agent', ruleIds: ['ERR-5', 'ID-4'] },
  '5xx-series': { minutes: 30, because: 'a 5xx series', ruleIds: ['ERR-5', 'ERR-3'] },
  'robots-unreachable': { minutes: 30, because: 'an unreachable robots.txt', ruleIds: ['ERR-5', 'ROB-7'] },
  'robots-forbids-all': {
    minutes: 24 * 60,
    because: 'a robots.txt allowing no request',
    ruleIds: ['ERR-5', 'ROB-8'],
  },
};

/**
 * ROB-7: with no valid copy, robots.txt is retried no earlier than this. The fetcher keeps it per host;
 * the source pause of 30 min (ERR-5) is longer, so the planner never undercuts it.
 */
export const ROBOTS_UNREACHABLE_RETRY_MIN_MINUTES = 15;

/** ERR-6: document functions rest from this failed sync run in a row until a run succeeds again. */
export const DOCUMENTS_REST_FROM_FAILED_RUN = 3;

/** FULL-7: after a filter-not-honoured abort, only incremental syncs for this many days. */
export const FILTER_NOT_HONOURED_INCREMENTAL_ONLY_DAYS = 30;

/**
 * Lease a started sync holds on its source (SCH-5: one sync per source at a time). The sync function
 * renews it with every delivery it claims (Lambda budget 15 min), so an expired lease means a dead run.
 * It outlasts the sync queue's visibility timeout (20 min) by 5 min: a message given back after a crash
 * or a store outage comes again while its run still holds the source, instead of racing a planner tick
 * that would start another run in its place (chaos bench, issue 13).
 */
export const DEFAULT_LEASE_MINUTES = 25;

/** ERR-4 as a list for the rules page: 10, 20, 40, 80, 160, 320, 360. */
export function sparingLadderMinutes(): number[] {
  const steps: number[] = [];
  let minutes: number = SPARING_LADDER.firstPauseMinutes;
  while (minutes < SPARING_LADDER.maxPauseMinutes) {
    steps.push(minutes);
    minutes *= SPARING_LADDER.factor;
  }
  steps.push(SPARING_LADDER.maxPauseMinutes);
  return steps;
}

/** SCH-3 as a list for the rules page: the interval after each quiet sync, from a base, until the ceiling. */
export function quietDoublingMinutes(baseMinutes: number, syncs = 13): number[] {
  const ceilingMinutes = Math.max(QUIET_CEILING_MINUTES, baseMinutes);
  return Array.from({ length: syncs }, (_, index) =>
    Math.min(baseMinutes * 2 ** Math.floor(index / QUIET_SYNCS_PER_DOUBLING), ceilingMinutes),
  );
}

/** RATE-9: a source's state keeps this many of its last runs (requests and seconds) to learn from. */
export const RECENT_RUNS_KEPT = 6;
