import { Aspects, Aws, Duration, type IAspect, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  ConcreteWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  SingleValueWidget,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import {
  DIMENSIONS,
  METRIC_LOG_FIELD,
  METRIC_NAMESPACE,
  METRICS,
  PAUSE_METRICS_EVERY_MINUTES,
  PAUSED_TOO_LONG_HOURS,
  SOURCE_STARVED_DATAPOINTS,
} from '../shared/observability';
import { IngestorFunction } from './ingestor-function';

/**
 * Alarms and a dashboard for on-call (docs/operations.md "Alarms" explains each one):
 * - **DLQ messages visible** — a sync message failed five times and was parked (SQS metric);
 * - **source paused for more than a day** — the planner's `LongestPauseHours` (ERR-4/ERR-5) above 24;
 * - **failed invocations** — a scheduled (asynchronously invoked) function failed: its on-failure
 *   destination, the FailedInvocations queue, received records in two of three 5-minute periods (issue 28:
 *   one alarm for all of them instead of one each);
 * - **function errors** — per synchronously invoked ingestor function (sync, preview, mirror API), errors
 *   in two of three 5-minute periods;
 * - **source starved** — RATE-9's broken promise: a due source long past its stretched turn (a saturated
 *   host alone is lawful and only shown);
 * - **store outages** — sync messages given back because OUR DynamoDB, S3 or SQS failed after the SDK's
 *   retries (issue 13: such a fault never counts against a source, so it must be seen as ours).
 * Custom metrics are EMF lines the functions write (shared/observability); names come from the same
 * constants, so code and alarms cannot drift apart. Every IngestorFunction of the stack is watched,
 * also the ones added later (`addScheduledFunction`), through an aspect.
 */
/**
 * A Logs Insights widget over the log groups of every ingestor function — also those the stack adds after
 * the dashboard (the list is read when the dashboard body is rendered, at synth). Issue 28: the dashboard's
 * breakdowns (requests by outcome, syncs by kind …) come from the functions' metric log lines
 * (`METRIC_LOG_FIELD`), not from custom metrics billed every month; a query is billed only when the
 * dashboard is looked at (per GB scanned).
 */
class MetricLogWidget extends ConcreteWidget {
  constructor(
    private readonly logGroupNames: readonly string[],
    private readonly props: {
      title: string;
      /** Logs Insights commands after the filter on the metric log lines. */
      query: string;
      view: 'table' | 'bar' | 'timeSeries';
      width: number;
      height?: number;
    },
  ) {
    super(props.width, props.height ?? 6);
  }

  toJson(): unknown[] {
    const sources = this.logGroupNames.map((name) => `SOURCE '${name}'`).join(' | ');
    return [
      {
        type: 'log',
        width: this.width,
        height: this.height,
        x: this.x,
        y: this.y,
        properties: {
          title: this.props.title,
          region: Aws.REGION,
          view: this.props.view,
          query: `${sources} | filter ${METRIC_LOG_FIELD} = '${METRIC_NAMESPACE}' | ${this.props.query}`,
        },
      },
    ];
  }
}

export interface IngestorObservabilityProps {
  syncQueue: IQueue;
  deadLetterQueue: IQueue;
  /** Issue 28: the on-failure destination of the scheduled functions (infra/stack.ts). */
  failedInvocationsQueue: IQueue;
  /** Optional SNS topic (e.g. `-c alarmTopicArn=…`) notified on alarm and on recovery. */
  alarmTopicArn?: string;
}

/**
 * Errors of a function in this many of the last three 5-minute periods raise its alarm; for the scheduled
 * functions, records in the FailedInvocations queue in this many periods.
 */
export const FUNCTION_ERROR_DATAPOINTS = 2;

/** An alarmed figure: its metric (the dashboard shows it too) and its alarm. */
interface AlarmedFigure {
  metric: Metric;
  alarm: Alarm;
}
type AlarmedFigures = Record<
  'deadLetter' | 'failedInvocations' | 'longestPause' | 'storeOutages' | 'starvedSources' | 'slotFallbacks',
  AlarmedFigure
>;

export class IngestorObservability extends Construct {
  readonly dashboard: Dashboard;
  readonly deadLetterAlarm: Alarm;
  /** Issue 28: the scheduled functions' failures, from their on-failure destination. */
  readonly failedInvocationsAlarm: Alarm;
  readonly pausedTooLongAlarm: Alarm;
  readonly storeOutageAlarm: Alarm;
  readonly slotFallbackAlarm: Alarm;
  readonly sourceStarvedAlarm: Alarm;
  /** Errors alarms of the functions whose failures have no destination (invoked synchronously). */
  readonly functionErrorAlarms = new Map<string, Alarm>();
  /** Functions watched so far (dashboard lines), with or without an errors alarm of their own. */
  private readonly watched = new Set<string>();
  private readonly failedInvocationsQueue: IQueue;

  private readonly notify: SnsAction | undefined;
  private readonly functionWidgets: { errors: GraphWidget; invocations: GraphWidget; duration: GraphWidget };
  /** Log groups of the watched functions: what the dashboard's metric log widgets query. */
  private readonly logGroupNames: string[] = [];

  constructor(scope: Construct, id: string, props: IngestorObservabilityProps) {
    super(scope, id);
    this.notify = props.alarmTopicArn
      ? new SnsAction(Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn))
      : undefined;

    this.failedInvocationsQueue = props.failedInvocationsQueue;
    const figures = this.alarmedFigures(props.deadLetterQueue, props.failedInvocationsQueue);
    this.deadLetterAlarm = figures.deadLetter.alarm;
    this.failedInvocationsAlarm = figures.failedInvocations.alarm;
    this.pausedTooLongAlarm = figures.longestPause.alarm;
    this.storeOutageAlarm = figures.storeOutages.alarm;
    this.sourceStarvedAlarm = figures.starvedSources.alarm;
    this.slotFallbackAlarm = figures.slotFallbacks.alarm;

    this.functionWidgets = {
      errors: new GraphWidget({ title: 'Function errors', width: 8, left: [] }),
      invocations: new GraphWidget({ title: 'Function invocations', width: 8, left: [] }),
      duration: new GraphWidget({ title: 'Function duration (p95)', width: 8, left: [] }),
    };

    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(24),
    });
    this.addActivityRows(figures);
    this.addCapacityRows(figures, props.syncQueue);
    this.watchEveryFunction();
  }

  /**
   * The six alarmed figures (RATE-7, RATE-9's starvation, ERR-4/ERR-5, the DLQ, the scheduled functions'
   * failures, our store): each metric with its alarm.
   */
  private alarmedFigures(deadLetterQueue: IQueue, failedInvocationsQueue: IQueue): AlarmedFigures {
    const { deadLetter, failedInvocations } = this.queueAlarms(deadLetterQueue, failedInvocationsQueue);

    const longestPause = new Metric({
      namespace: METRIC_NAMESPACE,
      metricName: METRICS.longestPauseHours,
      statistic: 'Maximum',
      // The planner computes it every 15 minutes (PAUSE_METRICS_EVERY_MINUTES) but writes a datapoint only
      // above the threshold (CUSTOM_METRIC_ONLY_WHEN, issue 28: a series is billed per hour with data):
      // an hour's Maximum > 24 exactly when some value in it was; an hour without data is not breaching.
      period: Duration.minutes(Math.max(60, PAUSE_METRICS_EVERY_MINUTES * 4)),
    });
    const pausedTooLong = this.alarm('SourcePausedTooLong', {
      metric: longestPause,
      threshold: PAUSED_TOO_LONG_HOURS,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      description: `An active source has been paused (ERR-4/ERR-5) without a successful sync for more than ${PAUSED_TOO_LONG_HOURS} h. See docs/operations.md#alarm-source-paused-too-long.`,
    });

    const storeOutages = new Metric({
      namespace: METRIC_NAMESPACE,
      metricName: METRICS.storeOutages,
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
    const storeOutage = this.alarm('StoreOutages', {
      metric: storeOutages,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: FUNCTION_ERROR_DATAPOINTS,
      description: `Sync messages were given back for redelivery because our DynamoDB, S3 or SQS failed after the SDK's retries, in ${FUNCTION_ERROR_DATAPOINTS} of the last three 5-minute periods. Ours, not the councils'. See docs/operations.md#alarm-store-outages.`,
    });

    // RATE-9: saturation is lawful (every source on the host stretched by one factor) and at 1,000 sources
    // some host is saturated every weekday — shown, not paged. What pages is the promise broken: a due
    // source long past its stretched turn (shared/planner `starvationOf`). A datapoint only while some
    // source starves (CUSTOM_METRIC_ONLY_WHEN); no data is no starvation.
    const starvedSources = new Metric({
      namespace: METRIC_NAMESPACE,
      metricName: METRICS.starvedSources,
      statistic: 'Maximum',
      period: Duration.minutes(5),
    });
    const sourceStarved = this.alarm('SourceStarved', {
      metric: starvedSources,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: SOURCE_STARVED_DATAPOINTS,
      description: `A due source waited past its turn at its host's stretch factor by more than its stretched interval again (RATE-9: none is starved), in ${SOURCE_STARVED_DATAPOINTS} of the last three 5-minute periods. The planner tick's log line names it ("starved"). See docs/operations.md#alarm-source-starved.`,
    });

    // Any instance that lost the shared slot store paced alone (RATE-7) or stayed quiet: ours to look at.
    const slotFallbacks = new Metric({
      namespace: METRIC_NAMESPACE,
      metricName: METRICS.slotStoreFallback,
      dimensionsMap: { [DIMENSIONS.switch]: 'entered' },
      statistic: 'Sum',
      period: Duration.minutes(5),
    });
    const slotFallback = this.alarm('SlotStoreFallback', {
      metric: slotFallbacks,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      description:
        'A function lost the shared slot store (Upstash Redis) and paced alone or stayed quiet (RATE-7). See docs/operations.md#alarm-slot-store-fallback.',
    });

    return {
      deadLetter,
      failedInvocations,
      longestPause: { metric: longestPause, alarm: pausedTooLong },
      storeOutages: { metric: storeOutages, alarm: storeOutage },
      starvedSources: { metric: starvedSources, alarm: sourceStarved },
      slotFallbacks: { metric: slotFallbacks, alarm: slotFallback },
    };
  }

  /** The two queues that hold failures: the sync's dead letters and the scheduled functions' failure records. */
  private queueAlarms(
    deadLetterQueue: IQueue,
    failedInvocationsQueue: IQueue,
  ): Pick<AlarmedFigures, 'deadLetter' | 'failedInvocations'> {
    const dlqVisible = deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(5),
      statistic: 'Maximum',
    });
    const deadLetter = this.alarm('DeadLetterMessages', {
      metric: dlqVisible,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      description:
        'A sync message failed 5 times and sits in the dead-letter queue. See docs/operations.md#alarm-dead-letter-messages.',
    });

    // Issue 28: Lambda sends each failed scheduled invocation (after its retries, none by default) to the
    // queue with SendMessage, so NumberOfMessagesSent counts failures as the six functions' Errors alarms
    // did — one per failed invocation — and 2 of 3 periods keeps their paging. Not the visible messages:
    // records wait for on-call's purge, so the alarm would stay in ALARM until then and a new failure in
    // the meantime would notify no one.
    const failures = failedInvocationsQueue.metricNumberOfMessagesSent({
      period: Duration.minutes(5),
      statistic: 'Sum',
    });
    const failedInvocations = this.alarm('FailedInvocations', {
      metric: failures,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: FUNCTION_ERROR_DATAPOINTS,
      description: `A scheduled function (planner, broadcasts, files, deletion check, photos, geo …) failed in ${FUNCTION_ERROR_DATAPOINTS} of the last three 5-minute periods: its failure records are in the FailedInvocations queue (which function, the error, the request). See docs/operations.md#alarm-failed-invocations.`,
    });

    return {
      deadLetter: { metric: dlqVisible, alarm: deadLetter },
      failedInvocations: { metric: failures, alarm: failedInvocations },
    };
  }

  /** Dashboard-only figures come from the functions' metric log lines (issue 28: no custom metric). */
  private fromLogs(props: ConstructorParameters<typeof MetricLogWidget>[1]): MetricLogWidget {
    return new MetricLogWidget(this.logGroupNames, props);
  }

  /** The dashboard's first rows: what was fetched, synced and paused, and the alarmed figures. */
  private addActivityRows(figures: AlarmedFigures): void {
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          "# mandari ingestor\nAlarmed figures are custom metrics; requests, robots.txt, syncs, pauses, hosts and the feed come from the functions' metric log lines (Logs Insights, queried when this dashboard is open). Runbook: `docs/operations.md`.",
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      this.fromLogs({
        title: 'Requests by outcome',
        width: 12,
        view: 'bar',
        query: `filter ispresent(${METRICS.requests}) | stats sum(${METRICS.requests}) as requests by ${DIMENSIONS.outcome} | sort requests desc`,
      }),
      this.fromLogs({
        title: 'robots.txt: fetch results (ROB-5/6/7) and refused requests (ROB-7/8)',
        width: 12,
        view: 'table',
        query: `filter ispresent(${METRICS.robotsFetches}) or ispresent(${METRICS.robotsVerdicts}) | stats sum(${METRICS.robotsFetches}) as fetches, sum(${METRICS.robotsVerdicts}) as refused by ${DIMENSIONS.result}, ${DIMENSIONS.verdict}`,
      }),
    );
    this.dashboard.addWidgets(
      this.fromLogs({
        title: 'Sync runs by kind and outcome',
        width: 12,
        view: 'table',
        query: `filter ispresent(${METRICS.syncRuns}) | stats sum(${METRICS.syncRuns}) as runs by ${DIMENSIONS.kind}, ${DIMENSIONS.outcome} | sort runs desc`,
      }),
      this.fromLogs({
        title: 'Paused sources now (ERR-4/ERR-5)',
        width: 4,
        view: 'timeSeries',
        query: `filter ispresent(${METRICS.pausedSources}) and not ispresent(${DIMENSIONS.pauseKind}) | stats max(${METRICS.pausedSources}) as paused by bin(15m)`,
      }),
      // Every value, the ones under the alarm's threshold too (those are log lines, not datapoints).
      this.fromLogs({
        title: `Longest pause (h; alarm above ${PAUSED_TOO_LONG_HOURS})`,
        width: 4,
        view: 'timeSeries',
        query: `filter ispresent(${METRICS.longestPauseHours}) | stats max(${METRICS.longestPauseHours}) as longest by bin(15m)`,
      }),
      new SingleValueWidget({
        title: 'Alarms',
        width: 4,
        metrics: [
          figures.deadLetter.metric.with({ label: 'DLQ messages' }),
          figures.failedInvocations.metric.with({ label: 'failed scheduled invocations' }),
          figures.storeOutages.metric.with({ label: 'store outages (ours)' }),
          figures.slotFallbacks.metric.with({ label: 'slot store fallbacks' }),
          figures.starvedSources.metric.with({ label: 'starved sources (RATE-9)' }),
        ],
      }),
    );
  }

  /** The dashboard's capacity rows: saturated hosts (RATE-9), SCH-5's slots, the queue, the functions, the feed. */
  private addCapacityRows(figures: AlarmedFigures, syncQueue: IQueue): void {
    this.dashboard.addWidgets(
      // Saturation at a glance (lawful, not alarmed) and how close the fleet runs to starving a source.
      this.fromLogs({
        title: 'Saturated hosts (RATE-9) and longest overdue (min; alarm: a starved source)',
        width: 8,
        view: 'timeSeries',
        query: `filter ispresent(${METRICS.saturatedHosts}) or ispresent(${METRICS.longestOverdueMinutes}) | stats max(${METRICS.saturatedHosts}) as saturated, max(${METRICS.longestOverdueMinutes}) as overdue, max(${METRICS.starvedSources}) as starved by bin(5m)`,
      }),
      this.fromLogs({
        title: 'Saturated hosts: stretch factor and utilisation (RATE-9)',
        width: 16,
        view: 'table',
        query: `filter ispresent(${METRICS.hostStretch}) | stats max(${METRICS.hostStretch}) as stretch, max(${METRICS.hostUtilisation}) as utilisation by ${DIMENSIONS.host} | sort stretch desc`,
      }),
    );
    // Issue 27 (SCH-5 sizing): the slots the fleet's demand needs beyond the configured ones — raise
    // maxConcurrentSyncs when this stays above 0 (the planner's "sync slots short" wait reason).
    this.dashboard.addWidgets(
      this.fromLogs({
        title: 'Sync slots short (SCH-5): needed beyond the configured slots',
        width: 8,
        view: 'timeSeries',
        query: `filter ispresent(${METRICS.slotsShort}) | stats max(${METRICS.slotsShort}) as short by bin(5m)`,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Sync queue',
        width: 12,
        left: [
          syncQueue.metricApproximateNumberOfMessagesVisible({ label: 'waiting' }),
          syncQueue.metricApproximateNumberOfMessagesNotVisible({ label: 'in flight' }),
          figures.deadLetter.metric.with({ label: 'dead-letter' }),
        ],
        right: [syncQueue.metricApproximateAgeOfOldestMessage({ label: 'oldest (s)' })],
      }),
      this.functionWidgets.errors,
    );
    this.dashboard.addWidgets(
      this.functionWidgets.invocations,
      this.functionWidgets.duration,
      // Issue 16: outboxed events are published late, undelivered ones failed a sync (and are retried).
      this.fromLogs({
        title: 'Change feed events by outcome',
        width: 8,
        view: 'bar',
        query: `filter ispresent(${METRICS.changeFeedEvents}) | stats sum(${METRICS.changeFeedEvents}) as events by ${DIMENSIONS.outcome}`,
      }),
      // Issue 16: a list counter that drifted (a lost ADD, or one read below zero) — run backfill-index.
      this.fromLogs({
        title: 'API list counters off, by outcome',
        width: 8,
        view: 'bar',
        query: `filter ispresent(${METRICS.apiListCounts}) | stats sum(${METRICS.apiListCounts}) as counters by ${DIMENSIONS.outcome}`,
      }),
    );
  }

  /** Watches every ingestor function of the stack, also those added after this construct. */
  private watchEveryFunction(): void {
    const watcher: IAspect = {
      visit: (node: IConstruct) => {
        if (node instanceof IngestorFunction)
          this.watchFunction(node.node.id, node.fn, {
            logGroupName: node.logGroup.logGroupName,
            // Issue 28: decided by how it is invoked — a function whose failed (asynchronous) invocations
            // land in the watched queue is covered by the FailedInvocations alarm; any other keeps its own.
            errorsAlarm: node.failureQueue !== this.failedInvocationsQueue,
          });
      },
    };
    Aspects.of(Stack.of(this)).add(watcher);
  }

  /**
   * Dashboard lines for one function and, with `errorsAlarm`, its own errors alarm (idempotent per name).
   * The dashboard shows every function's errors either way (AWS/Lambda metrics, free to read).
   */
  watchFunction(name: string, fn: IFunction, options: { logGroupName?: string; errorsAlarm: boolean }): void {
    if (this.watched.has(name)) return;
    this.watched.add(name);
    if (options.logGroupName !== undefined) this.logGroupNames.push(options.logGroupName);
    // No label on the alarm's metric: a label turns the alarm into a metric-math alarm.
    const errors = fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' });
    if (options.errorsAlarm)
      this.functionErrorAlarms.set(
        name,
        this.alarm(`${name}Errors`, {
          metric: errors,
          threshold: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: FUNCTION_ERROR_DATAPOINTS,
          description: `The ${name} function failed in ${FUNCTION_ERROR_DATAPOINTS} of the last three 5-minute periods. See docs/operations.md#alarm-function-errors.`,
        }),
      );
    this.functionWidgets.errors.addLeftMetric(errors.with({ label: name }));
    this.functionWidgets.invocations.addLeftMetric(
      fn.metricInvocations({ period: Duration.minutes(5), statistic: 'Sum', label: name }),
    );
    this.functionWidgets.duration.addLeftMetric(
      fn.metricDuration({ period: Duration.minutes(5), statistic: 'p95', label: name }),
    );
  }

  /**
   * Issue 25 point 4: an alarm on a function's invocations (not only its errors) — above `threshold`
   * per 5 minutes in two of three periods.
   */
  alarmOnInvocations(name: string, fn: IFunction, threshold: number): Alarm {
    return this.alarm(`${name}Invocations`, {
      metric: fn.metricInvocations({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `The ${name} function was invoked more than ${threshold} times in two of the last three 5-minute periods: a flood, or a CDN that stopped caching. See docs/operations.md#alarm-api-invocations.`,
    });
  }

  private alarm(
    id: string,
    props: {
      metric: IMetric;
      threshold: number;
      comparisonOperator: ComparisonOperator;
      evaluationPeriods: number;
      datapointsToAlarm?: number;
      description: string;
    },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      ...props,
      alarmDescription: props.description,
      // No data is no problem here: no DLQ traffic, no pause, no invocation.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (this.notify) {
      alarm.addAlarmAction(this.notify);
      alarm.addOkAction(this.notify);
    }
    return alarm;
  }
}
