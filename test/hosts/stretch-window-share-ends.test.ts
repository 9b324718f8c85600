import { describe, expect, it } from 'vitest';
import { decideOnHost, factorInForceAt, windowStretchOf } from '../../shared/hosts';
import { starvationOf } from '../../shared/planner';
import { msOf, type SourceScheduleState } from '../../shared/schedule';
import { parseSyncMessage } from '../../shared/sync/message';
import { laneStretchModel } from '../../shared/sync/run';
import { iso, local, settings, source } from '../support/schedule-factories';

/**
 * RATE-9 with FULL-3 after the full-sync window (SourceStarved's weekday residue, issue 28): the factor
 * a saturated host's incremental syncs are slowed by counts its full syncs' share only while the window
 * is open (`windowStretchOf`: stretch ÷ (1 − share)). The share reached decisions made after the window's
 * end — a lane carries its plan's factor for up to 30 minutes, the planner's last plan held it — and the
 * source's stretched turn was then counted at the window's factor until the next clock change (19:00).
 *
 * The episode, replayed from the fleet bench (a week at 1,000 sources, seed 27, lanes, 64 slots; traced
 * with bench/fleet/explain-starved.ts): council src-000041 on ris1, last synced Monday 08:04:17–08:04:33
 * (its first sync of the day, SCH-3's streak 1, sessions Thursday and Friday), decided by its host's lane
 * at 08:04:33 with the night's share still in the model — "needs 5.29 requests/s of 1, full syncs take
 * 30 % of its time tonight; intervals × 7.59": next incremental at 12:08:53. At 12:09 the planner decided
 * it at the day's × 4.45: due since 09:35, 154.6 min past its turn — paged, though the host served it in
 * its fair order the moment it was looked at.
 */
const HOST = 'ris1.hosting.example';
const ENDED = iso('2026-11-30 08:04');
const STATE: SourceScheduleState = {
  schemaVersion: 1,
  quietStreak: 1,
  failureStreak: 0,
  fullSyncInProgress: false,
  sessionDays: ['2026-12-03', '2026-12-04'],
  lastSyncKind: 'incremental',
  lastSyncPeriod: 'weekdayDay',
  lastSyncStartedAt: new Date(msOf(ENDED) - 16_000).toISOString(),
  lastSyncEndedAt: ENDED,
  // Tonight's full sync is not the question (FULL-4: 7 days apart).
  fullSyncLastWindowId: iso('2026-11-30 03:00'),
  fullSyncLastCompleteWindowId: iso('2026-11-30 03:00'),
  fullSyncLastCompleteStartedAt: iso('2026-11-30 03:10'),
  fullSyncLastCompletedAt: iso('2026-11-30 03:30'),
};
const COUNCIL = { ...source({ sourceId: 'src-000041', fullSyncMinDays: 7 }), host: HOST };
/** The day's model (saturated: 5.31 requests/s asked of 1) and the same with the night's 30 % share. */
const DAY = { host: HOST, demand: 5.31, capacity: 1, stretch: 5.31 };
const SHARE = 0.3;
const WITH_NIGHT_SHARE = { ...DAY, stretch: windowStretchOf(DAY, SHARE), fullSyncShare: SHARE };

const decide = (now: string, model: typeof DAY | typeof WITH_NIGHT_SHARE) =>
  decideOnHost({ source: COUNCIL, state: STATE, now, settings, model });

describe('RATE-9: the full syncs’ share leaves the factor when the window ends', () => {
  it('the night’s share in the model: × 7.59 while the window is open, the bare × 5.31 after it', () => {
    expect(WITH_NIGHT_SHARE.stretch).toBeCloseTo(7.59, 2);
    expect(factorInForceAt(WITH_NIGHT_SHARE, msOf(iso('2026-11-30 07:59')), settings)).toBe(WITH_NIGHT_SHARE);
    const after = factorInForceAt(WITH_NIGHT_SHARE, msOf(iso('2026-11-30 08:00')), settings);
    expect(after?.stretch).toBeCloseTo(5.31, 6);
    expect(after?.fullSyncShare).toBeUndefined();
    // A model without a share is the model, whatever the hour.
    expect(factorInForceAt(DAY, msOf(iso('2026-11-30 12:00')), settings)).toBe(DAY);
  });

  it('decided at 08:04:33 with the night’s share still in the model: due at the day’s factor (09:29), not at 12:08', () => {
    const now = new Date(msOf(ENDED) + 100).toISOString();
    const stale = decide(now, WITH_NIGHT_SHARE);
    const day = decide(now, DAY);
    expect(day.action).toBe('wait');
    expect(local(day.dueAt)).toBe('2026-11-30 09:29');
    // Before: "intervals × 7.59 … next incremental at 12:08", no look before 19:00 — 2.5 h late.
    expect(stale.action).toBe('wait');
    expect(stale.dueAt).toBe(day.dueAt);
    expect(stale.reason).not.toContain('full syncs take');
  });

  it('in the window the share still counts: decided at 07:55 it waits at × 7.59, looked at again at 08:00', () => {
    const state = {
      ...STATE,
      lastSyncStartedAt: new Date(msOf(iso('2026-11-30 07:55')) - 16_000).toISOString(),
      lastSyncEndedAt: iso('2026-11-30 07:55'),
    };
    const d = decideOnHost({
      source: COUNCIL,
      state,
      now: iso('2026-11-30 07:55'),
      settings,
      model: WITH_NIGHT_SHARE,
    });
    expect(d.reason).toContain('full syncs take 30 %');
    expect(local(d.dueAt)).toBe('2026-11-30 08:00');
  });

  it('a lane planned in the window carries the share in its message: its decision at 08:04:33 counts the day’s factor', () => {
    // As the planner writes a saturated host's lane at 07:50 (`lanesOf`), through SQS and back.
    const body = JSON.stringify({
      sourceId: 'src-000144',
      runId: 'r1',
      kind: 'incremental',
      startedAt: iso('2026-11-30 07:50'),
      lane: {
        host: HOST,
        plannedAt: iso('2026-11-30 07:50'),
        entries: [],
        pool: [],
        kind: 'incremental',
        stretch: {
          factor: WITH_NIGHT_SHARE.stretch,
          demand: DAY.demand,
          capacity: DAY.capacity,
          fullSyncShare: SHARE,
        },
      },
    });
    const lane = parseSyncMessage(body).lane;
    if (lane === undefined) throw new Error('lane lost');
    const now = new Date(msOf(ENDED) + 100).toISOString();
    const inLane = decideOnHost({
      source: COUNCIL,
      state: STATE,
      now,
      settings,
      model: laneStretchModel(lane),
    });
    expect(inLane.dueAt).toBe(decide(now, DAY).dueAt);
  });

  it('the alarm counts at the factor in force: at 12:09 the source is starved whether or not the model still carries the share', () => {
    const candidate = {
      sourceId: COUNCIL.sourceId,
      host: HOST,
      config: COUNCIL,
      state: STATE,
      decision: decide(iso('2026-11-30 12:09'), DAY),
    };
    expect(candidate.decision.action).toBe('sync');
    const at = new Date(iso('2026-11-30 12:09'));
    const bare = starvationOf([candidate], () => DAY, at, settings);
    const stale = starvationOf([candidate], () => WITH_NIGHT_SHARE, at, settings);
    expect(bare.starved.map((s) => s.sourceId)).toEqual(['src-000041']);
    expect(stale).toEqual(bare);
  });
});
