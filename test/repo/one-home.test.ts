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

/**
 * Issue 29 item 4: words that were declared twice with different shapes or meanings, each now with one
 * home — the lower layer keeps the word (the fetcher's `HostSlots` port and wall `Clock`; the schedule's
 * `Instant`), the other meaning got its own name (`PacedSlots`, `SlotClock`, robots' `EpochOrDate`, the
 * engine's `CursorStart`).
 */
const ONE_HOME: Record<string, string> = {
  HostSlots: path.join('shared', 'fetch'),
  Clock: path.join('shared', 'fetch'),
  Instant: path.join('shared', 'schedule'),
  RunStart: path.join('shared', 'sync'),
};

const EXPORTED_TYPE = /^\s*export\s+(?:type|interface)\s+([A-Za-z0-9_]+)/gm;

describe('one home per word', () => {
  it.each(SHARED_WORDS)('%s is declared once, in shared/schedule', (word) => {
    const found = declarations(word);
    expect(found).toHaveLength(1);
    expect(found[0]?.startsWith(HOME)).toBe(true);
  });

  it.each(Object.entries(ONE_HOME))('%s is declared once, in %s', (word, home) => {
    const found = declarations(word);
    expect(found).toHaveLength(1);
    expect(found[0]?.startsWith(home)).toBe(true);
  });

  it('no exported type or interface name of shared/ is declared in two files', () => {
    const homes = new Map<string, string[]>();
    for (const file of sourceFiles(path.join(repoRoot, 'shared'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(EXPORTED_TYPE)) {
        const name = match[1] as string;
        homes.set(name, [...(homes.get(name) ?? []), path.relative(repoRoot, file)]);
      }
    }
    const twice = [...homes]
      .filter(([, files]) => files.length > 1)
      .map(([name, files]) => `${name}: ${files.join(', ')}`);
    expect(twice).toEqual([]);
  });
});
