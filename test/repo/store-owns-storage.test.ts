import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';
import { sourceFiles } from '../support/source-files';

/**
 * Issue 29 item 1: `shared/store` owns every table, the bucket and the queues — domain code calls a
 * typed repository (`takedowns.record(…)`, `mirrorIndex.lookup(…)`) and never builds an `@aws-sdk/*`
 * command, so keys and condition expressions are written once.
 *
 * Scope: the code that runs in production — shared/, functions/, cli/, demo/, scripts/. Not checked:
 * - infra/ (the CDK app: it declares the resources; it builds no command today and may);
 * - bench/ and test/: harnesses that seed and inspect the local peers from outside, as an operator's
 *   console would; they are not the product's storage path.
 */
const CHECKED_FOLDERS = ['shared', 'functions', 'cli', 'demo', 'scripts'];

/** Folders that may build commands, and why. */
const OWNERS = [
  // The store: every table, the bucket and the queues.
  'shared/store/',
  // The CLI's control-plane clients (CloudFormation stack outputs, CloudFront invalidations): they talk
  // to the deployment, not to its data — no table, bucket or queue — like infra/, which declares it.
  'cli/aws/',
];

/**
 * Files that still build commands, each with its reason. This list only ever shrinks: moving a file's
 * storage into shared/store removes its line (the last test fails while a moved file stays listed).
 */
// Empty since issue 29 item 1 (session 9): the sync queue, the lists' state, the document copies, robots'
// cache, broadcasts and the feed's bus all moved into shared/store repositories.
const REMAINING: string[] = [];

const IMPORT = /\bimport\s+(type\s+)?\{([^}]*)\}\s*from\s*['"](@aws-sdk\/[^'"]+)['"]/g;
const DYNAMIC = /\b(?:import|require)\s*\(\s*['"]@aws-sdk\/[^'"]+['"]\s*\)/;

/**
 * The `@aws-sdk/*` values of `text` that build a request: a command class (`…Command`), `Upload`
 * (lib-storage sends S3 commands itself) or `getSignedUrl` (signs a command). Type-only imports and
 * clients are fine: passing a client along builds nothing.
 */
function commandsBuilt(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    if (m[1]) continue;
    for (const raw of (m[2] as string).split(',')) {
      const name = raw.trim();
      if (name === '' || name.startsWith('type ')) continue;
      const local = name.split(/\s+as\s+/)[0] as string;
      if (/Command$/.test(local) || local === 'Upload' || local === 'getSignedUrl') found.push(local);
    }
  }
  if (DYNAMIC.test(text)) found.push('(dynamic import)');
  return found;
}

function builders(): string[] {
  return CHECKED_FOLDERS.flatMap((f) => sourceFiles(path.join(repoRoot, f)))
    .map((file) => path.relative(repoRoot, file).split(path.sep).join('/'))
    .filter((rel) => commandsBuilt(readFileSync(path.join(repoRoot, rel), 'utf8')).length > 0)
    .sort();
}

describe('shared/store owns storage (issue 29 item 1)', () => {
  it('catches a deliberate offender: a command class, Upload, getSignedUrl, a dynamic import', () => {
    const offender = [
      "import { type S3Client, GetObjectCommand } from '@aws-sdk/client-s3';",
      "import { Upload as U } from '@aws-sdk/lib-storage';",
      "import {\n  getSignedUrl,\n} from '@aws-sdk/s3-request-presigner';",
      "const sqs = await import('@aws-sdk/client-sqs');",
    ].join('\n');
    expect(commandsBuilt(offender)).toEqual([
      'GetObjectCommand',
      'Upload',
      'getSignedUrl',
      '(dynamic import)',
    ]);
    // Types and clients build nothing.
    expect(
      commandsBuilt(
        "import type { QueryCommandOutput } from '@aws-sdk/lib-dynamodb';\nimport { type PutCommandInput, S3Client } from '@aws-sdk/client-s3';",
      ),
    ).toEqual([]);
  });

  it('no file outside shared/store and cli/aws builds an @aws-sdk command, except the listed ones', () => {
    const found = builders();
    expect(found.length).toBeGreaterThan(0);
    const offenders = found.filter((f) => !OWNERS.some((o) => f.startsWith(o)) && !REMAINING.includes(f));
    expect(offenders).toEqual([]);
  });

  it('the list of remaining exceptions only shrinks: every listed file still builds a command', () => {
    const found = new Set(builders());
    expect(REMAINING.filter((f) => !found.has(f))).toEqual([]);
  });
});
