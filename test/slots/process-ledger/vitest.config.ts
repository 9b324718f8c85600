import { defineConfig } from 'vitest/config';
import base from '../../../vitest.config';

/**
 * The child run of test/slots/process-ledger.test.ts: two files in one worker process with one module
 * context (`isolate: false`, one worker), as the shared-context projects run them — once with the
 * suite's own setup files, once without the per-file reset of the process state (the control).
 */
const SETUP = base.test?.setupFiles ?? [];
const setupFiles = Array.isArray(SETUP) ? SETUP : [SETUP];
const RESET = './test/support/process-state.ts';

const side = (name: string, files: string[]) => ({
  test: {
    name,
    include: ['test/slots/process-ledger/*.side.ts'],
    setupFiles: files,
    isolate: false,
    maxWorkers: 1,
    env: { ...base.test?.env, LEDGER_SCOPE_PROJECT: name },
  },
});

export default defineConfig({
  test: {
    maxWorkers: 1,
    fileParallelism: false,
    projects: [
      side('with-reset', setupFiles),
      side(
        'without-reset',
        setupFiles.filter((f) => f !== RESET),
      ),
    ],
  },
});
