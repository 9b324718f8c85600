// Test helpers for suites that need a third-party corpus; where the corpora are is corpus-dirs.ts (kept
// free of vitest, so the corpus reporter can load it in the main process).
import { describe, it } from 'vitest';
import { CORPUS_TAG, type Corpus } from './corpus-dirs';

export * from './corpus-dirs';

/** Options for a suite or test that needs a corpus (`it.skipIf(…).each(…)(name, CORPUS_OPTIONS, fn)`). */
export const CORPUS_OPTIONS = { tags: [CORPUS_TAG] };

/** `describe` for suites that need `corpus`: tagged, and skipped when the corpus is absent. */
export function corpusDescribe(corpus: Corpus): (name: string, body: () => void) => void {
  return (name, body) => describe.skipIf(!corpus.present)(name, CORPUS_OPTIONS, body);
}

/** `it` for a test that needs `corpus`: tagged, and skipped when the corpus is absent. */
export function corpusIt(corpus: Corpus): (name: string, body: () => unknown) => void {
  return (name, body) => it.skipIf(!corpus.present)(name, CORPUS_OPTIONS, body);
}
