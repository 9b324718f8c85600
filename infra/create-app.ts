import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { resolveSettings } from './settings';
import { IngestorStack } from './stack';

export const STACK_NAME = 'MandariIngestor';

/**
 * The app as `cdk synth` / `cdk deploy` run it (infra/app.ts) and as the nag test synthesises it:
 * one stack, settings from context / environment, and the AwsSolutions checks as a validation plugin,
 * so any unacknowledged finding fails synthesis.
 */
export function createApp(props: AppProps = {}): { app: App; stack: IngestorStack } {
  const app = new App(props);
  const stack = new IngestorStack(app, STACK_NAME, {
    description: 'mandari ingestor: polite mirror of council information systems (OParl / RIS)',
    // Explicit so synth works offline without credentials; deploy uses the caller's account/region.
    env: {
      account: process.env.CDK_DEFAULT_ACCOUNT ?? '000000000000',
      region: process.env.CDK_DEFAULT_REGION ?? 'eu-central-1',
    },
    ...resolveSettings((key) => app.node.tryGetContext(key)),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
