import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  METRIC_LOG_FIELD,
  METRIC_NAMESPACE,
  METRICS,
  MetricsBuffer,
  PAUSE_METRICS_EVERY_MINUTES,
} from '../../shared/observability';
import { emitPlannerMetrics } from '../../shared/planner/pause-metrics';
import { initialScheduleState } from '../../shared/schedule';
import { patchSourceState } from '../../shared/store/source-state';
import { useAwsTestbed } from '../support/aws';

// On the 15-minute grid (PAUSE_METRICS_EVERY_MINUTES): the planner's pause metrics are due.
const NOW = new Date('2026-11-30T09:00:00Z');
const HOUR_MS = 3_600_000;

/**
 * Issue 28 (metric-hours), on the planner's real path (Sources and STATE from the local DynamoDB): the
 * "paused for more than a day" alarm's gauge is a custom-metric datapoint only when it could breach the
 * alarm (> 24 h); below, the value is on the metric log line (the dashboard's), and CloudWatch bills no
 * hour for it.
 */
describe('planner pause metrics against the local peers', () => {
  const bed = useAwsTestbed();

  async function pausedSince(hoursAgo: number): Promise<void> {
    await bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.SOURCES_TABLE,
        Item: { sourceId: 'paused', systemUrl: 'https://paused.example.de/oparl/system', active: true },
      }),
    );
    await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, 'paused', {
      schedule: {
        ...initialScheduleState(),
        failureStreak: 3,
        lastSuccessAt: new Date(NOW.getTime() - hoursAgo * HOUR_MS).toISOString(),
        pause: {
          until: new Date(NOW.getTime() + 30 * 60_000).toISOString(),
          kind: '5xx-series',
          minutes: 30,
          because: 'a 5xx series (ERR-5)',
          ruleIds: ['ERR-5'],
        },
      },
    });
  }

  async function emitAt(now: Date) {
    const lines: Record<string, unknown>[] = [];
    const target = new MetricsBuffer({
      write: (line) => lines.push(JSON.parse(line)),
      now: () => now.getTime(),
    });
    const result = await emitPlannerMetrics(
      bed.clients.doc,
      { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
      now,
      { target },
    );
    return {
      result,
      emf: lines.filter((l) => l._aws !== undefined),
      logged: lines.filter((l) => l._aws === undefined && l[METRIC_LOG_FIELD] === METRIC_NAMESPACE),
    };
  }

  it('ERR-4/ERR-5: a pause of 2 hours is a log line, no custom-metric datapoint', async () => {
    await pausedSince(2);
    const { result, emf, logged } = await emitAt(NOW);
    expect(result?.longestPauseHours).toBe(2);
    expect(emf).toEqual([]);
    expect(logged).toContainEqual(
      expect.objectContaining({ [METRICS.pausedSources]: 1, [METRICS.longestPauseHours]: 2 }),
    );
  });

  it('ERR-4/ERR-5: a source 30 hours without success is a datapoint the alarm reads', async () => {
    await pausedSince(30);
    const { emf, logged } = await emitAt(NOW);
    expect(emf).toEqual([expect.objectContaining({ [METRICS.longestPauseHours]: 30 })]);
    expect(emf[0]?._aws).toMatchObject({
      CloudWatchMetrics: [{ Namespace: METRIC_NAMESPACE, Metrics: [{ Name: METRICS.longestPauseHours }] }],
    });
    // The counts stay on the log line beside it.
    expect(logged).toContainEqual(expect.objectContaining({ [METRICS.pausedSources]: 1 }));
  });

  it('off the 15-minute grid nothing is read or written', async () => {
    const { result, emf, logged } = await emitAt(new Date(NOW.getTime() + 60_000));
    expect(PAUSE_METRICS_EVERY_MINUTES).toBeGreaterThan(1);
    expect(result).toBeUndefined();
    expect([...emf, ...logged]).toEqual([]);
  });
});
