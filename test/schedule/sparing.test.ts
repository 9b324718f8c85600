import { describe, expect, it } from 'vitest';
import { parseSourceItem } from '../../shared/config/source';
import {
  applyRunOutcome,
  decideSource,
  documentsRest,
  type FailureKind,
  failureStreakPauseMinutes,
  initialScheduleState,
  isSpared,
  type RunOutcome,
  type SourceScheduleState,
  sparedUntil,
} from '../../shared/schedule';
import { afterSync, iso, minutesBetween, settings, source } from '../support/schedule-factories';

function run(endedLocal: string, failed: boolean, failures: FailureKind[] = []): RunOutcome {
  return {
    kind: 'incremental',
    startedAt: iso(endedLocal),
    endedAt: iso(endedLocal),
    changed: false,
    complete: !failed,
    failed,
    failures,
  };
}

/** `count` failed runs in a row, each at the end of the previous pause. */
function failRuns(count: number, failures: FailureKind[] = []): SourceScheduleState {
  let state = initialScheduleState();
  for (let index = 0; index < count; index += 1) {
    const at = iso('2026-12-02 10:00');
    state = applyRunOutcome(
      { ...state, pause: undefined },
      { ...run('2026-12-02 10:00', true, failures), endedAt: at },
      at,
    );
  }
  return state;
}

describe('ERR-4 sparing ladder', () => {
  it.each<[number, number]>([
    [1, 0],
    [2, 0],
    [3, 10],
    [4, 20],
    [5, 40],
    [6, 80],
    [7, 160],
    [8, 320],
    [9, 360],
    [12, 360],
  ])('ERR-4: after %i failed runs in a row the pause is %i min', (failedRuns, minutes) => {
    const state = failRuns(failedRuns);

    expect(failureStreakPauseMinutes(failedRuns)).toBe(minutes);
    expect(state.failureStreak).toBe(failedRuns);
    expect(state.pause === undefined ? 0 : minutesBetween(iso('2026-12-02 10:00'), state.pause.until)).toBe(
      minutes,
    );
  });

  it('ERR-4: the pause counts from the end of the failed run', () => {
    const state = applyRunOutcome(
      initialScheduleState({ failureStreak: 2 }),
      { ...run('2026-12-02 10:00', true), endedAt: iso('2026-12-02 10:07') },
      iso('2026-12-02 10:07'),
    );

    expect(state.pause?.until).toBe(iso('2026-12-02 10:17'));
    expect(state.pause?.kind).toBe('failure-streak');
  });

  it('ERR-4: a run that succeeds ends the streak', () => {
    const state = applyRunOutcome(failRuns(4), run('2026-12-02 11:00', false), iso('2026-12-02 11:00'));

    expect(state.failureStreak).toBe(0);
    expect(state.lastSuccessAt).toBe(iso('2026-12-02 11:00'));
  });
});

describe('ERR-5 first-time pauses, the longer wins', () => {
  it.each<[FailureKind, number, string]>([
    ['ua-blocked', 60, 'a blocked User-Agent (ERR-5)'],
    ['5xx-series', 30, 'a 5xx series (ERR-5)'],
    ['robots-unreachable', 30, 'an unreachable robots.txt (ERR-5)'],
    ['robots-forbids-all', 24 * 60, 'a robots.txt allowing no request (ERR-5)'],
  ])('ERR-5: %s pauses %i min already at the first failed run', (kind, minutes, because) => {
    const state = failRuns(1, [kind]);

    expect(state.pause?.kind).toBe(kind);
    expect(minutesBetween(iso('2026-12-02 10:00'), state.pause?.until ?? '')).toBe(minutes);
    expect(state.pause?.because).toBe(because);
  });

  it('ERR-5: an "other" failure alone does not pause at the first run', () => {
    expect(failRuns(1, ['other']).pause).toBeUndefined();
  });

  it.each<[string, number, FailureKind[], string, number]>([
    ['the ladder (40) over a 5xx series (30)', 5, ['5xx-series'], 'failure-streak', 40],
    ['a blocked User-Agent (60) over the ladder (10)', 3, ['ua-blocked'], 'ua-blocked', 60],
    [
      'robots.txt forbidding all (24 h) over the ladder maximum (6 h)',
      9,
      ['robots-forbids-all'],
      'robots-forbids-all',
      1440,
    ],
    [
      'the longest of several findings (60 over 30)',
      1,
      ['5xx-series', 'ua-blocked', 'robots-unreachable'],
      'ua-blocked',
      60,
    ],
  ])('ERR-5: the longer wins — %s', (_name, failedRuns, failures, kind, minutes) => {
    const state = failRuns(failedRuns, failures);

    expect(state.pause?.kind).toBe(kind);
    expect(minutesBetween(iso('2026-12-02 10:00'), state.pause?.until ?? '')).toBe(minutes);
  });

  it('ERR-5: a standing longer pause is never shortened by a shorter new one', () => {
    const standing = failRuns(1, ['robots-forbids-all']);

    const state = applyRunOutcome(
      standing,
      run('2026-12-02 10:30', true, ['5xx-series']),
      iso('2026-12-02 10:30'),
    );

    expect(state.pause?.kind).toBe('robots-forbids-all');
    expect(state.pause?.until).toBe(iso('2026-12-03 10:00'));
  });

  it('ERR-5/SCH-7: a paused source waits, and the reason says until when and why', () => {
    const state = afterSync('2026-12-02 13:50', 3, 'weekdayDay', {
      failureStreak: 1,
      pause: {
        until: iso('2026-12-02 14:20'),
        kind: '5xx-series',
        minutes: 30,
        because: 'a 5xx series (ERR-5)',
        ruleIds: ['ERR-5', 'ERR-3'],
      },
    });

    const decision = decideSource(source(), state, iso('2026-12-02 14:05'), { settings });

    expect(decision).toMatchObject({ action: 'wait', dueAt: iso('2026-12-02 14:20') });
    expect(decision.reason).toBe(
      'paused until 14:20 because of a 5xx series (ERR-5); not synced while spared (SCH-7)',
    );
    expect(decision.ruleIds).toEqual(['ERR-5', 'ERR-3', 'SCH-7']);
  });
});

describe('SCH-7 sparing wins over a manual request', () => {
  const spared = failRuns(1, ['ua-blocked']);

  it.each<['sync' | 'full']>([['sync'], ['full']])(
    'SCH-7: a manual %s request while spared waits',
    (kind) => {
      const state = { ...spared, manualRequest: { kind, requestedAt: iso('2026-12-02 10:05') } };

      const decision = decideSource(source(), state, iso('2026-12-02 10:30'), { settings });

      expect(decision.action).toBe('wait');
      expect(decision.dueAt).toBe(iso('2026-12-02 11:00'));
      expect(decision.reason).toContain(`the manual ${kind} request waits — sparing wins (SCH-7)`);
    },
  );

  it('SCH-7: the request runs once the pause is over', () => {
    const state = {
      ...spared,
      manualRequest: { kind: 'sync' as const, requestedAt: iso('2026-12-02 10:05') },
    };

    const decision = decideSource(source(), state, iso('2026-12-02 11:00'), { settings });

    expect(decision).toMatchObject({ action: 'sync', kind: 'incremental', trigger: 'manual' });
  });

  it.each<[string, string, boolean]>([
    ['one minute before the end', '2026-12-02 10:59', true],
    ['at the end', '2026-12-02 11:00', false],
  ])('SCH-7: sparedUntil %s', (_name, at, expected) => {
    const verdict = sparedUntil(spared, iso(at));

    expect(verdict.spared).toBe(expected);
    expect(isSpared(spared, iso(at))).toBe(expected);
  });
});

describe('ERR-6 document functions rest from the 3rd failed run in a row', () => {
  it.each<[number, boolean]>([
    [0, false],
    [2, false],
    [3, true],
    [7, true],
  ])('ERR-6: with %i failed runs in a row documents rest: %s', (failedRuns, rest) => {
    expect(documentsRest(failRuns(failedRuns)).rest).toBe(rest);
  });

  it('ERR-6: they rest beyond the pause, until a run succeeds again', () => {
    const failed = failRuns(3);
    const afterPause = iso('2026-12-02 12:00');

    expect(isSpared(failed, afterPause)).toBe(false);
    expect(documentsRest(failed).rest).toBe(true);
    expect(documentsRest(applyRunOutcome(failed, run('2026-12-02 12:00', false), afterPause)).rest).toBe(
      false,
    );
  });
});

describe('ERR-7 / ONB-3 inactive sources', () => {
  it.each<[string, Partial<SourceScheduleState>, string]>([
    ['with its cadence due', {}, '2026-12-02 10:00'],
    [
      'with a manual request',
      { manualRequest: { kind: 'sync', requestedAt: iso('2026-12-02 09:00') } },
      '2026-12-02 10:00',
    ],
    ['with the full-sync window open', {}, '2026-12-02 03:30'],
  ])('ERR-7: an inactive source is never synced — %s', (_name, state, at) => {
    const decision = decideSource(source({ active: false }), initialScheduleState(state), iso(at), {
      settings,
    });

    expect(decision.action).toBe('skip');
    expect(decision.reason).toBe('inactive: only active sources are synced (ERR-7, ONB-3)');
  });

  it('ONB-3: a source created by a tool (no "active" field) is inactive and not synced; an activated one is', () => {
    const created = parseSourceItem({
      sourceId: 'ris-new',
      systemUrl: 'https://ris.example.de/oparl/system',
    });
    const activated = parseSourceItem({
      sourceId: 'ris-new',
      systemUrl: 'https://ris.example.de/oparl/system',
      active: true,
    });
    if (!created.ok || !activated.ok) throw new Error('fixture items must parse');

    expect(
      decideSource(created.source, initialScheduleState(), iso('2026-12-02 10:00'), { settings }).action,
    ).toBe('skip');
    expect(
      decideSource(activated.source, initialScheduleState(), iso('2026-12-02 10:00'), { settings }).action,
    ).toBe('sync');
  });
});
