import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';
import { sourceFiles } from '../support/source-files';

/**
 * Production code never depends on test code: nothing outside test/ and bench/ imports from test/ (the
 * demo council that `npm start` serves lives in demo/ for that reason). Static imports, re-exports and
 * dynamic imports are all followed by their path.
 */
const PRODUCT_FOLDERS = ['cli', 'functions', 'shared', 'infra', 'scripts', 'demo', 'types'];
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"]+)\1/g;

/** Relative specifiers of a file that resolve into test/. */
function importsIntoTest(file: string, text: string, root: string): string[] {
  const testDir = path.join(root, 'test') + path.sep;
  return [...text.matchAll(SPECIFIER)]
    .map((m) => m[2] as string)
    .filter((spec) => spec.startsWith('.'))
    .filter((spec) => `${path.resolve(path.dirname(file), spec)}${path.sep}`.startsWith(testDir));
}

describe('the repository layout', () => {
  it('no file of cli/ functions/ shared/ infra/ scripts/ demo/ types/ imports from test/', () => {
    const files = PRODUCT_FOLDERS.flatMap((f) => sourceFiles(path.join(repoRoot, f)));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      importsIntoTest(file, readFileSync(file, 'utf8'), repoRoot).map(
        (spec) => `${path.relative(repoRoot, file)} → ${spec}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('the check sees every way of importing (static, re-export, dynamic, side effect)', () => {
    const file = path.join(repoRoot, 'cli', 'commands', 'x.ts');
    const text = [
      "import { a } from '../../test/support/aws';",
      "export * from '../../test/support/redis';",
      "const m = await import('../../test/support/tls');",
      "import '../../test/support/upstash-adapter';",
      "import { b } from '../../demo';",
      "import { c } from '../../shared/fetch';",
    ].join('\n');
    expect(importsIntoTest(file, text, repoRoot)).toEqual([
      '../../test/support/aws',
      '../../test/support/redis',
      '../../test/support/tls',
      '../../test/support/upstash-adapter',
    ]);
  });

  it('the demo council is a product part: demo/ exists and npm start serves it', () => {
    const start = readFileSync(path.join(repoRoot, 'cli', 'commands', 'start.ts'), 'utf8');
    expect(start).toMatch(/from '\.\.\/\.\.\/demo'/);
  });
});
