import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoItemBytes } from '../../bench/cost/item-size';
import { writeWorstLeasedStateItem } from '../../bench/cost/state-item';
import { isoOfMs, type SourceScheduleState } from '../../shared/schedule';
import {
  instantFromStore,
  localDatesFromStore,
  storedInstant,
  storedLocalDates,
} from '../../shared/store/instant-codec';
import { storedItemBytes } from '../../shared/store/item-bytes';
import {
  scheduleFromStore,
  stateItemFromStore,
  storedSchedule,
  storedStateAttribute,
} from '../../shared/store/schedule-codec';
import { getSourceState } from '../../shared/store/source-state';
import { useAwsTestbed } from '../support/aws';

const HOUR_MS = 3_600_000;

/**
 * Issue 28: the STATE item's schedule stored short — instants as numbers, session days as one string,
 * closed words as one letter — and read back as the very text that was written (the codec is lossless:
 * what does not read back the same is kept as it was).
 */
describe('schedule codec: compact instants and dates (issue 28)', () => {
  it('SCH-4: every whole-second instant in the schedule’s own Berlin form reads back as the same text, across the summer-time switches of 2026–2028', () => {
    const from = Date.parse('2026-01-01T00:00:00Z');
    const until = Date.parse('2029-01-01T00:00:00Z');
    let checked = 0;
    const differing: string[] = [];
    // Hourly, plus the seconds on either side of each hour (the switches fall on 01:00 UTC).
    for (let ms = from; ms < until; ms += HOUR_MS) {
      for (const at of [ms - 1000, ms, ms + 1000]) {
        const text = isoOfMs(at);
        const stored = storedInstant(text);
        if (typeof stored !== 'number' || instantFromStore(stored) !== text) differing.push(text);
        checked += 1;
      }
    }
    expect(differing).toEqual([]);
    expect(checked).toBeGreaterThan(75_000);
  });

  it('SCH-4: `toISOString` instants read back as they were; any other form is kept as text', () => {
    const zulu = '2026-11-30T09:00:00.123Z';
    expect(storedInstant(zulu)).toBe(Date.parse(zulu));
    expect(instantFromStore(storedInstant(zulu))).toBe(zulu);
    for (const kept of [
      '2026-11-30T09:40:00Z', // no milliseconds: not what toISOString writes
      '2026-11-30T10:00:00.500+01:00', // Berlin with milliseconds
      '2026-07-01T10:00:00+01:00', // the winter offset in summer: not the schedule's text
      '1970-01-02T00:00:00.000Z', // milliseconds in the seconds' range
      'not an instant',
    ])
      expect(storedInstant(kept), kept).toBe(kept);
  });

  it('SCH-2: session days are three characters a day and read back the same; a list with a non-date is kept', () => {
    const days = ['2026-12-03', '2026-12-04', '2027-01-01', '2028-02-29'];
    const stored = storedLocalDates(days);
    expect(stored).toHaveLength(days.length * 3);
    expect(localDatesFromStore(stored)).toEqual(days);
    expect(storedLocalDates([])).toEqual([]);
    expect(storedLocalDates(['2026-02-30'])).toEqual(['2026-02-30']);
    expect(localDatesFromStore(['2026-12-03'])).toEqual(['2026-12-03']);
  });

  it('SCH-5 / FULL-2: a schedule with every field reads back equal, and its stored form holds no ISO text', () => {
    const schedule: SourceScheduleState = {
      schemaVersion: 1,
      lastSyncStartedAt: '2026-11-30T10:00:00+01:00',
      lastSyncEndedAt: '2026-11-30T09:03:42.120Z',
      lastSyncKind: 'incremental',
      lastSyncPeriod: 'weekdayDay',
      lastSyncChanged: false,
      quietStreak: 3,
      intervalMinutes: 40,
      failureStreak: 2,
      lastSuccessAt: '2026-11-30T08:00:00+01:00',
      pause: {
        until: '2026-11-30T11:00:00+01:00',
        kind: 'failure-streak',
        minutes: 60,
        because: '2 failed runs in a row (ERR-4)',
        ruleIds: ['ERR-4'],
      },
      fullSyncInProgress: true,
      fullSyncLastStartedAt: '2026-11-30T03:00:00+01:00',
      fullSyncLastWindowId: '2026-11-30T03:00:00+01:00',
      fullSyncLastCompleteStartedAt: '2026-11-29T03:00:00+01:00',
      fullSyncLastCompletedAt: '2026-11-29T03:42:10+01:00',
      fullSyncLastCompleteWindowId: '2026-11-29T03:00:00+01:00',
      incrementalOnlyUntil: '2026-12-30T10:00:00+01:00',
      sessionDays: ['2026-12-01', '2026-12-03'],
      manualRequest: { kind: 'full', requestedAt: '2026-11-30T09:59:00.000Z' },
      running: {
        kind: 'full',
        trigger: 'manual',
        startedAt: '2026-11-30T10:00:00+01:00',
        leaseUntil: '2026-11-30T10:20:00+01:00',
        windowId: '2026-11-30T10:00:00+01:00',
        deadline: '2026-11-30T12:00:00+01:00',
      },
      recentRuns: [{ kind: 'full', requests: 1517, seconds: 3042.5 }],
    };
    const stored = storedSchedule(schedule);
    expect(JSON.stringify(stored)).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(scheduleFromStore(stored, { leaseKind: 'full', leaseUntil: '2026-11-30T10:20:00+01:00' })).toEqual(
      schedule,
    );
  });
});

describe('the last run inline in STATE, stored short (issue 28)', () => {
  // As shared/sync run.ts `lastRunOf` writes it: a scheduled incremental run that changed nothing.
  const lastRun = {
    runId: '2f1c6a8e-3b7d-4c1e-9a5f-0d8e7b6c5a41',
    kind: 'incremental',
    trigger: 'schedule',
    startedAt: '2026-12-09T09:00:00.000Z',
    endedAt: '2026-12-09T09:00:41.000Z',
    ok: true,
    changed: false,
    complete: true,
    requests: 14,
    objects: { new: 0, modified: 0, deleted: 0 },
    failures: [],
    continuations: 0,
  };

  it('SCH-5: it reads back equal, a failed manual full sync with its details too, at about half its size', () => {
    const stored = storedStateAttribute('lastRun', lastRun);
    expect(stateItemFromStore({ lastRun: stored }).lastRun).toEqual(lastRun);
    const failed = {
      ...lastRun,
      kind: 'full',
      trigger: 'manual',
      ok: false,
      complete: false,
      failures: ['http'],
      failureDetails: ['HTTP_500: https://ris.example/oparl/body/1/paper?page=3'],
      continuations: 2,
    };
    expect(stateItemFromStore({ lastRun: storedStateAttribute('lastRun', failed) }).lastRun).toEqual(failed);
    const plain = storedItemBytes({ lastRun });
    const short = storedItemBytes({ lastRun: stored });
    // Measured: 250 → 108 B (names 85 → 13, two instants 48 → 14, kind and trigger 19 → 2, counts).
    expect(plain).toBeGreaterThan(240);
    expect(short).toBeLessThanOrEqual(125);
  });

  it('issue 28: a last run written before (long names) reads as it was written', () => {
    expect(stateItemFromStore({ lastRun }).lastRun).toEqual(lastRun);
  });
});

describe('STATE item of the largest schedule, against the real DynamoDB peer (issue 28)', () => {
  const bed = useAwsTestbed();
  const table = () => bed.env.STATE_TABLE;
  /** One write unit is 1,024 B; the bound leaves the rest for a field added later. */
  const WORST_STATE_MAX_BYTES = 1_000;

  const raw = async (sourceId: string) =>
    (
      await bed.clients.dynamo.send(
        new GetItemCommand({
          TableName: table(),
          Key: { pk: { S: `SOURCE#${sourceId}` }, sk: { S: 'STATE' } },
          ConsistentRead: true,
        }),
      )
    ).Item ?? {};

  it('SCH-5 / SCH-2 / RATE-9: a long host name, six learnt runs, 15 session days, a pause and every full-sync field, leased and claimed for a manual full sync, stay within 1,000 B and read back whole', async () => {
    const { doc } = bed.clients;
    await writeWorstLeasedStateItem(
      { doc, table: table() },
      'worst-source',
      new Date('2026-12-09T10:00:00Z'),
    );
    const bytes = dynamoItemBytes(await raw('worst-source'));
    expect(bytes).toBeLessThanOrEqual(WORST_STATE_MAX_BYTES);
    const read = await getSourceState<SourceScheduleState>(doc, table(), 'worst-source');
    const schedule = read?.schedule;
    expect(schedule?.sessionDays).toHaveLength(15);
    expect(schedule?.recentRuns).toHaveLength(6);
    expect(schedule?.pause?.kind).toBe('5xx-series');
    expect(schedule?.running).toMatchObject({ kind: 'full', trigger: 'manual' });
    expect(schedule?.fullSyncLastCompleteWindowId).toMatch(/^2026-12-08T/);
    expect(schedule?.incrementalOnlyUntil).toMatch(/^2027-01-/);
  });

  it('issue 28: an item written before (ISO text, long names, the session days as a list) reads as it was written', async () => {
    const { doc } = bed.clients;
    const schedule = {
      schemaVersion: 1,
      lastSyncStartedAt: '2026-11-30T10:00:00+01:00',
      lastSyncKind: 'incremental',
      lastSyncPeriod: 'weekdayDay',
      quietStreak: 0,
      failureStreak: 0,
      fullSyncInProgress: false,
      fullSyncLastWindowId: '2026-11-30T03:00:00+01:00',
      sessionDays: ['2026-12-01'],
      pause: {
        until: '2026-11-30T09:40:00Z',
        kind: 'failure-streak',
        minutes: 40,
        because: 'x',
        ruleIds: [],
      },
    };
    await doc.send(
      new PutCommand({
        TableName: table(),
        Item: {
          pk: 'SOURCE#src-iso',
          sk: 'STATE',
          sourceId: 'src-iso',
          dueShard: 'planner',
          dueAt: '2026-11-30T08:00:00.000Z',
          schedule,
        },
      }),
    );
    expect((await getSourceState(doc, table(), 'src-iso'))?.schedule).toEqual(schedule);
  });
});
