import { App, type CfnElement, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestorFunction } from '../../infra/ingestor-function';
import { IngestorStack } from '../../infra/stack';
import { cdkJsonContext, NO_BUNDLING, removeTempOutdirs, TEST_ENV, tempOutdir } from '../support/cdk';

/**
 * The geo function in the stack (issue 17, OTH-4): a daily Europe/Berlin schedule, counted as a fetcher
 * (RATE-7), least-privilege grants (geo/ written, mirror/ read, no robots/ — OTH-3), cdk-nag clean.
 * Wiring only (no bundling).
 */
describe('CDK: geo function', () => {
  let stack: IngestorStack;
  let template: Template;
  let synthError: unknown;

  beforeAll(() => {
    const app = new App({ outdir: tempOutdir('geo'), context: { ...cdkJsonContext(), ...NO_BUNDLING } });
    stack = new IngestorStack(app, 'Geo', {
      env: TEST_ENV,
      documentFunctions: false,
      previewFunction: false,
      // The other fetching function is left out so the count below is the geo function's alone.
      broadcastFunction: false,
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    template = Template.fromStack(stack);
    try {
      app.synth();
    } catch (error) {
      synthError = error;
    }
  }, 120_000);
  afterAll(removeTempOutdirs);

  const geo = () => stack.node.findChild('Geo') as IngestorFunction;
  const roleId = () => stack.getLogicalId(geo().role.node.defaultChild as CfnElement);

  it('OTH-4: runs daily at 04:20 Europe/Berlin', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(20 4 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      Target: Match.objectLike({ Arn: stack.resolve(geo().fn.functionArn) }),
    });
  });

  it('counts as a fetcher (RATE-7: sync instances + 1) and may read the Upstash secret (OTH-2: the shared slots)', () => {
    const props =
      template.findResources('AWS::Lambda::Function')[
        stack.getLogicalId(geo().fn.node.defaultChild as CfnElement)
      ]?.Properties;
    expect(props?.Environment.Variables.INGESTOR_MAX_INSTANCES).toBe(String(stack.syncMaxConcurrency + 1));
    const statements = JSON.stringify(
      Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId()))
        .map((p) => p.Properties.PolicyDocument.Statement),
    );
    expect(statements).toContain('secretsmanager:GetSecretValue');
  });

  it('least privilege: writes geo/ only, reads mirror/, no robots/ (OTH-3), never writes Sources or Documents', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId()))
      .flatMap(
        (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      );
    const text = JSON.stringify(statements);
    expect(text).toContain('/geo/*');
    expect(text).toContain('/mirror/*');
    expect(text).not.toContain('/robots/*');
    const writesOn = (fragment: string) =>
      statements.some(
        (s) =>
          JSON.stringify(s.Resource).includes(fragment) &&
          [s.Action].flat().some((a) => /Put|Delete|Update|Write/.test(a)),
      );
    expect(writesOn('/geo/*')).toBe(true);
    expect(writesOn('/mirror/*')).toBe(false);
    expect(writesOn(stack.getLogicalId(stack.tables.Sources.node.defaultChild as CfnElement))).toBe(false);
    expect(text).not.toContain(stack.getLogicalId(stack.tables.Documents.node.defaultChild as CfnElement));
  });

  it('cdk-nag AwsSolutions: no unacknowledged finding', () => {
    expect(synthError).toBeUndefined();
  });
});
