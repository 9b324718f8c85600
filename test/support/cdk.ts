import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PROJECT_ROOT } from '../../infra/ingestor-function';
import { IngestorStack, type IngestorStackProps } from '../../infra/stack';

/**
 * The context the CLI hands the app from cdk.json (feature flags). Tests pass it to `new App()` so the
 * template under test is the one `cdk synth` produces (e.g. minimizePolicies merges statements).
 */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

/** Skips esbuild for every stack: for tests that look at wiring only, not at the bundles. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] } as const;

const outdirs: string[] = [];

/** A fresh cloud-assembly directory under the OS temp dir (never the repository's cdk.out). */
export function tempOutdir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ingestor-cdk-${label}-`));
  outdirs.push(dir);
  return dir;
}

export function removeTempOutdirs(): void {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export const TEST_ENV = { account: '123456789012', region: 'eu-central-1' } as const;

/** A stack synthesised for wiring tests (no bundling) with cdk-nag's AwsSolutions checks attached. */
export interface NaggedStack {
  stack: IngestorStack;
  template: Template;
  /** What `app.synth()` threw — cdk-nag fails the synthesis on an unacknowledged finding. */
  synthError: unknown;
}

export function synthWithNag(
  label: string,
  stackId: string,
  props: IngestorStackProps,
  context: Record<string, unknown> = {},
): NaggedStack {
  const app = new App({
    outdir: tempOutdir(label),
    context: { ...cdkJsonContext(), ...NO_BUNDLING, ...context },
  });
  const stack = new IngestorStack(app, stackId, { env: TEST_ENV, ...props });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const template = Template.fromStack(stack);
  let synthError: unknown;
  try {
    app.synth();
  } catch (error) {
    synthError = error;
  }
  return { stack, template, synthError };
}
