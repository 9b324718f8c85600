import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { SyncEngine } from '../../shared/engine';
import { getSourceState } from '../../shared/store/source-state';
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
 * Issue 18: Lambda bills a sync's wall time, and most of it is the politeness wait (RATE-1). With a
 * batch of several messages (infra: batch size > 1) one invocation works their sources at once, so the
 * waits overlap instead of being billed one after another; each source's host pace stays global through
 * the slot store. Real peers (dynalite, fauxqs) and the real OParl engine over a loopback council.
 */
describe('sync batch: several sources per invocation (issue 18)', () => {
  const first = 'parallel-a';
  const second = 'parallel-b';
  const { bed, council } = useSourceBed(first, second);

  it('works the records of one batch concurrently, each to its own completed run', async () => {
    // RATE-9: the planner starts one run per pace-bound host, so the second source names the same
    // loopback council as `localhost` — another host key, as two councils on two servers would be.
    const url = new URL(council.systemUrl);
    url.hostname = 'localhost';
    await bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.SOURCES_TABLE,
        Item: { sourceId: second, systemUrl: url.toString(), active: true },
      }),
    );
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId).sort()).toEqual([first, second]);
    const now = () => NOW;
    const real = oparlTestEngine(bed, loopbackFetcher(), now);
    // A barrier: each run waits (at most 3 s) until the other has started. Worked one after the other,
    // the first waits out its 3 s alone and at most one run is ever in flight.
    let inFlight = 0;
    let maxInFlight = 0;
    let release: () => void = () => {};
    const bothStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    const engine: SyncEngine = async (source, message, budget) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (inFlight === 2) release();
      await Promise.race([bothStarted, new Promise((r) => setTimeout(r, 3_000))]);
      try {
        return await real(source, message, budget);
      } finally {
        inFlight -= 1;
      }
    };
    const { log } = captureLog();
    const records = [await deliver(bed, first), await deliver(bed, second)];
    const response = await handleSyncBatch(
      { runDeps: runDepsOf(bed, engine, now), log },
      eventOf(...records),
      () => 15 * 60_000,
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(maxInFlight).toBe(2);
    for (const id of [first, second]) {
      const state = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, id);
      expect(state?.lastRun).toMatchObject({ ok: true });
      expect(state?.leaseRunId).toBeUndefined();
    }
  }, 60_000);
});
