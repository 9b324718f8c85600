import { describe, expect, it } from 'vitest';
import { METRICS } from '../../shared/observability/constants';
import { MetricsBuffer } from '../../shared/observability/metrics';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
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
 * Issue 13, defect 8: our own outages must not be blamed on the council. DynamoDB throttling or an S3
 * 5xx that persists through the SDK's retries is ours: the source's failure streak (ERR-4) stays as it
 * is and nothing is paused; the sync message is reported as a batch item failure (SQS redelivers it),
 * counted under `StoreOutages` and logged with code STORE_UNAVAILABLE. The run keeps its lease and
 * gives its claim back, so the redelivery is not taken for a duplicate and completes the run.
 *
 * The faults are injected through client middleware around the real peers (dynalite, s3rver): see
 * `injectFault` — the SDK's real deserializer and retry strategy see a real error answer.
 */
describe.each([
  {
    store: 'S3',
    error: 'SlowDown',
    inject: (bed: AwsTestbed) =>
      injectFault(
        bed.clients.s3,
        (command, input) => command === 'PutObjectCommand' && String(input.Key).startsWith('mirror/'),
        {
          statusCode: 503,
          headers: { 'content-type': 'application/xml' },
          body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>R1</RequestId></Error>',
        },
      ),
  },
  {
    store: 'DynamoDB',
    error: 'ThrottlingException',
    inject: (bed: AwsTestbed) =>
      injectFault(
        bed.clients.dynamo,
        (command, input) =>
          command === 'PutItemCommand' &&
          String((input.Item as { sk?: { S?: string } } | undefined)?.sk?.S).startsWith('CURSOR#'),
        {
          statusCode: 400,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
            message: 'Rate of requests exceeds the allowed throughput.',
          }),
        },
      ),
  },
])(
  'ERR-4 / issue 13: $store $error after the SDK retries is ours, not the source’s',
  ({ store, error, inject }) => {
    const sourceId = `outage-${store.toLowerCase()}`;
    const { bed } = useSourceBed(sourceId);

    it(`ERR-4 / SCH-5: no failure, no pause, a batch item failure and a STORE_UNAVAILABLE count; the redelivery completes the run`, async () => {
      // Prepare: the planner takes the lease and enqueues the run; our store fails the sync's writes.
      const tick = await plan(bed, NOW);
      expect(tick.started.map((s) => s.sourceId)).toEqual([sourceId]);
      const before = await getSourceState<SourceScheduleState>(
        bed.clients.doc,
        bed.env.STATE_TABLE,
        sourceId,
      );
      const runId = before?.leaseRunId;
      const streakBefore = before?.schedule?.failureStreak ?? 0;
      const now = () => NOW;
      const deps = () => {
        const emf: string[] = [];
        const { lines, log } = captureLog();
        const metrics = new MetricsBuffer({ write: (line) => emf.push(line) });
        return {
          emf,
          lines,
          batch: { runDeps: runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now), log, metrics },
        };
      };
      const fault = inject(bed);

      // Act: the first delivery meets the outage.
      const first = deps();
      const record = await deliver(bed, sourceId);
      const response = await handleSyncBatch(first.batch, eventOf(record), () => 15 * 60_000);
      fault.remove();

      // Assess: the SDK retried before giving up (more than one attempt hit the fault) …
      expect(fault.hits).toBeGreaterThan(1);
      // … the message goes back to the queue, as a partial batch failure, …
      expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
      // … nothing is held against the source (ERR-4): no failed run, no pause, no report …
      const after = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
      expect(after?.schedule?.failureStreak ?? 0).toBe(streakBefore);
      expect(after?.schedule?.pause).toBeUndefined();
      expect(after?.lastRun).toBeUndefined();
      // … the run keeps its lease, the claim is given back for the redelivery …
      expect(after?.leaseRunId).toBe(runId);
      expect(after?.leaseHolder).toBeUndefined();
      // … and it is counted and logged as ours.
      const counted = first.emf.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(counted.some((line) => line[METRICS.storeOutages] === 1)).toBe(true);
      expect(first.lines).toContainEqual(
        expect.objectContaining({
          level: 'error',
          fields: expect.objectContaining({ code: 'STORE_UNAVAILABLE', service: store, error, sourceId }),
        }),
      );

      // Act: SQS redelivers the same message once the store is back.
      const second = deps();
      const redelivered = await deliver(bed, sourceId);
      expect(redelivered.messageId).toBe(record.messageId);
      const retry = await handleSyncBatch(second.batch, eventOf(redelivered), () => 15 * 60_000);

      // Assess: not refused as a duplicate; the run completes and releases its lease.
      expect(retry.batchItemFailures).toEqual([]);
      expect(second.lines.some((l) => l.message.includes('duplicate'))).toBe(false);
      const done = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
      expect(done?.lastRun).toMatchObject({ runId, ok: true });
      expect(done?.schedule?.failureStreak ?? 0).toBe(0);
      expect(done?.leaseRunId).toBeUndefined();
    }, 60_000);
  },
);
