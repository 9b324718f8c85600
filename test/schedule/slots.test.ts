import { describe, expect, it } from 'vitest';
import {
  allocateSyncSlots,
  decideSource,
  fullSyncSlots,
  planSyncSlots,
  resolveScheduleSettings,
} from '../../shared/schedule';
import { afterSync, iso, settings, source, syncDecision } from '../support/schedule-factories';

const full = (sourceId: string, lastFullSyncAt: string | undefined, incrementalDue = false) =>
  syncDecision({
    sourceId,
    kind: 'full',
    windowId: iso('2026-12-02 03:00'),
    incrementalDue,
    ...(lastFullSyncAt === undefined ? {} : { lastFullSyncAt: iso(lastFullSyncAt) }),
  });

describe('SCH-5 at most N sources at once, one sync per source', () => {
  it('SCH-5: at most 4 sources are synced at once by default', () => {
    const decisions = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => syncDecision({ sourceId: id }));

    const plan = planSyncSlots(decisions, 1, 0, settings);

    expect(plan.start.map((d) => d.sourceId)).toEqual(['a', 'b', 'c']);
    expect(plan.waiting.map((w) => w.sourceId)).toEqual(['d', 'e', 'f']);
    expect(plan.waiting[0]?.reason).toBe('all 4 sync slots busy (SCH-5)');
  });

  it('SCH-5: the limit is configurable (INGESTOR_MAX_CONCURRENT_SYNCS)', () => {
    const two = resolveScheduleSettings({ maxConcurrentSyncs: 2 });
    const decisions = ['a', 'b', 'c'].map((id) => syncDecision({ sourceId: id }));

    expect(allocateSyncSlots(decisions, 0, 0, two).map((d) => d.sourceId)).toEqual(['a', 'b']);
  });

  it('SCH-5: a source listed twice starts once', () => {
    const decisions = [syncDecision({ sourceId: 'a' }), syncDecision({ sourceId: 'a', kind: 'full' })];

    expect(allocateSyncSlots(decisions, 0, 0, settings)).toHaveLength(1);
  });

  it('SCH-5: manual requests go first, then the longest overdue; waits and skips never start', () => {
    const decisions = [
      syncDecision({ sourceId: 'late', dueAt: iso('2026-12-02 10:20') }),
      syncDecision({ sourceId: 'early', dueAt: iso('2026-12-02 10:00') }),
      syncDecision({ sourceId: 'manual', trigger: 'manual', dueAt: iso('2026-12-02 10:30') }),
      { ...syncDecision({ sourceId: 'waiting' }), action: 'wait' as const },
    ];

    const started = allocateSyncSlots(decisions, 2, 0, settings);

    expect(started.map((d) => d.sourceId)).toEqual(['manual', 'early']);
  });

  it('SCH-5: a source holding its lease is not started again', () => {
    const leased = afterSync('2026-12-02 09:00', 7, 'weekdayDay', {
      running: {
        kind: 'incremental',
        trigger: 'schedule',
        startedAt: iso('2026-12-02 10:00'),
        leaseUntil: iso('2026-12-02 10:20'),
      },
    });

    const decision = decideSource(source(), leased, iso('2026-12-02 10:05'), { settings });

    expect(decision).toMatchObject({ action: 'wait', dueAt: iso('2026-12-02 10:20') });
    expect(decision.reason).toBe('running incremental sync (lease until 10:20)');
    expect(allocateSyncSlots([decision], 0, 0, settings)).toEqual([]);
  });
});

describe('FULL-3 full syncs use at most all slots but one', () => {
  it('FULL-3: 3 of 4 slots for full syncs by default, 1 of 2, none of 1', () => {
    expect(fullSyncSlots(settings)).toBe(3);
    expect(fullSyncSlots(resolveScheduleSettings({ maxConcurrentSyncs: 2 }))).toBe(1);
    expect(fullSyncSlots(resolveScheduleSettings({ maxConcurrentSyncs: 1 }))).toBe(0);
  });

  it('FULL-3: slots go first to the source whose last full sync is oldest (never = oldest)', () => {
    const decisions = [
      full('c', '2026-11-20 03:00'),
      full('b', '2026-11-01 03:00'),
      full('a', undefined),
      full('d', '2026-11-10 03:00'),
    ];

    const plan = planSyncSlots(decisions, 0, 0, settings);

    expect(plan.start.map((d) => d.sourceId)).toEqual(['a', 'b', 'd']);
    expect(plan.waiting.map((w) => w.sourceId)).toEqual(['c']);
    expect(plan.waiting[0]?.reason).toContain('full sync waits while its window is open (FULL-3)');
  });

  it('FULL-3: the slot kept back serves incrementals — a full without slot keeps its cadence meanwhile', () => {
    const decisions = [
      full('a', '2026-11-01 03:00'),
      full('b', '2026-11-02 03:00'),
      full('c', '2026-11-03 03:00'),
      full('e', '2026-11-25 03:00', true),
    ];

    const started = allocateSyncSlots(decisions, 0, 0, settings);

    expect(started.map((d) => [d.sourceId, d.kind])).toEqual([
      ['a', 'full'],
      ['b', 'full'],
      ['c', 'full'],
      ['e', 'incremental'],
    ]);
    expect(started[3]?.windowId).toBeUndefined();
    expect(started[3]?.reason).toContain('incremental by cadence meanwhile');
  });

  it('FULL-3: a freed slot with 3 full syncs running does not go to a fourth full sync', () => {
    const plan = planSyncSlots([full('x', undefined)], 3, 3, settings);

    expect(plan.start).toEqual([]);
    expect(plan.waiting[0]?.reason).toContain('no full-sync slot free (3 of 4 in use by full syncs)');
  });

  it('FULL-3: one full slot left goes to the older of two waiting full syncs', () => {
    const decisions = [full('newer', '2026-11-20 03:00'), full('older', '2026-11-02 03:00')];

    const plan = planSyncSlots(decisions, 2, 2, settings);

    expect(plan.start.map((d) => d.sourceId)).toEqual(['older']);
    expect(plan.waiting.map((w) => w.sourceId)).toEqual(['newer']);
  });

  it('FULL-3: a manual full request falling back to an incremental stays pending (trigger schedule)', () => {
    const manualFull = { ...full('m', undefined, true), trigger: 'manual' as const };

    const started = allocateSyncSlots([manualFull], 3, 3, settings);

    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ kind: 'incremental', trigger: 'schedule' });
  });
});
