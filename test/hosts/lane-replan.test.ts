import { describe, expect, it } from 'vitest';
import {
  admitRuns,
  fullSyncCreditMs,
  fullSyncSlotsFor,
  type HostSourceInput,
  hostModelsOf,
  LANE_MAX_LIFE_MS,
  type LaneCandidate,
  lanePoolOf,
  laneStepAt,
  lanesOf,
  nextLaneRun,
  poolDueBy,
  STRETCH_DUE_SHARE,
  slotsShortText,
} from '../../shared/hosts';
import { iso, syncDecision } from '../support/schedule-factories';

/**
 * Issue 27, pure: host lanes re-plan their host when a run ends (the next run is the host's source due
 * now, in a fair-queueing order), hand the host on when the invocation is short, and the planner says
 * when the fleet needs more sync slots than it has (SCH-5's sizing signal).
 */
const NOW = iso('2026-12-02 10:00');
const NOW_MS = Date.parse(NOW);
const at = (minutes: number) => new Date(NOW_MS + minutes * 60_000).toISOString();

function candidate(sourceId: string, dueMinutes: number, extra: Partial<LaneCandidate> = {}): LaneCandidate {
  return { decision: syncDecision({ sourceId, dueAt: at(dueMinutes) }), ...extra };
}

describe('lane re-plan: the fair order (RATE-9, FULL-3, SCH-7)', () => {
  it('RATE-9: only sources due now are candidates; the earliest virtual finish (stretched due time) goes first', () => {
    const waiting = {
      ...candidate('not-due', -30),
      decision: { ...candidate('not-due', 5).decision, action: 'wait' as const },
    };
    const picked = nextLaneRun(
      [candidate('b', -3), waiting, candidate('a', -7), candidate('c', -1)],
      'incremental',
    );
    expect(picked?.sourceId).toBe('a');
    expect(nextLaneRun([waiting], 'incremental')).toBeUndefined();
  });

  it('RATE-9: a source whose full sync ran does not lose its incremental turn — the full sync’s duration is credited', () => {
    // `full-ran` is due 4 minutes later than `other` only because its last sync was a 6-minute full
    // sync (SCH-4 measures from its end). Raw overdue time would serve `other` first.
    const state = { lastSyncKind: 'full' as const, lastSyncStartedAt: at(-26), lastSyncEndedAt: at(-20) };
    expect(fullSyncCreditMs(state)).toBe(6 * 60_000);
    expect(fullSyncCreditMs({ ...state, lastSyncKind: 'incremental' })).toBe(0);
    const fullRan = candidate('full-ran', -2, { fullSyncCreditMs: fullSyncCreditMs(state) });
    expect(nextLaneRun([candidate('other', -6), fullRan], 'incremental')?.sourceId).toBe('full-ran');
    expect(nextLaneRun([candidate('other', -6), candidate('full-ran', -2)], 'incremental')?.sourceId).toBe(
      'other',
    );
  });

  it('SCH-7 / FULL-3: manual requests first; a full sync only in a full lane, oldest full sync first', () => {
    const manual = { decision: syncDecision({ sourceId: 'manual', dueAt: at(0), trigger: 'manual' }) };
    const fullOld = {
      decision: syncDecision({ sourceId: 'full-old', kind: 'full', dueAt: at(0), lastFullSyncAt: at(-3000) }),
    };
    const fullNew = {
      decision: syncDecision({
        sourceId: 'full-new',
        kind: 'full',
        dueAt: at(-60),
        lastFullSyncAt: at(-1500),
      }),
    };
    expect(nextLaneRun([candidate('inc', -50), manual, fullOld], 'incremental')?.sourceId).toBe('manual');
    expect(nextLaneRun([candidate('inc', -50), fullOld, fullNew], 'incremental')?.sourceId).toBe('inc');
    expect(nextLaneRun([candidate('inc', -50), fullNew, fullOld], 'full')?.sourceId).toBe('full-old');
  });
});

describe('lane re-plan: run, hand on or end (SCH-5)', () => {
  const base = { nowMs: NOW_MS, plannedAtMs: NOW_MS - 10 * 60_000, minStartMs: 30_000, canHandOn: true };

  it('SCH-5: time left → run in this invocation; time short → hand on (no tick gap); stopped or life over → end', () => {
    expect(laneStepAt({ ...base, deadlineMs: NOW_MS + 30_000 })).toBe('run');
    expect(laneStepAt({ ...base, deadlineMs: NOW_MS + 29_999 })).toBe('hand-on');
    expect(laneStepAt({ ...base, deadlineMs: NOW_MS + 29_999, canHandOn: false })).toBe('end');
    expect(laneStepAt({ ...base, deadlineMs: NOW_MS + 600_000, aborted: true })).toBe('end');
    expect(
      laneStepAt({ ...base, plannedAtMs: NOW_MS - LANE_MAX_LIFE_MS, deadlineMs: NOW_MS + 600_000 }),
    ).toBe('end');
  });
});

describe('lane re-plan: the pool the planner hands on (RATE-9, SCH-4)', () => {
  it('RATE-9: each source expected due at the end of its last sync + interval × the stretch × STRETCH_DUE_SHARE (the hint; within one period as stretchDecision counts it); due now or never synced: read at once', () => {
    const pool = lanePoolOf(
      [
        { sourceId: 'a', lastSyncEndedAt: at(-10), intervalMinutes: 10 },
        { sourceId: 'due', lastSyncEndedAt: at(-40), intervalMinutes: 10, dueNow: true },
        { sourceId: 'new', intervalMinutes: 10 },
      ],
      2.5,
    );
    // 10 min × 2.5 × 0.8 = 20 min after the end of its last sync (10 min ago).
    expect(STRETCH_DUE_SHARE).toBe(0.8);
    expect(pool).toEqual([{ sourceId: 'a', dueAt: at(10) }, { sourceId: 'due' }, { sourceId: 'new' }]);
    expect(poolDueBy(pool, NOW_MS).map((p) => p.sourceId)).toEqual(['due', 'new']);
    expect(poolDueBy(pool, Date.parse(at(10))).map((p) => p.sourceId)).toEqual(['a', 'due', 'new']);
  });

  it('RATE-9 / RATE-4: with a pool every run on a shared host gets a lane even when nothing waits yet; a lone host none', () => {
    const inputs: HostSourceInput[] = [
      {
        sourceId: 's1',
        host: 'ris.example',
        requestIntervalSeconds: 1,
        intervalMinutes: 10,
        expectedIncrementalRequests: 16,
      },
      {
        sourceId: 's2',
        host: 'ris.example',
        requestIntervalSeconds: 1,
        intervalMinutes: 10,
        expectedIncrementalRequests: 16,
      },
      {
        sourceId: 'lone',
        host: 'lone.example',
        requestIntervalSeconds: 1,
        intervalMinutes: 10,
        expectedIncrementalRequests: 16,
      },
    ];
    const hosts = hostModelsOf(inputs);
    const admission = admitRuns({
      due: [
        { decision: syncDecision({ sourceId: 's1', dueAt: at(-1) }), host: 'ris.example' },
        { decision: syncDecision({ sourceId: 'lone', dueAt: at(-1) }), host: 'lone.example' },
      ],
      running: [],
      hosts,
      settings: { maxConcurrentSyncs: 4 },
    });
    const hostOf = (id: string) => inputs.find((s) => s.sourceId === id)?.host;
    const poolOf = (key: string) =>
      lanePoolOf(
        inputs.filter((s) => s.host === key).map((s) => ({ sourceId: s.sourceId, intervalMinutes: 10 })),
        1,
      );
    expect(lanesOf(admission, hostOf, NOW).size).toBe(0);
    const lanes = lanesOf(admission, hostOf, NOW, { hosts, poolOf });
    expect([...lanes.keys()]).toEqual(['s1']);
    expect(lanes.get('s1')).toMatchObject({ host: 'ris.example', kind: 'incremental', entries: [] });
    expect(lanes.get('s1')?.pool?.map((p) => p.sourceId)).toEqual(['s1', 's2']);
  });
});

describe('SCH-5 sizing: the slots the fleet needs (Little’s law, FULL-3)', () => {
  // 100 lone hosts, each one source every 10 minutes, 16 requests at 1 s: a run holds its slot one
  // planner tick (60 s) — 100 × 60 / 600 = 10 slots, × 1.25 headroom = 12.5.
  const inputs: HostSourceInput[] = Array.from({ length: 100 }, (_, i) => ({
    sourceId: `s${i}`,
    host: `h${i}.example`,
    requestIntervalSeconds: 1,
    intervalMinutes: 10,
    expectedIncrementalRequests: 16,
  }));
  const hosts = hostModelsOf(inputs);

  it('SCH-5 / FULL-3: needed = incremental slots (with headroom) + tonight’s full-sync slots; short only above the configured slots', () => {
    expect(fullSyncSlotsFor(hosts, { maxConcurrentSyncs: 64 }).needed).toBe(13);
    const night = fullSyncSlotsFor(hosts, { maxConcurrentSyncs: 16 }, 6);
    expect(night.needed).toBe(19);
    expect(slotsShortText(night, 16)).toBe(
      'sync slots short: demand needs 19 of 16 (SCH-5; raise INGESTOR_MAX_CONCURRENT_SYNCS)',
    );
    expect(slotsShortText(night, 19)).toBeUndefined();
  });

  it('SCH-5: a run waiting for a slot says the slots are short, and the admission reports what is needed', () => {
    const due = inputs.map((s) => ({
      decision: syncDecision({ sourceId: s.sourceId, dueAt: at(-1) }),
      host: s.host,
    }));
    const admission = admitRuns({ due, running: [], hosts, settings: { maxConcurrentSyncs: 8 } });
    expect(admission.start).toHaveLength(8);
    expect(admission.slotsNeeded).toBe(13);
    expect(admission.waiting[0]?.reason).toBe(
      'all 8 sync slots busy (SCH-5); sync slots short: demand needs 13 of 8 (SCH-5; raise INGESTOR_MAX_CONCURRENT_SYNCS)',
    );
    const enough = admitRuns({ due, running: [], hosts, settings: { maxConcurrentSyncs: 13 } });
    expect(enough.waiting[0]?.reason).toBe('all 13 sync slots busy (SCH-5)');
  });
});
