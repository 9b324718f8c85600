import { App, type CfnElement, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestorFunction } from '../../infra/ingestor-function';
import { IngestorStack } from '../../infra/stack';
import { cdkJsonContext, NO_BUNDLING, removeTempOutdirs, TEST_ENV, tempOutdir } from '../cdk/support';

/**
 * The preview function in the stack (issue 9): a public Function URL streaming responses, counted
 * as a fetcher (RATE-7), grants limited to what PRV-1…PRV-4 need, cdk-nag clean. Wiring only.
 */
describe('CDK: preview function', () => {
  let stack: IngestorStack;
  let template: Template;
  let synthError: unknown;

  beforeAll(() => {
    const app = new App({
      outdir: tempOutdir('preview'),
      context: { ...cdkJsonContext(), ...NO_BUNDLING, previewFunction: true },
    });
    stack = new IngestorStack(app, 'Preview', { env: TEST_ENV, documentFunctions: false });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    template = Template.fromStack(stack);
    try {
      app.synth();
    } catch (error) {
      synthError = error;
    }
  }, 120_000);
  afterAll(removeTempOutdirs);

  const fn = () => stack.node.findChild('Preview') as IngestorFunction;

  it('PRV: a public Function URL in RESPONSE_STREAM mode on the preview function', () => {
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: Match.anyValue(),
    });
    const id = stack.getLogicalId(fn().fn.node.defaultChild as CfnElement);
    const props = template.findResources('AWS::Lambda::Function')[id]?.Properties;
    expect(props?.ReservedConcurrentExecutions).toBe(10);
    // RATE-7: 4 sync instances + 10 preview instances may fetch at once.
    expect(props?.Environment.Variables.INGESTOR_MAX_INSTANCES).toBe('14');
  });

  it('cdk-nag AwsSolutions: no unacknowledged finding', () => {
    expect(synthError).toBeUndefined();
  });
});
