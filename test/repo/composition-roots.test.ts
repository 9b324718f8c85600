import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';
import { sourceFiles } from '../support/source-files';

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

/**
 * The CLI's roots: `cli/compose.ts` (`composeCli`, every collaborator a command builds) and the two
 * modes that open a runtime's clients — `cli/local` (peers, runtime) and `cli/aws` (the deployed stack,
 * CloudFront). Every other CLI file — the commands, the table, the serve port — takes its dependencies
 * from them.
 */
const CLI = path.join(repoRoot, 'cli');
const CLI_ROOTS = [
  path.join(CLI, 'compose.ts'),
  path.join(CLI, 'local', 'runtime.ts'),
  path.join(CLI, 'local', 'peers.ts'),
  path.join(CLI, 'aws') + path.sep,
];
/** A shared compose root called by name (`composeSync(…)`); `composeCli(…)` is the CLI's own. */
const SHARED_ROOT_CALL = /\bcompose(?!Cli\b)[A-Z]\w*\s*\(/;

function cliFiles(): string[] {
  return sourceFiles(CLI).filter((file) => !CLI_ROOTS.some((root) => file === root || file.startsWith(root)));
}

/** What a CLI file builds itself that only a root may build: clients, fetchers, ledgers, runtimes. */
function cliBuilds(source: string): string[] {
  return [BUILDS, SHARED_ROOT_CALL].flatMap((re) => source.match(re)?.[0] ?? []);
}

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

  it('cli/compose.ts exports composeCli, the root the commands take their dependencies from', () => {
    expect(readFileSync(path.join(CLI, 'compose.ts'), 'utf8')).toMatch(/export function composeCli\b/);
    const users = cliFiles().filter((file) => /\bcomposeCli\(/.test(readFileSync(file, 'utf8')));
    // probe, sources add, hosts, status, sync, geo, broadcasts, files, deletion-check, photos, npm start's passes, serve.
    expect(users.length).toBeGreaterThanOrEqual(12);
  });

  it('finds the CLI files outside the roots', () => {
    const files = cliFiles().map((file) => path.relative(CLI, file));
    expect(files).toContain(path.join('commands', 'probe.ts'));
    expect(files).not.toContain('compose.ts');
    expect(files.some((file) => file.startsWith(`aws${path.sep}`))).toBe(false);
  });

  it.each(cliFiles().map((f) => [path.relative(repoRoot, f), f]))(
    '%s builds no AWS client, fetcher, ledger or runtime itself (composeCli does)',
    (_name, file) => {
      expect(cliBuilds(readFileSync(file, 'utf8'))).toEqual([]);
    },
  );

  it('the CLI check fails on a command that builds its own client or calls a shared root', () => {
    expect(
      cliBuilds("import { S3Client } from '@aws-sdk/client-s3';\nconst s3 = new S3Client({});"),
    ).not.toEqual([]);
    expect(cliBuilds('const clients = createFeedClients(rt.env);')).not.toEqual([]);
    expect(cliBuilds('const ledger = createHostLedgerFromEnv(rt.env, {});')).not.toEqual([]);
    expect(cliBuilds('const runtime = await composeSync(rt.env, { clients: rt.clients });')).not.toEqual([]);
    expect(
      cliBuilds('const runtime = await createFetchRuntime(rt.env, { clients: rt.clients });'),
    ).not.toEqual([]);
    expect(cliBuilds('const runtime = await composeCli(rt).sync({});')).toEqual([]);
  });

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
