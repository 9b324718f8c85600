import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plannerTick } from '../../shared/planner/tick';
import { DEFAULT_SCHEDULE_SETTINGS, initialScheduleState } from '../../shared/schedule';
import { getSourceState, patchSourceState, requestManualSync } from '../../shared/store/source-state';
import { parseSyncMessage } from '../../shared/sync/message';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';

// Monday 2026-11-30 10:00 Europe/Berlin: weekday daytime, outside the default full-sync window.
const NOW = new Date('2026-11-30T09:00:00Z');

describe('planner tick against the local peers', () => {
  let bed: AwsTestbed;
  const deps = () => ({
    doc: bed.clients.doc,
    sqs: bed.clients.sqs,
    tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
    syncQueueUrl: bed.queues.syncQueueUrl,
    settings: { ...DEFAULT_SCHEDULE_SETTINGS, maxConcurrentSyncs: 2 },
    leaseMinutes: 20,
  });
  const source = (sourceId: string, extra: Record<string, unknown> = {}) =>
    bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.SOURCES_TABLE,
        Item: { sourceId, systemUrl: `https://${sourceId}.example.de/oparl/system`, active: true, ...extra },
      }),
    );

  beforeAll(async () => {
    bed = await startAwsTestbed();
    await source('fresh-a');
    await source('fresh-b');
    await source('fresh-c');
    await source('inactive', { active: false });
    await source('broken', { requestIntervalSeconds: 'fast' });
    await source('paused');
    await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, 'paused', {
      schedule: {
        ...initialScheduleState(),
        failureStreak: 1,
        pause: {
          until: '2026-11-30T10:30:00Z',
          kind: '5xx-series',
          minutes: 30,
          because: 'a 5xx series (ERR-5)',
          ruleIds: ['ERR-5'],
        },
      },
    });
  });
  afterAll(async () => bed.stop());

  it('SCH-5 / ERR-5 / ERR-7: starts at most the configured number, skips inactive, paused and invalid sources with reasons', async () => {
    const result = await plannerTick(deps(), NOW);
    const byId = Object.fromEntries(result.decisions.map((d) => [d.sourceId, d]));

    expect(result.started.map((s) => s.sourceId).sort()).toEqual(['fresh-a', 'fresh-b']);
    expect(byId['fresh-c']?.action).toBe('wait');
    expect(byId['fresh-c']?.reason).toMatch(/slot/);
    expect(byId.inactive?.action).toBe('skip');
    expect(byId.paused?.action).not.toBe('sync');
    expect(byId.paused?.reason).toMatch(/5xx/);
    expect(byId.broken?.action).toBe('skip');
    expect(byId.broken?.reason).toContain('requestIntervalSeconds');
    expect(result.invalid).toBe(1);

    const received = await bed.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: bed.queues.syncQueueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
      }),
    );
    const messages = (received.Messages ?? []).map((m) => parseSyncMessage(m.Body ?? ''));
    expect(messages.map((m) => m.sourceId).sort()).toEqual(['fresh-a', 'fresh-b']);
    expect(messages.every((m) => m.kind === 'incremental' && m.trigger === 'schedule')).toBe(true);

    const leased = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'fresh-a');
    expect(leased?.leaseRunId).toBe(messages.find((m) => m.sourceId === 'fresh-a')?.runId);
    const broken = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'broken');
    expect(broken?.configProblems?.[0]?.field).toBe('requestIntervalSeconds');
  });

  it('SCH-5: a second tick a minute later starts nothing twice while the leases hold', async () => {
    const result = await plannerTick(deps(), new Date(NOW.getTime() + 60_000));
    expect(result.started).toEqual([]);
    const byId = Object.fromEntries(result.decisions.map((d) => [d.sourceId, d]));
    expect(byId['fresh-a']?.action).not.toBe('sync');
    // Both slots are held by the running syncs, so the third source still waits.
    expect(byId['fresh-c']?.action).toBe('wait');
  });

  it('SCH-5 / issue 28: runs that die without a word are found through the due index once their leases expire, and their sources start again', async () => {
    const before = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'fresh-a');
    // Nobody claims or releases (the invocations died); the 20-minute leases run out.
    const result = await plannerTick(deps(), new Date(NOW.getTime() + 21 * 60_000));
    const byId = Object.fromEntries(result.decisions.map((d) => [d.sourceId, d]));
    expect(byId['fresh-a']).toBeDefined();
    expect(byId['fresh-b']).toBeDefined();
    expect(result.started).toHaveLength(2);
    const after = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'fresh-a');
    if (result.started.some((s) => s.sourceId === 'fresh-a'))
      expect(after?.leaseRunId).not.toBe(before?.leaseRunId);
    else expect(byId['fresh-a']?.reason).toMatch(/expired|slot/);
  });
});

describe('planner tick reads only what changed (issue 5: due-time index)', () => {
  let bed: AwsTestbed;
  let itemsRead = 0;
  const cache = {};
  const deps = () => ({
    doc: bed.clients.doc,
    sqs: bed.clients.sqs,
    tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
    syncQueueUrl: bed.queues.syncQueueUrl,
    settings: DEFAULT_SCHEDULE_SETTINGS,
    leaseMinutes: 20,
    cache,
  });

  beforeAll(async () => {
    bed = await startAwsTestbed();
    // Count the items every DynamoDB read returns (Scan, Query, Get).
    bed.clients.doc.middlewareStack.add(
      (next) => async (args) => {
        const out = await next(args);
        const o = out.output as { Items?: unknown[]; Item?: unknown };
        itemsRead += (o.Items?.length ?? 0) + (o.Item ? 1 : 0);
        return out;
      },
      { step: 'initialize', name: 'countReads' },
    );
    for (let i = 0; i < 20; i += 1) {
      await bed.clients.doc.send(
        new PutCommand({
          TableName: bed.env.SOURCES_TABLE,
          Item: {
            sourceId: `quiet-${i}`,
            systemUrl: `https://ris${i}.example.de/oparl/system`,
            active: i < 2,
          },
        }),
      );
    }
  });
  afterAll(async () => bed.stop());

  it('a tick with nothing due reads no source item and no waiting STATE item', async () => {
    const first = await plannerTick(deps(), NOW);
    expect(first.started).toHaveLength(2);
    itemsRead = 0;
    // Five minutes later nothing is due: the inactive sources wait a day, the two running syncs hold leases.
    const later = await plannerTick(deps(), new Date(NOW.getTime() + 4 * 60_000));
    expect(later.decisions.filter((d) => d.action !== 'skip')).toEqual([]);
    // Only the two leased STATE items are read (they stay due while leased, issue 28); no scan, no waiting item.
    expect(itemsRead).toBe(2);
  });

  it('ERR-7: a source activated by hand is picked up when the cached config is re-read', async () => {
    await bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.SOURCES_TABLE,
        Item: { sourceId: 'quiet-7', systemUrl: 'https://ris7.example.de/oparl/system', active: true },
      }),
    );
    const beforeTtl = await plannerTick(deps(), new Date(NOW.getTime() + 4.5 * 60_000));
    expect(beforeTtl.started).toEqual([]);
    const afterTtl = await plannerTick(deps(), new Date(NOW.getTime() + 6 * 60_000));
    expect(afterTtl.started.map((s) => s.sourceId)).toEqual(['quiet-7']);
  });
});

describe('manual requests through the State flag (SCH-7, FULL-8)', () => {
  let bed: AwsTestbed;
  const deps = () => ({
    doc: bed.clients.doc,
    sqs: bed.clients.sqs,
    tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
    syncQueueUrl: bed.queues.syncQueueUrl,
    settings: DEFAULT_SCHEDULE_SETTINGS,
    leaseMinutes: 20,
  });
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

  beforeAll(async () => {
    bed = await startAwsTestbed();
    for (const id of ['asked', 'spared']) {
      await bed.clients.doc.send(
        new PutCommand({
          TableName: bed.env.SOURCES_TABLE,
          Item: { sourceId: id, systemUrl: `https://${id}.example.de/oparl/system`, active: true },
        }),
      );
    }
    await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, 'asked', {
      schedule: justSynced,
      dueAt: '2026-11-30T09:09:00.000Z',
    });
    await patchSourceState({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }, 'spared', {
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
      dueAt: '2026-11-30T10:00:00.000Z',
    });
  });
  afterAll(async () => bed.stop());

  it('SCH-7: a requested sync starts before its cadence is due; a spared source keeps waiting', async () => {
    const at = new Date('2026-11-30T09:01:00Z');
    const quiet = await plannerTick(deps(), at);
    expect(quiet.started).toEqual([]);

    await requestManualSync(
      { doc: bed.clients.doc, table: bed.env.STATE_TABLE },
      'asked',
      { kind: 'sync', requestedAt: at.toISOString() },
      initialScheduleState(),
    );
    await requestManualSync(
      { doc: bed.clients.doc, table: bed.env.STATE_TABLE },
      'spared',
      { kind: 'sync', requestedAt: at.toISOString() },
      initialScheduleState(),
    );
    const tick = await plannerTick(deps(), new Date(at.getTime() + 30_000));
    expect(tick.started.map((s) => s.sourceId)).toEqual(['asked']);
    const spared = tick.decisions.find((d) => d.sourceId === 'spared');
    expect(spared?.action).toBe('wait');
    expect(spared?.reason).toMatch(/sparing wins \(SCH-7\)/);
    const state = await getSourceState<{ manualRequest?: unknown }>(
      bed.clients.doc,
      bed.env.STATE_TABLE,
      'asked',
    );
    // The request is consumed by the sync started for it.
    expect(state?.schedule?.manualRequest).toBeUndefined();
  });
});
