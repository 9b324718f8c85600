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
 *   two planner ticks over 10,000 sources — measured as the resident set sampled every 5 ms while the
 *   work runs minus the set after the imports once collected (`--expose-gc`; issue 28: the peak after
 *   the work minus the peak after the imports hid the work under tsx's transpiling high-water mark).
 * A function needs about `bundleImportMb + workMb`; the local peers run in processes of their own.
 */

function child(args: string[]): { importsMb: number; peakMb: number; [k: string]: number } {
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
  const only = process.env.RSS_ONLY;
  try {
    // RSS_ONLY=sync: that function's bundle and work only (a quicker look at one size).
    for (const name of FUNCTIONS.filter((f) => only === undefined || f === only)) {
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
  // Issue 28 (sizing the sync): RSS_PAGE_SIZE=100 RSS_OBJECTS_PER_LIST=100 serves real pages of 100
  // objects; RSS_SYNC_RUNS runs that many full syncs side by side (default a batch, SYNC_BATCH_SIZE).
  const fake = await startFakeCouncil({
    now: () => new Date(),
    bodies: 1,
    objectsPerList: Number(process.env.RSS_OBJECTS_PER_LIST ?? 150),
    pageSize: Number(process.env.RSS_PAGE_SIZE ?? 10),
  });
  const work: Record<
    string,
    {
      importsMb: number;
      peakMb: number;
      settledMb: number;
      workPeakMb: number;
      settledLiveMb: number;
      workLivePeakMb: number;
      workMb: number;
    }
  > = {};
  try {
    for (const scenario of ['sync', 'planner'].filter((s) => only === undefined || s === only)) {
      const r = child(['--expose-gc', '--import', 'tsx', 'bench/rss-child.ts', scenario, fake.systemUrl]) as {
        importsMb: number;
        peakMb: number;
        settledMb: number;
        workPeakMb: number;
        settledLiveMb: number;
        workLivePeakMb: number;
      };
      // What the work holds above the collected imports (sampled every 5 ms while it runs): the larger
      // of the resident set's and the live heap's (+ buffers) growth.
      work[scenario] = {
        ...r,
        workMb: Math.max(r.workPeakMb - r.settledMb, r.workLivePeakMb - r.settledLiveMb),
      };
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
