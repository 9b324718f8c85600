import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * npm 11's install-script policy (issue 26 point 6): a dependency's install scripts (esbuild fetches its
 * platform binary, classic-level builds or picks its native addon for dynalite) run only when
 * package.json's `allowScripts` covers them; today npm warns, a stricter npm (`strict-allow-scripts`, or
 * a future default) skips them and the bundling or the local DynamoDB peer breaks. The lock file marks
 * every package with install scripts (`hasInstallScript`); each one must have a decision in
 * `allowScripts`, and no decision may name a package that no longer has scripts (stale approvals are
 * what `npm install-scripts prune` removes).
 */
const ROOT = resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, unknown>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
};

/** "node_modules/a/node_modules/@s/b" → "@s/b". */
const nameOf = (lockPath: string) => lockPath.slice(lockPath.lastIndexOf('node_modules/') + 13);

/** "esbuild" → esbuild; "esbuild@0.28.2" → esbuild at 0.28.2; "@s/b@1.0.0" → @s/b at 1.0.0. */
function parseEntry(entry: string): { name: string; version?: string } {
  const at = entry.indexOf('@', 1);
  return at < 0 ? { name: entry } : { name: entry.slice(0, at), version: entry.slice(at + 1) };
}

/** Does this allowScripts entry decide for that locked package (by name, or pinned to its version)? */
function covers(entry: string, locked: { name: string; version?: string }): boolean {
  const e = parseEntry(entry);
  return e.name === locked.name && (e.version === undefined || e.version === locked.version);
}

const withScripts = Object.entries(lock.packages)
  .filter(([path, meta]) => path !== '' && meta.hasInstallScript === true)
  .map(([path, meta]) => ({ name: nameOf(path), version: meta.version }));

describe('issue 26 point 6: npm allowScripts covers every dependency with install scripts', () => {
  it('the lock file has packages with install scripts (else this test checks nothing)', () => {
    expect(withScripts.map((p) => p.name)).toEqual(expect.arrayContaining(['esbuild', 'classic-level']));
  });

  it('package.json decides (true or false) for each of them, by name or by the locked version', () => {
    const entries = Object.entries(pkg.allowScripts ?? {});
    for (const [, decision] of entries) expect(typeof decision).toBe('boolean');
    const uncovered = withScripts.filter((p) => !entries.some(([entry]) => covers(entry, p)));
    expect(uncovered).toEqual([]);
  });

  it('the scripts the project relies on are allowed, not denied', () => {
    // esbuild bundles the Lambdas (infra) and runs tsx; classic-level is dynalite's storage (local peers).
    for (const name of ['esbuild', 'classic-level']) {
      const decision = Object.entries(pkg.allowScripts ?? {}).find(([e]) => parseEntry(e).name === name)?.[1];
      expect(decision, name).toBe(true);
    }
  });

  it('no stale decision: every entry names a locked package that still has install scripts', () => {
    const stale = Object.keys(pkg.allowScripts ?? {}).filter(
      (entry) => !withScripts.some((p) => covers(entry, p)),
    );
    expect(stale).toEqual([]);
  });
});
