import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../infra/create-app';
import type { IngestorStack } from '../../infra/stack';
import { cdkJsonContext, NO_BUNDLING, removeTempOutdirs, tempOutdir } from '../support/cdk';

/** One violation as CDK's validation report (cdk.out/validation-report.json) records it. */
interface Finding {
  plugin: string;
  rule: string;
  severity: string;
  paths: string[];
}

interface NagRun {
  /** Synthesis throws when a validation plugin reports anything (errors and warnings alike). */
  error: Error | undefined;
  findings: Finding[];
}

/**
 * Synthesises the app exactly as infra/app.ts builds it (AwsSolutions checks registered as a CDK
 * validation plugin) and collects every unacknowledged finding from the validation report. cdk-nag 3
 * leaves acknowledged findings out, so whatever is listed here is unacknowledged.
 */
function synthWithNag(options: { bundling: boolean; mutate?: (stack: IngestorStack) => void }): NagRun {
  const outdir = tempOutdir('nag');
  // With the Upstash URL a deployer passes: without it the stack's own placeholder warning is (rightly)
  // in the validation report too (@aws-cdk/core:annotationsInValidationReport).
  const context = {
    ...cdkJsonContext(),
    ...(options.bundling ? {} : NO_BUNDLING),
    upstashRestUrl: 'https://eu1-test-db.upstash.io',
  };
  const { app, stack } = createApp({ outdir, context });
  options.mutate?.(stack);
  let error: Error | undefined;
  try {
    app.synth();
  } catch (e) {
    error = e as Error;
  }
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
    pluginReports: {
      pluginName: string;
      violations: { ruleName: string; severity: string; violatingConstructs: { constructPath: string }[] }[];
    }[];
  };
  const findings = report.pluginReports.flatMap((plugin) =>
    plugin.violations.map((v) => ({
      plugin: plugin.pluginName,
      rule: v.ruleName,
      severity: v.severity,
      paths: v.violatingConstructs.map((c) => c.constructPath),
    })),
  );
  return { error, findings };
}

describe('cdk-nag AwsSolutions', () => {
  let run: NagRun;
  beforeAll(() => {
    run = synthWithNag({ bundling: true });
  });
  afterAll(removeTempOutdirs);

  it('the app synthesises with zero unacknowledged errors or warnings', () => {
    expect(run.findings).toEqual([]);
    expect(run.error).toBeUndefined();
  });

  // The same collection must see a finding when there is one, or the test above proves nothing.
  it('control: an unlogged, TLS-optional bucket is reported (S1, S10) and fails synthesis', () => {
    const control = synthWithNag({
      bundling: false,
      mutate: (stack) => {
        new Bucket(stack, 'ControlBucket');
      },
    });
    const rules = control.findings.filter((f) => f.plugin === 'AwsSolutions').map((f) => f.rule);
    expect(rules).toEqual(expect.arrayContaining(['AwsSolutions-S1', 'AwsSolutions-S10']));
    expect(control.findings.every((f) => f.paths.every((p) => p.includes('ControlBucket')))).toBe(true);
    expect(control.error?.message).toMatch(/AwsSolutions-S1/);
  });
});
