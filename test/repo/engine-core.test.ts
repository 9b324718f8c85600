import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';

/**
 * shared/engine is the core every source kind builds on (issue 15): it never depends on a kind, so a
 * third kind uses it without copying and without a cycle. Relative specifiers of every engine file are
 * resolved and must stay out of shared/oparl and shared/scraper.
 */
const ENGINE = path.join(repoRoot, 'shared', 'engine');
const KINDS = ['oparl', 'scraper'].map((k) => path.join(repoRoot, 'shared', k) + path.sep);
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\1/g;

/** Relative specifiers of `text` (the file `file`) that resolve into a source kind's folder. */
function kindSpecifiers(file: string, text: string): string[] {
  return [...text.matchAll(SPECIFIER)]
    .map((m) => m[2] as string)
    .filter((spec) => spec.startsWith('.'))
    .filter((spec) => {
      const target = `${path.resolve(path.dirname(file), spec)}${path.sep}`;
      return KINDS.some((k) => target.startsWith(k));
    });
}

describe('the engine core', () => {
  it('no file of shared/engine imports a source kind (shared/oparl, shared/scraper)', () => {
    const files = readdirSync(ENGINE)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(ENGINE, f));
    expect(files.length).toBeGreaterThan(4);
    const offenders = files.flatMap((file) =>
      kindSpecifiers(file, readFileSync(file, 'utf8')).map(
        (spec) => `${path.relative(repoRoot, file)} → ${spec}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('the check catches an import of a kind', () => {
    const probe = path.join(ENGINE, 'probe.ts');
    const text = "import type { SyncCursor } from '../oparl/cursor';\nimport { x } from '../scraper';\n";
    const found = kindSpecifiers(probe, text);
    expect(found).toEqual(['../oparl/cursor', '../scraper']);
  });
});
