// One visible line when third-party corpora are missing (test/support/corpora.ts): which ones, where
// they were looked for, and how many tests tagged `corpus` were skipped — so a clone without them
// passes, and says what it did not test.
import type { Reporter, TestModule } from 'vitest/node';
import { ALL_CORPORA, CORPUS_TAG, corporaDir } from './corpus-dirs';

export default class CorpusReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const missing = ALL_CORPORA.map((c) => c()).filter((c) => !c.present);
    if (missing.length === 0) return;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        if (test.tags.includes(CORPUS_TAG) && test.result().state === 'skipped') skipped++;
      }
    }
    // A project that has no corpus tests (the CDK project) has nothing to report: no "0 skipped" line.
    if (skipped === 0) return;
    const names = missing.map((c) => c.name).join(', ');
    process.stdout.write(
      `\nCorpora not found in ${corporaDir()} (set INGESTOR_CORPORA_DIR): ${names} — ${skipped} corpus tests skipped; every other test ran.\n`,
    );
  }
}
