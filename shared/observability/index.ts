/**
 * Logs and metrics: the structured logger, CloudWatch metrics, the request log, the pause metrics. Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export {
  ALARMED_METRICS,
  CUSTOM_METRIC_ONLY_WHEN,
  DIMENSIONS,
  METRIC_LOG_FIELD,
  METRIC_NAMESPACE,
  METRICS,
  PAUSED_TOO_LONG_HOURS,
  SOURCE_STARVED_DATAPOINTS,
} from './constants';
export {
  type HostMetricInput,
  putHostMetrics,
  putSlotMetrics,
  putStarvationMetrics,
  type StarvationMetricInput,
} from './host-metrics';
export { logger } from './logger';
export { formatMetricLog, isCustomMetricDatapoint, MetricsBuffer, metrics } from './metrics';
export {
  PAUSE_METRICS_EVERY_MINUTES,
  type PausedSource,
  type PauseInput,
  type PauseMetrics,
  pauseMetrics,
  putPauseMetrics,
} from './planner-metrics';
export { REDACTED, redactUrl, redactUrlsIn } from './redact';
export { logRequestEvent, type ObservabilityTargets, recordSyncReport } from './request-log';
