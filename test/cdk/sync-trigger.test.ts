import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestorStack } from '../../infra/stack';
import { removeTempOutdirs, synthWithNag } from '../support/cdk';

/**
 * Issue 28: `-c syncTrigger=planner` — the planner starts the sync workers through a wake queue instead
 * of the sync queue's event source (shared/planner/wake.ts). Wiring only (no bundling), with cdk-nag.
 */
describe('sync trigger: planner (issue 28)', () => {
  let stack: IngestorStack;
  let template: Template;
  let synthError: unknown;
  const roleOf = (fn: IngestorStack['planner']) => stack.resolve(fn.role.roleArn) as unknown;

  beforeAll(() => {
    // A 1,000-source fleet: 91 slots, 22.3 runs in flight (`npm run bench -- cost`).
    ({ stack, template, synthError } = synthWithNag(
      'sync-trigger',
      'SyncTrigger',
      {
        documentFunctions: false,
        previewFunction: false,
        geoFunction: false,
        broadcastFunction: false,
        mirrorApi: false,
        maxConcurrentSyncs: 91,
        syncRunsInFlight: 22.3,
      },
      { syncTrigger: 'planner' },
    ));
  });
  afterAll(removeTempOutdirs);

  it('synthesises with every nag finding answered', () => {
    expect(synthError).toBeUndefined();
    expect(stack.syncTrigger).toBe('planner');
  });

  it('one event source, on the wake queue, one wake per invocation; none on the sync queue', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: stack.resolve(stack.syncWakeQueue?.queueArn),
      BatchSize: 1,
      // SQS's floor bounds the instances (RATE-7 counts it); the planner keeps one alive.
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it('sync: 227 MB × 34 runs (infra/function-sizes.ts SYNC_PLANNER_WORKER) with the malloc setting it is measured with; the planner keeps one worker at 1,000 sources', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 227,
      Environment: {
        Variables: Match.objectLike({
          // Issue 28 (function memory): the size holds the need measured with this (SYNC_MALLOC).
          MALLOC_MMAP_THRESHOLD_: '32768',
          SYNC_WAKE_QUEUE_URL: stack.resolve(stack.syncWakeQueue?.queueUrl),
          INGESTOR_SYNC_WORKERS_MAX: '1',
          INGESTOR_SYNC_RUNS_AT_ONCE: '34',
          INGESTOR_MAX_INSTANCES: '2',
        }),
      },
    });
  });

  it('least privilege: the planner sends wakes and reads both depths, invokes nothing; the sync consumes the sync queue', () => {
    const policies = template.findResources('AWS::IAM::Policy');
    const statementsOf = (roleArn: unknown) =>
      Object.values(policies)
        .filter((p) =>
          JSON.stringify((p as { Properties: { Roles: unknown } }).Properties.Roles).includes(
            JSON.stringify(roleArn).match(/"Fn::GetAtt":\["([^"]+)"/)?.[1] ?? '!',
          ),
        )
        .flatMap(
          (p) =>
            (p as { Properties: { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } } })
              .Properties.PolicyDocument.Statement,
        );
    const planner = JSON.stringify(statementsOf(roleOf(stack.planner)));
    expect(planner).not.toContain('lambda:InvokeFunction');
    expect(planner).toContain('sqs:GetQueueAttributes');
    const wakeArn = JSON.stringify(stack.resolve(stack.syncWakeQueue?.queueArn));
    const sends = statementsOf(roleOf(stack.planner)).filter((s) =>
      JSON.stringify(s.Action).includes('sqs:SendMessage'),
    );
    expect(JSON.stringify(sends)).toContain(wakeArn);
    const sync = JSON.stringify(statementsOf(roleOf(stack.sync)));
    expect(sync).toContain('sqs:ReceiveMessage');
    expect(sync).toContain(JSON.stringify(stack.resolve(stack.syncQueue.queueArn)));
  });

  it('refuses an unknown trigger', () => {
    expect(() => synthWithNag('sync-trigger-bad', 'Bad', {}, { syncTrigger: 'cron' })).toThrow(
      /syncTrigger must be eventSource or planner/,
    );
  });
});
