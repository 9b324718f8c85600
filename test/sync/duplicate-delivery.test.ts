import { describe, expect, it } from 'vitest';
import type { OParlFetcher } from '../../shared/oparl/ports';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
import { duplicateDelivery } from '../../shared/sync/duplicate';
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
 * Issue 13, defect 3: SQS delivers at least once. Two concurrent deliveries of one sync message must
 * not turn into a failed run of a healthy source: the duplicate is recognised and dropped without
 * touching the lease, the failure streak (ERR-4) or the report of the run that owns it (SCH-5: one
 * sync per source), and a delivery after the run has ended is a no-op. Real queue (fauxqs), real State
 * table (dynalite), the real OParl engine and store; the council on loopback.
 */
describe('SCH-5 / ERR-4: duplicate deliveries of a sync message', () => {
  const sourceId = 'twice-delivered';
  const { bed, council } = useSourceBed(sourceId);

  it('SCH-5 / ERR-4: of two concurrent deliveries the owner completes, the twin is dropped and logged as a duplicate; a delivery after the end is a no-op', async () => {
    // Prepare: the planner takes the lease for a run and enqueues its message.
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId)).toEqual([sourceId]);
    const leased = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    const runId = leased?.leaseRunId;
    expect(runId).toBeDefined();
    const streakBefore = leased?.schedule?.failureStreak ?? 0;

    // The engine's first council request waits until the test lets it go: the owner is mid-run.
    let engineRuns = 0;
    let letGo: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let reached: () => void = () => {};
    const ownerMidRun = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const now = () => NOW;
    const engineFor = () => {
      const inner = loopbackFetcher();
      engineRuns += 1;
      const run = engineRuns;
      let first = true;
      const fetcher: OParlFetcher = {
        async get(url, options) {
          if (run === 1 && first) {
            first = false;
            reached();
            await held;
          }
          return inner.get(url, options);
        },
      };
      return oparlTestEngine(bed, fetcher, now);
    };
    const { lines, log } = captureLog();
    const deps = {
      runDeps: runDepsOf(bed, async (...args) => engineFor()(...args), now),
      log,
    };

    // Act: the same SQS message, delivered twice, handled by two invocations at once.
    const [one, two] = [await deliver(bed, sourceId), await deliver(bed, sourceId)];
    expect(two.messageId).toBe(one.messageId);
    let settled = 0;
    const invocations = [one, two].map((record) =>
      handleSyncBatch(deps, eventOf(record), () => 15 * 60_000).finally(() => {
        settled += 1;
      }),
    );
    await ownerMidRun;
    await Promise.race(invocations);

    // Assess, while the owner is still mid-run: the twin is gone, logged as a duplicate, and touched
    // nothing — the lease is the owner's, no failure, no report.
    expect(settled).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'duplicate sync message dropped',
        fields: expect.objectContaining({ code: 'SYNC_DUPLICATE_DELIVERY', duplicate: 'concurrent', runId }),
      }),
    );
    const midRun = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    expect(midRun?.leaseRunId).toBe(runId);
    expect(midRun?.leaseHolder).toBeDefined();
    expect(midRun?.schedule?.failureStreak ?? 0).toBe(streakBefore);
    expect(midRun?.lastRun).toBeUndefined();

    // Act: the owner goes on.
    letGo();
    const responses = await Promise.all(invocations);

    // Assess: one engine run, completed and reported by its owner; no batch item failure anywhere.
    expect(engineRuns).toBe(1);
    expect(responses.map((r) => r.batchItemFailures)).toEqual([[], []]);
    const ended = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    expect(ended?.lastRun).toMatchObject({ runId, ok: true, complete: true });
    expect(ended?.schedule?.failureStreak ?? 0).toBe(0);
    expect(ended?.leaseRunId).toBeUndefined();
    const requestsAtEnd = council.requests.length;

    // Act: SQS delivers the message once more, after the run has ended.
    const late = await deliver(bed, sourceId);
    expect(late.messageId).toBe(one.messageId);
    const lateResponse = await handleSyncBatch(deps, eventOf(late), () => 15 * 60_000);

    // Assess: a no-op — no new run, no request to the council, no lease, the report unchanged.
    expect(lateResponse.batchItemFailures).toEqual([]);
    expect(engineRuns).toBe(1);
    expect(council.requests.length).toBe(requestsAtEnd);
    const after = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    expect(after?.leaseRunId).toBeUndefined();
    expect(after?.lastRun).toEqual(ended?.lastRun);
    expect(after?.schedule).toEqual(ended?.schedule);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'duplicate sync message dropped',
        fields: expect.objectContaining({ duplicate: 'finished', runId }),
      }),
    );
  }, 60_000);

  it('SCH-5: why a delivery is a duplicate, from the State item (pure)', () => {
    const message = { runId: 'r1', continuation: 1 };
    expect(duplicateDelivery({ leaseRunId: 'r1', leaseStep: 1, leaseHeldUntil: 'x' }, message).kind).toBe(
      'concurrent',
    );
    expect(duplicateDelivery({ leaseRunId: 'r1', leaseStep: 2 }, message).kind).toBe('overtaken');
    expect(duplicateDelivery({ lastRun: { runId: 'r1' } }, message).kind).toBe('finished');
    expect(duplicateDelivery({ leaseRunId: 'r2', lastRun: { runId: 'r0' } }, message).kind).toBe(
      'superseded',
    );
    expect(duplicateDelivery(undefined, message).kind).toBe('superseded');
  });
});
