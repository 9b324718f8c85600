import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureApiIdKey, hasApiIdKey } from '../shared/config';

/**
 * `npm run bench -- <name> [...]`: runs one benchmark (or all with no name) and prints its result as
 * JSON on the last line. Progress goes to stderr.
 */
const BENCHES: Record<string, () => Promise<unknown>> = {
  politeness: async () => (await import('./politeness')).runPolitenessBench(),
  'sync-cost': async () =>
    (await import('./sync-cost')).runSyncCostBench({ log: (l: string) => console.error(l) }),
  planner: async () => (await import('./planner')).runPlannerBench({ log: (l) => console.error(l) }),
  // FILES_STREAMS: transfers at once, each from its own host (issue 28, lever filesHostsAtOnce).
  files: async () =>
    (await import('./files')).runFilesBench({
      ...(process.env.FILES_STREAMS ? { streams: Number(process.env.FILES_STREAMS) } : {}),
      log: (l: string) => console.error(l),
    }),
  // Issue 28: one real files pass over loopback councils — wall, CPU, slot waits and extraction per file.
  // FILES_COST_HOSTS, FILES_COST_FILES (per host), FILES_COST_BYTES, FILES_COST_PAGES, FILES_COST_ANSWER_MS.
  'files-cost': async () => {
    const n = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
    const bytes = n('FILES_COST_BYTES') ?? 400_000;
    const pages = n('FILES_COST_PAGES') ?? 8;
    return (await import('./files-cost')).runFilesCostBench({
      ...(n('FILES_COST_HOSTS') ? { hosts: n('FILES_COST_HOSTS') } : {}),
      ...(n('FILES_COST_FILES') ? { filesPerHost: n('FILES_COST_FILES') } : {}),
      ...(n('FILES_COST_ANSWER_MS') ? { answerMs: n('FILES_COST_ANSWER_MS') } : {}),
      // The cost model's text per file (20,000 characters) scaled with the pages.
      shape: { bytes, pages, textChars: 2_500 * pages },
      log: (l: string) => console.error(l),
    });
  },
  // Issue 28, lever filesHostsAtOnce: the real files pass's spacing per council on the kernel clock.
  // FILES_POLITENESS_WIDTHS=16,16,16,4,4 (a run each), FILES_POLITENESS_HOSTS, _FILES, _BYTES.
  'files-politeness': async () =>
    (await import('./files-politeness')).runFilesPolitenessRuns((l: string) => console.error(l)),
  text: async () => (await import('./text')).runTextBench(),
  'scrape-cost': async () => (await import('./scrape-cost')).runScrapeCostBench(),
  preview: async () => (await import('./preview')).runPreviewBench(),
  'mirror-api': async () => (await import('./mirror-api')).runMirrorApiBench(),
  // Issue 28: a mirror API answer's bytes as CloudFront serves it (raw, gzip, Brotli; headers).
  'api-bytes': async () =>
    (await import('./api-bytes')).runApiBytesBench({ log: (l: string) => console.error(l) }),
  'api-flood': async () => (await import('./api-flood')).runApiFloodBench(),
  // Issue 28: `mirror rebuild`'s records a second with each request delayed as outside / inside the region.
  'rebuild-pace': async () =>
    (await import('./rebuild-pace')).runRebuildPaceBench({ log: (l: string) => console.error(l) }),
  // Issue 28: the mirror index's inline copies plain and packed — bytes per brotli quality, CPU, items.
  'inline-copy': async () =>
    (await import('./inline-copy')).runInlineCopyBench({ log: (l: string) => console.error(l) }),
  chaos: async () =>
    (await import('./chaos')).runChaosBench({
      only: process.env.CHAOS_ONLY?.split(',').filter(Boolean),
      log: (l: string) => console.error(l),
    }),
  bundle: async () => (await import('./bundle')).runBundleBench(),
  // FLEET_SOURCES=1000,10000 npm run bench -- fleet: more fleet sizes (default 1,000; see bench/fleet).
  fleet: async () => {
    const { runFleetBench, fleetBenchOptionsFromEnv } = await import('./fleet');
    return runFleetBench({ ...fleetBenchOptionsFromEnv(process.env), log: (l: string) => console.error(l) });
  },
  // Issue 28: the deletion check's own CPU per check, its peers and councils in other processes.
  // Issue 28: the sync run's own CPU per run kind and its top frames, the peers in another process.
  'sync-cpu': async () =>
    (await import('./sync-cpu')).runSyncCpuBench({
      ...(process.env.SYNC_CPU_REPEAT ? { repeat: Number(process.env.SYNC_CPU_REPEAT) } : {}),
      log: (l: string) => console.error(l),
    }),
  'deletion-cpu': async () =>
    (await import('./deletion-cpu')).runDeletionCpuBench({
      ...(process.env.DELETION_CPU_SOURCES ? { sources: Number(process.env.DELETION_CPU_SOURCES) } : {}),
      log: (l: string) => console.error(l),
    }),
  // Issue 28: the bytes a council request sends out (tcpdump on the loopback; root).
  'wire-bytes': async () =>
    (await import('./wire-bytes')).runWireBytesBench({ log: (l: string) => console.error(l) }),
  rss: async () => (await import('./rss')).runRssBench({ log: (l: string) => console.error(l) }),
  // Issue 28: the run lifecycle's STATE writes alone (the part of `cost` the STATE item's shape moves).
  'state-writes': async () =>
    (await import('./cost')).runStateWritesBench({ log: (l: string) => console.error(l) }),
  // Issue 28: every DynamoDB write of one engine run, by kind of run, with its write units.
  'run-writes': async () =>
    (await import('./run-writes')).runRunWritesBench({ log: (l: string) => console.error(l) }),
  // COST_SOURCES=100000 npm run bench -- cost: another fleet size (default 1,000).
  cost: async () =>
    (await import('./cost')).runCostBench({
      ...(process.env.COST_SOURCES ? { sources: Number(process.env.COST_SOURCES) } : {}),
      // COST_API_WAF=true: bill the API's rate-based WAF rule (issue 25 point 4).
      ...(process.env.COST_API_WAF === 'true' ? { apiWaf: true } : {}),
      log: (l: string) => console.error(l),
    }),
};

/**
 * Issue 25 point 5: mirror ids are keyed. A bench is a deployment of its own: a fresh key, in this
 * process and in a file its child processes (workers, peers, the CLI) read through the environment.
 */
async function benchApiIdKey(): Promise<void> {
  if (hasApiIdKey()) return;
  process.env.INGESTOR_API_ID_KEY_FILE ??= join(
    await mkdtemp(join(tmpdir(), 'ingestor-bench-key-')),
    'api-id-key',
  );
  await ensureApiIdKey({ INGESTOR_API_ID_KEY_FILE: process.env.INGESTOR_API_ID_KEY_FILE });
}

export async function runBench(names: string[]): Promise<Record<string, unknown>> {
  await benchApiIdKey();
  const selected = names.length > 0 ? names : Object.keys(BENCHES);
  const results: Record<string, unknown> = {};
  for (const name of selected) {
    const bench = BENCHES[name];
    if (!bench) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    console.error(`bench ${name} …`);
    results[name] = await bench();
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.slice(2);
  const results = await runBench(names);
  console.log(JSON.stringify(names.length === 1 ? results[names[0] as string] : results));
}
