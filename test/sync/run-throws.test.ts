import { describe, expect, it } from 'vitest';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
import { handleSyncBatch } from '../../shared/sync/worker';
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
 * A run that throws for a reason that is neither the council's answer nor an outage of our stores (here
 * DynamoDB refusing the run's claim as invalid — a 400 the SDK does not retry, injected through client middleware
 * around the real peer, see `injectFault`): the message goes back for redelivery as before, and on-call
 * gets one structured error line naming the source, the run and the error — never the error's text, which
 * may carry URLs or values.
 */
describe('a sync run that throws (not an outage) is logged for on-call', () => {
  const sourceId = 'throws-once';
  const { bed } = useSourceBed(sourceId);

  it('ERR-4 / SCH-5: the message is a batch item failure and one error line names source, run and error', async () => {
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId)).toEqual([sourceId]);
    const fault = injectFault(
      bed.clients.dynamo,
      (command, input) =>
        // The run's claim of its lease (SCH-5), before the engine: the first STATE write of the message.
        command === 'UpdateItemCommand' &&
        (input.Key as { sk?: { S?: string } } | undefined)?.sk?.S === 'STATE',
      {
        statusCode: 400,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: JSON.stringify({
          __type: 'com.amazon.coral.validate#ValidationException',
          message: 'One or more parameter values were invalid: secret-looking value abc123',
        }),
      },
    );
    const { lines, log } = captureLog();
    const now = () => NOW;
    const record = await deliver(bed, sourceId);
    const response = await handleSyncBatch(
      { runDeps: runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now), log },
      eventOf(record),
      () => 15 * 60_000,
    );
    fault.remove();

    expect(fault.hits).toBeGreaterThan(0);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'sync run threw, sync message given back for redelivery',
        fields: {
          code: 'STORE_REFUSED',
          service: 'DynamoDB',
          error: 'ValidationException',
          sourceId,
          runId: expect.any(String),
        },
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('abc123');
  }, 60_000);
});

/**
 * Our own store refusing the engine's CURSOR write as invalid (a DynamoDB ValidationException, 400 — as
 * for an item over 400 KB): neither the council's answer nor an outage, but ours all the same. ERR-4
 * counts failed runs *of the source*; a fault of ours must never pause a council (chaos: "sources paused
 * for our faults" 0). The message goes back for redelivery, the run keeps its lease and gives its claim
 * back, on-call gets one error line, and once the store takes the write the redelivery completes the run.
 * FAULT INJECTION through client middleware around the real DynamoDB peer (`injectFault`).
 */
describe('our store refusing a cursor write is ours, not the source’s', () => {
  const sourceId = 'cursor-refused';
  const { bed } = useSourceBed(sourceId);

  it('ERR-4 / SCH-5: no failed run, no pause, a batch item failure and one error line; the redelivery completes the run', async () => {
    const tick = await plan(bed, NOW);
    expect(tick.started.map((s) => s.sourceId)).toEqual([sourceId]);
    const before = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    const runId = before?.leaseRunId;
    const fault = injectFault(
      bed.clients.dynamo,
      (command, input) =>
        command === 'PutItemCommand' &&
        String((input.Item as { sk?: { S?: string } } | undefined)?.sk?.S).startsWith('CURSOR#'),
      {
        statusCode: 400,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: JSON.stringify({
          __type: 'com.amazon.coral.validate#ValidationException',
          message: 'Item size has exceeded the maximum allowed size: secret-looking value abc123',
        }),
      },
    );
    const now = () => NOW;
    const first = captureLog();
    const record = await deliver(bed, sourceId);
    const response = await handleSyncBatch(
      { runDeps: runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now), log: first.log },
      eventOf(record),
      () => 15 * 60_000,
    );
    fault.remove();

    // The engine's cursor write met the fault (a 400 the SDK does not retry) …
    expect(fault.hits).toBe(1);
    // … the message goes back to the queue …
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    // … nothing is held against the source (ERR-4): no failed run recorded, no streak, no pause …
    const after = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    expect(after?.lastRun).toBeUndefined();
    expect(after?.schedule?.failureStreak ?? 0).toBe(0);
    expect(after?.schedule?.pause).toBeUndefined();
    // … the run keeps its lease and gives its claim back for the redelivery …
    expect(after?.leaseRunId).toBe(runId);
    expect(after?.leaseHolder).toBeUndefined();
    // … and on-call sees one line naming store, error, source and run — never the error's text.
    expect(first.lines.filter((l) => l.level === 'error')).toEqual([
      expect.objectContaining({
        message: 'sync run threw, sync message given back for redelivery',
        fields: { code: 'STORE_REFUSED', service: 'DynamoDB', error: 'ValidationException', sourceId, runId },
      }),
    ]);
    expect(JSON.stringify(first.lines)).not.toContain('abc123');

    // SQS redelivers the message once the store takes the write: the run completes.
    const second = captureLog();
    const redelivered = await deliver(bed, sourceId);
    expect(redelivered.messageId).toBe(record.messageId);
    const retry = await handleSyncBatch(
      { runDeps: runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now), log: second.log },
      eventOf(redelivered),
      () => 15 * 60_000,
    );
    expect(retry.batchItemFailures).toEqual([]);
    const done = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    expect(done?.lastRun).toMatchObject({ runId, ok: true });
    expect(done?.schedule?.failureStreak ?? 0).toBe(0);
    expect(done?.leaseRunId).toBeUndefined();
  }, 60_000);
});
