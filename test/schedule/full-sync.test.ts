import { describe, expect, it } from 'vitest';
import {
  applyRunOutcome,
  decideSource,
  fullSyncWindowAt,
  initialScheduleState,
  manualFullSync,
  markSyncStarted,
  nextFullSyncWindow,
  resolveScheduleSettings,
  type ScheduleSourceConfig,
  type SourceScheduleState,
  scheduledFullSync,
} from '../../shared/schedule';
import { afterSync, iso, local, settings, source } from '../support/schedule-factories';

/** A quiet night state whose next incremental is well after `at`, so only full-sync rules decide. */
function quietNight(overrides: Partial<SourceScheduleState> = {}): SourceScheduleState {
  return afterSync('2026-12-02 02:30', 4, 'weekdayNight', overrides);
}

const ownAcrossMidnight = source({ fullSyncWindow: { start: '22:00', end: '04:00' } });

describe('FULL-1 default window', () => {
  it.each<[string, string, boolean]>([
    ['closed at 02:59', '2026-12-02 02:59', false],
    ['opens at 03:00', '2026-12-02 03:00', true],
    ['open at 07:59', '2026-12-02 07:59', true],
    ['closed at 08:00 (5 h)', '2026-12-02 08:00', false],
  ])('FULL-1: default window from INGESTOR_FULL_SYNC_HOUR 03 for 5 h — %s', (_name, at, open) => {
    const verdict = scheduledFullSync(source(), quietNight(), iso(at), settings);

    expect(verdict.due).toBe(open);
  });

  it('FULL-1: the default window limits only the start — no deadline, runs to the end', () => {
    const decision = decideSource(source(), quietNight(), iso('2026-12-02 07:59'), { settings });

    expect(decision).toMatchObject({ action: 'sync', kind: 'full', windowId: '2026-12-02T03:00:00+01:00' });
    expect(decision.deadline).toBeUndefined();
    expect(decision.ruleIds).toContain('FULL-1');
  });

  it('FULL-1: INGESTOR_FULL_SYNC_HOUR 01 gives the window 01:00–06:00', () => {
    const early = resolveScheduleSettings({ fullSyncHour: 1 });

    const window = fullSyncWindowAt(source(), early, iso('2026-12-02 05:59'));

    expect(window).toMatchObject({
      start: iso('2026-12-02 01:00'),
      end: iso('2026-12-02 06:00'),
      own: false,
    });
    expect(fullSyncWindowAt(source(), early, iso('2026-12-02 06:00'))).toBeUndefined();
  });

  it('FULL-1: a closed window says when it opens, and the wait ends then at the latest', () => {
    const decision = decideSource(source(), quietNight(), iso('2026-12-02 02:40'), { settings });

    expect(decision.action).toBe('wait');
    expect(decision.reason).toContain('full-sync window closed (opens 03:00)');
    expect(decision.dueAt).toBe(iso('2026-12-02 03:00'));
  });

  it('FULL-1: an incremental running at the window start — the full sync follows right after it', () => {
    const running = markSyncStarted(
      afterSync('2026-12-02 02:00', 2, 'weekdayNight'),
      { kind: 'incremental', trigger: 'schedule' },
      iso('2026-12-02 02:59'),
    );

    const during = decideSource(source(), running, iso('2026-12-02 03:00'), { settings });
    const ended = applyRunOutcome(
      running,
      {
        kind: 'incremental',
        startedAt: iso('2026-12-02 02:59'),
        endedAt: iso('2026-12-02 03:04'),
        changed: false,
        complete: true,
        failed: false,
        failures: [],
      },
      iso('2026-12-02 03:04'),
    );
    const after = decideSource(source(), ended, iso('2026-12-02 03:04'), { settings });

    expect(during.action).toBe('wait');
    expect(during.reason).toContain('the full sync follows right after it (FULL-1)');
    expect(after).toMatchObject({ action: 'sync', kind: 'full' });
  });

  it('FULL-1: while a full sync runs, the same source’s incremental syncs rest', () => {
    const state = markSyncStarted(
      quietNight(),
      { kind: 'full', windowId: iso('2026-12-02 03:00') },
      iso('2026-12-02 03:00'),
    );

    const decision = decideSource(source(), state, iso('2026-12-02 03:15'), { settings });

    expect(decision.action).toBe('wait');
    expect(decision.reason).toContain('incremental syncs of this source rest');
    expect(decision.ruleIds).toEqual(['SCH-5', 'FULL-1']);
  });
});

describe('FULL-2 once per window, also after a restart', () => {
  it('FULL-2: an aborted full sync whose process died is not retried in the same window', () => {
    // The planner recorded the window at the start; the run died and its lease expired.
    const started = markSyncStarted(
      quietNight(),
      { kind: 'full', windowId: iso('2026-12-02 03:00') },
      iso('2026-12-02 03:00'),
    );

    const afterRestart = decideSource(source(), started, iso('2026-12-02 04:00'), { settings });
    const nextNight = decideSource(source(), started, iso('2026-12-03 03:00'), { settings });

    expect(afterRestart.kind).not.toBe('full');
    expect(afterRestart.reason).toContain('once per window, FULL-2');
    expect(afterRestart.reason).toContain('expired');
    expect(nextNight).toMatchObject({ action: 'sync', kind: 'full', windowId: '2026-12-03T03:00:00+01:00' });
  });

  it('FULL-2: an incomplete full sync is retried only in the next window', () => {
    const started = markSyncStarted(
      quietNight(),
      { kind: 'full', windowId: iso('2026-12-02 03:00') },
      iso('2026-12-02 03:00'),
    );
    const incomplete = applyRunOutcome(
      started,
      {
        kind: 'full',
        startedAt: iso('2026-12-02 03:00'),
        endedAt: iso('2026-12-02 03:40'),
        changed: false,
        complete: false,
        failed: false,
        failures: [],
      },
      iso('2026-12-02 03:40'),
    );

    const verdict = scheduledFullSync(source(), incomplete, iso('2026-12-02 03:41'), settings);

    expect(verdict.due).toBe(false);
    expect(verdict.due ? '' : verdict.nextPossibleAt).toBe(iso('2026-12-03 03:00'));
    expect(incomplete.fullSyncLastCompletedAt).toBeUndefined();
  });
});

describe('FULL-4 own window and minimum distance', () => {
  it.each<[string, string, string | undefined, string | undefined]>([
    ['open at 22:00 the same evening', '2026-12-02 22:00', '2026-12-02 22:00', '2026-12-03 04:00'],
    ['still the same window after midnight', '2026-12-03 01:00', '2026-12-02 22:00', '2026-12-03 04:00'],
    ['closed at 04:00', '2026-12-03 04:00', undefined, undefined],
    [
      'closed at 05:00, inside the default window that no longer applies',
      '2026-12-03 05:00',
      undefined,
      undefined,
    ],
  ])('FULL-4: own window 22:00–04:00 across midnight — %s', (_name, at, windowStart, deadline) => {
    const state = afterSync('2026-12-01 21:00', 4, 'weekdayNight');

    const verdict = scheduledFullSync(ownAcrossMidnight, state, iso(at), settings);

    expect(verdict.due ? local(verdict.windowId) : undefined).toBe(windowStart);
    expect(verdict.due ? local(verdict.deadline) : undefined).toBe(deadline);
  });

  it('FULL-4: the own window gives the sync a deadline — no further page after its end', () => {
    const decision = decideSource(ownAcrossMidnight, quietNight(), iso('2026-12-02 23:00'), { settings });

    expect(decision).toMatchObject({ action: 'sync', kind: 'full', deadline: '2026-12-03T04:00:00+01:00' });
    expect(decision.reason).toBe(
      'full sync in the own window 22:00–04:00, no further page after 2026-12-03 04:00 (FULL-4)',
    );
  });

  it('FULL-4: outside the own window only incrementals run, and the reason says when it opens', () => {
    const state = afterSync('2026-12-02 04:50', 4, 'weekdayNight');

    const decision = decideSource(ownAcrossMidnight, state, iso('2026-12-02 05:00'), { settings });

    expect(decision.action).toBe('wait');
    expect(decision.reason).toContain('own full-sync window closed (opens 22:00)');
    expect(decision.dueAt).toBe(iso('2026-12-02 06:50'));
  });

  it('FULL-4: a minimum distance of 7 days waits for the window 7 calendar days later', () => {
    const config = source({ fullSyncMinDays: 7 });
    const state = quietNight({
      fullSyncLastCompleteStartedAt: iso('2026-11-30 03:10'),
      fullSyncLastCompletedAt: iso('2026-11-30 04:00'),
      fullSyncLastCompleteWindowId: iso('2026-11-30 03:00'),
      fullSyncLastWindowId: iso('2026-11-30 03:00'),
    });

    const wednesday = scheduledFullSync(config, state, iso('2026-12-02 03:00'), settings);
    const nextMonday = scheduledFullSync(config, state, iso('2026-12-07 03:00'), settings);

    expect(wednesday.due).toBe(false);
    expect(wednesday.reason).toContain('minimum distance 7 days');
    expect(wednesday.due ? '' : wednesday.nextPossibleAt).toBe(iso('2026-12-07 03:00'));
    expect(nextMonday.due).toBe(true);
  });

  it('FULL-4: a minimum of 1 day counts calendar days — a run at 03:40 does not block the next 03:00', () => {
    const config = source({ fullSyncMinDays: 1 });
    const state = quietNight({
      fullSyncLastCompleteStartedAt: iso('2026-12-01 03:40'),
      fullSyncLastCompleteWindowId: iso('2026-12-01 03:00'),
    });

    expect(scheduledFullSync(config, state, iso('2026-12-02 03:00'), settings).due).toBe(true);
  });

  it('FULL-4: an own window in the DST gap (02:00–04:00 on 2026-03-29) opens at 03:00 CEST', () => {
    const config = source({ fullSyncWindow: { start: '02:00', end: '04:00' } });

    const window = fullSyncWindowAt(config, settings, '2026-03-29T03:30:00+02:00');

    expect(window?.start).toBe('2026-03-29T03:00:00+02:00');
    expect(window?.end).toBe('2026-03-29T04:00:00+02:00');
  });

  it('FULL-4: the next window after an own window crossing midnight starts the same evening', () => {
    expect(nextFullSyncWindow(ownAcrossMidnight, settings, iso('2026-12-03 05:00')).start).toBe(
      iso('2026-12-03 22:00'),
    );
  });
});

describe('FULL-6 sliced only inside the window', () => {
  const sliced = source({ fullSyncSliced: true });

  it('FULL-6: sliced in the default window ends with the window (deadline 08:00)', () => {
    const decision = decideSource(sliced, quietNight(), iso('2026-12-02 03:00'), { settings });

    expect(decision).toMatchObject({ action: 'sync', kind: 'sliced', deadline: '2026-12-02T08:00:00+01:00' });
    expect(decision.ruleIds).toContain('FULL-6');
  });

  it('FULL-6: sliced in an own window ends with the own window', () => {
    const config = source({ fullSyncSliced: true, fullSyncWindow: { start: '22:00', end: '04:00' } });

    const decision = decideSource(config, quietNight(), iso('2026-12-03 01:00'), { settings });

    expect(decision).toMatchObject({ kind: 'sliced', deadline: '2026-12-03T04:00:00+01:00' });
  });

  it('FULL-6: outside the window an incremental runs instead', () => {
    const decision = decideSource(sliced, initialScheduleState(), iso('2026-12-02 10:00'), { settings });

    expect(decision).toMatchObject({ action: 'sync', kind: 'incremental' });
  });

  it('FULL-6: a call without a window (manual/CLI full sync by day) runs an incremental instead', () => {
    const verdict = manualFullSync(sliced, initialScheduleState(), iso('2026-12-02 10:00'), settings);

    expect(verdict.kind).toBe('incremental');
    expect(verdict.ruleIds).toContain('FULL-6');
  });
});

describe('FULL-7 filter not honoured', () => {
  const aborted = applyRunOutcome(
    markSyncStarted(
      quietNight(),
      { kind: 'sliced', windowId: iso('2026-12-02 03:00') },
      iso('2026-12-02 03:00'),
    ),
    {
      kind: 'sliced',
      startedAt: iso('2026-12-02 03:00'),
      endedAt: iso('2026-12-02 04:00'),
      changed: false,
      complete: false,
      failed: false,
      failures: [],
      filterNotHonoured: true,
    },
    iso('2026-12-02 04:00'),
  );
  const sliced = source({ fullSyncSliced: true });

  it('FULL-7: the abort records 30 days of incremental-only', () => {
    expect(aborted.incrementalOnlyUntil).toBe('2027-01-01T04:00:00+01:00');
  });

  it.each<[string, string, boolean]>([
    ['the next night', '2026-12-03 03:00', false],
    ['29 days later', '2026-12-31 03:00', false],
    ['the first window after the 30 days', '2027-01-02 03:00', true],
  ])('FULL-7: full sync %s: %s', (_name, at, due) => {
    expect(scheduledFullSync(sliced, aborted, iso(at), settings).due).toBe(due);
  });

  it('FULL-7: when the 30 days end inside an open window, the wait ends right then', () => {
    const decision = decideSource(
      sliced,
      afterSync('2027-01-01 02:30', 4, 'weekdayNight', {
        incrementalOnlyUntil: aborted.incrementalOnlyUntil,
      }),
      iso('2027-01-01 03:00'),
      { settings },
    );

    expect(decision.action).toBe('wait');
    expect(decision.dueAt).toBe('2027-01-01T04:00:00+01:00');
    expect(decision.reason).toContain('FULL-7');
  });

  it('FULL-7: a manual full sync runs as an incremental too', () => {
    const verdict = manualFullSync(source(), aborted, iso('2026-12-10 10:00'), settings);

    expect(verdict.kind).toBe('incremental');
    expect(verdict.ruleIds).toEqual(['FULL-8', 'FULL-7']);
  });
});

describe('FULL-8 manual full sync', () => {
  function requested(config: ScheduleSourceConfig, at: string, state: Partial<SourceScheduleState> = {}) {
    return decideSource(
      config,
      initialScheduleState({ manualRequest: { kind: 'full', requestedAt: iso(at) }, ...state }),
      iso(at),
      { settings },
    );
  }

  it('FULL-8: without an own window it starts at once, also by day, and runs to the end', () => {
    const decision = requested(source(), '2026-12-02 14:00');

    expect(decision).toMatchObject({ action: 'sync', kind: 'full', trigger: 'manual' });
    expect(decision.deadline).toBeUndefined();
    expect(decision.windowId).toBeUndefined();
  });

  it('FULL-8: the own window is kept — closed means only an incremental runs', () => {
    const decision = requested(ownAcrossMidnight, '2026-12-02 14:00');

    expect(decision).toMatchObject({ action: 'sync', kind: 'incremental', trigger: 'manual' });
    expect(decision.reason).toContain('own window closed (opens 22:00)');
  });

  it('FULL-8: inside the own window it runs with the window’s deadline', () => {
    const decision = requested(ownAcrossMidnight, '2026-12-02 23:00');

    expect(decision).toMatchObject({
      kind: 'full',
      deadline: '2026-12-03T04:00:00+01:00',
      windowId: iso('2026-12-02 22:00'),
    });
  });

  it('FULL-8: the minimum distance is kept — too soon means only an incremental runs', () => {
    const decision = requested(source({ fullSyncMinDays: 7 }), '2026-12-02 14:00', {
      fullSyncLastCompleteStartedAt: iso('2026-11-30 03:00'),
    });

    expect(decision.kind).toBe('incremental');
    expect(decision.ruleIds).toEqual(['SCH-7', 'FULL-8', 'FULL-4']);
  });

  it('FULL-8: sliced only in the default window, ending with it', () => {
    const inWindow = requested(source({ fullSyncSliced: true }), '2026-12-02 04:00');
    const byDay = requested(source({ fullSyncSliced: true }), '2026-12-02 14:00');

    expect(inWindow).toMatchObject({ kind: 'sliced', deadline: '2026-12-02T08:00:00+01:00' });
    expect(byDay.kind).toBe('incremental');
  });

  it('FULL-8: a manual full sync in the default window uses that window up (FULL-2)', () => {
    const decision = requested(source(), '2026-12-02 04:00');
    const started = markSyncStarted(
      initialScheduleState({ manualRequest: { kind: 'full', requestedAt: iso('2026-12-02 04:00') } }),
      decision,
      iso('2026-12-02 04:00'),
    );

    expect(decision.windowId).toBe(iso('2026-12-02 03:00'));
    expect(started.fullSyncLastWindowId).toBe(iso('2026-12-02 03:00'));
    expect(started.manualRequest).toBeUndefined();
  });
});
