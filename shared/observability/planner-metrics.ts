import type { SourceScheduleState } from '../schedule';
import { DIMENSIONS, METRICS } from './constants';
import type { MetricsBuffer } from './metrics';

/**
 * The planner's pause metrics (ERR-4 / ERR-5): how many active sources are paused now, by kind, and
 * how long the longest of them has gone without a successful sync. The "source paused for more than a
 * day" alarm (infra/observability.ts) reads `LongestPauseHours`. Pure: the planner reads the tables
 * (shared/planner `emitPlannerMetrics`).
 */

export interface PauseInput {
  sourceId: string;
  active: boolean;
  schedule: Pick<SourceScheduleState, 'pause' | 'lastSuccessAt'> | undefined;
}

export interface PausedSource {
  sourceId: string;
  kind: string;
  until: string;
  /** Hours since the last successful sync, else since this pause began. */
  pausedForHours: number;
}

export interface PauseMetrics {
  paused: number;
  byKind: Record<string, number>;
  longestPauseHours: number;
  sources: PausedSource[];
}

const HOUR_MS = 60 * 60 * 1000;

export function pauseMetrics(inputs: readonly PauseInput[], now: Date): PauseMetrics {
  const nowMs = now.getTime();
  const sources: PausedSource[] = [];
  for (const input of inputs) {
    const pause = input.schedule?.pause;
    // An inactive source is not synced at all (ERR-7); its old pause is no operational problem.
    if (!input.active || pause === undefined) continue;
    const untilMs = Date.parse(pause.until);
    if (!Number.isFinite(untilMs) || untilMs <= nowMs) continue;
    const pauseStartMs = untilMs - pause.minutes * 60_000;
    const lastSuccessMs = input.schedule?.lastSuccessAt
      ? Date.parse(input.schedule.lastSuccessAt)
      : Number.NaN;
    const sinceMs = Number.isFinite(lastSuccessMs) ? Math.min(lastSuccessMs, pauseStartMs) : pauseStartMs;
    sources.push({
      sourceId: input.sourceId,
      kind: pause.kind,
      until: pause.until,
      pausedForHours: Math.max(0, (nowMs - sinceMs) / HOUR_MS),
    });
  }
  const byKind: Record<string, number> = {};
  for (const s of sources) byKind[s.kind] = (byKind[s.kind] ?? 0) + 1;
  return {
    paused: sources.length,
    byKind,
    longestPauseHours: sources.reduce((max, s) => Math.max(max, s.pausedForHours), 0),
    sources,
  };
}

/**
 * Puts the pause gauges into `target` (always, zeros included). `LongestPauseHours` becomes a custom-metric
 * datapoint only above PAUSED_TOO_LONG_HOURS (`CUSTOM_METRIC_ONLY_WHEN`, issue 28 metric-hours); below it
 * is on the metric log line with the counts, for the dashboard.
 */
export function putPauseMetrics(result: PauseMetrics, target: MetricsBuffer): void {
  target.gauge(METRICS.pausedSources, {}, result.paused, 'Count');
  target.gauge(METRICS.longestPauseHours, {}, Math.round(result.longestPauseHours * 100) / 100, 'None');
  for (const [kind, n] of Object.entries(result.byKind)) {
    target.gauge(METRICS.pausedSources, { [DIMENSIONS.pauseKind]: kind }, n, 'Count');
  }
}

/**
 * The pause gauges cost a read of the Sources table and the STATE items; the planner (which keeps its
 * own reads small) pays it every this-many minutes only. The alarm reads the maximum over an hour.
 */
export const PAUSE_METRICS_EVERY_MINUTES = 15;
