import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestorStack } from '../../infra/stack';
import {
  ALARMED_METRICS,
  METRIC_LOG_FIELD,
  METRIC_NAMESPACE,
  METRICS,
  PAUSED_TOO_LONG_HOURS,
  SOURCE_STARVED_DATAPOINTS,
} from '../../shared/observability/constants';
import { cdkJsonContext, NO_BUNDLING, removeTempOutdirs, TEST_ENV, tempOutdir } from '../support/cdk';

// Wiring only (no esbuild): alarms and dashboard read the names the functions write.
let template: Template;

beforeAll(() => {
  const app = new App({
    outdir: tempOutdir('observability'),
    context: {
      ...cdkJsonContext(),
      ...NO_BUNDLING,
      alarmTopicArn: 'arn:aws:sns:eu-central-1:123456789012:oncall',
    },
  });
  const stack = new IngestorStack(app, 'ObservabilityTest', {
    env: TEST_ENV,
    documentFunctions: false,
    previewFunction: false,
    geoFunction: false,
    broadcastFunction: false,
    mirrorApi: false,
  });
  // A function added later (DESIGN: files, deletion-check, photos) is watched too.
  stack.addScheduledFunction('Files', 'functions/planner.ts', { minute: '5' });
  template = Template.fromStack(stack);
});

afterAll(() => removeTempOutdirs());

describe('observability: alarms and dashboard', () => {
  it('alarms when a sync message lands in the dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: ['arn:aws:sns:eu-central-1:123456789012:oncall'],
      OKActions: ['arn:aws:sns:eu-central-1:123456789012:oncall'],
    });
  });

  it('ERR-4/ERR-5: alarms when a source is paused for more than a day (the planner’s metric)', () => {
    // Issue 28 (metric-hours): the gauge is a datapoint only above the threshold (CUSTOM_METRIC_ONLY_WHEN),
    // so the alarm must stay a Maximum over the hour compared with `>` and read no data as not breaching:
    // then it fires in exactly the hours it fired when every value was written.
    const alarms = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { Namespace: METRIC_NAMESPACE, MetricName: METRICS.longestPauseHours },
    });
    expect(Object.values(alarms).map((a) => a.Properties)).toEqual([
      expect.objectContaining({
        Statistic: 'Maximum',
        Period: 3600,
        EvaluationPeriods: 1,
        Threshold: PAUSED_TOO_LONG_HOURS,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: ['arn:aws:sns:eu-central-1:123456789012:oncall'],
      }),
    ]);
    expect(Object.values(alarms)[0]?.Properties).not.toHaveProperty('DatapointsToAlarm');
  });

  it('metric-hours: the dashboard shows every longest-pause value from the logs, not from the sparse metric', () => {
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0];
    const body = JSON.stringify(dashboard?.Properties?.DashboardBody).replace(/\\+"/g, '"');
    expect(body).toContain(
      `filter ${METRIC_LOG_FIELD} = '${METRIC_NAMESPACE}' | filter ispresent(${METRICS.longestPauseHours}) | stats max(${METRICS.longestPauseHours})`,
    );
    // No metric widget reads the gauge (it has datapoints only above 24 h).
    expect(body).not.toMatch(new RegExp(`"${METRIC_NAMESPACE}","${METRICS.longestPauseHours}"`));
  });

  it('RATE-9: pages a starved source (StarvedSources in 2 of 3 five-minute periods), not a saturated host', () => {
    const alarms = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { Namespace: METRIC_NAMESPACE, MetricName: METRICS.starvedSources },
    });
    expect(Object.values(alarms).map((a) => a.Properties)).toEqual([
      expect.objectContaining({
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 3,
        DatapointsToAlarm: SOURCE_STARVED_DATAPOINTS,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        // A datapoint only while a source starves (CUSTOM_METRIC_ONLY_WHEN): no data is no starvation.
        TreatMissingData: 'notBreaching',
        AlarmActions: ['arn:aws:sns:eu-central-1:123456789012:oncall'],
        OKActions: ['arn:aws:sns:eu-central-1:123456789012:oncall'],
      }),
    ]);
    expect(Object.keys(alarms)[0]).toMatch(/SourceStarved/);
    // Saturation (lawful, RATE-9) is no alarm any more: no alarm reads SaturatedHosts.
    expect(
      template.findResources('AWS::CloudWatch::Alarm', {
        Properties: { MetricName: METRICS.saturatedHosts },
      }),
    ).toEqual({});
  });

  it('RATE-9: saturation stays on the dashboard, read from the planner’s metric log lines', () => {
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0];
    const body = JSON.stringify(dashboard?.Properties?.DashboardBody).replace(/\\+"/g, '"');
    expect(body).toContain(
      `filter ${METRIC_LOG_FIELD} = '${METRIC_NAMESPACE}' | filter ispresent(${METRICS.saturatedHosts}) or ispresent(${METRICS.longestOverdueMinutes})`,
    );
    expect(body).toContain(`max(${METRICS.hostStretch}) as stretch`);
    expect(body).not.toMatch(new RegExp(`"${METRIC_NAMESPACE}","${METRICS.saturatedHosts}"`));
  });

  it('ERR-4 / issue 13: alarms on our own store outages, apart from any source’s failures', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRIC_NAMESPACE,
      MetricName: METRICS.storeOutages,
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: ['arn:aws:sns:eu-central-1:123456789012:oncall'],
    });
  });

  it('alarms on errors of every synchronously invoked function; the scheduled ones, later ones included, through FailedInvocations', () => {
    const alarms = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'Errors', Namespace: 'AWS/Lambda' },
    });
    // Issue 28: the planner and the later-added Files are scheduled (test/cdk/failed-invocations.test.ts).
    expect(Object.keys(alarms)).toEqual([expect.stringMatching(/SyncErrors/)]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'NumberOfMessagesSent',
      AlarmActions: ['arn:aws:sns:eu-central-1:123456789012:oncall'],
    });
  });

  it('the dashboard keeps errors, invocations and duration lines for every function, scheduled or not', () => {
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0];
    const body = JSON.stringify(dashboard?.Properties?.DashboardBody).replace(/\\+"/g, '"');
    for (const name of ['Planner', 'Sync', 'Files'])
      for (const metric of ['Errors', 'Invocations', 'Duration'])
        expect(body).toMatch(
          new RegExp(`"AWS/Lambda","${metric}","FunctionName","",\\{"Ref":"\\w+"\\},"",\\{"label":"${name}"`),
        );
  });

  it('has a dashboard with requests, robots.txt, syncs, pauses, queues and functions', () => {
    const dashboards = template.findResources('AWS::CloudWatch::Dashboard');
    expect(Object.keys(dashboards)).toHaveLength(1);
    const body = JSON.stringify(Object.values(dashboards)[0]?.Properties?.DashboardBody);
    for (const name of Object.values(METRICS)) expect(body).toContain(name);
    expect(body).toContain('ApproximateAgeOfOldestMessage');
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardBody: Match.anyValue() });
  });

  it('issue 28: custom metrics are exactly the alarmed ones; the dashboard reads the others from every function’s logs', () => {
    // Every custom metric series is billed each month: the stack may read a custom metric of its own
    // namespace only in an alarm, and what an alarm reads is what the code writes as EMF.
    const alarmed = Object.values(template.findResources('AWS::CloudWatch::Alarm'))
      .filter((a) => a.Properties?.Namespace === METRIC_NAMESPACE)
      .map((a) => String(a.Properties?.MetricName));
    expect(new Set(alarmed)).toEqual(new Set(ALARMED_METRICS));
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0];
    const body = JSON.stringify(dashboard?.Properties?.DashboardBody);
    // No SEARCH over the namespace (it would show only metrics that no longer exist).
    expect(body).not.toMatch(new RegExp(`SEARCH\\(\\{${METRIC_NAMESPACE}`));
    // The log widgets query the metric log lines of every ingestor function, the later-added one too.
    const logGroups = Object.keys(template.findResources('AWS::Logs::LogGroup'));
    expect(logGroups.length).toBeGreaterThanOrEqual(2);
    for (const id of logGroups) expect(body).toContain(id);
    expect(body).toContain(`filter ${METRIC_LOG_FIELD} = '${METRIC_NAMESPACE}'`);
    for (const name of Object.values(METRICS).filter((m) => !ALARMED_METRICS.has(m)))
      expect(body).toContain(`(${name})`);
  });
});
