import { describe, expect, it } from 'vitest';
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
        fields: { code: 'UNKNOWN', error: 'ValidationException', sourceId, runId: expect.any(String) },
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('abc123');
  }, 60_000);
});
