import {
  METRICS,
  MetricsBuffer,
  PAUSE_METRICS_EVERY_MINUTES,
  pauseMetrics,
  putHostMetrics,
  putPauseMetrics,
  putStarvationMetrics,
} from '../../shared/observability';
import type { StackCount } from './stack-count';

/**
 * Issue 28 (metric-hours): CloudWatch bills a custom metric series prorated by the hour, and only for
 * the hours in which the series gets data. Pricing page (aws.amazon.com/cloudwatch/pricing, as quoted in
 * issue 28): "All custom metrics charges are prorated by the hour and metered only when you send metrics
 * to CloudWatch" — not found in the stored copies this bench's authors could search (2026-12-03), so it
 * stands as an assumption with that source; an invoice analysis shows the same (one metric sent for 168
 * of 720 hours billed $0.30 × 168 ÷ 720, jpdebug.com/p/3450502, a copy of a Qiita post). A series' bill
 * is then metricMonth × hours with data ÷ hours in the month.
 */
export const HOURS_IN_MONTH = (365.25 / 12) * 24;

/** One custom metric of the stack: its series (dimension value combinations) and their hours with data. */
export interface MetricHours {
  metric: string;
  series: number;
  /** Hours a month each of its series gets at least one datapoint (at most HOURS_IN_MONTH). */
  hoursWithData: number;
  /** Where the hours come from: the code's cadence, or a stated incident assumption. */
  why: string;
}

/**
 * The custom metrics a planner tick of an ordinary hour writes as datapoints, found by running the
 * planner's own metric code (shared/observability: `putHostMetrics`, `putStarvationMetrics`,
 * `putPauseMetrics` and the buffer's flush — what `runPlannerInvocation` and `emitPlannerMetrics` call) on
 * an ordinary fleet: one source in an ERR-4 backoff for `typicalLongestPauseHours`, one saturated host
 * (the modelled fleet's hosting centres, bench/fleet/model.ts) and no source starved (RATE-9: the fleet
 * bench's paging replay, `npm run bench -- fleet`). The sync path writes alarmed metrics only on an outage (StoreOutages,
 * SlotStoreFallback), never in an ordinary run.
 */
export function plannerDatapointsOfAnOrdinaryHour(typicalLongestPauseHours: number): Set<string> {
  const names = new Set<string>();
  const buffer = new MetricsBuffer({
    write: (line) => {
      const directive = (
        JSON.parse(line) as { _aws?: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } }
      )._aws;
      for (const d of directive?.CloudWatchMetrics ?? []) for (const m of d.Metrics) names.add(m.Name);
    },
    now: () => 0,
  });
  putHostMetrics([{ host: 'ris.hosting.example', saturated: true, stretch: 2.3, utilisation: 1 }], buffer);
  putStarvationMetrics({ starved: [], longestOverdueMinutes: 4 }, buffer);
  const now = new Date('2026-12-01T12:00:00Z');
  putPauseMetrics(
    pauseMetrics(
      [
        {
          sourceId: 'backoff',
          active: true,
          schedule: {
            lastSuccessAt: new Date(now.getTime() - typicalLongestPauseHours * 3_600_000).toISOString(),
            pause: {
              until: new Date(now.getTime() + 30 * 60_000).toISOString(),
              minutes: 30,
              kind: '5xx-series',
              because: 'a 5xx series (ERR-5)',
              ruleIds: ['ERR-5'],
            },
          },
        },
      ],
      now,
    ),
    buffer,
  );
  buffer.flush();
  return names;
}

export interface MetricHoursAssumptions {
  /** Values per dimension key (as `metricSeries`). */
  valuesPerKey: Record<string, number>;
  /** Custom metrics written by the planner in an ordinary hour (`plannerDatapointsOfAnOrdinaryHour`). */
  everyHour: ReadonlySet<string>;
  /** Hours a month with an incident for a metric written only on one (outage, fallback). */
  incidentHoursPerMonth: number;
  /** Hours a month with some active source paused more than a day, per 1,000 sources. */
  pausedTooLongHoursPer1000: number;
  sources: number;
}

/** Per custom metric of the stack: series and hours with data a month (pure). */
export function metricHoursOf(
  count: Pick<StackCount, 'customMetrics'>,
  a: MetricHoursAssumptions,
): MetricHours[] {
  return Object.entries(count.customMetrics).map(([metric, keys]) => {
    const series = keys.reduce((product, key) => product * (a.valuesPerKey[key] ?? 1), 1);
    if (a.everyHour.has(metric)) {
      // The planner runs every minute; the pause gauges are due every PAUSE_METRICS_EVERY_MINUTES (≤ 60).
      const every = metric === METRICS.longestPauseHours ? PAUSE_METRICS_EVERY_MINUTES : 1;
      return {
        metric,
        series,
        hoursWithData: HOURS_IN_MONTH * Math.min(1, 60 / every),
        why: `written every ${every} min`,
      };
    }
    if (metric === METRICS.longestPauseHours) {
      const hours = Math.min(HOURS_IN_MONTH, (a.pausedTooLongHoursPer1000 * a.sources) / 1000);
      return { metric, series, hoursWithData: hours, why: 'only while a source is paused > 24 h' };
    }
    return {
      metric,
      series,
      hoursWithData: Math.min(HOURS_IN_MONTH, a.incidentHoursPerMonth),
      why: 'only on an incident',
    };
  });
}

/** Billed metric-months: Σ series × hours with data ÷ hours in the month. */
export function metricMonths(rows: readonly MetricHours[]): number {
  return rows.reduce(
    (sum, r) => sum + (r.series * Math.min(r.hoursWithData, HOURS_IN_MONTH)) / HOURS_IN_MONTH,
    0,
  );
}
