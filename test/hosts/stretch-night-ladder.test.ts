import { describe, expect, it } from 'vitest';
import {
  decideOnHost,
  type LaneCandidate,
  nextLaneRun,
  ownTurnsDueMs,
  ownTurnsWaited,
} from '../../shared/hosts';
import { msOf } from '../../shared/schedule';
import { iso, settings, source } from '../support/schedule-factories';
import { type Council, saturatedCouncils } from './support';

/**
 * RATE-9 with SCH-2/SCH-3 at night, pure: on a saturated hosting host most of the night is its full
 * syncs' share (FULL-3, `fullSyncShareOf`), so the few incremental turns left are shared by the lane's
 * fair order over long waits — many turns of each source's own cadence. Alone a quiet council's night
 * runs its first syncs an hour apart, then two hours (SCH-3 doubles after the third); a council with a
 * session the next day syncs every 10 minutes all night (SCH-2). A wait that began in the day must be
 * counted in the night as its own cadence runs it there — the streak afresh, advancing per turn — or the
 * quiet council is credited with up to twice the turns it asks and takes the capped councils' share
 * (fleet bench, 10,000 sources × a week: ris7's most served council 35 night syncs of a fair 30.5, the
 * least 54 of 60.5).
 */

/** Friday 02:00 (2026-12-04): a quiet council last synced Thursday 18:20 and a session-eve one at 01:00. */
function pair(): { quiet: Council; capped: Council } {
  const [capped, quiet] = [...saturatedCouncils('2026-12-04 02:00', 6)].filter(
    (c) => c.config.sourceId === 'session-0' || c.config.sourceId === 'quiet-0',
  ) as [Council, Council];
  return {
    // SCH-3: streak 6 in the day (40 min) → due 19:00, the night's first sync; 20:00, 21:00, then 120 min.
    quiet: {
      ...quiet,
      state: {
        ...quiet.state,
        lastSyncPeriod: 'weekdayDay',
        lastSyncStartedAt: iso('2026-12-03 18:20'),
        lastSyncEndedAt: iso('2026-12-03 18:20'),
      },
    },
    // SCH-2: a session on Friday caps Thursday and Friday at 10 min: due 01:10, 01:20 … 02:00.
    capped: {
      ...capped,
      state: {
        ...capped.state,
        sessionDays: ['2026-12-04'],
        lastSyncStartedAt: iso('2026-12-04 01:00'),
        lastSyncEndedAt: iso('2026-12-04 01:00'),
      },
    },
  };
}

describe('RATE-9 / SCH-3: a wait into a new period counts the turns as the source’s own cadence runs them there', () => {
  it('RATE-9 / SCH-2 / SCH-3: at 02:00 the lane serves the session-eve council (6 turns behind) before the quiet one (5.5), not the other way', () => {
    const { quiet, capped } = pair();
    const now = iso('2026-12-04 02:00');
    const candidates: LaneCandidate[] = [quiet, capped].map((c) => ({
      decision: decideOnHost({ source: c.config, state: c.state, now, settings, model: undefined }),
      state: c.state,
      own: { config: c.config, settings, stretch: 1 },
    }));
    for (const c of candidates) expect(c.decision.action).toBe('sync');
    const [q, k] = candidates.map((c) =>
      ownTurnsWaited(
        c.state as Council['state'],
        msOf(c.decision.cadenceAt as string),
        c.own as never,
        msOf(now),
      ),
    );
    // Alone the quiet council has missed 19:00, 20:00, 21:00, 23:00, 01:00 and half of the next two
    // hours; the capped one 01:10 … 02:00. Counted at the night's 60 min flat (before): 8 turns.
    expect(q).toBeCloseTo(5.5, 9);
    expect(k).toBeCloseTo(6, 9);
    expect(nextLaneRun(candidates, 'incremental', msOf(now))?.sourceId).toBe('session-0');
  });

  it('SCH-3: turns waited through a night — 60 min for the night’s first turns, 120 after its third, on across midnight; the due instant is its inverse', () => {
    const state = {
      lastSyncKind: 'incremental' as const,
      lastSyncPeriod: 'weekdayDay' as const,
      quietStreak: 6,
      sessionDays: [],
      lastSyncStartedAt: iso('2026-12-03 18:20'),
      lastSyncEndedAt: iso('2026-12-03 18:20'),
    };
    const own = { config: source({ sourceId: 'q' }), settings, stretch: 1 };
    const cadenceAt = msOf(iso('2026-12-03 19:00'));
    expect(ownTurnsWaited(state, cadenceAt, own, msOf(iso('2026-12-03 21:00')))).toBeCloseTo(3, 9);
    expect(ownTurnsWaited(state, cadenceAt, own, msOf(iso('2026-12-03 23:00')))).toBeCloseTo(4, 9);
    expect(ownTurnsWaited(state, cadenceAt, own, msOf(iso('2026-12-04 02:00')))).toBeCloseTo(5.5, 9);
    expect(ownTurnsDueMs(state, cadenceAt, own, 5.5)).toBe(msOf(iso('2026-12-04 02:00')));
    // Into Friday's day (07:00, a period begun since): afresh at 10 min, 20 after the third turn.
    expect(ownTurnsWaited(state, cadenceAt, own, msOf(iso('2026-12-04 07:30')))).toBeCloseTo(8 + 2 + 0.5, 9);
    // A session tomorrow (SCH-2): 10 min all night, the streak changes nothing.
    const capped = { ...state, sessionDays: ['2026-12-04'] };
    expect(ownTurnsWaited(capped, cadenceAt, own, msOf(iso('2026-12-03 21:00')))).toBeCloseTo(13, 9);
  });

  it('SCH-3: in the period of its last sync the wait is counted at its own streak, as before (it grows at each decision, a change resets it)', () => {
    const state = {
      lastSyncKind: 'incremental' as const,
      lastSyncPeriod: 'weekdayDay' as const,
      quietStreak: 6,
      sessionDays: [],
      lastSyncStartedAt: iso('2026-12-03 15:00'),
      lastSyncEndedAt: iso('2026-12-03 15:00'),
    };
    const own = { config: source({ sourceId: 'q' }), settings, stretch: 1 };
    const cadenceAt = msOf(iso('2026-12-03 15:40'));
    expect(ownTurnsWaited(state, cadenceAt, own, msOf(iso('2026-12-03 18:20')))).toBeCloseTo(5, 9);
    expect(ownTurnsDueMs(state, cadenceAt, own, 5)).toBe(msOf(iso('2026-12-03 18:20')));
  });
});
