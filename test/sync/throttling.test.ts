import { describe, expect, it } from 'vitest';
import { MetricsBuffer } from '../../shared/observability/metrics';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { storeOutageOf } from '../../shared/store/outage';
import { getSourceState } from '../../shared/store/source-state';
import { TakedownItems } from '../../shared/store/takedowns';
import { handleSyncBatch } from '../../shared/sync/worker';
import type { AwsTestbed } from '../support/aws';
import { loopbackFetcher } from '../support/oparl-harness';
import {
  captureLog,
  deliver,
  eventOf,
  injectFault,
  NOW,
  oparlTestEngine,
  plan,
  runDepsOf,
  useSourceBed,
} from '../support/sync-bed';

/**
 * Issue 28: with a table in provisioned capacity, DynamoDB answers demand above capacity and burst with
 * `ProvisionedThroughputExceededException` (400). Nothing may be lost: the SDK's retry strategy (the
 * store's clients, shared/store clients.ts, standard mode) retries it with backoff on every call — the
 * planner's lease, a run's claim and release, a takedown, a cursor — and a throttle that outlasts the
 * SDK's attempts is ours (shared/store outage.ts lists the name): the message goes back to the queue with
 * code STORE_UNAVAILABLE and its redelivery completes the run.
 *
 * FAULT INJECTION through client middleware around the real local DynamoDB (dynalite): `injectFault`
 * answers the chosen call with the HTTP answer DynamoDB gives when throttling, inside the SDK's retry
 * and deserialize steps; every other call reaches the peer.
 */
const THROTTLED = {
  statusCode: 400,
  headers: { 'content-type': 'application/x-amz-json-1.0' },
  body: JSON.stringify({
    __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message:
      'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  }),
};

/** Throttles the calls `matches` picks: the first `times` of them, or every one. */
function throttle(
  bed: AwsTestbed,
  matches: (command: string, input: Record<string, unknown>) => boolean,
  times = Infinity,
) {
  let left = times;
  return injectFault(
    bed.clients.dynamo,
    (command, input) => {
      if (left <= 0 || !matches(command, input)) return false;
      left -= 1;
      return true;
    },
    THROTTLED,
  );
}

/** The run's release: the STATE write that removes the lease with the outcome (SCH-5). */
const isRelease = (command: string, input: Record<string, unknown>) =>
  command === 'UpdateItemCommand' && /REMOVE .*leaseRunId/.test(String(input.UpdateExpression ?? ''));

/** The sync batch's dependencies over `bed`, with its log captured. */
function batchOf(bed: AwsTestbed) {
  const { lines, log } = captureLog();
  const now = () => NOW;
  return {
    lines,
    batch: {
      runDeps: runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now),
      log,
      metrics: new MetricsBuffer({ write: () => {} }),
    },
  };
}

const stateOf = (bed: AwsTestbed, sourceId: string) =>
  getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);

describe('issue 28: throttling of provisioned capacity loses nothing — briefly throttled', () => {
  const { bed } = useSourceBed('throttled-once');

  it('SCH-5: a release throttled twice is retried by the SDK within the delivery — the outcome lands, the lease is released', async () => {
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId)).toEqual(['throttled-once']);
    const runId = (await stateOf(bed, 'throttled-once'))?.leaseRunId;
    const fault = throttle(
      bed,
      (c, i) => isRelease(c, i) && JSON.stringify(i.Key).includes('throttled-once'),
      2,
    );
    const run = batchOf(bed);
    const response = await handleSyncBatch(
      run.batch,
      eventOf(await deliver(bed, 'throttled-once')),
      () => 15 * 60_000,
    );
    fault.remove();
    expect(fault.hits).toBe(2);
    expect(response.batchItemFailures).toEqual([]);
    const after = await stateOf(bed, 'throttled-once');
    expect(after?.lastRun).toMatchObject({ runId, ok: true });
    expect(after?.leaseRunId).toBeUndefined();
  }, 60_000);

  it('OPT-2: a takedown throttled twice is recorded; throttled past the SDK’s attempts it fails loudly as an outage of ours, and recording again lands it', async () => {
    const registry = new TakedownItems({ doc: bed.clients.doc, table: bed.env.STATE_TABLE });
    const item = (id: string) => ({
      sourceId: 'throttled-once',
      scope: 'object' as const,
      id,
      mark: { at: NOW.toISOString(), by: 'on-call' },
    });
    const isTakedown = (c: string, i: Record<string, unknown>) =>
      c === 'PutItemCommand' && JSON.stringify(i.Item).includes('TAKEDOWN');
    const brief = throttle(bed, isTakedown, 2);
    expect(await registry.record(item('https://council.example/paper/1'))).toBe(true);
    brief.remove();
    expect(brief.hits).toBe(2);

    const long = throttle(bed, isTakedown);
    const error = await registry.record(item('https://council.example/paper/2')).catch((e: unknown) => e);
    long.remove();
    expect(long.hits).toBeGreaterThan(1);
    expect(storeOutageOf(error)).toEqual({
      service: 'DynamoDB',
      error: 'ProvisionedThroughputExceededException',
      throttled: true,
    });
    expect((error as { code?: string }).code).toBe('STORE_UNAVAILABLE');
    expect(await registry.record(item('https://council.example/paper/2'))).toBe(true);
    const ids = (await registry.items('throttled-once')).map((t) => t.id).sort();
    expect(ids).toEqual(['https://council.example/paper/1', 'https://council.example/paper/2']);
  }, 60_000);
});

describe('issue 28: throttling of provisioned capacity loses nothing — throttled past the SDK’s retries', () => {
  const { bed } = useSourceBed('throttled-long');

  it('ERR-4: a release throttled past the SDK’s attempts goes back with code STORE_UNAVAILABLE; the redelivery releases it', async () => {
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId)).toEqual(['throttled-long']);
    const runId = (await stateOf(bed, 'throttled-long'))?.leaseRunId;
    const fault = throttle(
      bed,
      (c, i) => isRelease(c, i) && JSON.stringify(i.Key).includes('throttled-long'),
    );
    const first = batchOf(bed);
    const record = await deliver(bed, 'throttled-long');
    const response = await handleSyncBatch(first.batch, eventOf(record), () => 15 * 60_000);
    fault.remove();
    // The SDK tried more than once before giving up; the message goes back, typed and counted as ours.
    expect(fault.hits).toBeGreaterThan(1);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(first.lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({
          code: 'STORE_UNAVAILABLE',
          service: 'DynamoDB',
          error: 'ProvisionedThroughputExceededException',
        }),
      }),
    );
    const held = await stateOf(bed, 'throttled-long');
    expect(held?.leaseRunId).toBe(runId);
    expect(held?.lastRun).toBeUndefined();
    // Nothing lost: the redelivery (capacity back) records the outcome and releases the lease.
    const retry = await handleSyncBatch(
      batchOf(bed).batch,
      eventOf(await deliver(bed, 'throttled-long')),
      () => 15 * 60_000,
    );
    expect(retry.batchItemFailures).toEqual([]);
    const done = await stateOf(bed, 'throttled-long');
    expect(done?.lastRun).toMatchObject({ runId, ok: true });
    expect(done?.leaseRunId).toBeUndefined();
  }, 60_000);
});
