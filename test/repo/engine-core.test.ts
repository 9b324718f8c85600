import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';
import { sourceFiles } from '../support/source-files';

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

  it("both kinds write the mirror through the core's MirrorWriter and repeat no step of its write loop", () => {
    for (const kind of ['oparl', 'scraper']) {
      const files = sourceFiles(path.join(repoRoot, 'shared', kind)).map((file) => ({
        file: path.relative(repoRoot, file),
        text: readFileSync(file, 'utf8'),
      }));
      expect(files.length).toBeGreaterThan(5);
      // The writer comes from the engine's front door and is used to write pages.
      expect(files.some(({ text }) => usesMirrorWriter(text))).toBe(true);
      const offenders = files.flatMap(({ file, text }) =>
        writeLoopSteps(text).map((step) => `${file}: ${step}`),
      );
      expect(offenders).toEqual([]);
    }
  });

  it('the checks catch a kind that writes the mirror itself', () => {
    const own = [
      'const entry = await this.takedowns.commit(() => this.mirror.writeLive(write));',
      'await this.takedowns.afterCommit(created);',
      'const kind = classifyChange(previous, incoming, { embedded: false });',
    ].join('\n');
    expect(writeLoopSteps(own)).toEqual(['.commit(', 'writeLive', '.afterCommit(', 'classifyChange']);
    expect(usesMirrorWriter(own)).toBe(false);
    const shared = "import { MirrorWriter } from '../engine';\nawait this.writer.writePage({ objects });";
    expect(usesMirrorWriter(shared)).toBe(true);
    expect(writeLoopSteps(shared)).toEqual([]);
  });
});

/**
 * Steps of the mirror write loop that belong to shared/engine/write.ts alone: the takedown guard's
 * commit and re-check (OPT-5), the mirror's writes, the change classification, the Documents write.
 */
const WRITE_LOOP_STEPS =
  /\.(?:commit|afterCommit|meet)\(|\b(?:writeLive|writeTombstone|classifyChange|recordDocument)\b/g;

function writeLoopSteps(text: string): string[] {
  return [...text.matchAll(WRITE_LOOP_STEPS)].map((m) => m[0]);
}

function usesMirrorWriter(text: string): boolean {
  const imported = /import\s*\{[^}]*\bMirrorWriter\b[^}]*\}\s*from\s*'(?:\.\.\/)+engine'/.test(text);
  return imported && /\.writePage\(/.test(text);
}
