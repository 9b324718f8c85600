import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type FunctionShape,
  functionShapes,
  LONG_FUNCTION_LINES,
  MANY_POSITIONAL_PARAMETERS,
} from '../../scripts/shapes';
import { repoRoot } from '../support/corpora';

/**
 * Issue 29 item 4, "names and shapes": a ratchet on `scripts/shapes.ts`. The production functions of
 * LONG_FUNCTION_LINES+ lines and those with MANY_POSITIONAL_PARAMETERS+ positional parameters that were
 * left when this check was added (session 12: 18 → 9 long, 9 → 4 wide; session 13: 3 long, none wide —
 * `decideSource` and `cadenceIntervalMinutes` take context objects, the stack's and the observability
 * construct's constructors are lists of named builders) are listed by file and name; a new one fails —
 * split it into named steps, or pass a context object. The lists may only shrink: a function that got
 * shorter or narrower is taken off (it is not an error to list one that is gone, so branches that split
 * different functions merge without a conflict here). The three left are the rule book's data, not
 * steps: `bookSections` is the table of every rule's text, `renderRulesPage` the German page's text in
 * reading order, `collectRulesConstants` one object literal of the code's numbers — cutting them would
 * scatter one document over helpers without a decision among them.
 */
const KNOWN_LONG = new Set([
  'shared/docs/rules-book.ts#bookSections',
  'shared/docs/rules-page.ts#renderRulesPage',
  'shared/docs/rules-constants.ts#collectRulesConstants',
]);
const KNOWN_WIDE = new Set<string>([]);

const where = (s: FunctionShape) => `${s.file.split(path.sep).join('/')}#${s.name}`;
const longOnes = (shapes: FunctionShape[]) => shapes.filter((s) => s.lines >= LONG_FUNCTION_LINES);
const wideOnes = (shapes: FunctionShape[]) =>
  shapes.filter((s) => s.parameters >= MANY_POSITIONAL_PARAMETERS);

describe('issue 29 item 4: function shapes only shrink (scripts/shapes.ts)', () => {
  const shapes = functionShapes(repoRoot);

  it(`no new production function of ${LONG_FUNCTION_LINES}+ lines`, () => {
    const added = longOnes(shapes)
      .filter((s) => !KNOWN_LONG.has(where(s)))
      .map((s) => `${where(s)} (${s.lines} lines, line ${s.line})`);
    expect(added).toEqual([]);
  });

  it(`no new production function with ${MANY_POSITIONAL_PARAMETERS}+ positional parameters`, () => {
    const added = wideOnes(shapes)
      .filter((s) => !KNOWN_WIDE.has(where(s)))
      .map((s) => `${where(s)} (${s.parameters} parameters, line ${s.line})`);
    expect(added).toEqual([]);
  });

  it('the check sees a long function and a wide one, and counts a context object as one parameter', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'shapes-'));
    try {
      for (const folder of ['shared', 'functions', 'cli', 'infra']) mkdirSync(path.join(root, folder));
      const body = Array.from({ length: LONG_FUNCTION_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
      writeFileSync(
        path.join(root, 'shared', 'sample.ts'),
        [
          `export function long(): void {\n${body}\n}`,
          'export function wide(a: 1, b: 2, c: 3, d: 4, e: 5): void {}',
          'export function narrow(ctx: { a: 1; b: 2; c: 3; d: 4; e: 5 }): void {}',
        ].join('\n'),
      );
      const found = functionShapes(root);
      expect(longOnes(found).map(where)).toEqual(['shared/sample.ts#long']);
      expect(wideOnes(found).map(where)).toEqual(['shared/sample.ts#wide']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
