import { plannerBenchDeps, STEADY_T0, seedSteadySources } from './planner';
import { startRemotePeers } from './support';

/**
 * One scenario of `npm run bench -- rss` in a process of its own (the peers in yet another): prints
 * the process's peak resident set after its imports and after the work, in MB, as one JSON line.
 */
const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

const [scenario, systemUrl] = process.argv.slice(2);
/** The worker scenario's councils (one host each) and Redis, served by the parent process. */
interface WorkerBed {
  systemUrls: string[];
  redisUrl: string;
  redisToken: string;
}
let worker: { runs: number; ok: number; maxInFlight: number; seconds: number } | undefined;
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
} else if (scenario === 'worker') {
  worker = await workerInFlight(JSON.parse(process.env.RSS_WORKER ?? '{}') as WorkerBed);
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
    ...worker,
  }),
);

/**
 * Issue 28: the sync worker (shared/sync/worker.ts) as the function runs it — the sync runtime of the
 * composition root, Redis host slots (RATE-1/RATE-4), the real queue — with one full sync per council
 * started as the planner starts them (lease, message), and as many runs in flight as there are councils.
 */
async function workerInFlight(w: WorkerBed) {
  const { randomUUID } = await import('node:crypto');
  const { ensureApiIdKey, hasApiIdKey } = await import('../shared/config');
  // Mirror ids are keyed (issue 25): the bench's key, from the file bench/run.ts wrote for its children.
  if (!hasApiIdKey())
    await ensureApiIdKey({ INGESTOR_API_ID_KEY_FILE: process.env.INGESTOR_API_ID_KEY_FILE });
  const { createTestResolver } = await import('../shared/net');
  const { initialScheduleState } = await import('../shared/schedule');
  const { loadSource, putSourceItem, SyncQueue } = await import('../shared/store');
  const { composeSync, runSyncWorker, startRun } = await import('../shared/sync');
  const env = {
    ...peers.env,
    INGESTOR_ALLOW_LOOPBACK: true,
    UPSTASH_REDIS_REST_URL: w.redisUrl,
    UPSTASH_REDIS_REST_TOKEN: w.redisToken,
  };
  const runtime = await composeSync(env, { clients: peers.clients, resolver: createTestResolver() });
  const queue = new SyncQueue({ sqs: peers.clients.sqs, queueUrl: env.SYNC_QUEUE_URL as string });
  const bodies: { id: string; body: string }[] = [];
  for (const [i, systemUrl] of w.systemUrls.entries()) {
    const sourceId = `rss-worker-${i}`;
    await putSourceItem(peers.clients.doc, env.SOURCES_TABLE, { sourceId, systemUrl, active: true });
    const parsed = await loadSource(peers.clients.doc, env.SOURCES_TABLE, sourceId);
    if (!parsed?.ok) throw new Error(`source ${sourceId} did not load`);
    const message = await startRun(
      { doc: peers.clients.doc, tables: { state: env.STATE_TABLE }, leaseMinutes: 30 },
      {
        source: parsed.source,
        decision: { kind: 'full', reason: 'rss bench', ruleIds: ['FULL-1'] },
        state: initialScheduleState(),
        now: new Date(),
        runId: randomUUID(),
      },
    );
    if (message === undefined) throw new Error(`lease of ${sourceId} held`);
    bodies.push({ id: String(i), body: JSON.stringify(message) });
  }
  for (let i = 0; i < bodies.length; i += 10) await queue.sendBatch(bodies.slice(i, i + 10));
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const t0 = Date.now();
  // Handed nothing: the worker takes every message from the queue itself, up to all of them in flight.
  const report = await runSyncWorker(
    { runDeps: runtime.runDeps, queue, log: quiet, runsAtOnce: w.systemUrls.length },
    [],
    () => 15 * 60_000 - (Date.now() - t0),
  );
  const seconds = Math.round((Date.now() - t0) / 1000);
  await runtime.close();
  return {
    runs: report.results.length,
    ok: report.results.filter((r) => r.status === 'done' && r.report.failures.length === 0).length,
    maxInFlight: report.maxInFlight,
    seconds,
  };
}
