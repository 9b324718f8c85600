import type { CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestorFunction } from '../../infra/ingestor-function';
import type { IngestorStack } from '../../infra/stack';
import { deletionShardsFor } from '../../shared/documents';
import { removeTempOutdirs, synthWithNag } from '../support/cdk';

/**
 * Issue 28, DEL-2 at 10,000+ sources: the deletion check's hourly run as one schedule per shard, each
 * invoking the same function with `{ shard: { index, of } }`. Least privilege: no permission is added —
 * the schedules share the one scheduler role that may invoke only that function; the function's own
 * role gains nothing from the shards (it invokes nobody; it sends only its failed invocations, issue 28). Its instances count N towards RATE-7's INGESTOR_MAX_INSTANCES.
 */
const FLEET = 10_000;

describe('CDK: the deletion check in shards (issue 28)', () => {
  let stack: IngestorStack;
  let template: Template;
  let synthError: unknown;
  const shards = deletionShardsFor(FLEET);

  beforeAll(() => {
    ({ stack, template, synthError } = synthWithNag(
      'deletion-shards',
      'DeletionShards',
      {
        documentFunctions: true,
        previewFunction: false,
        geoFunction: false,
        broadcastFunction: false,
        mirrorApi: false,
        reservedConcurrency: true,
      },
      { fleetSources: FLEET },
    ));
  }, 120_000);
  afterAll(removeTempOutdirs);

  const fn = () => stack.node.findChild('DeletionCheck') as IngestorFunction;
  const fnLogicalId = () => stack.getLogicalId(fn().fn.node.defaultChild as CfnElement);
  const deletionSchedules = () =>
    Object.values(template.findResources('AWS::Scheduler::Schedule')).filter((s) =>
      JSON.stringify(s.Properties.Target.Arn).includes(fnLogicalId()),
    );

  it('DEL-2: one hourly schedule per shard, each naming its shard of N (N from the fleet size)', () => {
    expect(shards).toBeGreaterThan(1);
    expect(stack.deletionShards).toBe(shards);
    const inputs = deletionSchedules().map((s) => {
      expect(s.Properties.ScheduleExpression).toBe('cron(35 * * * ? *)');
      expect(s.Properties.ScheduleExpressionTimezone).toBe('Europe/Berlin');
      return JSON.parse(s.Properties.Target.Input as string) as { shard: { index: number; of: number } };
    });
    expect(inputs.map((i) => i.shard.index).sort((a, b) => a - b)).toEqual([...Array(shards).keys()]);
    for (const i of inputs) expect(i.shard.of).toBe(shards);
  });

  it('IAM: the schedules share one role that may invoke only the deletion-check function; the function invokes nothing', () => {
    const roleArns = new Set(deletionSchedules().map((s) => JSON.stringify(s.Properties.Target.RoleArn)));
    expect(roleArns.size).toBe(1);
    const roleId = (JSON.parse([...roleArns][0] as string) as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes(roleId),
    );
    const statements = policies.flatMap(
      (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) {
      expect(s.Action).toBe('lambda:InvokeFunction');
      const resources = JSON.stringify(s.Resource);
      expect(resources).toContain(fnLogicalId());
      // No other function's ARN.
      expect(
        resources.match(/"Fn::GetAtt":\["([A-Za-z0-9]+)"/g)?.every((m) => m.includes(fnLogicalId())),
      ).toBe(true);
    }
    const fnRoleId = stack.getLogicalId(fn().role.node.defaultChild as CfnElement);
    const fnPolicies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes(fnRoleId),
    );
    expect(JSON.stringify(fnPolicies)).not.toContain('lambda:Invoke');
    // Issue 28: its one queue permission is sending its failed invocations to FailedInvocations.
    const queueStatements = fnPolicies
      .flatMap(
        (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      )
      .filter((s) => JSON.stringify(s.Action).includes('sqs:'));
    expect(queueStatements).toEqual([
      expect.objectContaining({
        Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
        Resource: stack.resolve(stack.failedInvocationsQueue.queueArn),
      }),
    ]);
  });

  it('RATE-7: N instances reserved and counted as fetchers (sync + files + photos + N)', () => {
    const props = template.findResources('AWS::Lambda::Function')[fnLogicalId()]?.Properties;
    expect(props?.ReservedConcurrentExecutions).toBe(shards);
    expect(props?.Environment.Variables.INGESTOR_MAX_INSTANCES).toBe(
      String(stack.syncMaxConcurrency + 2 + shards),
    );
  });

  it('cdk-nag AwsSolutions: no unacknowledged finding', () => {
    expect(synthError).toBeUndefined();
  });
});
