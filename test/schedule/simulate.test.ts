import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { isIngestorError } from '../../shared/errors';
import { CADENCE_CHECK_FIGURE, simulateCadence } from '../../shared/schedule';

function hhmm(isoText: string): string {
  return DateTime.fromISO(isoText, { zone: 'Europe/Berlin' }).toFormat('HH:mm');
}

/** Splits the week's syncs as SCH-6 does: Mon 00–07, weekday days, full nights, Fri 19–24, weekend. */
function splitWeek(times: string[]) {
  const split = { mondayBefore07: 0, fiveWeekdayDays: 0, fourFullNights: 0, fridayAfter19: 0, weekend: 0 };
  for (const time of times) {
    const t = DateTime.fromISO(time, { zone: 'Europe/Berlin' });
    if (t.weekday >= 6) split.weekend += 1;
    else if (t.hour >= 7 && t.hour < 19) split.fiveWeekdayDays += 1;
    else if (t.weekday === 1 && t.hour < 7) split.mondayBefore07 += 1;
    else if (t.weekday === 5 && t.hour >= 19) split.fridayAfter19 += 1;
    else split.fourFullNights += 1;
  }
  return split;
}

describe('SCH-6 check figure, with the real decision code over simulated time', () => {
  const week = simulateCadence({ from: '2026-11-30T00:00', days: 7 });

  it('SCH-6: a quiet week without meetings from Monday 2026-11-30 00:00 gives exactly 131 syncs', () => {
    expect(week.syncs).toBe(131);
    expect(week.syncs).toBe(CADENCE_CHECK_FIGURE.weekSyncs);
    expect(week.times).toHaveLength(131);
  });

  it('SCH-6: split 5 (Mon 00–07) + 70 (five days) + 28 (four nights) + 4 (Fri 19–24) + 24 (weekend)', () => {
    expect(splitWeek(week.times)).toEqual({
      mondayBefore07: 5,
      fiveWeekdayDays: 70,
      fourFullNights: 28,
      fridayAfter19: 4,
      weekend: 24,
    });
    expect(splitWeek(week.times)).toEqual(CADENCE_CHECK_FIGURE.split);
  });

  it('SCH-6: per local date (Mon 5+14+4, Tue–Fri 3+14+4, weekend days 12)', () => {
    expect(week.byDay).toEqual({
      '2026-11-30': 23,
      '2026-12-01': 21,
      '2026-12-02': 21,
      '2026-12-03': 21,
      '2026-12-04': 21,
      '2026-12-05': 12,
      '2026-12-06': 12,
    });
  });

  it('SCH-6/SCH-3: weekday daytime runs 07:00, 07:10, 07:20, 07:40, 08:00, 08:20, 09:00 …', () => {
    const wednesdayDay = week.times.filter(
      (t) => t.startsWith('2026-12-02T') && hhmm(t) >= '07:00' && hhmm(t) < '19:00',
    );

    expect(wednesdayDay.slice(0, 7)).toEqual([
      '2026-12-02T07:00:00+01:00',
      '2026-12-02T07:10:00+01:00',
      '2026-12-02T07:20:00+01:00',
      '2026-12-02T07:40:00+01:00',
      '2026-12-02T08:00:00+01:00',
      '2026-12-02T08:20:00+01:00',
      '2026-12-02T09:00:00+01:00',
    ]);
    expect(wednesdayDay.map(hhmm)).toEqual([
      ...CADENCE_CHECK_FIGURE.weekdayDaySequence,
      '09:40',
      '10:20',
      '11:40',
      '13:00',
      '14:20',
      '16:20',
      '18:20',
    ]);
  });

  it('SCH-6/SCH-4: a weekday night is 19, 20, 21, 23, 01, 03, 05 — 7 syncs', () => {
    const night = week.times.filter((t) => t >= '2026-12-02T19:00' && t < '2026-12-03T07:00');

    expect(night.map(hhmm)).toEqual(['19:00', '20:00', '21:00', '23:00', '01:00', '03:00', '05:00']);
  });

  it('SCH-6: Monday before 07:00 is 00, 01, 02, 04, 06 and a weekend day 12 syncs two hours apart', () => {
    const monday = week.times.filter((t) => t < '2026-11-30T07:00');
    const saturday = week.times.filter((t) => t.startsWith('2026-12-05'));

    expect(monday.map(hhmm)).toEqual(['00:00', '01:00', '02:00', '04:00', '06:00']);
    expect(saturday.map(hhmm)).toEqual([
      '01:00',
      '03:00',
      '05:00',
      '07:00',
      '09:00',
      '11:00',
      '13:00',
      '15:00',
      '17:00',
      '19:00',
      '21:00',
      '23:00',
    ]);
  });
});

describe('simulated DST weeks (Europe/Berlin)', () => {
  it('DST spring: Sunday 2026-03-29 has 23 hours and 11 syncs, none in the skipped hour', () => {
    const week = simulateCadence({ from: '2026-03-23T00:00', days: 7 });
    const sunday = week.times.filter((t) => t.startsWith('2026-03-29'));

    expect(week.syncs).toBe(130);
    expect(week.byDay['2026-03-29']).toBe(11);
    expect(sunday.slice(0, 3)).toEqual([
      '2026-03-29T01:00:00+01:00',
      '2026-03-29T04:00:00+02:00',
      '2026-03-29T06:00:00+02:00',
    ]);
    expect(sunday.at(-1)).toBe('2026-03-29T22:00:00+02:00');
    expect(week.times.some((t) => t.startsWith('2026-03-29T02:'))).toBe(false);
  });

  it('DST autumn: Sunday 2026-10-25 has 25 hours and 12 syncs, one in the repeated hour', () => {
    const week = simulateCadence({ from: '2026-10-19T00:00', days: 7 });
    const sunday = week.times.filter((t) => t.startsWith('2026-10-25'));

    expect(week.syncs).toBe(131);
    expect(sunday).toHaveLength(12);
    expect(sunday.slice(0, 3)).toEqual([
      '2026-10-25T01:00:00+02:00',
      '2026-10-25T02:00:00+01:00',
      '2026-10-25T04:00:00+01:00',
    ]);
  });
});

describe('simulated session days, changes and sync duration', () => {
  it('SCH-2: a Saturday meeting — Friday and Saturday every 10 min from 00:00, Sunday back to 2 h', () => {
    const week = simulateCadence({ from: '2026-11-30T00:00', days: 7, sessionDays: ['2026-12-05'] });
    const sunday = week.times.filter((t) => t.startsWith('2026-12-06'));

    expect(week.byDay['2026-12-03']).toBe(21);
    expect(week.byDay['2026-12-04']).toBe(144);
    expect(week.byDay['2026-12-05']).toBe(144);
    expect(week.times).toContain('2026-12-04T00:00:00+01:00');
    expect(week.times).toContain('2026-12-05T23:50:00+01:00');
    // 00:00 still follows the Saturday's 10 min (interval from the previous sync's day), then 2 h again.
    expect(sunday.slice(0, 3).map(hhmm)).toEqual(['00:00', '02:00', '04:00']);
    expect(week.syncs).toBe(386);
  });

  it('SCH-2: a Wednesday meeting caps Tuesday and Wednesday, Thursday is quiet again', () => {
    const week = simulateCadence({ from: '2026-11-30T00:00', days: 7, sessionDays: ['2026-12-02'] });

    expect(week.byDay).toMatchObject({
      '2026-12-01': 144,
      '2026-12-02': 144,
      '2026-12-03': 22,
      '2026-12-04': 21,
    });
  });

  it('SCH-3: a change resets to 10 min, then three quiet syncs double again', () => {
    const day = simulateCadence({ from: '2026-12-02T07:00', days: 1, changeAt: ['2026-12-02T10:05'] });
    const fromNine = day.times.filter((t) => t >= '2026-12-02T09:00' && t < '2026-12-02T11:40');

    expect(fromNine.map(hhmm)).toEqual([
      '09:00',
      '09:40',
      '10:20',
      '10:30',
      '10:40',
      '10:50',
      '11:10',
      '11:30',
    ]);
  });

  it('SCH-4: syncs taking 2 min shift every next sync by the duration', () => {
    const day = simulateCadence({ from: '2026-12-02T07:00', days: 1, syncSeconds: 120 });

    expect(day.times.slice(0, 4).map(hhmm)).toEqual(['07:00', '07:12', '07:24', '07:46']);
  });

  it('SCH-1: a per-source slower weekend (240 min) gives 6 syncs per weekend day', () => {
    const week = simulateCadence({
      from: '2026-11-30T00:00',
      days: 7,
      source: { cadenceMinutes: { weekend: 240 } },
    });

    expect(week.byDay['2026-12-05']).toBe(6);
    expect(week.byDay['2026-12-06']).toBe(6);
  });

  it('FULL-1: with full syncs switched on, one full sync starts at 03:00 every night', () => {
    const week = simulateCadence({ from: '2026-11-30T00:00', days: 3, fullSyncs: true });

    expect(week.runs.filter((r) => r.kind === 'full').map((r) => r.at)).toEqual([
      '2026-11-30T03:00:00+01:00',
      '2026-12-01T03:00:00+01:00',
      '2026-12-02T03:00:00+01:00',
    ]);
  });

  it.each<[string, Parameters<typeof simulateCadence>[0], string]>([
    ['days 0', { from: '2026-11-30T00:00', days: 0 }, 'SCHEDULE_INVALID_OPTIONS'],
    ['an invalid start', { from: '2026-13-40T00:00', days: 1 }, 'SCHEDULE_INVALID_TIME'],
    [
      'a malformed session day',
      { from: '2026-11-30T00:00', days: 1, sessionDays: ['5.12.2026'] },
      'SCHEDULE_INVALID_OPTIONS',
    ],
    [
      'negative sync seconds',
      { from: '2026-11-30T00:00', days: 1, syncSeconds: -1 },
      'SCHEDULE_INVALID_OPTIONS',
    ],
  ])('rejects %s with a typed error', (_name, options, code) => {
    let caught: unknown;
    try {
      simulateCadence(options);
    } catch (error) {
      caught = error;
    }

    expect(isIngestorError(caught, code)).toBe(true);
  });
});
