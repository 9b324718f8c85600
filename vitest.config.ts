import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Three projects: the fast suite (unit + integration against local peers) in two parts, and the slow CDK
// suite, which imports aws-cdk-lib (~10 s) and synthesises templates with esbuild bundling.
// `npm run test:unit` runs both parts of the fast suite (`--project default --project default-shared`).

/**
 * Test folders whose files share one module context (`isolate: false`): their tests keep no state in
 * modules or in the process (no spies, stubbed env, fake timers, installed keys or cached function
 * wiring left behind) and close what they start, so running them in one process changes nothing but
 * the time. A folder joins when its files pass together with `--isolate=false`; the rest keep a
 * process per file. What a process keeps for its life in production starts afresh with every file
 * (test/support/process-state.ts): the local host ledger, the parsed environment, Powertools' secrets
 * provider (its SDK client keeps the endpoint of the file that built it). The failures seen while
 * checking the folders failed alike with a process per file at load 20 on 2 cores — real-time bounds:
 * slots' re-timed slot, e2e's run deadline, documents' text-bounds event-loop gap and ladder — the
 * load's, not the sharing's. sync and planner joined last (session 12: no spies, env or timers of
 * theirs outlive a file; their 16 files, 36 tests green together at load 25 — 311 s → 165 s wall,
 * 80 s → 35 s of CPU).
 */
const SHARED_CONTEXT_FOLDERS = [
  'bench-fleet',
  'broadcasts',
  'changes',
  'cli',
  'config',
  'cost',
  'docs',
  'documents',
  'e2e',
  'engine',
  'fake-council',
  'fetch',
  'geo',
  'hosts',
  'mirror',
  'mirror-api',
  'net',
  'observability',
  'onboarding',
  'oparl',
  'other-fetch',
  'pace',
  'planner',
  'preview',
  'repo',
  'robots',
  'schedule',
  'scraper',
  'slots',
  'store',
  'support',
  'sync',
  'takedown',
  'util',
];

/**
 * Files of those folders that keep a process of their own: text-bounds measures the main event loop's
 * longest pause and the text worker's memory bounds (DOC-2), and a process holding other files' heap
 * adds garbage-collection pauses of its own (738 ms against the 500 ms bound, once, at load 20).
 */
const OWN_PROCESS_FILES = ['test/documents/text-bounds.test.ts'];

/** What the default project leaves to the shared one in `folder`: all of it but OWN_PROCESS_FILES. */
function sharedFilesOf(folder: string): string[] {
  const own = OWN_PROCESS_FILES.filter((f) => f.startsWith(`test/${folder}/`));
  if (own.length === 0) return [`test/${folder}/**`];
  return readdirSync(new URL(`./test/${folder}/`, import.meta.url), { recursive: true, encoding: 'utf8' })
    .map((f) => `test/${folder}/${f}`)
    .filter((f) => f.endsWith('.test.ts') && !own.includes(f));
}

/**
 * Test files at once. Vitest's default (cores − 1) is one on the 2-core CI machine, yet much of the fast
 * suite waits rather than computes: paced requests 1 s apart (RATE-1), local peers answering. Two
 * workers there overlap one file's waits with another's work; bigger machines keep vitest's default.
 */
const MAX_WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    maxWorkers: MAX_WORKERS,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Tests that need a third-party corpus outside the repository (test/support/corpora.ts) carry this
    // tag; the corpus reporter prints one line when they were skipped.
    tags: [
      { name: 'corpus', description: 'needs a third-party corpus from INGESTOR_CORPORA_DIR or ../shared' },
    ],
    reporters: ['default', './test/support/corpus-reporter.ts'],
    // Issue 25 point 5: mirror ids are keyed; every test process gets a key (and a file for its CLIs).
    // Issue 29 item 5: each file starts with a process state of its own (files may share a process).
    setupFiles: ['./test/support/api-id-key.ts', './test/support/process-state.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: ['test/cdk/**', 'test/**/infra.test.ts', ...SHARED_CONTEXT_FOLDERS.flatMap(sharedFilesOf)],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'default-shared',
          include: SHARED_CONTEXT_FOLDERS.map((f) => `test/${f}/**/*.test.ts`),
          exclude: ['test/**/infra.test.ts', ...OWN_PROCESS_FILES],
          // A worker process runs file after file with the modules it already loaded: a fresh process
          // per file costs ≈ 1.2 s of CPU (vitest, the setup file, the SDK), more than most of these
          // files' tests together (issue 29 item 5).
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'cdk',
          include: ['test/cdk/**/*.test.ts', 'test/**/infra.test.ts'],
          // aws-cdk-lib and cdk-nag take ≈ 10 s of CPU to import; a process per file paid that eleven
          // times. The CDK tests keep no state in modules (each builds its own App; the one env variable
          // a test clears is put back), so each worker imports them once (issue 29 item 5).
          isolate: false,
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
