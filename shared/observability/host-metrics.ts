import { DIMENSIONS, METRICS } from './constants';
import type { MetricsBuffer } from './metrics';

/**
 * RATE-9: the planner's host metrics. Pure: the tick's host summary in, gauges out. Every tick writes
 * `SaturatedHosts` (zeros included, so the alarm has data) and, per saturated host, its stretch factor
 * and utilisation under a `Host` dimension.
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

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** SCH-5 sizing (issue 27): the slots the demand needs beyond the configured ones, every tick (0 included). */
export function putSlotMetrics(needed: number, configured: number, target: MetricsBuffer): void {
  target.gauge(METRICS.slotsShort, {}, Math.max(0, needed - configured), 'Count');
}
