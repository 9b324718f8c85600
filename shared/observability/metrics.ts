import { ALARMED_METRICS, CUSTOM_METRIC_ONLY_WHEN, METRIC_LOG_FIELD, METRIC_NAMESPACE } from './constants';

/**
 * CloudWatch Embedded Metric Format (EMF), written by hand: a log line with an `_aws` directive that
 * CloudWatch Logs turns into metrics — no API call, no extra package. Counts are summed in memory per
 * dimension set and written on `flush()` (one line per set and sync message, not one per request).
 * Outside Lambda nothing is written by default: the operator CLI's stdout is for people and `--json`.
 *
 * Issue 28 (fixed costs): only the metrics an alarm reads (`ALARMED_METRICS`) go out as EMF; the others
 * are written as plain log lines of the same shape (`formatMetricLog`), which the dashboard reads through
 * Logs Insights — a custom metric series is billed every month, a log line only once, when ingested.
 * A series is billed only for the hours it gets data: an alarmed gauge that cannot breach its alarm
 * (`CUSTOM_METRIC_ONLY_WHEN`) goes to the log line too.
 */

export type MetricUnit = 'Count' | 'Seconds' | 'Milliseconds' | 'None';

export interface MetricValue {
  name: string;
  unit: MetricUnit;
  value: number;
}

export interface EmfInput {
  namespace: string;
  timestampMs: number;
  /** One dimension set; keys and values end up as top-level fields of the line. */
  dimensions: Record<string, string>;
  metrics: MetricValue[];
  /** Further searchable fields (not metrics, not dimensions). */
  properties?: Record<string, unknown>;
}

/** EMF allows at most 100 metrics per directive and 30 dimensions per set. */
export const EMF_MAX_METRICS = 100;
export const EMF_MAX_DIMENSIONS = 30;

/** Whether `metric` goes out as a custom-metric datapoint (EMF) rather than on the metric log line. */
export function isCustomMetricDatapoint(metric: Pick<MetricValue, 'name' | 'value'>): boolean {
  if (!ALARMED_METRICS.has(metric.name)) return false;
  return CUSTOM_METRIC_ONLY_WHEN[metric.name]?.(metric.value) ?? true;
}

/** One EMF log line (JSON, no trailing newline). */
export function formatEmf(input: EmfInput): string {
  const dimensionNames = Object.keys(input.dimensions).sort();
  if (dimensionNames.length > EMF_MAX_DIMENSIONS) {
    throw new RangeError(`EMF: at most ${EMF_MAX_DIMENSIONS} dimensions per set`);
  }
  if (input.metrics.length === 0 || input.metrics.length > EMF_MAX_METRICS) {
    throw new RangeError(`EMF: 1 to ${EMF_MAX_METRICS} metrics per line`);
  }
  const line: Record<string, unknown> = {
    ...(input.properties ?? {}),
    _aws: {
      Timestamp: Math.round(input.timestampMs),
      CloudWatchMetrics: [
        {
          Namespace: input.namespace,
          Dimensions: [dimensionNames],
          Metrics: input.metrics.map((m) => ({ Name: m.name, Unit: m.unit })),
        },
      ],
    },
  };
  for (const name of dimensionNames) line[name] = input.dimensions[name];
  for (const m of input.metrics) line[m.name] = m.value;
  return JSON.stringify(line);
}

/** One line of dashboard-only figures: the dimension set and the values as top-level fields, no `_aws`. */
export function formatMetricLog(input: Omit<EmfInput, 'properties'>): string {
  const line: Record<string, unknown> = {
    [METRIC_LOG_FIELD]: input.namespace,
    Timestamp: Math.round(input.timestampMs),
  };
  for (const name of Object.keys(input.dimensions).sort()) line[name] = input.dimensions[name];
  for (const m of input.metrics) line[m.name] = m.value;
  return JSON.stringify(line);
}

interface Pending {
  dimensions: Record<string, string>;
  values: Map<string, MetricValue>;
}

export interface MetricsBufferOptions {
  namespace?: string;
  /** Where lines go; default: stdout inside Lambda, nowhere elsewhere. */
  write?: (line: string) => void;
  now?: () => number;
}

function defaultWrite(): (line: string) => void {
  if (process.env.AWS_LAMBDA_FUNCTION_NAME) return (line) => process.stdout.write(`${line}\n`);
  return () => {};
}

export class MetricsBuffer {
  private readonly pending = new Map<string, Pending>();
  private readonly namespace: string;
  private readonly write: (line: string) => void;
  private readonly now: () => number;

  constructor(options: MetricsBufferOptions = {}) {
    this.namespace = options.namespace ?? METRIC_NAMESPACE;
    this.write = options.write ?? defaultWrite();
    this.now = options.now ?? Date.now;
  }

  /** Adds `value` to a summed counter of this dimension set. */
  count(name: string, dimensions: Record<string, string> = {}, value = 1): void {
    const entry = this.entry(dimensions);
    const previous = entry.values.get(name);
    entry.values.set(name, { name, unit: 'Count', value: (previous?.value ?? 0) + value });
  }

  /** Sets a gauge of this dimension set (the last value before `flush` wins). */
  gauge(name: string, dimensions: Record<string, string>, value: number, unit: MetricUnit = 'None'): void {
    this.entry(dimensions).values.set(name, { name, unit, value });
  }

  /**
   * Writes per dimension set one EMF line of its custom-metric datapoints (split at 100) and one log line
   * of the rest, and empties the buffer. Never throws.
   */
  flush(): void {
    const timestampMs = this.now();
    for (const { dimensions, values } of this.pending.values()) {
      const all = [...values.values()];
      const alarmed = all.filter(isCustomMetricDatapoint);
      const logged = all.filter((m) => !isCustomMetricDatapoint(m));
      const lines: string[] = [];
      try {
        for (let i = 0; i < alarmed.length; i += EMF_MAX_METRICS) {
          lines.push(
            formatEmf({
              namespace: this.namespace,
              timestampMs,
              dimensions,
              metrics: alarmed.slice(i, i + EMF_MAX_METRICS),
              // The dashboard's log widgets filter on this field: an alarmed figure is on the dashboard
              // whether it went out as a datapoint or on the log line.
              properties: { [METRIC_LOG_FIELD]: this.namespace },
            }),
          );
        }
        if (logged.length > 0)
          lines.push(
            formatMetricLog({ namespace: this.namespace, timestampMs, dimensions, metrics: logged }),
          );
        for (const line of lines) this.write(line);
      } catch {
        // Metrics are diagnostics: a failing writer must not fail a sync.
      }
    }
    this.pending.clear();
  }

  /** Lines not yet flushed, for tests. */
  get size(): number {
    return this.pending.size;
  }

  private entry(dimensions: Record<string, string>): Pending {
    const key = JSON.stringify(Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b)));
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { dimensions: { ...dimensions }, values: new Map() };
      this.pending.set(key, entry);
    }
    return entry;
  }
}

/** The process's buffer (Lambda: flushed after every sync message and planner tick). */
export const metrics = new MetricsBuffer();
