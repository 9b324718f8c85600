import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER } from '../infra/ingestor-function';

/**
 * `npm run bench -- bundle` (issue 18): each function's bundle as the stack builds it (esbuild, ESM,
 * minified, everything bundled — infra/ingestor-function.ts) and the planner's cold import: the CPU time
 * of a fresh Node process importing the bundle, median of 5 (CPU, which a loaded machine changes
 * little; the wall time beside it, which it does). Goals: planner < 1 MB, cold import < 200 ms.
 */
export const FUNCTIONS = ['planner', 'sync', 'files', 'deletion-check', 'photos', 'preview'] as const;
const RUNS = 5;

/** One function's bundle as the stack builds it (infra/ingestor-function.ts), written to `outfile`. */
// Any function of functions/ (bench/rss.ts measures the ones this bench leaves out too).
export async function buildFunctionBundle(name: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [`functions/${name}.ts`],
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    outfile,
    logLevel: 'error',
  });
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}

export async function runBundleBench(): Promise<{
  bytes: Record<string, number>;
  plannerColdImportCpuMs: { median: number; runs: number[] };
  plannerColdImportWallMs: { median: number; runs: number[] };
}> {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-bench-'));
  try {
    const bytes: Record<string, number> = {};
    for (const name of FUNCTIONS) {
      const outfile = join(dir, name, 'index.mjs');
      await buildFunctionBundle(name, outfile);
      bytes[name] = statSync(outfile).size;
    }
    const url = pathToFileURL(join(dir, 'planner', 'index.mjs')).href;
    const script = `const t = performance.now(); const c = process.cpuUsage(); await import(${JSON.stringify(url)}); const u = process.cpuUsage(c); console.log((u.user + u.system) / 1000, performance.now() - t);`;
    const runs: number[] = [];
    const wallRuns: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, AWS_REGION: 'eu-central-1' },
      });
      const [cpu, wall] = (out.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
      runs.push(Math.round(cpu as number));
      wallRuns.push(Math.round(wall as number));
    }
    return {
      bytes,
      plannerColdImportCpuMs: { median: median(runs), runs },
      plannerColdImportWallMs: { median: median(wallRuns), runs: wallRuns },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runBundleBench()));
}
