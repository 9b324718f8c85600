import { describe, expect, it } from 'vitest';
import {
  applyRunOutcome,
  cadenceIntervalMinutes,
  isSessionCapped,
  nextSyncDue,
  type PeriodId,
  sessionCapMinutes,
} from '../../shared/schedule';
import { afterSync, iso, local, settings, source } from '../support/schedule-factories';

/** Due time after one sync; `now` is right after it, so nothing is due yet. */
function dueAfter(
  startedLocal: string,
  quietStreak: number,
  period: PeriodId,
  extra: Parameters<typeof afterSync>[3] = {},
  config = source(),
) {
  const state = afterSync(startedLocal, quietStreak, period, extra);
  return nextSyncDue(config, state, state.lastSyncEndedAt ?? iso(startedLocal), settings);
}

describe('SCH-3 quiet doubling', () => {
  it.each<[string, number, string]>([
    ['2026-12-02 07:00', 1, '2026-12-02 07:10'],
    ['2026-12-02 07:10', 2, '2026-12-02 07:20'],
    ['2026-12-02 07:20', 3, '2026-12-02 07:40'],
    ['2026-12-02 07:40', 4, '2026-12-02 08:00'],
    ['2026-12-02 08:00', 5, '2026-12-02 08:20'],
    ['2026-12-02 08:20', 6, '2026-12-02 09:00'],
    ['2026-12-02 09:00', 7, '2026-12-02 09:40'],
    ['2026-12-02 10:20', 9, '2026-12-02 11:40'],
    ['2026-12-02 14:20', 12, '2026-12-02 16:20'],
    ['2026-12-02 16:20', 13, '2026-12-02 18:20'],
  ])('SCH-3: after the sync at %s with %i quiet syncs the next is due at %s', (at, streak, expected) => {
    const due = dueAfter(at, streak, 'weekdayDay');

    expect(local(due.at)).toBe(expected);
  });

  it('SCH-3: doubling stops at 120 min however long it stays quiet', () => {
    expect(
      cadenceIntervalMinutes(source(), settings, {
        period: 'weekdayDay',
        quietStreak: 300,
        sessionCapped: false,
      }),
    ).toBe(120);
    expect(
      cadenceIntervalMinutes(source(), settings, {
        period: 'weekdayNight',
        quietStreak: 300,
        sessionCapped: false,
      }),
    ).toBe(120);
    expect(
      cadenceIntervalMinutes(source(), settings, {
        period: 'weekend',
        quietStreak: 300,
        sessionCapped: false,
      }),
    ).toBe(120);
  });

  it('SCH-3: the first sync of a period counts — 07:00 after a night starts the streak at 1', () => {
    const night = afterSync('2026-12-02 05:00', 5, 'weekdayNight');

    const state = applyRunOutcome(
      night,
      {
        kind: 'incremental',
        startedAt: iso('2026-12-02 07:00'),
        endedAt: iso('2026-12-02 07:00'),
        changed: false,
        complete: true,
        failed: false,
        failures: [],
      },
      iso('2026-12-02 07:00'),
    );

    expect(state.lastSyncPeriod).toBe('weekdayDay');
    expect(state.quietStreak).toBe(1);
    expect(local(nextSyncDue(source(), state, iso('2026-12-02 07:00'), settings).at)).toBe(
      '2026-12-02 07:10',
    );
  });

  it('SCH-3: a sync with a change resets to the period base (80 min back to 10)', () => {
    const quiet = afterSync('2026-12-02 10:20', 9, 'weekdayDay');

    const state = applyRunOutcome(
      quiet,
      {
        kind: 'incremental',
        startedAt: iso('2026-12-02 11:40'),
        endedAt: iso('2026-12-02 11:40'),
        changed: true,
        complete: true,
        failed: false,
        failures: [],
      },
      iso('2026-12-02 11:40'),
    );

    expect(state.quietStreak).toBe(0);
    expect(local(nextSyncDue(source(), state, iso('2026-12-02 11:40'), settings).at)).toBe(
      '2026-12-02 11:50',
    );
  });

  it('SCH-3: a quiet sync in the same period continues the streak', () => {
    const quiet = afterSync('2026-12-02 07:10', 2, 'weekdayDay');

    const state = applyRunOutcome(
      quiet,
      {
        kind: 'incremental',
        startedAt: iso('2026-12-02 07:20'),
        endedAt: iso('2026-12-02 07:21'),
        changed: false,
        complete: true,
        failed: false,
        failures: [],
      },
      iso('2026-12-02 07:21'),
    );

    expect(state.quietStreak).toBe(3);
    expect(local(nextSyncDue(source(), state, iso('2026-12-02 07:21'), settings).at)).toBe(
      '2026-12-02 07:41',
    );
  });

  it('SCH-3: the reason names interval and quiet streak for on-call', () => {
    const due = nextSyncDue(
      source(),
      afterSync('2026-12-02 08:20', 6, 'weekdayDay'),
      iso('2026-12-02 08:30'),
      settings,
    );

    expect(due.reason).toBe('cadence: next incremental at 09:00 (interval 40 min, 6 quiet syncs)');
    expect(due.intervalMinutes).toBe(40);
    expect(due.ruleIds).toContain('SCH-3');
  });
});

describe('SCH-4 next sync from the end of the previous one, and period starts', () => {
  it('SCH-4: the interval counts from the end of the previous sync (09:00–09:05 + 40 min → 09:45)', () => {
    const due = dueAfter('2026-12-02 09:00', 7, 'weekdayDay', { endedLocal: '2026-12-02 09:05' });

    expect(local(due.at)).toBe('2026-12-02 09:45');
  });

  it.each<[string, string, number, PeriodId, string]>([
    [
      'due at 07:00 rather than 07:30 when the day period begins',
      '2026-12-02 05:30',
      4,
      'weekdayNight',
      '2026-12-02 07:00',
    ],
    [
      'due at 19:00 when the day interval has grown past 60 min',
      '2026-12-02 18:20',
      13,
      'weekdayDay',
      '2026-12-02 19:00',
    ],
    ['due at Monday 00:00 after a weekend', '2026-12-06 23:00', 20, 'weekend', '2026-12-07 00:00'],
    [
      'not early at 19:00 when the running 40 min is shorter than the night base',
      '2026-12-02 18:50',
      7,
      'weekdayDay',
      '2026-12-02 19:30',
    ],
    [
      'not early at Saturday 00:00: the weekend base is not shorter than 120',
      '2026-12-04 23:00',
      4,
      'weekdayNight',
      '2026-12-05 01:00',
    ],
    [
      'not early at 07:00 when the night interval is still 60 and ends before',
      '2026-12-02 05:30',
      1,
      'weekdayNight',
      '2026-12-02 06:30',
    ],
  ])('SCH-4: %s', (_name, at, streak, period, expected) => {
    expect(local(dueAfter(at, streak, period).at)).toBe(expected);
  });

  it('SCH-4: a period that began while the sync ran makes it due right at the sync end', () => {
    const due = dueAfter('2026-12-02 06:50', 4, 'weekdayNight', { endedLocal: '2026-12-02 07:05' });

    expect(local(due.at)).toBe('2026-12-02 07:05');
  });

  it('SCH-4: the early start is explained in the reason', () => {
    const state = afterSync('2026-12-02 05:30', 4, 'weekdayNight');

    const due = nextSyncDue(source(), state, iso('2026-12-02 06:00'), settings);

    expect(due.reason).toBe(
      'cadence: next incremental at 07:00, when weekday daytime begins (base 10 min, shorter than the running 120 min)',
    );
    expect(due.ruleIds).toEqual(['SCH-4', 'SCH-1']);
  });

  it('SCH-4: with a slower own daytime setting (180) 19:00 starts the night at 60', () => {
    const config = source({ cadenceMinutes: { weekdayDay: 180 } });

    expect(local(dueAfter('2026-12-02 17:00', 1, 'weekdayDay', {}, config).at)).toBe('2026-12-02 19:00');
  });

  it('SCH-4: a fresh source is due at once', () => {
    const due = nextSyncDue(
      source(),
      afterSync('2026-12-02 07:00', 0, 'weekdayDay'),
      iso('2026-12-02 07:00'),
      settings,
    );
    const fresh = nextSyncDue(
      source(),
      { quietStreak: 0, sessionDays: [] },
      iso('2026-12-02 10:03'),
      settings,
    );

    expect(local(due.at)).toBe('2026-12-02 07:10');
    expect(local(fresh.at)).toBe('2026-12-02 10:03');
  });
});

describe('SCH-2 session days', () => {
  it.each<[string, string[], string, number, PeriodId, string]>([
    [
      'a weekend session day caps 120 at 10 min',
      ['2026-12-05'],
      '2026-12-05 10:00',
      9,
      'weekend',
      '2026-12-05 10:10',
    ],
    [
      'the Sunday before a Monday meeting is capped',
      ['2026-12-07'],
      '2026-12-06 10:00',
      9,
      'weekend',
      '2026-12-06 10:10',
    ],
    [
      'a weekday session day keeps 10 min after many quiet syncs',
      ['2026-12-02'],
      '2026-12-02 14:20',
      12,
      'weekdayDay',
      '2026-12-02 14:30',
    ],
    [
      'the day before a weekday meeting is capped',
      ['2026-12-03'],
      '2026-12-02 14:20',
      12,
      'weekdayDay',
      '2026-12-02 14:30',
    ],
    [
      'the night of a session day is capped',
      ['2026-12-02'],
      '2026-12-02 21:00',
      6,
      'weekdayNight',
      '2026-12-02 21:10',
    ],
    [
      'the day after a meeting is not capped',
      ['2026-12-02'],
      '2026-12-03 14:20',
      12,
      'weekdayDay',
      '2026-12-03 16:20',
    ],
    [
      'two days before a meeting is not capped',
      ['2026-12-04'],
      '2026-12-02 14:20',
      12,
      'weekdayDay',
      '2026-12-02 16:20',
    ],
  ])('SCH-2: %s', (_name, sessionDays, at, streak, period, expected) => {
    expect(local(dueAfter(at, streak, period, { sessionDays }).at)).toBe(expected);
  });

  it('SCH-2: the cap begins at 00:00 of the day before — a 120-min night interval is cut at midnight', () => {
    const state = afterSync('2026-12-01 23:00', 4, 'weekdayNight', { sessionDays: ['2026-12-03'] });

    const due = nextSyncDue(source(), state, iso('2026-12-01 23:00'), settings);

    expect(local(due.at)).toBe('2026-12-02 00:00');
    expect(due.reason).toContain('session-day cap of 10 min begins');
    expect(due.ruleIds).toContain('SCH-2');
  });

  it('SCH-2: a Saturday meeting caps Friday (the day before) and Saturday, not Sunday', () => {
    const days = ['2026-12-03 12:00', '2026-12-04 12:00', '2026-12-05 12:00', '2026-12-06 12:00'];

    expect(days.map((at) => isSessionCapped(iso(at), ['2026-12-05']))).toEqual([false, true, true, false]);
  });

  it('SCH-2: the cap never undercuts a slower per-source setting (slower-only promise)', () => {
    const slowDay = source({ cadenceMinutes: { weekdayDay: 30 } });
    const slowWeekend = source({ cadenceMinutes: { weekend: 180 } });

    expect(sessionCapMinutes('weekend', source(), settings)).toBe(10);
    expect(
      cadenceIntervalMinutes(slowDay, settings, { period: 'weekend', quietStreak: 9, sessionCapped: true }),
    ).toBe(30);
    expect(
      cadenceIntervalMinutes(slowWeekend, settings, {
        period: 'weekend',
        quietStreak: 9,
        sessionCapped: true,
      }),
    ).toBe(180);
  });
});

describe('SCH-4 across DST changes (Europe/Berlin)', () => {
  it('DST spring 2026-03-29: 120 min from 01:00 CET is 04:00 CEST (elapsed time, the skipped hour included)', () => {
    const state = afterSync('2026-03-29 01:00', 9, 'weekend');

    const due = nextSyncDue(source(), state, iso('2026-03-29 01:00'), settings);

    expect(due.at).toBe('2026-03-29T04:00:00+02:00');
  });

  it('DST autumn 2026-10-25: 120 min from 01:00 CEST is 02:00 CET (the repeated hour)', () => {
    const state = afterSync('2026-10-25 01:00', 9, 'weekend');

    const due = nextSyncDue(source(), state, iso('2026-10-25 01:00'), settings);

    expect(due.at).toBe('2026-10-25T02:00:00+01:00');
  });

  it('DST spring: Monday 00:00 after the short Sunday is still due at local midnight', () => {
    const state = afterSync('2026-03-29 23:00', 9, 'weekend');

    const due = nextSyncDue(source(), state, iso('2026-03-29 23:00'), settings);

    expect(due.at).toBe('2026-03-30T00:00:00+02:00');
  });
});
