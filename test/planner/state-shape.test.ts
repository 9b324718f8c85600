import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainSources } from '../../shared/planner/explain';
import { plannerTick } from '../../shared/planner/tick';
import { DEFAULT_SCHEDULE_SETTINGS, initialScheduleState } from '../../shared/schedule';
import { getSourceState, patchSourceState } from '../../shared/store/source-state';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';

// Monday 2026-11-30 10:00 Europe/Berlin: weekday daytime, outside the default full-sync window.
const NOW = new Date('2026-11-30T09:00:00Z');

/**
 * Issue 28: STATE items written by the code before the short stored schedule (long field names,
 * `schemaVersion`, the running sync's kind and lease end inside `running`, learnt runs as maps) are read
 * by the planner and `status` as before, for one release — against the real local DynamoDB peer.
 */
describe('old-shape STATE items through the planner and status (issue 28)', () => {
  let bed: AwsTestbed;
  const deps = () => ({
    doc: bed.clients.doc,
    sqs: bed.clients.sqs,
    tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
    syncQueueUrl: bed.queues.syncQueueUrl,
    settings: DEFAULT_SCHEDULE_SETTINGS,
    leaseMinutes: 20,
  });
  const oldItem = (
    sourceId: string,
    schedule: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.STATE_TABLE,
        Item: {
          pk: `SOURCE#${sourceId}`,
          sk: 'STATE',
          sourceId,
          dueShard: 'planner',
          dueAt: '2026-11-30T08:00:00.000Z',
          schedule: {
            schemaVersion: 1,
            quietStreak: 0,
            failureStreak: 0,
            fullSyncInProgress: false,
            sessionDays: [],
            ...schedule,
          },
          ...extra,
        },
      }),
    );

  beforeAll(async () => {
    bed = await startAwsTestbed();
    for (const sourceId of ['old-paused', 'old-running', 'old-quiet'])
      await bed.clients.doc.send(
        new PutCommand({
          TableName: bed.env.SOURCES_TABLE,
          Item: { sourceId, systemUrl: `https://${sourceId}.example.de/oparl/system`, active: true },
        }),
      );
    await oldItem('old-paused', {
      failureStreak: 3,
      pause: {
        until: '2026-11-30T09:40:00Z',
        kind: 'failure-streak',
        minutes: 40,
        because: 'three failed runs in a row (ERR-4)',
        ruleIds: ['ERR-4'],
      },
    });
    await oldItem(
      'old-running',
      {
        fullSyncInProgress: true,
        fullSyncLastStartedAt: '2026-11-30T08:50:00Z',
        running: {
          kind: 'full',
          trigger: 'manual',
          startedAt: '2026-11-30T08:50:00Z',
          leaseUntil: '2026-11-30T09:10:00Z',
        },
      },
      {
        leaseRunId: 'old-run',
        leaseKind: 'full',
        leaseUntil: '2026-11-30T09:10:00.000Z',
        leaseShard: 'lease',
        leaseStep: 0,
      },
    );
    // Synced 2 minutes ago (interval 10 min): waits for its cadence; learnt runs in the old map form.
    await oldItem('old-quiet', {
      lastSyncStartedAt: '2026-11-30T09:57:00+01:00',
      lastSyncEndedAt: '2026-11-30T09:58:00+01:00',
      lastSyncKind: 'incremental',
      lastSyncPeriod: 'weekdayDay',
      lastSyncChanged: true,
      lastSuccessAt: '2026-11-30T09:58:00+01:00',
      recentRuns: [{ kind: 'incremental', requests: 11, seconds: 60 }],
      sessionDays: ['2026-12-01'],
    });
  });
  afterAll(async () => bed.stop());

  it('issue 28 / ERR-4 / SCH-5 / SCH-2: the planner decides old-shape items as before, and status explains the pause', async () => {
    const result = await plannerTick(deps(), NOW);
    const byId = Object.fromEntries(result.decisions.map((d) => [d.sourceId, d]));
    expect(result.started).toEqual([]);
    expect(byId['old-paused']?.action).toBe('wait');
    expect(byId['old-paused']?.reason).toContain('three failed runs in a row');
    // SCH-5 / issue 28: a lease in force makes the item running, not due: counted, not decided or written.
    expect(byId['old-running']).toBeUndefined();
    expect(byId['old-quiet']?.action).toBe('wait');
    expect(byId['old-quiet']?.reason).toMatch(/cadence/);

    // `status` reads whole items: the pause with its reason, the running full sync with its lease.
    const status = Object.fromEntries(
      (
        await explainSources(
          { doc: bed.clients.doc, tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE } },
          DEFAULT_SCHEDULE_SETTINGS,
          NOW,
        )
      ).map((s) => [s.sourceId, s]),
    );
    expect(status['old-paused']?.paused?.reason).toContain('three failed runs in a row');
    expect(status['old-paused']?.failureStreak).toBe(3);
    expect(status['old-running']?.running).toEqual({
      kind: 'full',
      since: '2026-11-30T08:50:00Z',
      leaseUntil: '2026-11-30T09:10:00.000Z',
    });
    const quiet = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'old-quiet');
    expect(quiet?.schedule).toMatchObject({
      schemaVersion: 1,
      lastSyncPeriod: 'weekdayDay',
      sessionDays: ['2026-12-01'],
      recentRuns: [{ kind: 'incremental', requests: 11, seconds: 60 }],
    });
  });

  it('issue 28 / ERR-4: a paused source stored in the new short shape is explained by status as before', async () => {
    await bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.SOURCES_TABLE,
        Item: {
          sourceId: 'new-paused',
          systemUrl: 'https://new-paused.example.de/oparl/system',
          active: true,
        },
      }),
    );
    await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, 'new-paused', {
      schedule: {
        ...initialScheduleState(),
        failureStreak: 3,
        pause: {
          until: '2026-11-30T09:40:00Z',
          kind: 'failure-streak',
          minutes: 40,
          because: 'three failed runs in a row (ERR-4)',
          ruleIds: ['ERR-4'],
        },
      },
    });
    const raw = await bed.clients.dynamo.send(
      new GetItemCommand({
        TableName: bed.env.STATE_TABLE,
        Key: { pk: { S: 'SOURCE#new-paused' }, sk: { S: 'STATE' } },
        ConsistentRead: true,
      }),
    );
    // Stored short (shared/store/schedule-codec.ts), not under the schedule's own names.
    expect(raw.Item?.schedule?.M?.pause).toBeUndefined();
    expect(raw.Item?.schedule?.M?.pz).toBeDefined();
    const status = (
      await explainSources(
        { doc: bed.clients.doc, tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE } },
        DEFAULT_SCHEDULE_SETTINGS,
        NOW,
      )
    ).find((s) => s.sourceId === 'new-paused');
    expect(status?.action).toBe('wait');
    expect(status?.failureStreak).toBe(3);
    expect(status?.paused?.until).toBe('2026-11-30T09:40:00Z');
    expect(status?.paused?.reason).toContain('three failed runs in a row');
  });
});
