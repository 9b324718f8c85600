import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
import { parseSyncMessage, type SyncMessage } from '../../shared/sync/message';
import { runSyncMessage } from '../../shared/sync/run';
import { loopbackFetcher, TestClock } from '../support/oparl-harness';
import { NOW, oparlTestEngine, plan, runDepsOf, useSourceBed } from '../support/sync-bed';

/**
 * RATE-9 (issue 27, item 5): the host model learns a source's expected requests from its own recent
 * runs. A run that needs several invocations (time budget, continuation messages) must be learnt as the
 * whole run — every invocation's requests — not as its last invocation. Real queue (fauxqs), real State
 * table (dynalite), the real OParl engine on a council on loopback; each request advances the run's clock
 * by one second (RATE-1), so a budget of 1.5 s lets two requests into one invocation.
 *
 * Both engines resume a continued run's cursor with its running totals (`runStart` → 'resume'), so the
 * report of the last invocation already carries the whole run's requests: this test guards that.
 */
describe('RATE-9: a continued run is learnt with all its requests', () => {
  const sourceId = 'continued-twice';
  const { bed } = useSourceBed(sourceId);

  /** The latest message of the source's run in the queue (the planner's, then each continuation). */
  async function latestMessage(): Promise<SyncMessage> {
    const received = await bed.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: bed.queues.syncQueueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        WaitTimeSeconds: 1,
      }),
    );
    const messages = (received.Messages ?? [])
      .map((m) => parseSyncMessage(m.Body ?? ''))
      .filter((m) => m.sourceId === sourceId)
      .sort((a, b) => b.continuation - a.continuation);
    const latest = messages[0];
    if (latest === undefined) throw new Error(`no sync message for ${sourceId}`);
    return latest;
  }

  it('RATE-9 / RATE-1: a run continued twice records the requests of all three invocations in recentRuns and lastRun', async () => {
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId)).toEqual([sourceId]);

    const clock = new TestClock(NOW.getTime());
    const fetcher = loopbackFetcher();
    fetcher.onRequest = () => clock.advance(1000);
    const deps = runDepsOf(bed, oparlTestEngine(bed, fetcher, clock.now), clock.now);

    const statuses: string[] = [];
    const perInvocation: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const message = await latestMessage();
      expect(message.continuation).toBe(i);
      const before = fetcher.count;
      const result = await runSyncMessage(deps, message, { deadlineMs: clock.ms + 1_500 });
      statuses.push(result.status);
      perInvocation.push(fetcher.count - before);
      if (result.status !== 'continued') break;
    }

    // The run took at least three invocations (continued at least twice), and ended done.
    expect(statuses.length).toBeGreaterThanOrEqual(3);
    expect(statuses.at(-1)).toBe('done');
    expect(statuses.slice(0, -1).every((s) => s === 'continued')).toBe(true);
    expect(perInvocation.at(-1)).toBeLessThan(fetcher.count);

    const item = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    const learnt = item?.schedule?.recentRuns?.at(-1);
    // Every request the council saw in this run, not only the last invocation's.
    expect(learnt).toMatchObject({ kind: 'incremental', requests: fetcher.count });
    expect(item?.lastRun).toMatchObject({ requests: fetcher.count, continuations: statuses.length - 1 });
    // Its seconds run from the run's start (the planner's message), so seconds per request is the run's.
    expect(learnt?.seconds).toBeGreaterThanOrEqual(fetcher.count);
  }, 60_000);
});
