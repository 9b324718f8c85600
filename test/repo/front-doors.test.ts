import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';
import { sourceFiles } from '../support/source-files';

/**
 * Front doors (issue 15): outside a folder of shared/, production code imports only the folder's
 * index.ts (`'../store'`), never a module inside it (`'../store/source-state'`), so a folder can move
 * its insides without breaking its users. Tests may import internals: they test modules.
 * Static imports, re-exports and dynamic imports are followed by their path.
 */
const PRODUCT_FOLDERS = ['shared', 'cli', 'functions', 'infra', 'bench', 'demo', 'scripts'];
const SHARED = path.join(repoRoot, 'shared');
/** Every folder of shared/ — a new folder is enforced from its first file. */
const ENFORCED = readdirSync(SHARED, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"]+)\1/g;

/** The shared/ folder a path lies in (`store` for shared/store/x.ts), or undefined outside shared/. */
function sharedFolderOf(target: string): string | undefined {
  const rel = path.relative(SHARED, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep)[0];
}

/** Specifiers of `text` (the file `file`) that reach past the front door of an enforced folder. */
function backDoors(file: string, text: string, enforced: readonly string[]): string[] {
  const own = sharedFolderOf(file);
  return [...text.matchAll(SPECIFIER)]
    .map((m) => m[2] as string)
    .filter((spec) => spec.startsWith('.'))
    .filter((spec) => {
      const target = path.resolve(path.dirname(file), spec);
      const folder = sharedFolderOf(target);
      if (folder === undefined || folder === own || !enforced.includes(folder)) return false;
      const inner = path.relative(path.join(SHARED, folder), target);
      return inner !== '' && inner !== 'index';
    });
}

describe('front doors of shared/', () => {
  it('every folder of shared/ has an index.ts', () => {
    expect(ENFORCED.length).toBeGreaterThan(20);
    const missing = ENFORCED.filter((f) => !readdirSync(path.join(SHARED, f)).includes('index.ts'));
    expect(missing).toEqual([]);
  });

  it('production code imports an enforced folder of shared/ only through its index.ts', () => {
    const files = PRODUCT_FOLDERS.flatMap((f) => sourceFiles(path.join(repoRoot, f)));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      backDoors(file, readFileSync(file, 'utf8'), ENFORCED).map(
        (spec) => `${path.relative(repoRoot, file)} → ${spec}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('the check catches an inner path and lets the front door and the own folder pass', () => {
    const probe = path.join(SHARED, 'sync', 'probe.ts');
    const text = [
      "import { getSourceState } from '../store/source-state';",
      "import { loadAllSources } from '../store';",
      "import { mapLimit } from '../util/index';",
      "import { runSyncMessage } from './run';",
      "const m = await import('../observability/logger');",
    ].join('\n');
    expect(backDoors(probe, text, ENFORCED)).toEqual(['../store/source-state', '../observability/logger']);
    const cli = path.join(repoRoot, 'cli', 'probe.ts');
    expect(backDoors(cli, "export { x } from '../shared/planner/tick';", ENFORCED)).toEqual([
      '../shared/planner/tick',
    ]);
  });
});
