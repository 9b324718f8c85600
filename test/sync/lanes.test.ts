import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { SyncEngine } from '../../shared/engine';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
import { BUDGET_RESERVE_MS, processSyncBody } from '../../shared/sync/batch';
import { LANE_START_MIN_MS } from '../../shared/sync/lane';
import { parseSyncMessage, type SyncMessage } from '../../shared/sync/message';
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
 * Host lanes in the sync function (issues 27/28; SCH-5, RATE-9): the sources of one council share its
 * host, so the planner starts one and hands it the others as its lane. Real queue (fauxqs), real State
 * table (dynalite), the real OParl engine and store; the council on loopback.
 */
const now = () => NOW;

/** Every sync message in the queue now (visibility 0: they stay for the next look). */
async function queued(bed: AwsTestbed): Promise<{ body: string; message: SyncMessage }[]> {
  const received = await bed.clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: bed.queues.syncQueueUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 0,
      WaitTimeSeconds: 1,
    }),
  );
  return (received.Messages ?? []).map((m) => ({
    body: m.Body ?? '',
    message: parseSyncMessage(m.Body ?? ''),
  }));
}

describe('host lanes: a continued run carries its lane on (SCH-5, RATE-9)', () => {
  const { bed } = useSourceBed('lane-a', 'lane-b', 'lane-c');

  it('SCH-5 / RATE-9: the run continues in a new message with its lane; the continuation that ends done runs the lane', async () => {
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId)).toEqual(['lane-a']);
    const head = parseSyncMessage((await deliver(bed, 'lane-a')).body);
    expect(head.lane?.entries.map((e) => e.sourceId)).toEqual(['lane-b', 'lane-c']);

    // The first message of lane-a runs out of time (the engine says so); every other run is real.
    let cut = true;
    const engine: SyncEngine = async (source, message, budget) => {
      if (cut && source.sourceId === 'lane-a') {
        cut = false;
        return {
          kind: message.kind,
          requests: 0,
          changed: false,
          complete: false,
          continued: true,
          objects: { new: 0, modified: 0, deleted: 0 },
          failures: [],
        };
      }
      return oparlTestEngine(bed, loopbackFetcher(), now)(source, message, budget);
    };
    const { lines, log } = captureLog();
    const deps = { runDeps: runDepsOf(bed, engine, now), log };

    const first = await processSyncBody(deps, JSON.stringify(head), 15 * 60_000);
    expect(first.status).toBe('continued');
    expect(first.laneRuns).toBeUndefined();
    const continuation = (await queued(bed)).find(
      (q) => q.message.sourceId === 'lane-a' && q.message.continuation === 1,
    );
    expect(continuation?.message.lane).toEqual(head.lane);

    const second = await processSyncBody(deps, continuation?.body ?? '', 15 * 60_000);
    expect(second.status).toBe('done');
    expect(second.laneRuns?.map((r) => [r.sourceId, r.status])).toEqual([
      ['lane-b', 'done'],
      ['lane-c', 'done'],
    ]);
    for (const id of ['lane-a', 'lane-b', 'lane-c']) {
      const item = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, id);
      expect(item?.leaseRunId).toBeUndefined();
      expect(item?.lastRun).toMatchObject({ ok: true, complete: true });
    }
    expect(
      lines.filter((l) => l.message === 'sync message done').map((l) => [l.fields.sourceId, l.fields.lane]),
    ).toEqual([
      ['lane-a', { host: '127.0.0.1', position: 0, left: 2 }],
      ['lane-a', { host: '127.0.0.1', position: 0, left: 2 }],
      ['lane-b', { host: '127.0.0.1', position: 1, left: 1 }],
      ['lane-c', { host: '127.0.0.1', position: 2, left: 0 }],
    ]);
  }, 60_000);
});

describe('host lanes: time short, the lane hands its host on (issue 27; SCH-5, RATE-9)', () => {
  const { bed, council } = useSourceBed('short-a', 'short-b');

  it('SCH-5 / RATE-9: with less than the minimum left after the run, the next source is leased and its message carries the lane on — no planner tick in between, one lease at a time', async () => {
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId)).toEqual(['short-a']);
    const body = (await deliver(bed, 'short-a')).body;
    const planned = parseSyncMessage(body).lane;
    expect(planned?.entries.map((e) => e.sourceId)).toEqual(['short-b']);
    // Re-planning: the lane carries its host's pool (both councils) and the slot's kind.
    expect(planned?.pool?.map((p) => p.sourceId).sort()).toEqual(['short-a', 'short-b']);
    expect(planned?.kind).toBe('incremental');

    const { lines, log } = captureLog();
    const deps = { runDeps: runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now), log };
    const result = await processSyncBody(deps, body, BUDGET_RESERVE_MS + LANE_START_MIN_MS - 1);
    expect(result.status).toBe('done');
    // Not run in this invocation (time short) — handed on instead of left for the next tick.
    expect(result.laneRuns).toBeUndefined();
    expect(lines.map((l) => l.message)).toContain('lane handed on');
    expect(lines.map((l) => l.message)).not.toContain('lane left for the planner');
    const handed = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'short-b');
    expect(handed?.leaseRunId).toBeDefined();
    expect(handed?.lastRun).toBeUndefined();
    expect(council.requests.length).toBeGreaterThan(0);

    const message = (await queued(bed)).find((q) => q.message.sourceId === 'short-b');
    expect(message?.message).toMatchObject({ runId: handed?.leaseRunId, continuation: 0 });
    expect(message?.message.lane?.host).toBe('127.0.0.1');
    // The planner's next tick starts nothing on the host: the handed-on run holds its one lease (SCH-5).
    const next = await plan(bed, new Date(NOW.getTime() + 60_000));
    expect(next.started.map((s) => s.sourceId)).toEqual([]);

    const second = await processSyncBody(deps, message?.body ?? '', 15 * 60_000);
    expect(second).toMatchObject({ status: 'done', sourceId: 'short-b' });
    const ran = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'short-b');
    expect(ran?.leaseRunId).toBeUndefined();
    expect(ran?.lastRun).toMatchObject({ ok: true, complete: true });
  }, 60_000);
});
