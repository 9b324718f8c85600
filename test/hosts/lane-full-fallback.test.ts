import { describe, expect, it } from 'vitest';
import {
  cadenceAtMsOf,
  decideOnHost,
  fallbackDueMs,
  type LaneCandidate,
  nextLaneRun,
  ownTurnsWaited,
} from '../../shared/hosts';
import { decideSource, isoOfMs, msOf } from '../../shared/schedule';
import { iso, settings } from '../support/schedule-factories';
import { type Council, HOST, saturatedCouncils } from './support';

/**
 * FULL-3 with RATE-9 in a host's lane, pure (issue 27, lead 3 of the 2026-12-03 fairness notes). In the
 * night's window a council whose full sync is due is decided `full` (FULL-1/2); while that full sync
 * waits — the lane is an incremental one (FULL-3: a full joins only a full lane), or a full lane's next
 * full is not yet its turn (RATE-9's share) — its source keeps the incremental cadence meanwhile, as the
 * admission does (`incrementalDue` → `asIncrementalFallback`). Before, the lane passed over such a
 * council: on a hosting host, where only ≈ 40 % of the councils' full syncs fit a night, most councils
 * waited with a full decision all window and the lane's turns went to the few whose full was done.
 *
 * Friday 2026-12-04 in the night's window (03:00–08:00): sixteen councils synced last between 01:15 and
 * 02:00 (`saturatedCouncils`); quiet-0's full sync ran tonight (03:10–03:30), every other council's is due.
 */
const MODEL = { host: HOST, stretch: 3, demand: 0.3, capacity: 0.1 };

function councils(): Council[] {
  return saturatedCouncils('2026-12-04 02:00', 2).map((c) =>
    c.config.sourceId !== 'quiet-0'
      ? c
      : {
          ...c,
          state: {
            ...c.state,
            lastSyncKind: 'full',
            lastSyncStartedAt: iso('2026-12-04 03:10'),
            lastSyncEndedAt: iso('2026-12-04 03:30'),
            fullSyncLastWindowId: iso('2026-12-04 03:00'),
            fullSyncLastCompleteWindowId: iso('2026-12-04 03:00'),
            fullSyncLastCompleteStartedAt: iso('2026-12-04 03:10'),
            fullSyncLastCompletedAt: iso('2026-12-04 03:30'),
          },
        },
  );
}

function candidatesAt(now: string, model: typeof MODEL | undefined): LaneCandidate[] {
  return councils().map((c) => ({
    decision: decideOnHost({ source: c.config, state: c.state, now, settings, model }),
    state: c.state,
    own: { config: c.config, settings, stretch: model?.stretch ?? 1 },
  }));
}

function turnsWaited(c: LaneCandidate, nowMs: number): number {
  const { state, own, decision } = c;
  if (state === undefined || own === undefined) return Number.NaN;
  return ownTurnsWaited(state, cadenceAtMsOf(decision, state, own, nowMs), own, nowMs) ?? Number.NaN;
}

describe('FULL-3 / RATE-9: a council whose full sync waits keeps its incremental turns in the lane', () => {
  const now = iso('2026-12-04 05:00');
  const nowMs = msOf(now);

  it('RATE-9 / FULL-3: an incremental lane serves the council most turns behind as its incremental, though its full sync is due', () => {
    const candidates = candidatesAt(now, undefined);
    const byId = new Map(candidates.map((c) => [c.decision.sourceId, c]));
    // The setting: quiet-0 alone is decided incremental; the others full, their cadence due as well.
    expect(byId.get('quiet-0')?.decision).toMatchObject({ action: 'sync', kind: 'incremental' });
    expect(byId.get('quiet-11')?.decision).toMatchObject({
      action: 'sync',
      kind: 'full',
      incrementalDue: true,
    });
    const most = [...candidates].sort((a, b) => turnsWaited(b, nowMs) - turnsWaited(a, nowMs))[0];
    expect(most?.decision.sourceId).toBe('quiet-11');
    expect(turnsWaited(most as LaneCandidate, nowMs)).toBeGreaterThan(
      turnsWaited(byId.get('quiet-0')!, nowMs),
    );

    // Before: quiet-0, the one council whose full sync was done — the others got no turn all window.
    const picked = nextLaneRun(candidates, 'incremental', nowMs);
    expect(picked).toMatchObject({
      sourceId: 'quiet-11',
      action: 'sync',
      kind: 'incremental',
      trigger: 'schedule',
    });
    expect(picked?.windowId).toBeUndefined();
    expect(picked?.deadline).toBeUndefined();
    expect(picked?.reason).toMatch(/full sync waits for a full-sync slot \(FULL-3\); incremental by cadence/);
  });

  it('RATE-9 / FULL-3: a full lane starts the full sync when it may, and the fallback while its fulls wait for their share', () => {
    const candidates = candidatesAt(now, undefined);
    // FULL-3's order unchanged: a full lane whose turn it is starts a full sync, never a fallback.
    expect(nextLaneRun(candidates, 'full', nowMs)?.kind).toBe('full');
    const picked = nextLaneRun(candidates, 'full', nowMs, nowMs + 10 * 60_000);
    expect(picked).toMatchObject({ sourceId: 'quiet-11', kind: 'incremental' });
    expect(picked?.reason).toMatch(/its share's turn of the host's time \(RATE-9\)/);
  });

  it('RATE-9: on a saturated host the fallback is stretched as every incremental — due after the factor’s turns, not at its own cadence', () => {
    const c = councils().find((x) => x.config.sourceId === 'quiet-11') as Council;
    const alone = decideSource(c.config, c.state, now, { settings });
    expect(alone).toMatchObject({ kind: 'full', incrementalDue: true });
    const stretched = candidatesAt(now, MODEL);
    const quiet11 = stretched.find((x) => x.decision.sourceId === 'quiet-11') as LaneCandidate;
    expect(quiet11.decision).toMatchObject({ action: 'sync', kind: 'full', incrementalDue: false });
    // No council's turn has come at the factor (quiet-0 waits too): the lane starts nothing.
    expect(nextLaneRun(stretched, 'incremental', nowMs)).toBeUndefined();

    const dueMs = fallbackDueMs(quiet11.decision, {
      state: c.state,
      own: { config: c.config, settings },
      stretch: 3,
    });
    expect(dueMs).toBeGreaterThan(nowMs);
    const at = isoOfMs(dueMs as number);
    const later = candidatesAt(at, MODEL);
    expect(later.find((x) => x.decision.sourceId === 'quiet-11')?.decision.incrementalDue).toBe(true);
    expect(nextLaneRun(later, 'incremental', dueMs as number)).toMatchObject({
      sourceId: 'quiet-11',
      kind: 'incremental',
    });
  });

  it('RATE-9 / FULL-3: on a host with capacity a full decision is decideSource’s; on a saturated one it carries the cadence it falls back to', () => {
    const c = councils().find((x) => x.config.sourceId === 'session-0') as Council;
    const alone = decideSource(c.config, c.state, now, { settings });
    expect(alone.kind).toBe('full');
    expect(decideOnHost({ source: c.config, state: c.state, now, settings, model: undefined })).toEqual(
      alone,
    );
    expect(
      decideOnHost({ source: c.config, state: c.state, now, settings, model: { ...MODEL, stretch: 1 } }),
    ).toEqual(alone);
    const onHost = decideOnHost({ source: c.config, state: c.state, now, settings, model: MODEL });
    expect(onHost).toMatchObject({ action: 'sync', kind: 'full', windowId: alone.windowId });
    // Its incremental cadence on its own cycles: what an incremental decision of it says at the factor.
    const incremental = decideOnHost({
      source: c.config,
      state: {
        ...c.state,
        fullSyncLastCompleteWindowId: iso('2026-12-04 03:00'),
        fullSyncLastWindowId: iso('2026-12-04 03:00'),
      },
      now,
      settings,
      model: MODEL,
    });
    expect(incremental.kind ?? incremental.action).not.toBe('full');
    expect(onHost.cadenceAt).toBe(incremental.cadenceAt);
  });
});
