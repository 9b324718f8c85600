import {
  BROADCAST_ATTEMPTS_PER_POLL,
  BROADCAST_LEAD_MINUTES,
  BROADCAST_OPEN_END_HOURS,
  BROADCAST_POLL_INTERVAL_MS,
} from '../broadcasts';
import {
  GEO_DEFAULT_MAX_PAGES,
  REQUEST_INTERVAL_MAX_SECONDS,
  REQUEST_INTERVAL_MIN_SECONDS,
  SCRAPER_DEFAULT_INTERVAL_SECONDS,
} from '../config';
import {
  CACHE_MAX_FILE_BYTES,
  CACHE_MAX_FILES_PER_RUN,
  CACHE_MAX_FILES_PER_SOURCE,
  DEL_MAX_ERRORS_IN_ROW,
  DEL_MAX_REFETCHES_PER_RUN,
  DEL_RECHECKS,
  DEL_SAMPLES_PER_BODY,
  DEL_SERVER_SPACING_MS,
  DEL_SOURCE_REST_NEW_GONE,
  DEL_STOP_STATUSES,
  DOC_GONE_PROVISIONAL_MS,
  DOC_RETRY_LADDER_MS,
  DOC_RETRY_WEEKLY_MS,
  PHO_MAX_PERSONS_PER_BODY,
  PHO_PAUSE_MS,
  PHO_RECHECK_MS,
  TEXT_EXTRACTION_TIMEOUT_MS,
  TEXT_MAX_FILE_BYTES,
  TEXT_MAX_FILES_PER_BODY,
  TEXT_MAX_MEMORY_GROWTH_BYTES,
  TEXT_MAX_PAGES,
  TEXT_RETRY_LADDER_MS,
} from '../documents';
import {
  BREAKER_FAILURE_THRESHOLD,
  BREAKER_OPEN_MS,
  COMPARISON_USER_AGENT,
  DEFAULT_CONTACT,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_INFO_URL,
  DEFAULT_MAX_BYTES,
  MAX_ATTEMPTS_BY_PURPOSE,
  MAX_REDIRECTS,
  OTHER_FETCH_USER_AGENT,
  PACKAGE_VERSION,
  RETRY_AFTER_CAP_MS,
  RETRY_PAUSES_MS,
  SERVER_ERROR_SERIES_LENGTH,
} from '../fetch';
import { HOST_INTERVAL_REFRESH_MS } from '../fetch-runtime';
import { GEO_ERROR_TEXTS, GEO_REFRESH_HOUR, GEO_REFRESH_MINUTE } from '../geo';
import { PROBE_MAX_REQUESTS_PER_BODY, PROBE_OPARL_PATHS, PROBE_PAUSE_BETWEEN_BODIES_MS } from '../onboarding';
import {
  BODY_LIST_MAX_PAGES,
  CATCH_UP_CHUNK_DAYS,
  CHANGE_WINDOW_MARGIN_MS,
  CHANGE_WINDOW_MAX_MS,
  FILTER_RECHECK_DELAY_MS,
  FILTER_TOLERANCE_MS,
  MISSING_LIST_RECHECK_MS,
  SLICE_DAYS,
  SLICE_EPOCH_LOCAL,
  SLOW_LIST_SKIP_HOURS,
  SLOW_LIST_TIMEOUT_MS,
  timeSlices,
  UNFILTERED_STOP_AFTER_UNCHANGED_PAGES,
} from '../oparl';
import { httpStatusText, OTHER_FETCH_INTERVAL_SECONDS } from '../other-fetch';
import {
  PREVIEW_MAX_FETCHES_PER_INSTANCE,
  PREVIEW_MAX_WAIT_MS,
  PREVIEW_VISITOR_LIMIT,
  PREVIEW_VISITOR_WINDOW_MS,
} from '../preview';
import {
  CRAWL_DELAY_CAP_SECONDS,
  LEGACY_TOKENS,
  PRODUCT_TOKEN,
  ROBOTS_ALLOWS_NOTHING_RETRY_MS,
  ROBOTS_CACHE_TTL_MS,
  ROBOTS_MAX_BYTES,
  ROBOTS_UNREACHABLE_RETRY_MS,
} from '../robots';
import {
  CADENCE_CHECK_FIGURE,
  CADENCE_PERIODS,
  DEFAULT_FULL_SYNC_HOUR,
  DEFAULT_MAX_CONCURRENT_SYNCS,
  DOCUMENTS_REST_FROM_FAILED_RUN,
  FILTER_NOT_HONOURED_INCREMENTAL_ONLY_DAYS,
  FIRST_TIME_PAUSES,
  FULL_SYNC_DEFAULT_WINDOW_HOURS,
  QUIET_CEILING_MINUTES,
  QUIET_SYNCS_PER_DOUBLING,
  SESSION_DAY_CAP_MINUTES,
  SLOTS_KEPT_FOR_INCREMENTAL,
  SPARING_LADDER,
  WEEKDAY_DAY_END_HOUR,
  WEEKDAY_DAY_START_HOUR,
} from '../schedule';
import {
  FALLBACK_GRID_SLACK_MS,
  FALLBACK_PHASE_MIN_SLOTS,
  MAX_IN_FLIGHT_PER_HOST,
  SHARED_STORE_RETRY_MS,
} from '../slots';

/**
 * Every number the published rules page (docs/abrufregeln.md) states, gathered from the constants the
 * code runs on. The page is rendered from this object only (`renderRulesPage`), so it cannot promise a
 * number the code does not keep; `test/docs` regenerates it and compares. The one number shared/ cannot
 * import (`PUBLISHED_ONLY` below) is listed apart and checked against infra by the CDK tests.
 */

/**
 * A published number whose code constant lives where shared/ must not import from: the photo
 * function's schedule is CDK wiring (infra/stack.ts `DOCUMENT_SCHEDULES.photos`, Mondays 03:00).
 * test/cdk/rules-page.test.ts checks that both agree.
 */
export const PUBLISHED_ONLY = {
  /** PHO-1: Mondays at this hour (Europe/Berlin). */
  photosWeekdayHour: 3,
} as const;

export interface RulesConstants {
  version: string;
  identity: {
    productToken: string;
    legacyTokens: readonly string[];
    infoUrl: string;
    contact: string;
    /** OTH-1: the fixed identity of other fetches. */
    otherFetchUserAgent: string;
    /** ID-4: the User-Agent of the comparison request; null = none sent (undici's default). */
    comparisonUserAgent: string | null;
  };
  robots: {
    maxBytes: number;
    cacheTtlMs: number;
    unreachableRetryMs: number;
    allowsNothingRetryMs: number;
    crawlDelayCapSeconds: number;
  };
  rate: {
    minIntervalSeconds: number;
    maxSourceIntervalSeconds: number;
    scraperIntervalSeconds: number;
    hostIntervalRefreshMs: number;
    maxInFlightPerHost: number;
    sharedStoreRetryMs: number;
    /** RATE-7: added to the interval of each slot of a fallback process's cycle. */
    fallbackSlackMs: number;
    /** RATE-7: a turn is kept from at least this many slots before the store was lost (fallback-phase.ts). */
    fallbackPhaseMinSlots: number;
    /** RATE-7: the fewest slots in a fallback cycle, whatever the number of instances. */
    fallbackMinCycleSlots: number;
    retryAfterCapMs: number;
    deletionCheckSpacingMs: number;
  };
  redirects: { max: number };
  cadence: {
    weekdayDayStartHour: number;
    weekdayDayEndHour: number;
    periods: { id: string; baseMinutes: number }[];
    sessionDayCapMinutes: number;
    quietSyncsPerDoubling: number;
    quietCeilingMinutes: number;
    checkFigure: {
      weekSyncs: number;
      flatTenMinuteWeekSyncs: number;
      weekendDaySyncs: number;
      weekdayNightSyncs: number;
      weekdayDaySyncs: number;
      split: {
        mondayBefore07: number;
        fiveWeekdayDays: number;
        fourFullNights: number;
        fridayAfter19: number;
        weekend: number;
      };
      weekdayDaySequence: readonly string[];
    };
    maxConcurrentSyncs: number;
  };
  lists: {
    bodyListMaxPages: number;
    changeWindowMarginMs: number;
    changeWindowMaxMs: number;
    unfilteredStopPages: number;
    filterRecheckDelayMs: number;
    missingListRecheckMs: number;
    slowListTimeoutMs: number;
    slowListSkipHours: readonly number[];
    catchUpChunkDays: number;
  };
  full: {
    defaultHour: number;
    windowHours: number;
    slotsKeptForIncremental: number;
    sliceEpochLocal: string;
    sliceDays: number;
    /** FULL-5's example: slices per list on `slicesExampleDate` (computed by the real `timeSlices`). */
    slicesExampleDate: string;
    slicesOnExampleDate: number;
    filterToleranceMs: number;
    incrementalOnlyDays: number;
  };
  onboarding: { probeMaxRequests: number; probePauseMs: number; probePaths: readonly string[] };
  documents: {
    textMaxFilesPerBody: number;
    textMaxFileBytes: number;
    textTimeoutMs: number;
    textMaxPages: number;
    textMaxGrowthBytes: number;
    textRetryLadderMs: readonly number[];
    cacheMaxFilesPerRun: number;
    cacheMaxFilesPerSource: number;
    cacheMaxFileBytes: number;
    retryLadderMs: readonly number[];
    retryWeeklyMs: number;
    goneProvisionalMs: number;
  };
  deletion: {
    maxRefetchesPerRun: number;
    samplesPerBody: number;
    recheckDays: readonly number[];
    stopStatuses: readonly number[];
    maxErrorsInRow: number;
    sourceRestNewGone: number;
  };
  preview: { maxWaitMs: number; concurrentPerProcess: number; perVisitor: number; visitorWindowMs: number };
  photos: { weekdayHour: number; maxPersonsPerBody: number; recheckMs: number; pauseMs: number };
  /** OTH: other fetches (geo services). */
  other: {
    intervalSeconds: number;
    maxBytes: number;
    geoRefreshHour: number;
    geoRefreshMinute: number;
    geoMaxPages: number;
    geoErrorExamples: readonly string[];
  };
  /** OTH-5: live broadcasts of council meetings. */
  broadcasts: { leadMinutes: number; openEndHours: number; pollIntervalMs: number; attemptsPerPoll: number };
  errors: {
    apiAttempts: number;
    retryPausesMs: readonly number[];
    breakerFailures: number;
    breakerOpenMs: number;
    serverErrorSeries: number;
    ladder: { fromFailedRun: number; firstPauseMinutes: number; factor: number; maxPauseMinutes: number };
    firstTimePauseMinutes: {
      uaBlocked: number;
      serverErrorSeries: number;
      robotsUnreachable: number;
      robotsForbidsAll: number;
    };
    documentsRestFromFailedRun: number;
    listTimeoutMs: number;
  };
}

/** FULL-5's worked example date (SPEC: "206 slices per list on 2026-10-16"). */
export const SLICES_EXAMPLE_DATE = '2026-10-16';

function baseOf(id: string): number {
  const period = CADENCE_PERIODS.find((p) => p.id === id);
  if (!period) throw new Error(`no cadence period ${id}`);
  return period.baseMinutes;
}

/** The numbers as the code has them now. */
export function collectRulesConstants(): RulesConstants {
  const exampleMs = Date.parse(`${SLICES_EXAMPLE_DATE}T12:00:00+02:00`);
  return {
    version: PACKAGE_VERSION,
    identity: {
      productToken: PRODUCT_TOKEN,
      legacyTokens: LEGACY_TOKENS,
      infoUrl: DEFAULT_INFO_URL,
      contact: DEFAULT_CONTACT,
      otherFetchUserAgent: OTHER_FETCH_USER_AGENT,
      comparisonUserAgent: COMPARISON_USER_AGENT ?? null,
    },
    robots: {
      maxBytes: ROBOTS_MAX_BYTES,
      cacheTtlMs: ROBOTS_CACHE_TTL_MS,
      unreachableRetryMs: ROBOTS_UNREACHABLE_RETRY_MS,
      allowsNothingRetryMs: ROBOTS_ALLOWS_NOTHING_RETRY_MS,
      crawlDelayCapSeconds: CRAWL_DELAY_CAP_SECONDS,
    },
    rate: {
      minIntervalSeconds: REQUEST_INTERVAL_MIN_SECONDS,
      maxSourceIntervalSeconds: REQUEST_INTERVAL_MAX_SECONDS,
      scraperIntervalSeconds: SCRAPER_DEFAULT_INTERVAL_SECONDS,
      hostIntervalRefreshMs: HOST_INTERVAL_REFRESH_MS,
      maxInFlightPerHost: MAX_IN_FLIGHT_PER_HOST,
      sharedStoreRetryMs: SHARED_STORE_RETRY_MS,
      fallbackSlackMs: FALLBACK_GRID_SLACK_MS,
      fallbackPhaseMinSlots: FALLBACK_PHASE_MIN_SLOTS,
      fallbackMinCycleSlots: FALLBACK_PHASE_MIN_SLOTS + MAX_IN_FLIGHT_PER_HOST + 1,
      retryAfterCapMs: RETRY_AFTER_CAP_MS,
      deletionCheckSpacingMs: DEL_SERVER_SPACING_MS,
    },
    redirects: { max: MAX_REDIRECTS },
    cadence: {
      weekdayDayStartHour: WEEKDAY_DAY_START_HOUR,
      weekdayDayEndHour: WEEKDAY_DAY_END_HOUR,
      periods: ['weekdayDay', 'weekdayNight', 'weekend'].map((id) => ({ id, baseMinutes: baseOf(id) })),
      sessionDayCapMinutes: SESSION_DAY_CAP_MINUTES,
      quietSyncsPerDoubling: QUIET_SYNCS_PER_DOUBLING,
      quietCeilingMinutes: QUIET_CEILING_MINUTES,
      checkFigure: {
        weekSyncs: CADENCE_CHECK_FIGURE.weekSyncs,
        flatTenMinuteWeekSyncs: CADENCE_CHECK_FIGURE.flatTenMinuteWeekSyncs,
        weekendDaySyncs: CADENCE_CHECK_FIGURE.weekendDaySyncs,
        weekdayNightSyncs: CADENCE_CHECK_FIGURE.weekdayNightSyncs,
        weekdayDaySyncs: CADENCE_CHECK_FIGURE.weekdayDaySyncs,
        split: { ...CADENCE_CHECK_FIGURE.split },
        weekdayDaySequence: [...CADENCE_CHECK_FIGURE.weekdayDaySequence],
      },
      maxConcurrentSyncs: DEFAULT_MAX_CONCURRENT_SYNCS,
    },
    lists: {
      bodyListMaxPages: BODY_LIST_MAX_PAGES,
      changeWindowMarginMs: CHANGE_WINDOW_MARGIN_MS,
      changeWindowMaxMs: CHANGE_WINDOW_MAX_MS,
      unfilteredStopPages: UNFILTERED_STOP_AFTER_UNCHANGED_PAGES,
      filterRecheckDelayMs: FILTER_RECHECK_DELAY_MS,
      missingListRecheckMs: MISSING_LIST_RECHECK_MS,
      slowListTimeoutMs: SLOW_LIST_TIMEOUT_MS,
      slowListSkipHours: [...SLOW_LIST_SKIP_HOURS],
      catchUpChunkDays: CATCH_UP_CHUNK_DAYS,
    },
    full: {
      defaultHour: DEFAULT_FULL_SYNC_HOUR,
      windowHours: FULL_SYNC_DEFAULT_WINDOW_HOURS,
      slotsKeptForIncremental: SLOTS_KEPT_FOR_INCREMENTAL,
      sliceEpochLocal: SLICE_EPOCH_LOCAL,
      sliceDays: SLICE_DAYS,
      slicesExampleDate: SLICES_EXAMPLE_DATE,
      slicesOnExampleDate: timeSlices(exampleMs).length,
      filterToleranceMs: FILTER_TOLERANCE_MS,
      incrementalOnlyDays: FILTER_NOT_HONOURED_INCREMENTAL_ONLY_DAYS,
    },
    onboarding: {
      probeMaxRequests: PROBE_MAX_REQUESTS_PER_BODY,
      probePauseMs: PROBE_PAUSE_BETWEEN_BODIES_MS,
      probePaths: [...PROBE_OPARL_PATHS],
    },
    documents: {
      textMaxFilesPerBody: TEXT_MAX_FILES_PER_BODY,
      textMaxFileBytes: TEXT_MAX_FILE_BYTES,
      textTimeoutMs: TEXT_EXTRACTION_TIMEOUT_MS,
      textMaxPages: TEXT_MAX_PAGES,
      textMaxGrowthBytes: TEXT_MAX_MEMORY_GROWTH_BYTES,
      textRetryLadderMs: [...TEXT_RETRY_LADDER_MS],
      cacheMaxFilesPerRun: CACHE_MAX_FILES_PER_RUN,
      cacheMaxFilesPerSource: CACHE_MAX_FILES_PER_SOURCE,
      cacheMaxFileBytes: CACHE_MAX_FILE_BYTES,
      retryLadderMs: [...DOC_RETRY_LADDER_MS],
      retryWeeklyMs: DOC_RETRY_WEEKLY_MS,
      goneProvisionalMs: DOC_GONE_PROVISIONAL_MS,
    },
    deletion: {
      maxRefetchesPerRun: DEL_MAX_REFETCHES_PER_RUN,
      samplesPerBody: DEL_SAMPLES_PER_BODY,
      recheckDays: DEL_RECHECKS.map((r) => r.afterDays),
      stopStatuses: [...DEL_STOP_STATUSES].sort((a, b) => a - b),
      maxErrorsInRow: DEL_MAX_ERRORS_IN_ROW,
      sourceRestNewGone: DEL_SOURCE_REST_NEW_GONE,
    },
    preview: {
      maxWaitMs: PREVIEW_MAX_WAIT_MS,
      concurrentPerProcess: PREVIEW_MAX_FETCHES_PER_INSTANCE,
      perVisitor: PREVIEW_VISITOR_LIMIT,
      visitorWindowMs: PREVIEW_VISITOR_WINDOW_MS,
    },
    photos: {
      weekdayHour: PUBLISHED_ONLY.photosWeekdayHour,
      maxPersonsPerBody: PHO_MAX_PERSONS_PER_BODY,
      recheckMs: PHO_RECHECK_MS,
      pauseMs: PHO_PAUSE_MS,
    },
    other: {
      intervalSeconds: OTHER_FETCH_INTERVAL_SECONDS,
      maxBytes: DEFAULT_MAX_BYTES.service,
      geoRefreshHour: GEO_REFRESH_HOUR,
      geoRefreshMinute: GEO_REFRESH_MINUTE,
      geoMaxPages: GEO_DEFAULT_MAX_PAGES,
      geoErrorExamples: [httpStatusText(503), GEO_ERROR_TEXTS.invalidGeoJson, GEO_ERROR_TEXTS.emptyAnswer],
    },
    broadcasts: {
      leadMinutes: BROADCAST_LEAD_MINUTES,
      openEndHours: BROADCAST_OPEN_END_HOURS,
      pollIntervalMs: BROADCAST_POLL_INTERVAL_MS,
      attemptsPerPoll: BROADCAST_ATTEMPTS_PER_POLL,
    },
    errors: {
      apiAttempts: MAX_ATTEMPTS_BY_PURPOSE.api,
      retryPausesMs: [...RETRY_PAUSES_MS],
      breakerFailures: BREAKER_FAILURE_THRESHOLD,
      breakerOpenMs: BREAKER_OPEN_MS,
      serverErrorSeries: SERVER_ERROR_SERIES_LENGTH,
      ladder: { ...SPARING_LADDER },
      firstTimePauseMinutes: {
        uaBlocked: FIRST_TIME_PAUSES['ua-blocked'].minutes,
        serverErrorSeries: FIRST_TIME_PAUSES['5xx-series'].minutes,
        robotsUnreachable: FIRST_TIME_PAUSES['robots-unreachable'].minutes,
        robotsForbidsAll: FIRST_TIME_PAUSES['robots-forbids-all'].minutes,
      },
      documentsRestFromFailedRun: DOCUMENTS_REST_FROM_FAILED_RUN,
      listTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS,
    },
  };
}
