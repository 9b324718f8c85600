import { describe, expect, it } from 'vitest';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../../shared/changes';
import type { SyncEngine } from '../../shared/engine';
import { plannerTick } from '../../shared/planner/tick';
import { DEFAULT_LEASE_MINUTES, DEFAULT_SCHEDULE_SETTINGS } from '../../shared/schedule';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
import { processSyncBody } from '../../shared/sync/batch';
import { type LaneStep, runLane } from '../../shared/sync/lane';
import { parseSyncMessage, type SyncLane } from '../../shared/sync/message';
import { runSyncMessage } from '../../shared/sync/run';
import type { AwsTestbed } from '../support/aws';
import { loopbackFetcher } from '../support/oparl-harness';
import {
  captureLog,
  deliver,
  NOW,
  oparlTestEngine,
  plan,
  runDepsOf,
  useSourceBed,
} from '../support/sync-bed';

/**
 * The planner's tick and a host lane race for the same source (SCH-5, RATE-9): the lane's head run has
 * ended, its next entry is due, and the next planner tick sees the same source due on a host with room.
 * Exactly one of them may take the source's lease; the other skips it; the council is asked once.
 * Real State table (dynalite), real queue (fauxqs), the real OParl engine; the council on loopback.
 * The planner runs as its own instance (its own SDK clients), as in AWS.
 */
const TICK_2 = new Date(NOW.getTime() + 60_000);
const later = () => TICK_2;

/** The real engine, counting the runs of each source (a second run of the same source is a double fetch). */
function countingEngine(bed: AwsTestbed, runs: Map<string, number>): SyncEngine {
  const engine = oparlTestEngine(bed, loopbackFetcher(), later);
  return (source, message, budget) => {
    runs.set(source.sourceId, (runs.get(source.sourceId) ?? 0) + 1);
    return engine(source, message, budget);
  };
}

/** A planner instance of its own: its clients against the same peers. */
function plannerOf(clients: FeedClients, bed: AwsTestbed) {
  return (now: Date) =>
    plannerTick(
      {
        doc: clients.doc,
        sqs: clients.sqs,
        tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
        syncQueueUrl: bed.queues.syncQueueUrl,
        settings: DEFAULT_SCHEDULE_SETTINGS,
        leaseMinutes: DEFAULT_LEASE_MINUTES,
      },
      now,
    );
}

/**
 * Tick 1 starts the head with the other source in its lane; the head runs (without its lane) and ends.
 * Returns the lane, its second source now due and its host free.
 */
async function headRanWithLane(bed: AwsTestbed, engine: SyncEngine, head: string, next: string) {
  const tick = await plan(bed, NOW);
  expect(tick.started.map((s) => s.sourceId)).toEqual([head]);
  const message = parseSyncMessage((await deliver(bed, head)).body);
  expect(message.lane?.entries.map((e) => e.sourceId)).toEqual([next]);
  const lane = message.lane as SyncLane;
  const { lane: _lane, ...alone } = message;
  const deps = runDepsOf(bed, engine, later);
  const result = await runSyncMessage(deps, alone, { deadlineMs: Date.now() + 10 * 60_000 });
  expect(result.status).toBe('done');
  return { lane, deps };
}

/** Every sync message of `sourceId` still queued, each processed as the sync function would. */
async function processQueued(bed: AwsTestbed, engine: SyncEngine, sourceId: string): Promise<number> {
  let processed = 0;
  const seen = new Set<string>();
  for (;;) {
    const record = await deliver(bed, sourceId).catch(() => undefined);
    if (record === undefined || seen.has(record.messageId)) return processed;
    seen.add(record.messageId);
    const { log } = captureLog();
    await processSyncBody({ runDeps: runDepsOf(bed, engine, later), log }, record.body, 15 * 60_000);
    processed += 1;
  }
}

describe('planner tick and host lane race for one source (SCH-5, RATE-9)', () => {
  const { bed, council } = useSourceBed('race-a', 'race-b');

  it('SCH-5 / RATE-9: the planner reads the source due, the lane runs it meanwhile — the planner does not start it again (no double fetch)', async () => {
    const runs = new Map<string, number>();
    const engine = countingEngine(bed, runs);
    const { lane, deps } = await headRanWithLane(bed, engine, 'race-a', 'race-b');

    // The planner instance has read race-b due; just before its lease write goes out, the lane takes
    // the lease, runs race-b to its end and gives the lease back.
    const plannerClients = createFeedClients(bed.env);
    const steps: LaneStep[] = [];
    let held = 0;
    plannerClients.doc.middlewareStack.add(
      (next) => async (args) => {
        const input = JSON.stringify(args.input);
        if (held === 0 && input.includes('leaseRunId = :run') && input.includes('race-b')) {
          held += 1;
          await runLane(
            deps,
            lane,
            { deadlineMs: Date.now() + 10 * 60_000, endsAtMs: Date.now() + 11 * 60_000 },
            (s) => steps.push(s),
          );
        }
        return next(args);
      },
      { step: 'initialize', name: 'laneRunsBeforePlannerLease' },
    );
    try {
      const requestsBefore = council.requests.length;
      const tick = await plannerOf(plannerClients, bed)(TICK_2);
      expect(held).toBe(1);
      // The lane re-plans its host after each run (issue 27): with race-b done nothing is due, so it ends.
      expect(steps.map((s) => [s.status, 'sourceId' in s ? s.sourceId : s.reason])).toEqual([
        ['ran', 'race-b'],
        ['left', 'nothing due on the host'],
      ]);
      const laneRequests = council.requests.length - requestsBefore;
      expect(laneRequests).toBeGreaterThan(0);

      // The planner's lease write finds the source no longer due as it read it: no start, no message.
      expect(tick.started.map((s) => s.sourceId)).toEqual([]);
      const decided = tick.decisions.find((d) => d.sourceId === 'race-b');
      expect(decided).toMatchObject({ action: 'wait', started: false });
      expect(decided?.reason).toMatch(/SCH-5/);
      expect(await processQueued(bed, engine, 'race-b')).toBe(0);
      expect(runs.get('race-b')).toBe(1);
      expect(council.requests.length - requestsBefore).toBe(laneRequests);

      const item = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, 'race-b');
      expect(item?.leaseRunId).toBeUndefined();
      expect(item?.lastRun?.ok).toBe(true);
      // Its due time and decision are the lane run's (issue 28: the wait its end recorded, decided at
      // TICK_2, due at its next cadence), not the stale ones of the planner's read (NOW, "wait … SCH-5").
      expect(Date.parse(item?.dueAt ?? '')).toBeGreaterThan(TICK_2.getTime());
      expect(item?.lastDecision).toMatchObject({ action: 'wait', decidedAt: TICK_2.toISOString() });
      expect(item?.lastDecision?.reason).not.toMatch(/another run holds the lease/);
    } finally {
      plannerClients.doc.middlewareStack.remove('laneRunsBeforePlannerLease');
      destroyFeedClients(plannerClients);
    }
  }, 60_000);
});

describe('planner tick and host lane start the same source at once (SCH-5, RATE-9)', () => {
  const { bed, council } = useSourceBed('both-a', 'both-b');

  it('SCH-5: both see it due and write the lease at the same time — exactly one run takes it, the other skips; one fetch', async () => {
    const runs = new Map<string, number>();
    const engine = countingEngine(bed, runs);
    const { lane, deps } = await headRanWithLane(bed, engine, 'both-a', 'both-b');

    const plannerClients = createFeedClients(bed.env);
    try {
      const requestsBefore = council.requests.length;
      const steps: LaneStep[] = [];
      const [tick] = await Promise.all([
        plannerOf(plannerClients, bed)(TICK_2),
        runLane(
          deps,
          lane,
          { deadlineMs: Date.now() + 10 * 60_000, endsAtMs: Date.now() + 11 * 60_000 },
          (s) => steps.push(s),
        ),
      ]);
      const laneRan = steps.some((s) => s.status === 'ran');
      const plannerStarted = tick.started.some((s) => s.sourceId === 'both-b');
      // Exactly one of the two took the SCH-5 lease; the other says why it did not.
      expect(Number(laneRan) + Number(plannerStarted)).toBe(1);
      if (plannerStarted) {
        expect(steps).toEqual([
          expect.objectContaining({
            status: 'skipped',
            sourceId: 'both-b',
            reason: expect.stringMatching(/SCH-5/),
          }),
          // The lane re-plans its host after each step (issue 27): with both-b taken, nothing is due.
          expect.objectContaining({ status: 'left', reason: 'nothing due on the host' }),
        ]);
      } else {
        expect(tick.decisions.find((d) => d.sourceId === 'both-b')).toMatchObject({
          action: 'wait',
          started: false,
          reason: expect.stringMatching(/SCH-5/),
        });
      }
      // The planner's message (if it won) is processed as the sync function would: still one run.
      await processQueued(bed, engine, 'both-b');
      expect(runs.get('both-b')).toBe(1);
      expect(council.requests.length).toBeGreaterThan(requestsBefore);
      const item = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, 'both-b');
      expect(item?.leaseRunId).toBeUndefined();
      expect(item?.lastRun?.ok).toBe(true);
    } finally {
      destroyFeedClients(plannerClients);
    }
  }, 60_000);
});
