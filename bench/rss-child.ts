import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { plannerBenchDeps, STEADY_T0, seedSteadySources } from './planner';
import { startRemotePeers } from './support';

/**
 * One scenario of `npm run bench -- rss` in a process of its own (the peers in yet another): prints
 * the process's peak resident set after its imports and after the work, in MB, as one JSON line.
 */
const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

/** Papers a list page shows (the API's largest page, `limit=100`), and pages walked per body. */
const API_PAGE = 100;
const API_PAGES = 3;

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
// Issue 28 (lambda-fit): what a scenario needs in place before it is measured (seeded peers, an answer
// on disk) is set up before the baseline, so the figure is the function's work alone.
const prepared = await prepare(scenario as string);
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
// Synchronous work (the geo answer's parse) is sampled between its steps too: the timer cannot fire.
const sample = () => {
  workPeakMb = Math.max(workPeakMb, process.memoryUsage().rss / 1024 / 1024);
  workLivePeakMb = Math.max(workLivePeakMb, live());
};
const sampler = setInterval(sample, 5);
// The work's CPU (this process: the function's code and its SDK clients; the peers run elsewhere).
const cpuBefore = process.cpuUsage();
if (scenario === 'sync') {
  // A sync invocation works a batch of SYNC_BATCH_SIZE sources at once: ten full syncs side by side.
  const { SYNC_BATCH_SIZE } = await import('../infra/function-sizes');
  // Mirror ids are keyed (issue 25): the bench's key, as the worker scenario loads it.
  const { ensureApiIdKey, hasApiIdKey } = await import('../shared/config');
  if (!hasApiIdKey())
    await ensureApiIdKey({ INGESTOR_API_ID_KEY_FILE: process.env.INGESTOR_API_ID_KEY_FILE });
  const clock = new TestClock(Date.now());
  const runs = Array.from({ length: Number(process.env.RSS_SYNC_RUNS ?? SYNC_BATCH_SIZE) }, (_, i) =>
    harness(bed, systemUrl as string, clock, `rss${i}`),
  );
  await Promise.all(runs.map((h) => h.sync('full')));
  await Promise.all(runs.map((h) => h.sync('incremental')));
} else if (scenario === 'worker') {
  worker = await workerInFlight(JSON.parse(process.env.RSS_WORKER ?? '{}') as WorkerBed);
} else if (scenario === 'mirrorApi' && prepared.mirror) {
  await mirrorApiPages(prepared.mirror);
} else if (scenario === 'geo' && prepared.geoFile) {
  await geoAnswer(prepared.geoFile);
} else if (scenario === 'broadcasts') {
  await broadcastPasses();
} else if (scenario === 'planner') {
  await seedSteadySources(peers.clients.doc, peers.env, 10_000, STEADY_T0);
  const deps = plannerBenchDeps(peers, 10_000);
  await plannerTick(deps, new Date(STEADY_T0));
  await plannerTick(deps, new Date(STEADY_T0 + 5 * 60_000));
}
clearInterval(sampler);
const cpu = process.cpuUsage(cpuBefore);
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
    workCpuMs: Math.round((cpu.user + cpu.system) / 1000),
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

/** What bench/rss.ts's lambda-fit scenarios prepare before the baseline. */
interface Prepared {
  mirror?: { sourceId: string; bodies: string[] };
  geoFile?: string;
}

async function prepare(name: string): Promise<Prepared> {
  if (name === 'mirrorApi') return { mirror: await seedMirror() };
  if (name === 'geo') return { geoFile: writeGeoAnswer() };
  return {};
}

/**
 * Issue 28: a mirror of two bodies as the sync writes it (MirrorStore.writeLive): papers of 2.6 KB
 * (the OParl specification's example; they ride inline in the index item) and of 6 KB (beyond the
 * inline bound: each page reads its 100 papers from S3 — the API's worst page).
 */
async function seedMirror(): Promise<{ sourceId: string; bodies: string[] }> {
  // Mirror ids are keyed (issue 25): the bench's key, from the file bench/run.ts wrote for its children.
  const { ensureApiIdKey, hasApiIdKey } = await import('../shared/config');
  if (!hasApiIdKey())
    await ensureApiIdKey({ INGESTOR_API_ID_KEY_FILE: process.env.INGESTOR_API_ID_KEY_FILE });
  const { MirrorStore } = await import('../shared/mirror');
  const { paperWrite, seedListedBody } = await import('../test/support/mirror-api');
  const { mapLimit } = await import('../shared/util');
  const sourceId = 'rss-api';
  // Two councils' worth of ids (an object id is its council's base + type + number, not the body's).
  const bodies = ['https://ris-rss.test/inline/oparl/v1/body/1', 'https://ris-rss.test/s3/oparl/v1/body/1'];
  const mirror = new MirrorStore(peers.clients, {
    bucket: peers.env.BUCKET,
    stateTable: peers.env.STATE_TABLE,
  });
  const t0 = Date.parse('2024-01-01T00:00:00Z');
  for (const [b, bodyId] of bodies.entries()) {
    await seedListedBody(peers, sourceId, bodyId);
    const n = API_PAGE * API_PAGES;
    await mapLimit(
      Array.from({ length: n }, (_, i) => i + 1),
      16,
      async (i) => {
        const fetchedAt = new Date(t0 + i * 1000).toISOString();
        const write = paperWrite(sourceId, bodyId, i, fetchedAt, {
          reference: `VO/2024/${i}`,
          text: 'Beschlussvorschlag zur Sanierung des Schulgebäudes. '.repeat(b === 0 ? 45 : 115),
          modified: fetchedAt,
        });
        await mirror.writeLive({ ...write, modified: fetchedAt });
      },
    );
  }
  return { sourceId, bodies };
}

/** The function's own composition (functions/mirror-api.ts) answering list pages of 100 papers. */
async function mirrorApiPages(m: { sourceId: string; bodies: string[] }): Promise<void> {
  const { composeMirrorApi } = await import('../shared/mirror-api');
  const { apiIdHash } = await import('../shared/mirror');
  const api = composeMirrorApi(peers.env);
  const event = (path: string, query: string) => ({
    rawPath: path,
    rawQueryString: query,
    headers: {},
    requestContext: { domainName: 'rss.lambda-url.eu-central-1.on.aws', http: { method: 'GET' } },
  });
  for (const body of m.bodies) {
    let next: URL | undefined = new URL(
      `https://rss.lambda-url.eu-central-1.on.aws/oparl/v1/${m.sourceId}/body/${apiIdHash(body)}/paper?limit=${API_PAGE}`,
    );
    for (let page = 0; next && page < API_PAGES; page += 1) {
      const res = await api.handle(event(next.pathname, next.search.slice(1)) as never);
      const json = JSON.parse(res.body) as { data: unknown[]; links: { next?: string } };
      if (res.status !== 200 || json.data.length !== API_PAGE)
        throw new Error(
          `mirror API page ${page + 1}: ${res.status}, ${json.data?.length} papers: ${res.body.slice(0, 300)}`,
        );
      next = json.links.next ? new URL(json.links.next) : undefined;
    }
  }
}

/**
 * Issue 28: the geo function's largest answer (DEFAULT_MAX_BYTES.service, 50 MiB): a FeatureCollection
 * of plan boundaries (40-vertex rings in Germany, number, title, document link), written to disk before
 * the baseline so that building it is not measured.
 */
function writeGeoAnswer(): string {
  const target = 50 * 1024 * 1024;
  const parts: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < target; i += 1) {
    const x = 11.3 + (i % 300) * 0.001;
    const y = 48.0 + Math.floor(i / 300) * 0.0005;
    const ring = Array.from({ length: 40 }, (_, k) => {
      const a = (2 * Math.PI * k) / 39;
      return [Number((x + 0.0004 * Math.cos(a)).toFixed(7)), Number((y + 0.0003 * Math.sin(a)).toFixed(7))];
    });
    ring[39] = ring[0] as number[];
    const f = JSON.stringify({
      type: 'Feature',
      geometry: { type: 'Polygon', coordinates: [ring] },
      properties: {
        nummer: String(i + 1),
        name: `Bebauungsplan ${i + 1}`,
        dokument: `https://example.org/bplan/${i + 1}.pdf`,
      },
    });
    parts.push(f);
    bytes += f.length + 1;
  }
  const file = join(mkdtempSync(join(tmpdir(), 'rss-geo-')), 'answer.json');
  writeFileSync(file, `{"type":"FeatureCollection","features":[${parts.join(',')}],"links":[]}`);
  return file;
}

/**
 * The geo function's work on that answer: the body as the fetch hands it (its chunks joined into one
 * buffer: both alive for a moment), parsed (shared/geo parseGeoPage) and normalised into plans
 * (normalisePlans), and the plans' FeatureCollection serialised as it is stored.
 */
async function geoAnswer(file: string): Promise<void> {
  const { parseGeoPage, normalisePlans } = await import('../shared/geo');
  const { parseGeoSourceItem } = await import('../shared/config');
  const chunk = readFileSync(file);
  const body = Buffer.concat([chunk]);
  sample();
  const page = parseGeoPage(body);
  sample();
  if (!page) throw new Error('geo answer did not parse');
  const source = parseGeoSourceItem({
    sourceId: 'geo:rss',
    itemKind: 'geo',
    body: 'rss',
    kind: 'ogc-api-features',
    url: 'https://geo.rss.test/items',
    numberProperty: 'nummer',
    titleProperty: 'name',
    linkProperty: 'dokument',
    ags: '09162000',
    active: true,
  });
  if (!source.ok) throw new Error(JSON.stringify(source.problems));
  const plans = normalisePlans(source.source, page.features);
  sample();
  const stored = JSON.stringify(plans);
  sample();
  if (stored.length < 1_000_000) throw new Error(`geo: ${stored.length} bytes of plans`);
  rmSync(dirname(file), { recursive: true, force: true });
}

/**
 * The broadcast function's pass (OTH-5) as it runs every minute, on the function's own composition:
 * outside every meeting window it reads a few State items — sixty passes, an hour of them.
 */
async function broadcastPasses(): Promise<void> {
  const { composeBroadcasts, runBroadcastPass } = await import('../shared/broadcasts');
  const rt = composeBroadcasts(peers.env, { clients: peers.clients });
  for (let i = 0; i < 60; i += 1) await runBroadcastPass(rt.deps, new Date(Date.now() + i * 60_000));
  await rt.close();
}
