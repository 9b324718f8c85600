import { describe, expect, it } from 'vitest';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
import { runEndedAt } from '../../shared/sync/run';
import { handleSyncBatch } from '../../shared/sync/worker';
import { loopbackFetcher } from '../support/oparl-harness';
import {
  captureLog,
  deliver,
  eventOf,
  NOW,
  oparlTestEngine,
  plan,
  runDepsOf,
  useSourceBed,
} from '../support/sync-bed';

/**
 * Found by the chaos bench (`clock-jump-back-mid-run`): the planner stamps a run's start with its clock,
 * the sync instance ends it with its own. When the sync's clock is behind, the run seemed to end before
 * it began; the schedule refused the outcome, so the report was never written, the lease stayed held and
 * the message came back to run the sync again. The end of a run is never before its start, and the skew
 * is logged. Real queue (fauxqs), State table (dynalite), OParl engine; the council on loopback.
 */
describe('SCH-4 / SCH-5: a sync instance whose clock is behind the planner’s', () => {
  const sourceId = 'clock-behind';
  const { bed } = useSourceBed(sourceId);

  it('runEndedAt: never before the start; the skew is measured', () => {
    const startedAt = new Date('2026-11-30T09:00:00Z');
    expect(runEndedAt(startedAt, new Date('2026-11-30T09:00:05Z'))).toEqual({
      endedAt: new Date('2026-11-30T09:00:05Z'),
      skewMs: 0,
    });
    expect(runEndedAt(startedAt, new Date('2026-11-30T08:59:00Z'))).toEqual({
      endedAt: startedAt,
      skewMs: 60_000,
    });
  });

  it('SCH-5: the run ends and writes its report, the lease is released, the skew is logged', async () => {
    // Prepare: the planner (clock NOW) leases the source; the sync instance runs five minutes behind.
    await plan(bed, NOW);
    const behind = () => new Date(NOW.getTime() - 5 * 60_000);
    const { lines, log } = captureLog();
    const runDeps = runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), behind), behind);

    // Act
    const response = await handleSyncBatch(
      { runDeps, log },
      eventOf(await deliver(bed, sourceId)),
      () => 900_000,
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const state = await getSourceState<SourceScheduleState & { lastRun?: { ok: boolean; endedAt: string } }>(
      bed.clients.doc,
      bed.env.STATE_TABLE,
      sourceId,
    );
    expect(state?.leaseRunId).toBeUndefined();
    expect(state?.lastRun?.ok).toBe(true);
    expect(state?.lastRun?.endedAt).toBe(NOW.toISOString());
    expect(lines.some((l) => l.fields.code === 'SYNC_CLOCK_SKEW' && l.fields.skewMs === 300_000)).toBe(true);
    expect(lines.some((l) => l.message === 'sync message done' && l.fields.status === 'done')).toBe(true);
  });
});
