import { plannerBenchDeps, STEADY_T0, seedSteadySources } from './planner';
import { startRemotePeers } from './support';

/**
 * One scenario of `npm run bench -- rss` in a process of its own (the peers in yet another): prints
 * the process's peak resident set after its imports and after the work, in MB, as one JSON line.
 */
const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

const [scenario, systemUrl] = process.argv.slice(2);
const { harness, TestClock } = await import('../test/support/oparl-harness');
const { plannerTick } = await import('../shared/planner');
const peers = await startRemotePeers();
const bed = { ...peers, env: peers.env } as unknown as Parameters<typeof harness>[0];
const importsMb = maxRssMb();
// Issue 28: the resident set the work itself adds, sampled while it runs, over the set after the imports
// once collected (`--expose-gc`): the import's own high-water mark (tsx transpiling) hides it otherwise.
(globalThis as { gc?: () => void }).gc?.();
// The live heap and buffers too: V8 keeps the pages the imports grew, so the resident set may not move
// while the work's live memory does.
const live = () => {
  const u = process.memoryUsage();
  return (u.heapUsed + u.external + u.arrayBuffers) / 1024 / 1024;
};
const settledMb = process.memoryUsage().rss / 1024 / 1024;
const settledLiveMb = live();
let workPeakMb = settledMb;
let workLivePeakMb = settledLiveMb;
const sampler = setInterval(() => {
  workPeakMb = Math.max(workPeakMb, process.memoryUsage().rss / 1024 / 1024);
  workLivePeakMb = Math.max(workLivePeakMb, live());
}, 5);
if (scenario === 'sync') {
  // A sync invocation works a batch of SYNC_BATCH_SIZE sources at once: ten full syncs side by side.
  const { SYNC_BATCH_SIZE } = await import('../infra/function-sizes');
  const clock = new TestClock(Date.now());
  const runs = Array.from({ length: Number(process.env.RSS_SYNC_RUNS ?? SYNC_BATCH_SIZE) }, (_, i) =>
    harness(bed, systemUrl as string, clock, `rss${i}`),
  );
  await Promise.all(runs.map((h) => h.sync('full')));
  await Promise.all(runs.map((h) => h.sync('incremental')));
} else if (scenario === 'planner') {
  await seedSteadySources(peers.clients.doc, peers.env, 10_000, STEADY_T0);
  const deps = plannerBenchDeps(peers, 10_000);
  await plannerTick(deps, new Date(STEADY_T0));
  await plannerTick(deps, new Date(STEADY_T0 + 5 * 60_000));
}
clearInterval(sampler);
const peakMb = maxRssMb();
await peers.stop();
console.log(
  JSON.stringify({
    importsMb: Math.round(importsMb),
    peakMb: Math.round(peakMb),
    settledMb: Math.round(settledMb),
    workPeakMb: Math.round(workPeakMb),
    settledLiveMb: Math.round(settledLiveMb),
    workLivePeakMb: Math.round(workLivePeakMb),
  }),
);
