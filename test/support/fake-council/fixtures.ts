// Where the shared OParl fixtures live. CI clones the repository next to `shared/`, so paths are
// found from this file's location, never from a fixed directory.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('fake-council: no package.json above this file');
    dir = parent;
  }
  return dir;
}

export const repoRoot = findRepoRoot();

/** shared/fixtures/oparl-examples beside the repository (may be absent in a bare clone). */
export const oparlExamplesDir = path.resolve(repoRoot, '..', 'shared', 'fixtures', 'oparl-examples');

export function hasOparlExamples(): boolean {
  return existsSync(oparlExamplesDir);
}

/** Parsed fixture, e.g. readOparlExample('mst-systems/Stadt Krefeld.json'). */
export function readOparlExample(relativePath: string): unknown {
  return JSON.parse(readFileSync(path.join(oparlExamplesDir, relativePath), 'utf8'));
}

/** RFC 6901 JSON pointer lookup. */
export function jsonPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, token) => {
      if (node === null || typeof node !== 'object') return undefined;
      return (node as Record<string, unknown>)[token];
    }, doc);
}
