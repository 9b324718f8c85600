import { describe, expect, it } from 'vitest';
import {
  admitRuns,
  type DueRun,
  type HostSourceInput,
  hostModelsOf,
  lanesOf,
  MAX_LANE_ENTRIES,
  waitsOnlyForBusyHost,
} from '../../shared/hosts';
import { parseSyncMessage } from '../../shared/sync/message';
import { iso, settings, syncDecision } from '../support/schedule-factories';

/**
 * Host lanes (issues 27/28), pure: from the admission, per admitted run the queue of its host's runs that
 * wait only because the host is busy — the sync function runs them one after another as the run ends.
 */
const NOW = iso('2026-12-02 10:00');
const NOW_MS = Date.parse(NOW);

function src(sourceId: string, host: string, overrides: Partial<HostSourceInput> = {}): HostSourceInput {
  return {
    sourceId,
    host,
    requestIntervalSeconds: 1,
    intervalMinutes: 10,
    expectedIncrementalRequests: 16,
    ...overrides,
  };
}

function due(sourceId: string, host: string, minutesOverdue: number, extra: Partial<DueRun> = {}): DueRun {
  return {
    decision: syncDecision({ sourceId, dueAt: new Date(NOW_MS - minutesOverdue * 60_000).toISOString() }),
    host,
    ...extra,
  };
}

const SHARED = (i: number) => `http://127.0.0.1:${8000 + i}/oparl`;
const LOOPBACK = [
  ...[1, 2, 3, 4, 5, 6].map((i) => src(`shared-${i}`, SHARED(i))),
  src('lone-2', 'http://127.0.0.2:9000/'),
  src('lone-3', 'http://127.0.0.3:9000/'),
  src('lone-4', 'http://127.0.0.4:9000/'),
];
const hostOf = (id: string) => [...LOOPBACK, ...EXTRA].find((s) => s.sourceId === id)?.host;
const EXTRA = ['a', 'b', 'c', 'd', 'e'].map((id) => src(id, 'slow.example'));

describe('host lanes (RATE-9, SCH-5, RATE-4)', () => {
  it('RATE-9 / SCH-5: issue 27 loopback — the shared host run carries its five queued runs, most overdue first; lone hosts get no lane', () => {
    const hosts = hostModelsOf(LOOPBACK);
    const list = [
      // shared-6 the most overdue, shared-1 the least: the lane's order is by urgency, not by the list.
      ...[1, 2, 3, 4, 5, 6].map((i) => due(`shared-${i}`, SHARED(i), 10 + i)),
      due('lone-2', '127.0.0.2', 1),
      due('lone-3', '127.0.0.3', 1),
      due('lone-4', '127.0.0.4', 1),
    ];
    const admission = admitRuns({ due: list, running: [], hosts, settings });
    const lanes = lanesOf(admission, hostOf, NOW);
    expect([...lanes.keys()]).toEqual(['shared-6']);
    const lane = lanes.get('shared-6');
    expect(lane?.host).toBe('127.0.0.1');
    expect(lane?.plannedAt).toBe(NOW);
    expect(lane?.entries.map((e) => e.sourceId)).toEqual([
      'shared-5',
      'shared-4',
      'shared-3',
      'shared-2',
      'shared-1',
    ]);
    expect(lane?.entries[0]).toMatchObject({ kind: 'incremental', trigger: 'schedule', ruleIds: [] });
  });

  it('SCH-5 / RATE-8 / FULL-3: runs waiting for a slot, a paused host or the night budget join no lane', () => {
    const hosts = hostModelsOf([
      src('a', 'busy.example'),
      src('b', 'busy.example'),
      src('c', 'other.example'),
    ]);
    // Three slots taken elsewhere: a starts, b waits for its busy host, c for a slot (its host has room).
    const admission = admitRuns({
      due: [due('a', 'busy.example', 30), due('b', 'busy.example', 20), due('c', 'other.example', 10)],
      running: ['x', 'y', 'z'].map((id) => ({
        sourceId: id,
        host: `${id}.example`,
        kind: 'incremental' as const,
      })),
      hosts,
      settings,
    });
    const lanes = lanesOf(admission, (id) => (id === 'c' ? 'other.example' : 'busy.example'), NOW);
    expect(lanes.get('a')?.entries.map((e) => e.sourceId)).toEqual(['b']);
    expect([...lanes.values()].flatMap((l) => l.entries.map((e) => e.sourceId))).not.toContain('c');
    // The wait is typed where the admission decides it: b waits for its host, c for a slot.
    const waitingFor = new Map(admission.waiting.map((w) => [w.sourceId, w.waitingFor]));
    expect(waitingFor.get('b')).toEqual({ kind: 'host', host: 'busy.example' });
    expect(waitingFor.get('c')).toEqual({ kind: 'slot' });
    expect(waitsOnlyForBusyHost({ waitingFor: { kind: 'slot' } })).toBe(false);
    expect(waitsOnlyForBusyHost({ waitingFor: { kind: 'paused-host', host: 'busy.example' } })).toBe(false);
    expect(waitsOnlyForBusyHost({ waitingFor: { kind: 'full-sync-budget', host: 'busy.example' } })).toBe(
      false,
    );
    expect(waitsOnlyForBusyHost({ waitingFor: { kind: 'host', host: 'busy.example' } })).toBe(true);
  });

  it('RATE-4: a slow host with two runs deals its queue out in turn — no source in two lanes', () => {
    const hosts = hostModelsOf(EXTRA, new Map([['slow.example', { latencyMs: 3000 }]]));
    const admission = admitRuns({
      due: EXTRA.map((s, i) => due(s.sourceId, s.host, 50 - i)),
      running: [],
      hosts,
      settings,
    });
    expect(admission.start.map((d) => d.sourceId)).toEqual(['a', 'b']);
    const lanes = lanesOf(admission, hostOf, NOW);
    expect(lanes.get('a')?.entries.map((e) => e.sourceId)).toEqual(['c', 'e']);
    expect(lanes.get('b')?.entries.map((e) => e.sourceId)).toEqual(['d']);
  });

  it('FULL-3: a full sync joins only a lane whose run is a full sync (the slot share of fulls stays)', () => {
    const fullDecision = (sourceId: string, minutes: number) =>
      syncDecision({
        sourceId,
        kind: 'full',
        dueAt: new Date(NOW_MS - minutes * 60_000).toISOString(),
        windowId: '2026-12-02',
        deadline: iso('2026-12-03 06:00'),
      });
    const admission = {
      start: [syncDecision({ sourceId: 'a' })],
      waiting: [
        {
          sourceId: 'b',
          host: 'slow.example',
          decision: fullDecision('b', 30),
          reason: 'host slow.example busy: 2 runs queued',
          ruleIds: ['RATE-9', 'RATE-4', 'SCH-5'],
          waitingFor: { kind: 'host' as const, host: 'slow.example' },
        },
        {
          sourceId: 'c',
          host: 'slow.example',
          decision: syncDecision({ sourceId: 'c' }),
          reason: 'host slow.example busy: 2 runs queued',
          ruleIds: ['RATE-9', 'RATE-4', 'SCH-5'],
          waitingFor: { kind: 'host' as const, host: 'slow.example' },
        },
      ],
    };
    expect(
      lanesOf(admission, hostOf, NOW)
        .get('a')
        ?.entries.map((e) => e.sourceId),
    ).toEqual(['c']);
    const fullHead = { ...admission, start: [fullDecision('a', 40)] };
    const lane = lanesOf(fullHead, hostOf, NOW).get('a');
    expect(lane?.entries.map((e) => e.sourceId)).toEqual(['b', 'c']);
    expect(lane?.entries[0]).toMatchObject({ kind: 'full', windowId: '2026-12-02' });
  });

  it('a lane is bounded: no more entries than one invocation can run', () => {
    const many = Array.from({ length: MAX_LANE_ENTRIES + 20 }, (_, i) => src(`s-${i}`, 'big.example'));
    const admission = admitRuns({
      due: many.map((s, i) => due(s.sourceId, s.host, i)),
      running: [],
      hosts: hostModelsOf(many),
      settings,
    });
    const lanes = lanesOf(admission, () => 'big.example', NOW);
    expect(lanes.size).toBe(1);
    expect([...lanes.values()][0]?.entries).toHaveLength(MAX_LANE_ENTRIES);
    expect(MAX_LANE_ENTRIES).toBeLessThanOrEqual((14 * 60) / 16);
  });

  it('the sync message: a lane is optional — an old message without one stays valid', () => {
    const old = parseSyncMessage(
      JSON.stringify({ sourceId: 's', runId: 'r', kind: 'incremental', startedAt: NOW }),
    );
    expect(old.lane).toBeUndefined();
    const withLane = parseSyncMessage(
      JSON.stringify({
        sourceId: 's',
        runId: 'r',
        kind: 'incremental',
        startedAt: NOW,
        lane: {
          host: 'h',
          plannedAt: NOW,
          entries: [{ sourceId: 't', kind: 'incremental', reason: 'x', ruleIds: [] }],
        },
      }),
    );
    expect(withLane.lane?.entries[0]).toMatchObject({ sourceId: 't', trigger: 'schedule' });
  });
});
