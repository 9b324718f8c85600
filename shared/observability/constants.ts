/**
 * Names shared by the code that emits metrics and the CDK alarms and dashboard that read them
 * (infra/observability.ts): one constant each, so a renamed metric breaks the build, not the alarm.
 */

/** CloudWatch namespace of every custom metric (EMF). */
export const METRIC_NAMESPACE = 'MandariIngestor';

/** Metric names. Dimensions are kept few and low-cardinality; source and host go into log fields. */
export const METRICS = {
  /** Every HTTP exchange or refusal of the polite fetcher, by `Outcome` (2xx, 4xx, robots-disallowed …). */
  requests: 'Requests',
  /** robots.txt fetches by `Result` (parse, revalidated, absent, unreachable — ROB-5/6/7). */
  robotsFetches: 'RobotsFetches',
  /** Requests robots.txt did not let through, by `Verdict` (disallowed ROB-8, deferred ROB-7). */
  robotsVerdicts: 'RobotsVerdicts',
  /** Finished sync invocations by `Kind` (incremental, full, sliced) and `Outcome` (ok, failed, incomplete, continued). */
  syncRuns: 'SyncRuns',
  /** Planner, every tick: active sources paused now (ERR-4/ERR-5), in total and by `PauseKind`. */
  pausedSources: 'PausedSources',
  /**
   * Planner, every 15 minutes: of the active sources paused now, the longest time since its last
   * successful sync (else since its pause began), in hours. The "paused for more than a day" alarm reads
   * it; a custom-metric datapoint only above that day (`CUSTOM_METRIC_ONLY_WHEN`), a log line otherwise.
   */
  longestPauseHours: 'LongestPauseHours',
  /**
   * Host slots switching to the RATE-7 fallback (`Switch` entered), failing a retry there
   * (retry-failed) and back to Redis (left), per process. Any `entered` means some instance paced (or
   * stayed quiet) without the shared store.
   */
  slotStoreFallback: 'SlotStoreFallback',
  /**
   * Sync messages given back for redelivery because one of OUR stores (DynamoDB, S3, SQS) failed after
   * the SDK's retries (issue 13): ours, never counted against a source (ERR-4). Alarmed on.
   */
  storeOutages: 'StoreOutages',
  /**
   * Change feed events (issue 16) by `Outcome`: published, outboxed (the publish failed; kept for a later
   * flush), redelivered (from the outbox), undelivered (neither published nor outboxed: the sync failed).
   */
  changeFeedEvents: 'ChangeFeedEvents',
  /**
   * The API's list counters (issue 16, shared/mirror `count`) off by `Outcome`: write-failed (a counter
   * ADD failed after its commit), negative (the API read a counter below zero and clamped it). Either
   * means a drift that `ingestor backfill-index` repairs.
   */
  apiListCounts: 'ApiListCounts',
  /**
   * Planner, every tick (RATE-9): hosts whose sources' cadence needs more than the host's pace — the
   * lawful state RATE-9 describes (every source on it stretched by one factor), shown on the dashboard
   * from the metric log line, not alarmed: at 1,000 sources some host is saturated every weekday.
   */
  saturatedHosts: 'SaturatedHosts',
  /**
   * Planner, every tick (RATE-9's "none is starved", shared/planner `starvationOf`): due sources waiting
   * past their stretched due instant by more than their stretched interval again (and at least 30 min).
   * The "source starved" alarm reads it; a datapoint only when above 0 (`CUSTOM_METRIC_ONLY_WHEN`).
   */
  starvedSources: 'StarvedSources',
  /** Same tick: of the due sources, the most minutes past a stretched due instant (log line only). */
  longestOverdueMinutes: 'LongestOverdueMinutes',
  /**
   * Planner, every tick, per saturated host (`Host` dimension — only saturated hosts, a handful of
   * hosting centres, so the cardinality stays low): the RATE-9 stretch factor of its sources' intervals.
   */
  hostStretch: 'HostStretch',
  /** Same hosts: demand ÷ capacity. */
  hostUtilisation: 'HostUtilisation',
  /**
   * Planner, every tick (SCH-5 sizing, issue 27): sync slots the demand needs beyond
   * INGESTOR_MAX_CONCURRENT_SYNCS (0 when they suffice) — "sync slots short: demand needs 71 of 64".
   */
  slotsShort: 'SlotsShort',
} as const;

/**
 * The metrics an alarm reads (infra/observability.ts) — the only ones written as EMF, i.e. as CloudWatch
 * custom metrics. Issue 28: every metric name × dimension value is a billed series (≈ $0.30 a month each,
 * 48 series were ≈ €12 of a €175 bill at 1,000 sources) and a per-host dimension grows with the fleet. The
 * dashboard's other graphs read the same figures from the log lines (`METRIC_LOG_FIELD`, Logs Insights:
 * billed per GB scanned when someone looks, nothing otherwise), so nothing is lost to the operator.
 */
export const ALARMED_METRICS: ReadonlySet<string> = new Set([
  METRICS.longestPauseHours,
  METRICS.storeOutages,
  METRICS.slotStoreFallback,
  METRICS.starvedSources,
]);

/**
 * Issue 28 (metric-hours): CloudWatch bills a custom metric series by the hour, only for hours in which it
 * gets data. An alarmed gauge whose value cannot breach its alarm goes to the metric log line instead of
 * being a datapoint: the alarm then sees data only when it breaches, and no data reads as not breaching
 * (`TreatMissingData.NOT_BREACHING`), so it fires exactly as before. The dashboard reads every value from
 * the logs (EMF lines carry `METRIC_LOG_FIELD` too). Only for alarms whose statistic is a Maximum compared
 * with `>` / `>=`: a Minimum or a SampleCount alarm would change meaning.
 */
export const CUSTOM_METRIC_ONLY_WHEN: Readonly<Record<string, (value: number) => boolean>> = {
  // SourcePausedTooLong: Maximum over an hour > PAUSED_TOO_LONG_HOURS.
  [METRICS.longestPauseHours]: (hours) => hours > PAUSED_TOO_LONG_HOURS,
  // SourceStarved: Maximum over 5 minutes >= 1 — a tick without a starved source writes no datapoint.
  [METRICS.starvedSources]: (starved) => starved > 0,
};

/**
 * Marks a log line of dashboard-only figures (no `_aws` directive, so CloudWatch makes no metric of it):
 * `{"MetricLog":"MandariIngestor","Timestamp":…,<dimensions>,<name>:<value>}` — the dashboard's log
 * widgets filter on this field.
 */
export const METRIC_LOG_FIELD = 'MetricLog';

export const DIMENSIONS = {
  outcome: 'Outcome',
  result: 'Result',
  verdict: 'Verdict',
  kind: 'Kind',
  pauseKind: 'PauseKind',
  switch: 'Switch',
  /** RATE-9 metrics only, and only for saturated hosts (host key, RATE-2). */
  host: 'Host',
} as const;

/** The alarm threshold of `LongestPauseHours`: a source paused (without success) for more than a day. */
export const PAUSED_TOO_LONG_HOURS = 24;

/**
 * RATE-9: the "source starved" alarm fires when some source was starved (`StarvedSources` ≥ 1) in this
 * many of the last three 5-minute periods — a source served at last within a tick or two does not page.
 */
export const SOURCE_STARVED_DATAPOINTS = 2;
