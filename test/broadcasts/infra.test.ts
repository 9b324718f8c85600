import { App, type CfnElement } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_MEMORY_MB } from '../../infra/function-sizes';
import type { IngestorFunction } from '../../infra/ingestor-function';
import { BROADCAST_TIMEOUT, IngestorStack, MIRROR_PREFIXES, ROBOTS_PREFIX } from '../../infra/stack';
import {
  cdkJsonContext,
  NO_BUNDLING,
  removeTempOutdirs,
  synthWithNag,
  TEST_ENV,
  tempOutdir,
} from '../support/cdk';

/**
 * OTH-5: the broadcast poller in the stack — every minute, one instance at a time, stale events dropped,
 * counted as a fetcher (RATE-7), grants limited to what a pass reads and writes (least privilege: no
 * robots/ — OTH-3 reads no robots.txt —, no Documents, no queue but sending its failures to FailedInvocations), cdk-nag clean. Wiring only.
 */
describe('CDK: the broadcast function (OTH-5)', () => {
  let stack: IngestorStack;
  let template: Template;
  let synthError: unknown;
  let broadcasts: IngestorFunction;

  beforeAll(() => {
    ({ stack, template, synthError } = synthWithNag('broadcasts', 'Broadcasts', {
      documentFunctions: false,
      previewFunction: false,
      // The other fetching function is left out so the fetcher count is the broadcast function's alone.
      geoFunction: false,
    }));
    broadcasts = stack.node.findChild('Broadcasts') as IngestorFunction;
  }, 120_000);
  afterAll(removeTempOutdirs);

  const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const statements = () =>
    Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(logicalId(broadcasts.role)))
      .flatMap(
        (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      );
  const actionsOn = (resource: unknown) =>
    statements()
      .filter((s) => [s.Resource].flat().some((r) => JSON.stringify(r) === JSON.stringify(resource)))
      .flatMap((s) => [s.Action].flat());

  it('OTH-5: deployed by default, invoked every minute without retries; a late event is dropped', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      Target: Match.objectLike({
        Arn: stack.resolve(broadcasts.fn.functionArn),
        RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 0 },
      }),
    });
    const props = template.findResources('AWS::Lambda::Function')[logicalId(broadcasts.fn)]?.Properties;
    expect(props).toMatchObject({
      Timeout: BROADCAST_TIMEOUT.toSeconds(),
      // Issue 28: sized from its measured RSS (infra/function-sizes.ts).
      MemorySize: FUNCTION_MEMORY_MB.broadcasts,
      Handler: 'index.handler',
    });
    // RATE-7: the sync's instances (SCH-5 slots ÷ the worker's runs, at least 2) + this one may fetch at once.
    expect(props?.Environment.Variables.INGESTOR_MAX_INSTANCES).toBe(String(stack.syncMaxConcurrency + 1));
  });

  it('OTH-5: least privilege — reads Sources, reads/writes State, reads mirror/ only; no robots/, Documents or queue', () => {
    const table = (name: 'Sources' | 'State' | 'Documents') => stack.resolve(stack.tables[name].tableArn);
    expect(actionsOn(table('Sources')).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:Scan',
    ]);
    expect(actionsOn(table('State'))).toEqual(
      expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:Query']),
    );
    expect(actionsOn(table('Documents'))).toEqual([]);
    expect(actionsOn(stack.resolve(stack.mirrorBucket.arnForObjects(`${MIRROR_PREFIXES.mirror}*`)))).toEqual([
      's3:GetObject',
    ]);
    const text = JSON.stringify(statements());
    expect(text).not.toContain(`/${ROBOTS_PREFIX}*`);
    // Issue 28: no queue but its on-failure destination, FailedInvocations, where it may only send.
    const queueStatements = statements().filter((s) => JSON.stringify(s.Action).includes('sqs:'));
    expect(queueStatements.map((s) => s.Resource)).toEqual([
      stack.resolve(stack.failedInvocationsQueue.queueArn),
    ]);
    expect(actionsOn(stack.resolve(stack.failedInvocationsQueue.queueArn)).sort()).toEqual([
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
    expect(text).not.toContain('s3:PutObject');
    expect(text).toContain('secretsmanager:GetSecretValue');
  });

  it('-c broadcastFunction=false leaves it out', () => {
    const app = new App({
      outdir: tempOutdir('broadcasts-off'),
      context: { ...cdkJsonContext(), ...NO_BUNDLING, broadcastFunction: 'false' },
    });
    const off = new IngestorStack(app, 'NoBroadcasts', {
      env: TEST_ENV,
      documentFunctions: false,
      previewFunction: false,
    });
    expect(off.node.tryFindChild('Broadcasts')).toBeUndefined();
  });

  it('cdk-nag AwsSolutions: no unacknowledged finding', () => {
    expect(synthError).toBeUndefined();
  });
});
