import { App, type AppProps, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULT_STACK_NAME } from '../shared/config';
import { resolveSettings } from './settings';
import { IngestorStack } from './stack';

export const DEFAULT_REGION = 'eu-central-1';

/** Tags on every resource of the app (cost allocation, ownership); `owner` only when given. */
export const TAG_CONTEXT_KEYS = { project: 'tagProject', component: 'tagComponent', owner: 'owner' } as const;
export const DEFAULT_TAGS = { project: 'mandari', component: 'ingestor' } as const;

/**
 * The app as `cdk synth` / `cdk deploy` run it (infra/app.ts) and as the nag test synthesises it:
 * one stack, settings from context / environment, tags on everything, and the AwsSolutions checks as a
 * validation plugin, so any unacknowledged finding fails synthesis.
 */
export function createApp(props: AppProps = {}): { app: App; stack: IngestorStack } {
  const app = new App(props);
  const context = (key: string): string | undefined => {
    const value = app.node.tryGetContext(key);
    return value === undefined || value === null || String(value).trim() === '' ? undefined : String(value);
  };
  const stack = new IngestorStack(app, DEFAULT_STACK_NAME, {
    description: 'mandari ingestor: polite mirror of council information systems (OParl / RIS)',
    // Account-agnostic: synth needs no credentials and invents no account; `cdk deploy` deploys into
    // the caller's account. The region is concrete (context `region`, the CLI's default, eu-central-1).
    env: {
      ...(process.env.CDK_DEFAULT_ACCOUNT ? { account: process.env.CDK_DEFAULT_ACCOUNT } : {}),
      region: context('region') ?? process.env.CDK_DEFAULT_REGION ?? DEFAULT_REGION,
    },
    ...resolveSettings((key) => app.node.tryGetContext(key)),
  });
  Tags.of(app).add('project', context(TAG_CONTEXT_KEYS.project) ?? DEFAULT_TAGS.project);
  Tags.of(app).add('component', context(TAG_CONTEXT_KEYS.component) ?? DEFAULT_TAGS.component);
  const owner = context(TAG_CONTEXT_KEYS.owner);
  if (owner !== undefined) Tags.of(app).add('owner', owner);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
