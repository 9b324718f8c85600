/**
 * Logs and metrics: the structured logger, CloudWatch metrics, the request and slot logs, planner metrics. Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export {
  ALARMED_METRICS,
  DIMENSIONS,
  HOST_SATURATED_ALARM_MINUTES,
  METRIC_LOG_FIELD,
  METRIC_NAMESPACE,
  METRICS,
  PAUSED_TOO_LONG_HOURS,
} from './constants';
export { type HostMetricInput, putHostMetrics } from './host-metrics';
export { logger } from './logger';
export { formatMetricLog, MetricsBuffer, metrics } from './metrics';
export { emitPlannerMetrics, PAUSE_METRICS_EVERY_MINUTES } from './planner-metrics';
export { REDACTED, redactUrl, redactUrlsIn } from './redact';
export { logRequestEvent, recordSyncReport } from './request-log';
export { logSlotEvent } from './slot-log';
