import { describe, expect, it } from 'vitest';
import {
  decideOnHost,
  factorInForceSinceMs,
  factorMayChangeMs,
  type LaneCandidate,
  nextLaneRun,
} from '../../shared/hosts';
import { isoOfMs, msOf, type SourceDecision } from '../../shared/schedule';
import { iso, local, settings, source } from '../support/schedule-factories';
import { type Council, HOST, INTERVAL_S, MIN, modelOf, REQUESTS, runUnchanged } from './support';

/**
 * RATE-9 when a host's factor falls (SourceStarved's residue, issue 28): the planner reads due items only
 * (their stored `dueAt`), so a source stretched at Friday night's factor and stored with that turn was
 * not looked at when the weekend's factor 1 began at 00:00 — the host idled with capacity to spare while
 * its councils waited past their turn (fleet bench, a week at 1,000 sources: the larger hosting centre
 * 7–9 % busy from 00:30 to 02:00 Saturday, councils last synced at 21:47 served at 02:15).
 */

/**
 * Friday 2026-12-04, one host (./support.ts: 10 s between requests, 16 requests a run): twelve councils
 * with a session today (SCH-2: 10 min until midnight) and four quiet ones (the night's 60 min), each last
 * synced during the evening one after another. Saturday has no session: the weekend's 120 min.
 */
function fridayCouncils(): Council[] {
  const fromMs = Date.parse(iso('2026-12-04 22:00'));
  const list: Council[] = [];
  for (let i = 0; i < 16; i += 1) {
    const endedMs = fromMs - i * 3 * MIN;
    list.push({
      config: {
        ...source({ sourceId: `${i < 12 ? 'session' : 'quiet'}-${i}` }),
        host: HOST,
        requestIntervalSeconds: INTERVAL_S,
      },
      state: {
        schemaVersion: 1,
        quietStreak: 0,
        failureStreak: 0,
        fullSyncInProgress: false,
        sessionDays: i < 12 ? ['2026-12-04'] : [],
        lastSyncKind: 'incremental',
        lastSyncPeriod: 'weekdayNight',
        lastSyncStartedAt: isoOfMs(endedMs - REQUESTS * INTERVAL_S * 1000),
        lastSyncEndedAt: isoOfMs(endedMs),
        recentRuns: [{ kind: 'incremental', requests: REQUESTS, seconds: REQUESTS * INTERVAL_S }],
        // Tonight's and the coming nights' full syncs are not the question here (FULL-4: 7 days apart).
        fullSyncLastWindowId: iso('2026-12-04 03:00'),
        fullSyncLastCompleteWindowId: iso('2026-12-04 03:00'),
        fullSyncLastCompleteStartedAt: iso('2026-12-04 03:10'),
        fullSyncLastCompletedAt: iso('2026-12-04 03:30'),
      },
    });
    (list[i] as Council).config.fullSyncMinDays = 7;
  }
  return list;
}

/**
 * The planner as it reads the state (shared/planner/tick.ts): each minute it decides only the councils
 * whose stored `dueAt` has come; a `wait` stores the decision's `dueAt`, a `sync` stays due. One run at
 * a time on the host (a lane), in the fair order. Returns the minutes from Saturday 00:00 to 03:00 in
 * which the host was idle while a council was due by a fresh decision at the factor in force.
 */
function idleWhileDueAfterMidnight(): { idleMinutes: number; factorAtNight: number; factorAfter: number } {
  const members = fridayCouncils();
  const dueAt = new Map(members.map((c) => [c.config.sourceId, msOf(c.state.lastSyncEndedAt as string)]));
  const midnight = Date.parse(iso('2026-12-05 00:00'));
  const to = Date.parse(iso('2026-12-05 03:00'));
  let busyUntil = 0;
  let idleMinutes = 0;
  for (let t = Date.parse(iso('2026-12-04 22:00')); t < to; t += MIN) {
    const nowIso = isoOfMs(t);
    const model = modelOf(members, nowIso);
    if (t < busyUntil) continue;
    const candidates: (LaneCandidate & { council: Council })[] = [];
    for (const c of members) {
      if ((dueAt.get(c.config.sourceId) as number) > t) continue;
      const decision: SourceDecision = decideOnHost({
        source: c.config,
        state: c.state,
        now: nowIso,
        settings,
        model,
      });
      if (decision.action === 'sync')
        candidates.push({
          decision,
          state: c.state,
          own: { config: c.config, settings, stretch: model.stretch },
          council: c,
        });
      else dueAt.set(c.config.sourceId, msOf(decision.dueAt as string));
    }
    const picked = nextLaneRun(candidates, 'incremental', t);
    const chosen = candidates.find((c) => c.decision.sourceId === picked?.sourceId);
    if (picked === undefined || chosen === undefined) {
      // Nothing started: idle while a fresh decision at the factor in force finds a council due?
      const dueFresh = members.some(
        (c) =>
          decideOnHost({ source: c.config, state: c.state, now: nowIso, settings, model }).action === 'sync',
      );
      if (dueFresh && t >= midnight) idleMinutes += 1;
      continue;
    }
    const c = chosen.council;
    const endMs = runUnchanged(c, picked, t);
    // The sync function makes the source due at its run's end (the next tick decides it afresh).
    dueAt.set(c.config.sourceId, endMs);
    busyUntil = endMs;
  }
  return {
    idleMinutes,
    factorAtNight: modelOf(fridayCouncils(), iso('2026-12-04 22:00')).stretch,
    factorAfter: modelOf(fridayCouncils(), iso('2026-12-05 00:00')).stretch,
  };
}

describe('RATE-9: a stretched turn is looked at again where the host’s factor may change', () => {
  it('RATE-9 / SCH-1: the host does not idle after Saturday 00:00 while councils stretched at Friday night’s factor are due at the weekend’s', () => {
    const { idleMinutes, factorAtNight, factorAfter } = idleWhileDueAfterMidnight();
    expect(factorAtNight).toBeGreaterThan(2); // Friday night: twelve session councils at 10 min
    expect(factorAfter).toBe(1); // Saturday: the weekend's 120 min, the host has capacity
    // Before: the turns stored at Friday's factor left the host idle 120 of the 180 minutes to 03:00 while councils were due.
    expect(idleMinutes).toBeLessThanOrEqual(1);
  });

  it('RATE-9: a wait stretched past 00:00 is stored until 00:00, and its reason says so', () => {
    const members = fridayCouncils();
    const nowIso = iso('2026-12-04 22:30');
    const model = modelOf(members, nowIso);
    const quiet = members[15] as Council;
    const decision = decideOnHost({ source: quiet.config, state: quiet.state, now: nowIso, settings, model });
    expect(decision.action).toBe('wait');
    expect(local(decision.dueAt)).toBe('2026-12-05 00:00');
    expect(decision.reason).toContain('looked at again at');
  });

  it('RATE-9 / FULL-3: the factor may change at the periods’ boundaries and at the default window’s end', () => {
    const at = (text: string) => local(isoOfMs(factorMayChangeMs(Date.parse(iso(text)), settings)));
    expect(at('2026-12-04 21:47')).toBe('2026-12-05 00:00');
    expect(at('2026-12-05 02:00')).toBe('2026-12-05 07:00'); // the weekend: no 07:00 period, still a boundary
    expect(at('2026-12-03 03:10')).toBe('2026-12-03 07:00');
    expect(at('2026-12-03 07:20')).toBe('2026-12-03 08:00'); // the window's share ends
    expect(at('2026-12-03 08:00')).toBe('2026-12-03 19:00');
    const since = (text: string) => local(isoOfMs(factorInForceSinceMs(Date.parse(iso(text)), settings)));
    expect(since('2026-12-05 00:05')).toBe('2026-12-05 00:00');
    expect(since('2026-12-05 00:00')).toBe('2026-12-05 00:00');
    expect(since('2026-12-03 07:30')).toBe('2026-12-03 07:00');
    expect(since('2026-12-03 11:00')).toBe('2026-12-03 08:00');
    expect(since('2026-12-03 23:59')).toBe('2026-12-03 19:00');
  });
});
