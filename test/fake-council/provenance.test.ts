import { expect, it } from 'vitest';
import { COPIED_VALUES } from '../../demo/vocabulary';
import { corpusDescribe, jsonPointer, oparlExamples, readOparlExample } from '../support/corpora';

// The demo dataset carries copies of fixture values (data/SOURCE.md); each must still be what the
// fixture says, so the attribution stays true. Skipped without the OParl examples corpus.
corpusDescribe(oparlExamples())('fake council: copied fixture values', () => {
  it('copies something from each licensed source', () => {
    expect(new Set(COPIED_VALUES.map((v) => v.dataFile))).toEqual(
      new Set(['oparl-spec-examples.json', 'meine-stadt-transparent.json']),
    );
  });

  it.each(COPIED_VALUES.map((v) => [`${v.fixture}#${v.pointer}`, v] as const))('%s', (_name, copied) => {
    expect(jsonPointer(readOparlExample(copied.fixture), copied.pointer)).toEqual(copied.value);
  });
});
