import { describe, expect, it } from 'vitest';
import {
  baseIntervalMinutes,
  CADENCE_PERIODS,
  cadenceIntervalMinutes,
  nextSyncDue,
  type PeriodId,
  periodAt,
  quietDoublingMinutes,
  resolveScheduleSettings,
  scheduleSettingsFromEnv,
  sparingLadderMinutes,
} from '../../shared/schedule';
import { afterSync, iso, local, settings, source } from '../support/schedule-factories';

describe('SCH-1 periods and base intervals', () => {
  it.each<[string, string, PeriodId]>([
    ['Monday 00:00 is weekday night', '2026-11-30 00:00', 'weekdayNight'],
    ['Monday 06:59 is weekday night', '2026-11-30 06:59', 'weekdayNight'],
    ['Monday 07:00 is weekday daytime', '2026-11-30 07:00', 'weekdayDay'],
    ['Wednesday 18:59 is weekday daytime', '2026-12-02 18:59', 'weekdayDay'],
    ['Wednesday 19:00 is weekday night', '2026-12-02 19:00', 'weekdayNight'],
    ['Friday 23:59 is weekday night', '2026-12-04 23:59', 'weekdayNight'],
    ['Saturday 00:00 is weekend', '2026-12-05 00:00', 'weekend'],
    ['Saturday 12:00 is weekend', '2026-12-05 12:00', 'weekend'],
    ['Sunday 23:59 is weekend', '2026-12-06 23:59', 'weekend'],
    ['Christmas Day (a Friday holiday) 10:00 counts as a weekday', '2026-12-25 10:00', 'weekdayDay'],
    ['New Year (a Friday holiday) 20:00 counts as a weekday night', '2027-01-01 20:00', 'weekdayNight'],
  ])('SCH-1: %s', (_name, at, expected) => {
    expect(periodAt(iso(at))).toBe(expected);
  });

  it('SCH-1: the period table publishes 10 / 60 / 120 minutes', () => {
    const table = Object.fromEntries(CADENCE_PERIODS.map((p) => [p.id, p.baseMinutes]));

    expect(table).toEqual({ weekdayDay: 10, weekdayNight: 60, weekend: 120 });
  });

  it.each<[string, Partial<Record<PeriodId, number>>, PeriodId, number]>([
    ['no override keeps the weekday-daytime base', {}, 'weekdayDay', 10],
    ['a slower weekday-daytime setting applies', { weekdayDay: 30 }, 'weekdayDay', 30],
    ['a faster weekday-daytime setting is raised to the base', { weekdayDay: 5 }, 'weekdayDay', 10],
    ['a slower night setting applies', { weekdayNight: 90 }, 'weekdayNight', 90],
    ['a faster night setting is raised to the base', { weekdayNight: 30 }, 'weekdayNight', 60],
    ['a slower weekend setting applies', { weekend: 240 }, 'weekend', 240],
    ['a faster weekend setting is raised to the base', { weekend: 60 }, 'weekend', 120],
    ['a setting for another period changes nothing', { weekend: 240 }, 'weekdayDay', 10],
  ])('SCH-1: per-source cadence — %s', (_name, cadenceMinutes, period, expected) => {
    expect(baseIntervalMinutes(period, source({ cadenceMinutes }), settings)).toBe(expected);
  });

  it('SCH-1: INGESTOR_INTERVAL sets the weekday 07–19 base, not the others', () => {
    const fifteen = scheduleSettingsFromEnv({
      INGESTOR_INTERVAL: 15,
      INGESTOR_FULL_SYNC_HOUR: 3,
      INGESTOR_MAX_CONCURRENT_SYNCS: 4,
    });

    expect(baseIntervalMinutes('weekdayDay', source(), fifteen)).toBe(15);
    expect(baseIntervalMinutes('weekdayNight', source(), fifteen)).toBe(60);
    expect(
      nextSyncDue(source(), afterSync('2026-12-02 10:00', 1, 'weekdayDay'), iso('2026-12-02 10:01'), fifteen)
        .at,
    ).toBe(iso('2026-12-02 10:15'));
  });

  it('SCH-1: a slower per-source weekday setting shifts the whole doubling (30, 60, 120)', () => {
    const slow = source({ cadenceMinutes: { weekdayDay: 30 } });

    const intervals = [0, 3, 6, 9].map((streak) =>
      cadenceIntervalMinutes(slow, settings, {
        period: 'weekdayDay',
        quietStreak: streak,
        sessionCapped: false,
      }),
    );

    expect(intervals).toEqual([30, 60, 120, 120]);
  });

  it('SCH-1: a per-source setting above the 120-min ceiling is kept, never lowered by SCH-3', () => {
    const slow = source({ cadenceMinutes: { weekend: 240 } });

    const due = nextSyncDue(
      slow,
      afterSync('2026-12-05 10:00', 9, 'weekend'),
      iso('2026-12-05 10:01'),
      settings,
    );

    expect(local(due.at)).toBe('2026-12-05 14:00');
  });

  it('settings outside their range are rejected once, at the boundary', () => {
    expect(() => resolveScheduleSettings({ fullSyncHour: 24 })).toThrow(/fullSyncHour/);
    expect(() => resolveScheduleSettings({ maxConcurrentSyncs: 0 })).toThrow(/maxConcurrentSyncs/);
    expect(resolveScheduleSettings({})).toEqual({
      weekdayDayBaseMinutes: 10,
      fullSyncHour: 3,
      maxConcurrentSyncs: 4,
    });
  });
});

describe('policy tables as published', () => {
  it('SCH-3: the published weekday-daytime sequence 10, 10, 10, 20, 20, 20, 40 … 120', () => {
    expect(quietDoublingMinutes(10)).toEqual([10, 10, 10, 20, 20, 20, 40, 40, 40, 80, 80, 80, 120]);
  });

  it('ERR-4: the published ladder 10, 20, 40 … 360 minutes', () => {
    expect(sparingLadderMinutes()).toEqual([10, 20, 40, 80, 160, 320, 360]);
  });
});
