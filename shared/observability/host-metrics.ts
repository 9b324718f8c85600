import { DIMENSIONS, METRICS } from './constants';
import type { MetricsBuffer } from './metrics';

/**
 * RATE-9: the planner's host metrics. Pure: the tick's host summary in, gauges out. Every tick writes
 * `SaturatedHosts` (zeros included, for the dashboard's graph) and, per saturated host, its stretch factor
 * and utilisation under a `Host` dimension — all metric log lines (no alarm reads them: saturation is
 * RATE-9's lawful state; what pages is a starved source, `putStarvationMetrics`).
 */
export interface HostMetricInput {
  host: string;
  saturated: boolean;
  stretch: number;
  utilisation: number;
}

export function putHostMetrics(hosts: readonly HostMetricInput[], target: MetricsBuffer): number {
  const saturated = hosts.filter((h) => h.saturated);
  target.gauge(METRICS.saturatedHosts, {}, saturated.length, 'Count');
  for (const h of saturated) {
    const dims = { [DIMENSIONS.host]: h.host };
    target.gauge(METRICS.hostStretch, dims, round(h.stretch), 'None');
    target.gauge(METRICS.hostUtilisation, dims, round(h.utilisation), 'None');
  }
  return saturated.length;
}

/** RATE-9's broken promise, as the tick found it (shared/planner `starvationOf`). */
export interface StarvationMetricInput {
  starved: readonly unknown[];
  longestOverdueMinutes: number;
}

/**
 * Every tick: `StarvedSources` (the "source starved" alarm's; a custom-metric datapoint only above 0,
 * `CUSTOM_METRIC_ONLY_WHEN`, so a healthy month bills no metric-hour) and `LongestOverdueMinutes` (the
 * dashboard's, a log line): how close the fleet runs to starving a source.
 */
export function putStarvationMetrics(starvation: StarvationMetricInput, target: MetricsBuffer): number {
  target.gauge(METRICS.starvedSources, {}, starvation.starved.length, 'Count');
  target.gauge(METRICS.longestOverdueMinutes, {}, round(starvation.longestOverdueMinutes), 'None');
  return starvation.starved.length;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** SCH-5 sizing (issue 27): the slots the demand needs beyond the configured ones, every tick (0 included). */
export function putSlotMetrics(needed: number, configured: number, target: MetricsBuffer): void {
  target.gauge(METRICS.slotsShort, {}, Math.max(0, needed - configured), 'Count');
}
