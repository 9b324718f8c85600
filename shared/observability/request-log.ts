import type { FetchEvent } from '../fetch';
import { robotsFetchPolicy } from '../robots';
import { DIMENSIONS, METRICS } from './constants';
import { logger } from './logger';
import { type MetricsBuffer, metrics } from './metrics';
import { redactUrl } from './redact';

/**
 * Structured request log and request metrics, fed by the polite fetcher's `onRequest` event: one log
 * line per exchange or refusal with source, host and outcome (never headers, bodies or tokens), and
 * counters by a small, fixed set of outcomes so the metric stays cheap whatever the number of hosts.
 */

export type RequestLogLevel = 'debug' | 'info';

export interface ObservabilityTargets {
  log: (message: string, fields: Record<string, unknown>, level?: RequestLogLevel) => void;
  metrics: MetricsBuffer;
}

const defaultTargets: ObservabilityTargets = {
  log: (message, fields, level = 'info') => logger[level](message, fields),
  metrics,
};

/** Refusal codes → outcome: the request was not made (robots, slot, breaker, address guard). */
const REFUSAL_OUTCOMES: Record<string, string> = {
  ROBOTS_DISALLOWED: 'robots-disallowed',
  ROBOTS_UNREACHABLE: 'robots-deferred',
  HOST_SLOT_TIMEOUT: 'slot-timeout',
  SEND_LATE: 'send-late',
  CIRCUIT_OPEN: 'breaker-open',
  ADDRESS_NOT_PUBLIC: 'address-refused',
  RUN_DEADLINE: 'run-deadline',
};

/** Error codes of a request that was made but got no usable answer. */
const ERROR_OUTCOMES: Record<string, string> = {
  TIMEOUT: 'timeout',
  NETWORK: 'network',
  BODY_INCOMPLETE: 'network',
  RESPONSE_TOO_LARGE: 'too-large',
  CONTENT_ENCODING: 'bad-body',
  /** Cut by the run's end (our limit, not the server's failure). */
  RUN_DEADLINE: 'run-deadline',
};

/** Statuses worth their own outcome value (blocking, absence, throttling); the rest go by class. */
const DISTINCT_STATUSES = new Set([304, 403, 404, 410, 429, 503, 504]);

/** The low-cardinality outcome of one fetch event (the `Outcome` dimension and log field). */
export function requestOutcome(event: FetchEvent): string {
  if (event.kind === 'refused') return REFUSAL_OUTCOMES[event.errorCode ?? ''] ?? 'refused-other';
  if (event.status !== undefined) {
    if (DISTINCT_STATUSES.has(event.status)) return String(event.status);
    return `${Math.floor(event.status / 100)}xx`;
  }
  return ERROR_OUTCOMES[event.errorCode ?? ''] ?? 'error';
}

/**
 * Issue 18: CloudWatch Logs bills every byte it ingests, and a sync makes hundreds of requests. An
 * answered request (2xx, 304) is a debug line — the run's summary at info ("sync message done") carries
 * its counts, and the Requests metric counts every outcome; refusals, errors and every other status
 * stay at info, one line each, because that is what an operator looks for.
 */
export function requestLogLevel(event: FetchEvent): RequestLogLevel {
  if (event.kind !== 'request' || event.errorCode !== undefined || event.status === undefined) return 'info';
  return (event.status >= 200 && event.status < 300) || event.status === 304 ? 'debug' : 'info';
}

/** Logs one fetch event and counts it (requests by outcome, robots.txt results and verdicts). */
export function logRequestEvent(event: FetchEvent, targets: ObservabilityTargets = defaultTargets): void {
  const outcome = requestOutcome(event);
  targets.log(
    'request',
    {
      sourceId: event.sourceId,
      host: event.host,
      // An other fetch's URL may carry a credential (`?apikey=…`); a council's stays whole.
      url: event.purpose === 'service' ? redactUrl(event.url) : event.url,
      purpose: event.purpose,
      method: event.method,
      outcome,
      ...(event.status !== undefined ? { status: event.status } : {}),
      ...(event.errorCode !== undefined ? { errorCode: event.errorCode } : {}),
      attempt: event.attempt,
      hop: event.hop,
      durationMs: event.durationMs,
    },
    requestLogLevel(event),
  );
  targets.metrics.count(METRICS.requests, { [DIMENSIONS.outcome]: outcome });
  if (event.kind === 'request' && event.purpose === 'robots' && event.hop === 0) {
    // ROB-5/6/7 as the shared policy table reads the answer (redirect hops are not an outcome yet).
    const result =
      event.status !== undefined
        ? robotsFetchPolicy({ kind: 'response', status: event.status }).action
        : 'unreachable';
    targets.metrics.count(METRICS.robotsFetches, { [DIMENSIONS.result]: result });
  }
  if (event.kind === 'refused' && event.errorCode === 'ROBOTS_DISALLOWED') {
    targets.metrics.count(METRICS.robotsVerdicts, { [DIMENSIONS.verdict]: 'disallowed' });
  }
  if (event.kind === 'refused' && event.errorCode === 'ROBOTS_UNREACHABLE') {
    targets.metrics.count(METRICS.robotsVerdicts, { [DIMENSIONS.verdict]: 'deferred' });
  }
}

/** The part of the engine's report the sync metric reads (shared/engine `EngineReport`). */
export interface SyncReportLike {
  kind: string;
  continued: boolean;
  complete: boolean;
  failures: readonly string[];
  requests: number;
  changed: boolean;
}

export function syncOutcome(report: SyncReportLike): 'ok' | 'failed' | 'incomplete' | 'continued' {
  if (report.continued) return 'continued';
  if (report.failures.length > 0 && !report.complete) return 'failed';
  return report.complete ? 'ok' : 'incomplete';
}

/** Counts one engine invocation by kind and outcome and logs it with its source. */
export function recordSyncReport(
  sourceId: string,
  report: SyncReportLike,
  targets: ObservabilityTargets = defaultTargets,
): void {
  const outcome = syncOutcome(report);
  targets.metrics.count(METRICS.syncRuns, { [DIMENSIONS.kind]: report.kind, [DIMENSIONS.outcome]: outcome });
  targets.log('sync', {
    sourceId,
    kind: report.kind,
    outcome,
    requests: report.requests,
    changed: report.changed,
    failures: [...report.failures],
  });
}
