import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/ingestor-function';

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
