import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';

/**
 * Issue 29 item 3, composition roots: each Lambda handler (functions/*.ts) is wired by one named root,
 * `compose<Thing>(env)` in its folder's `compose.ts` and exported by the folder's front door. The
 * handler imports it and builds no collaborator itself — no SDK client, no feed clients, no fetcher,
 * slots, ledger or fetch runtime — so a new dependency is added in one place.
 */
const FUNCTIONS = path.join(repoRoot, 'functions');

/** What only a composition root builds (the roots call these; a handler never does). */
const BUILDS =
  /\bnew\s+\w*Client\s*\(|\bcreate\w*Clients\s*\(|\bcreate\w*FromEnv\s*\(|\bcreateFetchRuntime\s*\(|\bcreateHostSlots\s*\(|\bcreatePoliteFetcher\w*\s*\(|@aws-sdk\//;

/** `import { …, composeX, … } from '../shared/<folder>'`: the folder's front door, not a file in it. */
const COMPOSE_IMPORT = /import\s*\{([^}]*)\}\s*from\s*'\.\.\/shared\/([a-z-]+)'/g;

function handlers(): string[] {
  return readdirSync(FUNCTIONS)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(FUNCTIONS, f));
}

function rootsOf(source: string): { name: string; folder: string }[] {
  return [...source.matchAll(COMPOSE_IMPORT)].flatMap((m) =>
    (m[1] as string)
      .split(',')
      .map((n) => n.trim())
      .filter((n) => /^compose[A-Z]\w*$/.test(n))
      .map((name) => ({ name, folder: m[2] as string })),
  );
}

describe('composition roots: one per function (issue 29 item 3)', () => {
  it('finds the handlers', () => {
    expect(handlers().length).toBeGreaterThanOrEqual(9);
  });

  it.each(handlers().map((f) => [path.basename(f), f]))(
    '%s imports a compose… root and calls it',
    (_name, file) => {
      const source = readFileSync(file, 'utf8');
      const roots = rootsOf(source);
      expect(roots.length, 'a compose… root imported from a shared front door').toBeGreaterThan(0);
      for (const { name, folder } of roots) {
        expect(source).toMatch(new RegExp(`\\b${name}\\(`));
        // The root lives in its folder's compose.ts (the front door re-exports it).
        const compose = readFileSync(path.join(repoRoot, 'shared', folder, 'compose.ts'), 'utf8');
        expect(compose).toMatch(new RegExp(`export (async )?function ${name}\\b`));
      }
    },
  );

  it.each(handlers().map((f) => [path.basename(f), f]))(
    '%s builds no client, fetcher or slots itself',
    (_name, file) => {
      expect(readFileSync(file, 'utf8')).not.toMatch(BUILDS);
    },
  );

  it('the check fails on a handler that builds its own client', () => {
    const bad =
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nconst doc = new DynamoDBClient({});";
    expect(bad).toMatch(BUILDS);
    expect(rootsOf("import { composeGeo } from '../shared/geo';")).toEqual([
      { name: 'composeGeo', folder: 'geo' },
    ]);
    expect(rootsOf("import { createGeoRuntime } from '../shared/geo';")).toEqual([]);
  });
});
