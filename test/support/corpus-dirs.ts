// Third-party test corpora (Google's robots.txt tests and a differential corpus, the OParl example
// objects, captured ALLRIS/SessionNet pages) stay OUTSIDE the repository: their licences and personal
// data forbid committing them here. This is the one place that finds them:
// `INGESTOR_CORPORA_DIR`, else `../shared` beside the repository root. Tests that need a corpus go
// through corpora.ts (`corpusDescribe`, `CORPUS_OPTIONS`): skipped when it is absent and tagged `corpus`,
// so the corpus reporter (corpus-reporter.ts) prints one line saying what was missing and how many tests
// it skipped. This file stays free of vitest: the reporter loads it in vitest's main process.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('corpora: no package.json above this file');
    dir = parent;
  }
  return dir;
}

export const repoRoot = findRepoRoot();

/** The tag every corpus-dependent suite carries (declared in vitest.config.ts). */
export const CORPUS_TAG = 'corpus';

/** Where the corpora are looked for. */
export function corporaDir(): string {
  const fromEnv = process.env.INGESTOR_CORPORA_DIR;
  return fromEnv ? path.resolve(fromEnv) : path.resolve(repoRoot, '..', 'shared');
}

export interface Corpus {
  /** What it is, for the skipped-corpus line. */
  name: string;
  dir: string;
  present: boolean;
}

function corpus(name: string, relative: string, marker: string): Corpus {
  const dir = path.join(corporaDir(), relative);
  return { name, dir, present: existsSync(path.join(dir, marker)) };
}

/** Google's robots.txt unit tests and the differential corpus (`conformance/`). */
export const robotsConformance = (): Corpus =>
  corpus('robots.txt conformance cases', 'conformance', 'robots-google-tests.json');
/** The OParl specification and vendor example objects (`fixtures/oparl-examples/`). */
export const oparlExamples = (): Corpus =>
  corpus('OParl example objects', path.join('fixtures', 'oparl-examples'), 'SOURCE.md');
/** Captured ALLRIS 3 pages and trimmed SessionNet samples (`fixtures/ris-html/`). */
export const risHtml = (): Corpus =>
  corpus(
    'ALLRIS/SessionNet pages',
    path.join('fixtures', 'ris-html'),
    path.join('allris', 'allris_manifest.yml'),
  );

/** The OParl 1.1 JSON schemas (`fixtures/oparl-schema/`, one file per type, e.g. `Paper.json`). */
export const oparlSchema = (): Corpus =>
  corpus('OParl 1.1 JSON schemas', path.join('fixtures', 'oparl-schema'), 'System.json');

export const ALL_CORPORA = [robotsConformance, oparlExamples, risHtml, oparlSchema] as const;

/** Parsed OParl example, e.g. readOparlExample('mst-systems/Stadt Krefeld.json'). */
export function readOparlExample(relativePath: string): unknown {
  return JSON.parse(readFileSync(path.join(oparlExamples().dir, relativePath), 'utf8'));
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
