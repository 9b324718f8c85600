import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci --omit=dev` must be enough for the CLI (`--aws`), the Lambdas' bundling and `cdk synth` /
 * `cdk deploy`: every package they import at run time is in `dependencies`. Follows the import graph
 * from the entry points (static imports that are not `import type`, and `import('literal')`); modules
 * listed in LOCAL_ONLY are loaded lazily for local mode and may use dev dependencies.
 */
const ROOT = resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  bin: Record<string, string>;
};
const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { app: string };

/** Local stand-ins (dynalite, s3rver, fauxqs): only local mode loads them, through a dynamic import. */
const LOCAL_ONLY = ['cli/local/peers.ts'];

const ENTRIES = [
  ...Object.values(pkg.bin),
  'cli/ingestor.ts',
  'infra/app.ts',
  ...readdirSync(join(ROOT, 'functions'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `functions/${f}`),
];

const STATIC = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"`;]*?\bfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function resolveModule(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.mjs`, `${base}.js`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`cannot resolve ${spec} from ${relative(ROOT, from)}`);
}

const packageOf = (spec: string) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] ?? spec);

interface Graph {
  /** package → first module importing it */
  packages: Map<string, string>;
  modules: Set<string>;
}

function importGraph(entries: string[], skip: Set<string>): Graph {
  const packages = new Map<string, string>();
  const modules = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file) || skip.has(relative(ROOT, file))) return;
    modules.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of [...source.matchAll(STATIC), ...source.matchAll(DYNAMIC)]) {
      const spec = match[1] ?? '';
      if (spec.startsWith('.')) visit(resolveModule(file, spec));
      else if (!spec.startsWith('node:') && !packages.has(packageOf(spec)))
        packages.set(packageOf(spec), relative(ROOT, file));
    }
  };
  for (const entry of entries) visit(resolve(ROOT, entry));
  return { packages, modules };
}

describe('what a deployer installs (npm ci --omit=dev)', () => {
  it('every package the CLI, the functions and the CDK app import at run time is a dependency', () => {
    const { packages, modules } = importGraph(ENTRIES, new Set(LOCAL_ONLY));
    const missing = [...packages]
      .filter(([name]) => pkg.dependencies[name] === undefined)
      .map(([name, by]) => `${name} (imported by ${by})`);
    expect(missing).toEqual([]);
    // The graph is the real one: it reaches the AWS clients, the CDK and the --aws mode.
    expect([...packages.keys()]).toEqual(
      expect.arrayContaining(['aws-cdk-lib', 'cdk-nag', '@aws-sdk/client-cloudformation', 'tsx']),
    );
    expect([...modules].map((m) => relative(ROOT, m))).toContain('cli/aws/runtime.ts');
  });

  it('the local stand-ins stay dev dependencies, loaded only by a dynamic import', () => {
    const { packages } = importGraph(LOCAL_ONLY, new Set());
    for (const name of ['dynalite', 's3rver', 'fauxqs']) {
      expect([...packages.keys()]).toContain(name);
      expect(pkg.devDependencies[name], name).toBeDefined();
    }
    const importers = [...importGraph(ENTRIES, new Set(LOCAL_ONLY)).modules].filter((m) =>
      [...readFileSync(m, 'utf8').matchAll(STATIC)].some(
        (s) => s[1]?.endsWith('/peers') || s[1] === './peers',
      ),
    );
    expect(importers.map((m) => relative(ROOT, m))).toEqual([]);
  });

  it('the tools the deploy steps run are dependencies: tsx (cdk.json app, bin shim), the CDK CLI, esbuild (local bundling)', () => {
    expect(cdkJson.app).toMatch(/^npx tsx /);
    for (const name of ['tsx', 'aws-cdk', 'esbuild']) expect(pkg.dependencies[name], name).toBeDefined();
  });
});
