import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSourceItem, type SourceConfig } from '../../shared/config';
import { decideManualSync, plannerTick, startManualSync } from '../../shared/planner';
import {
  DEFAULT_SCHEDULE_SETTINGS,
  initialScheduleState,
  type ManualRequest,
  type SourceScheduleState,
} from '../../shared/schedule';
import { getSourceState, patchSourceState, requestManualSync } from '../../shared/store/source-state';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';

/**
 * Issue 29: `ingestor sync` and `ingestor request` decide a manual request through the planner's one
 * function (`decideManualSync`), and the tick reaches the same decision from the stored flag — a sync
 * now, a spared source waiting (SCH-7), a full sync inside FULL-8's minimum distance refused alike.
 */
describe('a manual request: the one decision of the planner and the CLI (SCH-7, FULL-8)', () => {
  let bed: AwsTestbed;
  const at = new Date('2026-11-30T09:01:00Z');
  const justSynced = {
    ...initialScheduleState(),
    lastSyncStartedAt: '2026-11-30T09:58:00+01:00',
    lastSyncEndedAt: '2026-11-30T09:59:00+01:00',
    lastSyncPeriod: 'weekdayDay' as const,
    quietStreak: 1,
    fullSyncLastStartedAt: '2026-11-30T03:00:00+01:00',
    fullSyncLastCompleteStartedAt: '2026-11-30T03:00:00+01:00',
    fullSyncLastCompletedAt: '2026-11-30T03:20:00+01:00',
  };
  const asks: Record<
    string,
    { request: ManualRequest; schedule: SourceScheduleState & Record<string, unknown> }
  > = {
    asked: { request: { kind: 'sync', requestedAt: at.toISOString() }, schedule: justSynced },
    'asked-full': { request: { kind: 'full', requestedAt: at.toISOString() }, schedule: justSynced },
    spared: {
      request: { kind: 'sync', requestedAt: at.toISOString() },
      schedule: {
        ...justSynced,
        failureStreak: 3,
        pause: {
          until: '2026-11-30T11:00:00+01:00',
          kind: 'failure-streak',
          minutes: 10,
          because: 'the 3rd failed run in a row (ERR-4)',
          ruleIds: ['ERR-4'],
        },
      },
    },
  };
  const sources = new Map<string, SourceConfig>();

  beforeAll(async () => {
    bed = await startAwsTestbed();
    for (const [sourceId, { request, schedule }] of Object.entries(asks)) {
      const item = { sourceId, systemUrl: `https://${sourceId}.example.de/oparl/system`, active: true };
      await bed.clients.doc.send(new PutCommand({ TableName: bed.env.SOURCES_TABLE, Item: item }));
      const parsed = parseSourceItem(item);
      if (!parsed.ok) throw new Error(`bad fixture ${sourceId}`);
      sources.set(sourceId, parsed.source);
      await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, sourceId, {
        schedule,
        dueAt: '2026-11-30T10:00:00.000Z',
      });
      await requestManualSync(
        { doc: bed.clients.doc, table: bed.env.STATE_TABLE },
        sourceId,
        request,
        initialScheduleState(),
      );
    }
  });
  afterAll(async () => bed.stop());

  it('SCH-7 / FULL-8: the tick decides each stored request as decideManualSync does', async () => {
    const ahead = new Map<string, { action: string; kind: string | undefined; reason: string }>();
    for (const [sourceId, { request }] of Object.entries(asks)) {
      const stored = await getSourceState<SourceScheduleState>(
        bed.clients.doc,
        bed.env.STATE_TABLE,
        sourceId,
      );
      const { decision } = decideManualSync({
        source: sources.get(sourceId) as SourceConfig,
        stored,
        request,
        now: at,
        settings: DEFAULT_SCHEDULE_SETTINGS,
      });
      ahead.set(sourceId, { action: decision.action, kind: decision.kind, reason: decision.reason });
    }
    // The three outcomes are distinct, so the comparison below covers each branch of SCH-7 / FULL-8.
    expect(ahead.get('asked')).toMatchObject({ action: 'sync', kind: 'incremental' });
    expect(ahead.get('spared')?.action).toBe('wait');
    expect(ahead.get('spared')?.reason).toMatch(/sparing wins \(SCH-7\)/);

    const tick = await plannerTick(
      {
        doc: bed.clients.doc,
        sqs: bed.clients.sqs,
        tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
        syncQueueUrl: bed.queues.syncQueueUrl,
        settings: DEFAULT_SCHEDULE_SETTINGS,
        leaseMinutes: 20,
      },
      at,
    );
    for (const [sourceId, expected] of ahead) {
      const planned = tick.decisions.find((d) => d.sourceId === sourceId);
      expect({ action: planned?.action, kind: planned?.kind, reason: planned?.reason }, sourceId).toEqual(
        expected,
      );
    }
  });

  it('SCH-5 / SCH-7: `ingestor sync` starts through startManualSync — decided as above, the lease taken once; a spared source gets none', async () => {
    const deps = {
      doc: bed.clients.doc,
      tables: { state: bed.env.STATE_TABLE },
      settings: DEFAULT_SCHEDULE_SETTINGS,
      leaseMinutes: 20,
    };
    const started: Record<string, Awaited<ReturnType<typeof startManualSync>>> = {};
    for (const sourceId of ['cli-asked', 'cli-spared']) {
      const item = { sourceId, systemUrl: `https://${sourceId}.example.de/oparl/system`, active: true };
      const parsed = parseSourceItem(item);
      if (!parsed.ok) throw new Error(`bad fixture ${sourceId}`);
      sources.set(sourceId, parsed.source);
      const { schedule } = asks[sourceId === 'cli-asked' ? 'asked' : 'spared'] as (typeof asks)[string];
      await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, sourceId, { schedule });
      const question = {
        source: parsed.source,
        request: { kind: 'sync' as const, requestedAt: at.toISOString() },
        now: at,
      };
      const stored = await getSourceState<SourceScheduleState>(
        bed.clients.doc,
        bed.env.STATE_TABLE,
        sourceId,
      );
      const ahead = decideManualSync({ ...question, stored, settings: DEFAULT_SCHEDULE_SETTINGS });
      started[sourceId] = await startManualSync(deps, question);
      expect(started[sourceId]?.decision, sourceId).toEqual(ahead.decision);
    }
    expect(started['cli-asked']?.message).toMatchObject({ sourceId: 'cli-asked', kind: 'incremental' });
    const leased = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'cli-asked');
    expect(leased?.leaseUntil).toBe(new Date(at.getTime() + 20 * 60_000).toISOString());
    expect(started['cli-spared']?.message).toBeUndefined();
    expect(
      (await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'cli-spared'))?.leaseUntil,
    ).toBeUndefined();
    // A second ask while the first run holds the lease starts nothing (SCH-5).
    const again = await startManualSync(deps, {
      source: sources.get('cli-asked') as SourceConfig,
      request: { kind: 'sync', requestedAt: at.toISOString() },
      now: at,
    });
    expect(again.message).toBeUndefined();
  });
});
