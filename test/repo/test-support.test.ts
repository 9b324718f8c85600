import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';
import { sourceFiles } from '../support/source-files';

/**
 * One shared test-support module (issue 29 item 5): a helper that more than one test folder uses lives
 * in test/support/ (front door test/support/index.ts), so a test folder can change its own files without
 * breaking another folder's tests. A test file imports its own folder and test/support, never another
 * test folder; the benches reach test code only through test/support. Static imports, re-exports and
 * dynamic imports are all followed by their path.
 */
const TEST = path.join(repoRoot, 'test');
const SUPPORT = path.join(TEST, 'support');
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"]+)\1/g;

const TEST_FOLDERS = readdirSync(TEST, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

/** The test folder a path lies in (`fetch` for test/fetch/behaviours/x.ts), else undefined. */
function testFolderOf(target: string): string | undefined {
  const rel = path.relative(TEST, target);
  if (rel.startsWith('..') || path.isAbsolute(rel) || !rel.includes(path.sep)) return undefined;
  const folder = rel.split(path.sep)[0] as string;
  return TEST_FOLDERS.includes(folder) ? folder : undefined;
}

/**
 * The text without its double-quoted strings: the repository tests carry import lines as data
 * (`"import … from '../store/x';"`), and code in this house quotes its specifiers with single quotes.
 */
const codeOf = (text: string) => text.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');

/** Specifiers of `text` (the file `file`) that reach into a test folder other than its own and support. */
function crossFolderImports(file: string, text: string): string[] {
  const own = testFolderOf(file);
  return [...codeOf(text).matchAll(SPECIFIER)]
    .map((m) => m[2] as string)
    .filter((spec) => spec.startsWith('.'))
    .filter((spec) => {
      const folder = testFolderOf(path.resolve(path.dirname(file), spec));
      return folder !== undefined && folder !== own && folder !== 'support';
    });
}

/**
 * Modules of test/support that the front door leaves out on purpose (its comment says why): aws-cdk-lib
 * is slow to load, the corpus helpers are found by path (.ci/run), and vitest or node load the rest.
 */
const BY_PATH_ONLY = [
  'api-id-key',
  'cdk',
  'corpora',
  'corpus-dirs',
  'corpus-reporter',
  'fake-ris-html',
  'oparl-validator',
  'process-state',
  'ris-site-bed',
  'trace-loads',
];

describe('one shared test-support module', () => {
  it('no test file imports another test folder, only its own and test/support; benches only test/support', () => {
    const files = [...sourceFiles(TEST), ...sourceFiles(path.join(repoRoot, 'bench'))];
    expect(files.length).toBeGreaterThan(200);
    const offenders = files.flatMap((file) =>
      crossFolderImports(file, readFileSync(file, 'utf8')).map(
        (spec) => `${path.relative(repoRoot, file)} → ${spec}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('the check catches another folder’s support and lets the own folder and test/support pass', () => {
    const probe = path.join(TEST, 'takedown', 'probe.test.ts');
    const text = [
      "import { serveApi } from '../mirror-api/support';",
      "export * from '../oparl/mini-council';",
      "const { plan } = await import('../sync/support');",
      "import { startAwsTestbed } from '../support/aws';",
      "import { makeKit } from '../support';",
      "import { seed } from './support';",
      "import { helper } from './nested/helper';",
      "import { syncSource } from '../../shared/oparl/engine';",
      '  "import { quoted } from \'../geo/support\';",',
    ].join('\n');
    expect(crossFolderImports(probe, text)).toEqual([
      '../mirror-api/support',
      '../oparl/mini-council',
      '../sync/support',
    ]);
    const nested = path.join(TEST, 'fetch', 'behaviours', 'probe.test.ts');
    expect(
      crossFolderImports(nested, "import { a } from '../support';\nimport { b } from '../../geo/support';"),
    ).toEqual(['../../geo/support']);
    const bench = path.join(repoRoot, 'bench', 'probe.ts');
    expect(
      crossFolderImports(
        bench,
        "import { a } from '../test/support/aws';\nimport { b } from '../test/preview/support';",
      ),
    ).toEqual(['../test/preview/support']);
  });

  it('the front door re-exports every module of test/support but the ones it names as by-path only', () => {
    const index = readFileSync(path.join(SUPPORT, 'index.ts'), 'utf8');
    const reExported = [...index.matchAll(/^export \*(?: as \w+)? from '\.\/([^']+)';$/gm)].map((m) => m[1]);
    const modules = readdirSync(SUPPORT, { withFileTypes: true })
      .filter(
        (e) => (e.isFile() && /\.[cm]?ts$|\.cjs$/.test(e.name)) || (e.isDirectory() && e.name !== 'tls'),
      )
      .map((e) => e.name.replace(/\.[cm]?[jt]s$/, ''))
      .filter((name) => name !== 'index' && !name.endsWith('.test'));
    expect(modules.length).toBeGreaterThan(25);
    expect(modules.filter((m) => !reExported.includes(m) && !BY_PATH_ONLY.includes(m))).toEqual([]);
    expect(reExported.filter((m) => BY_PATH_ONLY.includes(m as string))).toEqual([]);
  });
});
