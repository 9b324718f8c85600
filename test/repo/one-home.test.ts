import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';
import { sourceFiles } from '../support/source-files';

/**
 * Issue 29 item 4, "one meaning per word": the words the planner and the engine share are declared
 * once, in the lower layer (`schedule`, layer 4; the engine, layer 8, imports them). A second
 * declaration would let the two drift apart (a new failure kind the planner never branches on).
 */
const SHARED_WORDS = ['SyncKind', 'FailureKind', 'FirstTimePauseKind', 'SyncTrigger'];
const HOME = path.join('shared', 'schedule');

function declarations(word: string): string[] {
  // `type W =` or `interface W`, not an import or a re-export naming it.
  const declared = new RegExp(`^\\s*(?:export\\s+)?(?:type\\s+${word}\\s*=|interface\\s+${word}\\b)`, 'm');
  return sourceFiles(path.join(repoRoot, 'shared'))
    .filter((file) => declared.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(repoRoot, file));
}

describe('one home per word', () => {
  it.each(SHARED_WORDS)('%s is declared once, in shared/schedule', (word) => {
    const found = declarations(word);
    expect(found).toHaveLength(1);
    expect(found[0]?.startsWith(HOME)).toBe(true);
  });
});
