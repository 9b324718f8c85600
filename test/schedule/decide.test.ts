import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { isIngestorError } from '../../shared/errors';
import {
  applyRunOutcome,
  decideSource,
  freshScheduleState,
  initialScheduleState,
  markSyncStarted,
  ScheduleError,
} from '../../shared/schedule';
import { afterSync, iso, settings, source } from '../support/schedule-factories';

describe('decideSource — one decision with a reason for on-call', () => {
  it('SCH-1: a source never synced is due at once', () => {
    const decision = decideSource(source(), initialScheduleState(), iso('2026-12-02 10:03'), { settings });

    expect(decision).toMatchObject({
      action: 'sync',
      kind: 'incremental',
      trigger: 'schedule',
      sourceId: 'ris-a',
    });
    expect(decision.reason).toBe('cadence: no sync recorded yet, incremental due now');
  });

  it('SCH-3/FULL-1: waiting names the next incremental and the closed full-sync window', () => {
    const decision = decideSource(
      source(),
      afterSync('2026-12-02 08:20', 6, 'weekdayDay'),
      iso('2026-12-02 08:30'),
      { settings },
    );

    expect(decision).toMatchObject({ action: 'wait', dueAt: iso('2026-12-02 09:00'), incrementalDue: false });
    expect(decision.reason).toBe(
      'cadence: next incremental at 09:00 (interval 40 min, 6 quiet syncs); full-sync window closed (opens 2026-12-03 03:00)',
    );
    expect(decision.ruleIds).toEqual(['SCH-4', 'SCH-3', 'FULL-1']);
  });

  it('SCH-3: at the due time the incremental starts', () => {
    const decision = decideSource(
      source(),
      afterSync('2026-12-02 08:20', 6, 'weekdayDay'),
      iso('2026-12-02 09:00'),
      { settings },
    );

    expect(decision).toMatchObject({ action: 'sync', kind: 'incremental', dueAt: iso('2026-12-02 09:00') });
  });

  it('SCH-5: an expired lease no longer blocks, and the reason says so', () => {
    const state = afterSync('2026-12-02 08:20', 6, 'weekdayDay', {
      running: {
        kind: 'incremental',
        trigger: 'schedule',
        startedAt: iso('2026-12-02 08:40'),
        leaseUntil: iso('2026-12-02 09:00'),
      },
    });

    const decision = decideSource(source(), state, iso('2026-12-02 09:05'), { settings });

    expect(decision.action).toBe('sync');
    expect(decision.reason).toContain('the lease of the incremental run started 08:40 expired');
  });

  it('SCH-7: a manual sync request runs at once, ahead of the cadence', () => {
    const state = afterSync('2026-12-02 08:20', 6, 'weekdayDay', {
      manualRequest: { kind: 'sync', requestedAt: iso('2026-12-02 08:25') },
    });

    const decision = decideSource(source(), state, iso('2026-12-02 08:26'), { settings });

    expect(decision).toMatchObject({
      action: 'sync',
      kind: 'incremental',
      trigger: 'manual',
      incrementalDue: false,
    });
    expect(decision.ruleIds).toEqual(['SCH-7']);
  });

  it('SCH-7: starting the run answers the manual request', () => {
    const state = initialScheduleState({
      manualRequest: { kind: 'sync', requestedAt: iso('2026-12-02 08:25') },
    });
    const decision = decideSource(source(), state, iso('2026-12-02 08:26'), { settings });

    const started = markSyncStarted(state, decision, iso('2026-12-02 08:26'), 20);

    expect(started.manualRequest).toBeUndefined();
    expect(started.running).toEqual({
      kind: 'incremental',
      trigger: 'manual',
      startedAt: iso('2026-12-02 08:26'),
      leaseUntil: iso('2026-12-02 08:46'),
    });
  });

  it('now may be a luxon DateTime in any zone, or an ISO string with another offset', () => {
    const state = afterSync('2026-12-02 08:20', 6, 'weekdayDay');

    const fromUtc = decideSource(source(), state, '2026-12-02T07:59:00Z', { settings });
    const fromDateTime = decideSource(source(), state, DateTime.fromISO('2026-12-02T08:00:00Z'), {
      settings,
    });

    expect(fromUtc.action).toBe('wait');
    expect(fromDateTime.action).toBe('sync');
  });

  it('an invalid time is a typed error (SCHEDULE_INVALID_TIME), never a silent decision', () => {
    let caught: unknown;
    try {
      decideSource(
        source(),
        initialScheduleState({ lastSyncEndedAt: 'yesterday' }),
        iso('2026-12-02 10:00'),
        { settings },
      );
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(ScheduleError);
    expect(isIngestorError(caught, 'SCHEDULE_INVALID_TIME')).toBe(true);
    expect((caught as Error).message).toContain('lastSyncEndedAt');
  });
});

describe('state bookkeeping', () => {
  it('FULL-2: starting a full sync records the window, the start and the in-progress flag', () => {
    const state = markSyncStarted(
      freshScheduleState(),
      { kind: 'full', trigger: 'schedule', windowId: iso('2026-12-02 03:00') },
      iso('2026-12-02 03:00'),
    );

    expect(state).toMatchObject({
      fullSyncInProgress: true,
      fullSyncLastWindowId: iso('2026-12-02 03:00'),
      fullSyncLastStartedAt: iso('2026-12-02 03:00'),
      running: {
        kind: 'full',
        windowId: iso('2026-12-02 03:00'),
        leaseUntil: iso('2026-12-02 03:25') /* DEFAULT_LEASE_MINUTES */,
      },
    });
  });

  it('FULL-4: a complete full sync records its window for the minimum distance, and clears the lease', () => {
    const started = markSyncStarted(
      freshScheduleState(),
      { kind: 'full', windowId: iso('2026-12-02 03:00') },
      iso('2026-12-02 03:05'),
    );

    const done = applyRunOutcome(
      started,
      {
        kind: 'full',
        startedAt: iso('2026-12-02 03:05'),
        endedAt: iso('2026-12-02 04:10'),
        changed: true,
        complete: true,
        failed: false,
        failures: [],
      },
      iso('2026-12-02 04:10'),
    );

    expect(done).toMatchObject({
      fullSyncInProgress: false,
      fullSyncLastCompleteStartedAt: iso('2026-12-02 03:05'),
      fullSyncLastCompletedAt: iso('2026-12-02 04:10'),
      fullSyncLastCompleteWindowId: iso('2026-12-02 03:00'),
      lastSyncEndedAt: iso('2026-12-02 04:10'),
      quietStreak: 0,
    });
    expect(done.running).toBeUndefined();
  });

  it('SCH-2: session days from the run replace the stored ones; past and malformed dates are dropped', () => {
    const state = applyRunOutcome(
      initialScheduleState({ sessionDays: ['2026-11-01'] }),
      {
        kind: 'incremental',
        startedAt: iso('2026-12-02 10:00'),
        endedAt: iso('2026-12-02 10:01'),
        changed: true,
        complete: true,
        failed: false,
        failures: [],
        sessionDays: ['2026-12-10', '2026-12-01', '2026-12-02', 'soon', '2026-12-10'],
      },
      iso('2026-12-02 10:01'),
    );

    expect(state.sessionDays).toEqual(['2026-12-02', '2026-12-10']);
  });

  it('SCH-3: the display copy of the interval is filled when the cadence context is given', () => {
    const state = applyRunOutcome(
      afterSync('2026-12-02 08:00', 5, 'weekdayDay'),
      {
        kind: 'incremental',
        startedAt: iso('2026-12-02 08:20'),
        endedAt: iso('2026-12-02 08:21'),
        changed: false,
        complete: true,
        failed: false,
        failures: [],
      },
      iso('2026-12-02 08:21'),
      { config: source(), settings },
    );

    expect(state.quietStreak).toBe(6);
    expect(state.intervalMinutes).toBe(40);
  });

  it('a run ending before it started is rejected with a typed error', () => {
    const outcome = {
      kind: 'incremental' as const,
      startedAt: iso('2026-12-02 10:00'),
      endedAt: iso('2026-12-02 09:59'),
      changed: false,
      complete: true,
      failed: false,
      failures: [],
    };

    expect(() => applyRunOutcome(initialScheduleState(), outcome, iso('2026-12-02 10:00'))).toThrow(
      ScheduleError,
    );
  });

  it('the state stays plain JSON (round-trips through JSON unchanged)', () => {
    const state = markSyncStarted(
      afterSync('2026-12-02 08:00', 5, 'weekdayDay', { sessionDays: ['2026-12-03'] }),
      { kind: 'sliced', windowId: iso('2026-12-02 03:00'), deadline: iso('2026-12-02 08:00') },
      iso('2026-12-02 03:00'),
    );

    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  });
});
