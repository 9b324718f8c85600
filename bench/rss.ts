import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeCouncil } from '../demo';
import { buildFunctionBundle, FUNCTIONS } from './bundle';

/**
 * `npm run bench -- rss` (issue 18): the peak resident memory each function needs, to size it
 * (infra/function-sizes.ts). Two measurements per function, each in a fresh Node process:
 * - `bundleImportMb`: importing the function's bundle as the stack builds it (what a cold start holds);
 * - for the sync and the planner, `workMb`: what the work adds on top of the imports — ten full syncs of
 *   the demo council side by side (a batch of SYNC_BATCH_SIZE; 150 objects per list, 10 per page), or
 *   two planner ticks over 10,000 sources — measured as peak RSS after the work minus after the imports
 *   (that process runs through tsx, whose own memory is in both figures and cancels out).
 * A function needs about `bundleImportMb + workMb`; the local peers run in processes of their own.
 */

function child(args: string[]): { importsMb: number; peakMb: number } {
  const out = execFileSync(process.execPath, args, {
    encoding: 'utf8',
    env: {
      ...process.env,
      AWS_REGION: 'eu-central-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

export async function runRssBench(opts: { log?: (line: string) => void } = {}) {
  const log = opts.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'rss-bench-'));
  const bundleImportMb: Record<string, number> = {};
  try {
    for (const name of FUNCTIONS) {
      const outfile = join(dir, name, 'index.mjs');
      await buildFunctionBundle(name, outfile);
      const url = pathToFileURL(outfile).href;
      // The preview streams its answer through Lambda's `awslambda` global: a stand-in for the import.
      const script = `globalThis.awslambda ??= { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } }; await import(${JSON.stringify(url)}); console.log(JSON.stringify({ importsMb: 0, peakMb: process.resourceUsage().maxRSS / 1024 }));`;
      bundleImportMb[name] = Math.round(child(['--input-type=module', '-e', script]).peakMb);
      log(`${name}: bundle import ${bundleImportMb[name]} MB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const fake = await startFakeCouncil({
    now: () => new Date(),
    bodies: 1,
    objectsPerList: 150,
    pageSize: 10,
  });
  const work: Record<string, { importsMb: number; peakMb: number; workMb: number }> = {};
  try {
    for (const scenario of ['sync', 'planner']) {
      const r = child(['--import', 'tsx', 'bench/rss-child.ts', scenario, fake.systemUrl]);
      work[scenario] = { ...r, workMb: r.peakMb - r.importsMb };
      log(`${scenario}: ${JSON.stringify(work[scenario])}`);
    }
  } finally {
    await fake.close();
  }
  return { bundleImportMb, work };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runRssBench({ log: (l) => console.error(l) })));
}
