import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
/** `export const X`, `export function X`, `export class X` — the exported values. */
const EXPORTED_VALUE =
  /^\s*export\s+(?:const|let|(?:async\s+)?function\*?|(?:abstract\s+)?class)\s+([A-Za-z0-9_]+)/gm;

/**
 * Exported values of shared/ declared in two files (issue 29 item 4): a ratchet — the list may only
 * shrink, a new pair fails. `systemClock` was one: the fetcher's `Date.now()` kept the name, the slots'
 * steady clock with its abortable sleep became `systemSlotClock`. Given one home since: FULL-7's
 * incremental-only days (shared/schedule), RATE-8's Retry-After cap (shared/fetch), `hostOf` (shared/util
 * `hostKeyOrEmpty`, re-exported under the old name), `isMissingObject` and `listSk` (shared/store); in
 * session 13 the last three: `DAY_MS` (with `HOUR_MS`, `MINUTE_MS`) in shared/util/time.ts (schedule's
 * calendar, documents' constants and the rule pages import it), the scraper's unused `urlKey` alias of
 * the store's `scrapeUrlKey` gone (OParl's 16-hex validator key keeps the name; no stored value changed),
 * and the slot store's `HostSlotTimeoutError` gone with `reserveHostSlot`, which no production code
 * called — HOST_SLOT_TIMEOUT is the fetcher's error alone. The list is empty: a pair fails.
 */
const KNOWN_VALUE_PAIRS = new Set<string>([]);

/** Names declared by `pattern` in more than one file of `files`, with the files. */
function declaredTwice(files: string[], pattern: RegExp): Map<string, string[]> {
  const homes = new Map<string, string[]>();
  for (const file of files) {
    const seen = new Set<string>();
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
      const name = match[1] as string;
      if (seen.has(name)) continue;
      seen.add(name);
      homes.set(name, [...(homes.get(name) ?? []), path.relative(repoRoot, file)]);
    }
  }
  return new Map([...homes].filter(([, where]) => where.length > 1));
}

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

  it("systemClock: one exported value of that name in shared/ (the fetcher's wall clock)", () => {
    const found = sourceFiles(path.join(repoRoot, 'shared'))
      .filter((file) => /^\s*export\s+const\s+systemClock\b/m.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(repoRoot, file));
    expect(found).toEqual([path.join('shared', 'fetch', 'ports.ts')]);
  });

  it('no new exported value name of shared/ is declared in two files', () => {
    const twice = [...declaredTwice(sourceFiles(path.join(repoRoot, 'shared')), EXPORTED_VALUE)]
      .filter(([name]) => !KNOWN_VALUE_PAIRS.has(name))
      .map(([name, files]) => `${name}: ${files.join(', ')}`);
    expect(twice).toEqual([]);
  });

  it('the value check fails on a value exported from two files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'one-home-'));
    const a = path.join(dir, 'a.ts');
    const b = path.join(dir, 'b.ts');
    writeFileSync(
      a,
      'export const systemClock = { now: () => Date.now() };\nexport async function once() {}\n',
    );
    writeFileSync(b, 'export const systemClock = { now: () => 0 };\nexport class Once {}\n');
    try {
      expect([...declaredTwice([a, b], EXPORTED_VALUE).keys()]).toEqual(['systemClock']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
