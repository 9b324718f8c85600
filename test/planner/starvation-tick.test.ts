import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS, MetricsBuffer, putStarvationMetrics } from '../../shared/observability';
import { plannerTick } from '../../shared/planner';
import { DEFAULT_SCHEDULE_SETTINGS, initialScheduleState } from '../../shared/schedule';
import { acquireSyncLease, patchSourceState, releaseSyncLease } from '../../shared/store';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';

// Monday 2026-11-30 10:00 Europe/Berlin: weekday daytime (10-minute base), outside the full-sync window.
const NOW = new Date('2026-11-30T09:00:00Z');
const HOST = 'ris.hosting.example';

/**
 * RATE-9's paging signal on the planner's real path (Sources and STATE in the local DynamoDB, the queue
 * in the local SQS). Three councils on one hosting centre that asks 30 s between requests (RATE-2):
 * capacity 1/30 request/s, demand 3 × 16 requests / 600 s = 0.08/s — saturated, every interval × 2.4.
 * That alone is lawful and pages nobody. Starvation is staged for real: `hog` holds the host with a run
 * (its lease in force, RATE-4/SCH-5: one run keeps this host busy), and `starved`, last synced
 * 07:00:00–07:00:30Z, is due at 2.4 turns of 10.5 min = 25.2 min after 07:00 (07:25:12Z) — at 09:00 it is
 * 94.8 min past that turn, more than its stretched interval again.
 */
describe('planner tick: a starved source, not a saturated host, is the alarm’s figure', () => {
  let bed: AwsTestbed;
  const deps = () => ({
    doc: bed.clients.doc,
    sqs: bed.clients.sqs,
    tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
    syncQueueUrl: bed.queues.syncQueueUrl,
    settings: { ...DEFAULT_SCHEDULE_SETTINGS, maxConcurrentSyncs: 4 },
    leaseMinutes: 20,
  });
  const table = () => ({ doc: bed.clients.doc, table: bed.env.STATE_TABLE });
  const council = async (sourceId: string, lastSync: { startedAt: string; endedAt: string }) => {
    await bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.SOURCES_TABLE,
        Item: {
          sourceId,
          systemUrl: `https://${HOST}/${sourceId}/oparl/system`,
          active: true,
          requestIntervalSeconds: 30,
        },
      }),
    );
    await patchSourceState(table(), sourceId, {
      dueAt: '2026-11-30T08:55:00.000Z',
      schedule: {
        ...initialScheduleState({
          lastSyncKind: 'incremental',
          lastSyncStartedAt: lastSync.startedAt,
          lastSyncEndedAt: lastSync.endedAt,
          lastSyncPeriod: 'weekdayDay',
          lastSyncChanged: false,
          lastSuccessAt: lastSync.endedAt,
          quietStreak: 0,
          // Last night's full sync done: nothing but the incremental cadence is due.
          fullSyncLastStartedAt: '2026-11-30T02:00:00.000Z',
          fullSyncLastWindowId: '2026-11-30T03:00:00+01:00',
          fullSyncLastCompleteStartedAt: '2026-11-30T02:00:00.000Z',
          fullSyncLastCompletedAt: '2026-11-30T02:10:00.000Z',
          fullSyncLastCompleteWindowId: '2026-11-30T03:00:00+01:00',
        }),
      },
    });
  };

  beforeAll(async () => {
    bed = await startAwsTestbed();
    await council('hog', { startedAt: '2026-11-30T08:40:00.000Z', endedAt: '2026-11-30T08:40:30.000Z' });
    await council('starved', { startedAt: '2026-11-30T07:00:00.000Z', endedAt: '2026-11-30T07:00:30.000Z' });
    await council('stretched', {
      startedAt: '2026-11-30T08:50:00.000Z',
      endedAt: '2026-11-30T08:50:30.000Z',
    });
    // The hog's run holds the host (a lease in force, taken the way the planner takes it).
    const held = await acquireSyncLease(bed.clients.doc, bed.env.STATE_TABLE, 'hog', {
      runId: 'hog-run',
      kind: 'incremental',
      until: new Date(NOW.getTime() + 15 * 60_000),
      now: new Date(NOW.getTime() - 5 * 60_000),
      dueBy: new Date(NOW.getTime() - 5 * 60_000),
    });
    expect(held).toBe(true);
  });
  afterAll(async () => bed.stop());

  function emitted(starvation: Parameters<typeof putStarvationMetrics>[0]) {
    const lines: Record<string, unknown>[] = [];
    const buffer = new MetricsBuffer({ write: (l) => lines.push(JSON.parse(l)), now: () => NOW.getTime() });
    putStarvationMetrics(starvation, buffer);
    buffer.flush();
    return { emf: lines.filter((l) => l._aws !== undefined), all: lines };
  }

  it('the host is saturated × 2.4 (shown), the starved source is counted and its datapoint written', async () => {
    const result = await plannerTick(deps(), NOW);
    expect(result.hosts).toEqual([
      expect.objectContaining({ host: HOST, sources: 3, saturated: true, stretch: expect.closeTo(2.4, 6) }),
    ]);
    const byId = Object.fromEntries(result.decisions.map((d) => [d.sourceId, d]));
    // The merely stretched council waits for its stretched turn: not starved.
    expect(byId.stretched?.action).toBe('wait');
    expect(byId.stretched?.reason).toMatch(/saturated/);
    // The starved one is due and waits for the busy host.
    expect(byId.starved?.action).toBe('wait');
    expect(result.started).toEqual([]);
    expect(result.starvation).toEqual({
      starved: [
        {
          sourceId: 'starved',
          host: HOST,
          stretch: 2.4,
          overdueMinutes: 94.8,
          stretchedIntervalMinutes: 25.2,
        },
      ],
      longestOverdueMinutes: 94.8,
    });
    const { emf } = emitted(result.starvation);
    expect(emf).toEqual([expect.objectContaining({ [METRICS.starvedSources]: 1 })]);
  });

  it('the host free again, the starved source starts: nothing starves, no datapoint (a log line only)', async () => {
    await releaseSyncLease(table(), 'hog', 'hog-run', {
      schedule: initialScheduleState({
        lastSyncKind: 'incremental',
        lastSyncStartedAt: '2026-11-30T08:55:00.000Z',
        lastSyncEndedAt: '2026-11-30T09:01:00.000Z',
        lastSyncPeriod: 'weekdayDay',
        quietStreak: 0,
      }),
      dueAt: '2026-11-30T09:30:00.000Z',
    });
    const result = await plannerTick(deps(), new Date(NOW.getTime() + 2 * 60_000));
    expect(result.started.map((s) => s.sourceId)).toEqual(['starved']);
    expect(result.hosts[0]?.saturated).toBe(true);
    expect(result.starvation).toEqual({ starved: [], longestOverdueMinutes: 0 });
    const { emf, all } = emitted(result.starvation);
    expect(emf).toEqual([]);
    expect(all).toEqual([
      expect.objectContaining({ [METRICS.starvedSources]: 0, [METRICS.longestOverdueMinutes]: 0 }),
    ]);
  });
});
