import { defineConfig } from 'vitest/config';

// Two projects: the fast suite (unit + integration against local peers) and the slow CDK suite,
// which imports aws-cdk-lib (~10 s) and synthesises templates with esbuild bundling.
export default defineConfig({
  test: {
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Tests that need a third-party corpus outside the repository (test/support/corpora.ts) carry this
    // tag; the corpus reporter prints one line when they were skipped.
    tags: [
      { name: 'corpus', description: 'needs a third-party corpus from INGESTOR_CORPORA_DIR or ../shared' },
    ],
    reporters: ['default', './test/support/corpus-reporter.ts'],
    // Issue 25 point 5: mirror ids are keyed; every test process gets a key (and a file for its CLIs).
    setupFiles: ['./test/support/api-id-key.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: ['test/cdk/**', 'test/**/infra.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'cdk',
          include: ['test/cdk/**/*.test.ts', 'test/**/infra.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
