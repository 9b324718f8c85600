import { describe, expect, it } from 'vitest';
import { STARVED_MIN_OVERDUE_MINUTES, type StarvationCandidate, starvationOf } from '../../shared/planner';
import { DEFAULT_SCHEDULE_SETTINGS } from '../../shared/schedule';

/**
 * RATE-9's "none is starved" as the paging signal (shared/planner `starvationOf`), by hand: a source
 * last synced 07:00:00–07:00:30Z on a Monday daytime (08:00 Berlin, 10-minute cadence, no quiet streak)
 * is due by its own cadence at 07:10:30Z — one turn of 10.5 min (the interval counts from the run's end,
 * SCH-4). On a host stretched × 3 its turn comes after three of them: 07:31:30Z, a stretched interval of
 * 31.5 min. Starved: past that instant by more than the stretched interval again (and ≥ 30 min).
 */
const STATE = {
  lastSyncKind: 'incremental' as const,
  lastSyncStartedAt: '2026-11-30T07:00:00.000Z',
  lastSyncEndedAt: '2026-11-30T07:00:30.000Z',
  lastSyncPeriod: 'weekdayDay' as const,
  quietStreak: 0,
  sessionDays: [],
};

function due(sourceId: string, extra: Partial<StarvationCandidate> = {}): StarvationCandidate {
  return {
    sourceId,
    host: 'ris.hosting.example',
    config: { cadenceMinutes: {} },
    state: STATE,
    decision: {
      action: 'sync',
      trigger: 'schedule',
      kind: 'incremental',
      cadenceAt: '2026-11-30T07:10:30.000Z',
    },
    ...extra,
  };
}

const at = (iso: string) => new Date(iso);
const stretched = (stretch: number, pausedUntil?: string) => () => ({
  stretch,
  ...(pausedUntil ? { pausedUntil } : {}),
});

describe('RATE-9: starvation, not saturation, is the broken promise', () => {
  it('a merely stretched host: due at 07:31:30 (3 × 10.5 min), 8.5 min past it at 07:40 — not starved', () => {
    expect(
      starvationOf([due('s')], stretched(3), at('2026-11-30T07:40:00Z'), DEFAULT_SCHEDULE_SETTINGS),
    ).toEqual({ starved: [], longestOverdueMinutes: 8.5 });
  });

  it('a starved source on that host: at 09:00, 88.5 min past its stretched turn (> 31.5 min again)', () => {
    expect(
      starvationOf([due('s')], stretched(3), at('2026-11-30T09:00:00Z'), DEFAULT_SCHEDULE_SETTINGS),
    ).toEqual({
      starved: [
        {
          sourceId: 's',
          host: 'ris.hosting.example',
          stretch: 3,
          overdueMinutes: 88.5,
          stretchedIntervalMinutes: 31.5,
        },
      ],
      longestOverdueMinutes: 88.5,
    });
  });

  it('the margin is the stretched interval again: 31.5 min past the turn is not starved, 32 min is', () => {
    const starved = (iso: string) =>
      starvationOf([due('s')], stretched(3), at(iso), DEFAULT_SCHEDULE_SETTINGS).starved.length;
    // 07:31:30 + 31.5 min = 08:03:00.
    expect(starved('2026-11-30T08:03:00Z')).toBe(0);
    expect(starved('2026-11-30T08:03:30Z')).toBe(1);
  });

  it('on a host with capacity the floor decides: 30 min past 07:10:30 is not starved, 30.5 is', () => {
    const run = (iso: string) => starvationOf([due('s')], stretched(1), at(iso), DEFAULT_SCHEDULE_SETTINGS);
    expect(STARVED_MIN_OVERDUE_MINUTES).toBe(30);
    expect(run('2026-11-30T07:40:30Z')).toEqual({ starved: [], longestOverdueMinutes: 30 });
    expect(run('2026-11-30T07:41:00Z').starved).toEqual([
      expect.objectContaining({
        sourceId: 's',
        stretch: 1,
        overdueMinutes: 30.5,
        stretchedIntervalMinutes: 10.5,
      }),
    ]);
  });

  it('the factor in force: after Saturday 00:00 the wait counts from 00:00 — 20 min past it is not starved, still waiting at 01:10 is', () => {
    // Last synced Friday 21:00–21:00:30 Berlin (20:00Z) on the weeknight's 60 min: its turn at 22:00:30.
    // At 00:00 the factor changes by the clock (the weekend's 1 on a host stretched on Friday night);
    // counted across it, the source was 139.5 min "past its turn" at 00:20 though it had waited at
    // Friday's factor in the host's fair order.
    const friday = due('f', {
      state: {
        ...STATE,
        lastSyncStartedAt: '2026-12-04T20:00:00.000Z',
        lastSyncEndedAt: '2026-12-04T20:00:30.000Z',
        lastSyncPeriod: 'weekdayNight',
      },
      decision: {
        action: 'sync',
        trigger: 'schedule',
        kind: 'incremental',
        cadenceAt: '2026-12-04T21:00:30.000Z',
      },
    });
    const settings = DEFAULT_SCHEDULE_SETTINGS;
    expect(starvationOf([friday], stretched(1), at('2026-12-04T23:20:00Z'), settings)).toEqual({
      starved: [],
      longestOverdueMinutes: 20,
    });
    // Still not served 70 min into the weekend's factor (> its 60.5 min interval again): starved.
    expect(starvationOf([friday], stretched(1), at('2026-12-05T00:10:00Z'), settings).starved).toEqual([
      expect.objectContaining({
        sourceId: 'f',
        stretch: 1,
        overdueMinutes: 70,
        stretchedIntervalMinutes: 60.5,
      }),
    ]);
  });

  it('not counted: waiting for its turn, a manual request, a host in a RATE-8 pause, a source never synced', () => {
    const late = at('2026-11-30T09:00:00Z');
    const none = { starved: [], longestOverdueMinutes: 0 };
    const settings = DEFAULT_SCHEDULE_SETTINGS;
    const waiting = due('w', { decision: { action: 'wait', cadenceAt: '2026-11-30T07:10:30.000Z' } });
    expect(starvationOf([waiting], stretched(3), late, settings)).toEqual(none);
    const manual = due('m', { decision: { action: 'sync', trigger: 'manual', kind: 'full' } });
    expect(starvationOf([manual], stretched(3), late, settings)).toEqual(none);
    expect(starvationOf([due('p')], stretched(3, '2026-11-30T09:30:00Z'), late, settings)).toEqual(none);
    // The pause over, the same source counts again.
    expect(
      starvationOf([due('p')], stretched(3, '2026-11-30T08:30:00Z'), late, settings).starved,
    ).toHaveLength(1);
    const fresh = due('n', { state: { quietStreak: 0, sessionDays: [] } });
    expect(starvationOf([fresh], stretched(3), late, settings)).toEqual(none);
  });

  it('most overdue first, keyed by RATE-2’s host key', () => {
    const later = due('later', {
      host: 'https://RIS.Hosting.Example./oparl/system',
      state: {
        ...STATE,
        lastSyncStartedAt: '2026-11-30T07:20:00.000Z',
        lastSyncEndedAt: '2026-11-30T07:20:30.000Z',
      },
      decision: {
        action: 'sync',
        trigger: 'schedule',
        kind: 'incremental',
        cadenceAt: '2026-11-30T07:30:30.000Z',
      },
    });
    const seen: string[] = [];
    const result = starvationOf(
      [later, due('early')],
      (key) => {
        seen.push(key);
        return { stretch: 1 };
      },
      at('2026-11-30T09:00:00Z'),
      DEFAULT_SCHEDULE_SETTINGS,
    );
    expect(seen).toEqual(['ris.hosting.example', 'ris.hosting.example']);
    expect(result.starved.map((s) => [s.sourceId, s.overdueMinutes])).toEqual([
      ['early', 109.5],
      ['later', 89.5],
    ]);
  });
});
