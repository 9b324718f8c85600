import type { CfnElement } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestorFunction } from '../../infra/ingestor-function';
import type { IngestorStack } from '../../infra/stack';
import { removeTempOutdirs, synthWithNag } from '../support/cdk';

/**
 * The three document functions in the stack (issue 6): Berlin schedules (hourly, hourly, Mondays
 * 03:00 — PHO-1), one run at a time (schedules and leases; reserved concurrency only with -c reservedConcurrency=true), counted in INGESTOR_MAX_INSTANCES (RATE-7), grants limited to
 * their prefixes, cdk-nag clean. Wiring only (no bundling).
 */
describe('CDK: files, deletion-check and photos functions', () => {
  let stack: IngestorStack;
  let template: Template;
  let synthError: unknown;

  beforeAll(() => {
    ({ stack, template, synthError } = synthWithNag('documents', 'Documents', {
      documentFunctions: true,
      previewFunction: false,
      geoFunction: false,
      broadcastFunction: false,
    }));
  }, 120_000);
  afterAll(removeTempOutdirs);

  const fnOf = (id: string): IngestorFunction => stack.node.findChild(id) as IngestorFunction;
  const logicalId = (fn: IngestorFunction) => stack.getLogicalId(fn.fn.node.defaultChild as CfnElement);

  it('schedules: files and deletion-check hourly, photos Mondays 03:00, all in Europe/Berlin', () => {
    for (const [id, expression] of [
      ['Files', 'cron(5 * * * ? *)'],
      ['DeletionCheck', 'cron(35 * * * ? *)'],
      ['Photos', 'cron(0 3 ? * MON *)'],
    ] as const) {
      template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: expression,
        ScheduleExpressionTimezone: 'Europe/Berlin',
        Target: Match.objectLike({ Arn: stack.resolve(fnOf(id).fn.functionArn) }),
      });
    }
  });

  it('one run each (no reservation by default: schedules and leases keep it), counted as fetchers (RATE-7: sync instances + 3)', () => {
    for (const id of ['Files', 'DeletionCheck', 'Photos']) {
      const props = template.findResources('AWS::Lambda::Function')[logicalId(fnOf(id))]?.Properties;
      expect(props?.ReservedConcurrentExecutions).toBeUndefined();
      expect(props?.Environment.Variables.INGESTOR_MAX_INSTANCES).toBe(String(stack.syncMaxConcurrency + 3));
      expect(props?.Handler).toBe('index.handler');
    }
  });

  it('grants: files/ and text/ (and the shared robots/ state) for the cache and the deletion check', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const statementsOf = (id: string) =>
      policies
        .filter((p) =>
          JSON.stringify(p.Properties.Roles).includes(
            stack.getLogicalId(fnOf(id).role.node.defaultChild as CfnElement),
          ),
        )
        .flatMap(
          (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
        );
    const text = JSON.stringify(statementsOf('Files'));
    expect(text).toContain('/files/*');
    expect(text).toContain('/text/*');
    expect(text).toContain('/robots/*');
    expect(text).not.toContain('/mirror/*');
    expect(JSON.stringify(statementsOf('Photos'))).toContain('/mirror/*');
  });

  it('cdk-nag AwsSolutions: no unacknowledged finding', () => {
    expect(synthError).toBeUndefined();
  });
});
