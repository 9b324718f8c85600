import { DEMO_OBJECTS_PER_LIST, type FakeCouncil, startDemoCouncil } from '../../demo';
import { resetEnvCache } from '../../shared/config';
import type { FetchEvent } from '../../shared/fetch';
import { getSourceItem, loadAllSources, putSourceItem, SyncQueue } from '../../shared/store';
import type { LocalRuntime } from '../local/runtime';
import { type LocalServePort, startLocalServePort } from '../local/serve-port';
import { type CommandResult, EXIT_INTERRUPTED, UsageError } from '../output';
import { createProgress } from '../progress';
import type { StartInput } from '.';
import { createLocalBroadcastPasses, scheduleDemoMeetingNow } from './broadcasts-local';
import { createLocalDocumentPasses } from './documents-local';
import { createLocalGeoPass, type LocalGeoSummary } from './geo-local';
import { requestCommand } from './request';
import { type FirstStartSummary, firstStartLines, firstStartSummary, listAllBodies } from './start-summary';

/**
 * `npm start`: the whole pipeline on this machine — the same planner and sync handlers as in AWS,
 * against the local peers under `.data/`. With no source configured it serves the bundled demo
 * council system on loopback and mirrors it. `--once`: one planner tick, drain the queue, print a
 * summary and exit; otherwise a tick every minute until Ctrl-C.
 */
export const DEMO_SOURCE_ID = 'demo';
/** A fixed port keeps the demo's object ids (URLs) stable across restarts of `npm start`. */
export const DEMO_PORT = 47_811;
const TICK_MS = 60_000;

export interface StartSummary {
  sources: number;
  syncs: number;
  requests: number;
  objects: number;
  /** The first start on a fresh data folder: full sync, bodies listed, files pass, and the summary. */
  firstStart: boolean;
  /** Only after the first start's cycle: what is where. */
  demo?: FirstStartSummary;
  /** The geo refresh of this run (OTH-4; daily, the first cycle runs it): the demo geoportal's plans. */
  geo?: LocalGeoSummary;
  /** OTH-5: broadcast requests and live findings of the passes after each tick. */
  broadcasts: { requests: number; live: number };
  /** Ctrl-C ended the run: the sync in progress stopped at a checkpoint and released its lease. */
  interrupted?: true;
}

export async function startCommand(
  rt: LocalRuntime,
  opts: StartInput & { json: boolean; allowLoopback: boolean },
): Promise<CommandResult> {
  const progress = createProgress({ json: opts.json });
  const say = progress.say;
  const { demo, firstStart, allowLoopback } = await setUpSources(rt, {
    demoObjects: demoObjectsOf(opts.demoObjects),
    allowLoopback: opts.allowLoopback,
    say,
  });

  // The handlers read their configuration from the environment, exactly as in AWS.
  Object.assign(process.env, envForHandlers(rt, allowLoopback));
  resetEnvCache();
  const planner = await import('../../functions/planner');
  const sync = await import('../../functions/sync');
  const totals: StartSummary = {
    sources: 0,
    syncs: 0,
    requests: 0,
    objects: 0,
    firstStart,
    broadcasts: { requests: 0, live: 0 },
  };
  const cycle: Cycle = {
    rt,
    planner,
    sync,
    progress,
    totals,
    demo,
    // Files + deletion check hourly, photos Mondays 03:00 — the same passes as the scheduled functions.
    documents: createLocalDocumentPasses(rt, { allowLoopback, onRequest: progress.request }),
    // OTH-4 daily, as the scheduled geo function; the demo's geoportal is seeded once its bodies are known.
    geo: createLocalGeoPass(rt, { allowLoopback, ...(demo ? { demoCouncilUrl: demo.url } : {}) }),
    // OTH-5: the once-a-minute broadcast function, after each tick.
    broadcasts: createLocalBroadcastPasses(rt, { allowLoopback }),
    firstCycle: firstStart,
    // Ctrl-C: the sync in progress ends at its next checkpoint and releases its lease (as `ingestor
    // sync`); no further message, pass or tick starts. A second Ctrl-C quits at once.
    interrupt: new AbortController(),
  };
  sync.configureSyncRuntime({
    onRequest: (event: FetchEvent) => {
      if (event.kind !== 'request') return;
      totals.requests += 1;
      progress.request(event);
    },
  });

  let stopLoop: (() => void) | undefined;
  const onStop = () => {
    if (cycle.interrupt.signal.aborted) process.exit(EXIT_INTERRUPTED);
    cycle.interrupt.abort();
    totals.interrupted = true;
    say('stopping: a running sync ends at its next checkpoint (Ctrl-C again quits at once)');
    stopLoop?.();
  };
  process.on('SIGINT', onStop);
  process.on('SIGTERM', onStop);
  try {
    if (!opts.once) {
      // Before the first cycle, so that its summary links to a live preview.
      cycle.preview = await startLocalServePort(rt, { allowLoopback });
      say(`document preview on ${cycle.preview.url}/documents/{docId}`);
      say(`OParl API over the mirror: ${cycle.preview.systemUrl}`);
    }
    await tickAndDrain(cycle);
    if (opts.once) {
      return {
        text: [`summary: ${JSON.stringify(totals)}`, JSON.stringify(totals)],
        json: totals,
        ...(totals.interrupted ? { exitCode: EXIT_INTERRUPTED } : {}),
      };
    }
    if (!cycle.interrupt.signal.aborted) {
      say(`running; a planner tick every ${TICK_MS / 1000} s (Ctrl-C to stop)`);
      await everyTick(cycle, (stop) => {
        stopLoop = stop;
      });
    }
    // Stopping a running `npm start` is how it ends: exit 0, unless a sync was cut short.
    return { text: [`stopped: ${JSON.stringify(totals)}`], json: totals };
  } finally {
    process.off('SIGINT', onStop);
    process.off('SIGTERM', onStop);
    await cycle.preview?.close();
    await cycle.documents.close();
    await cycle.geo.close();
    await cycle.broadcasts.close();
    await demo?.close();
  }
}

/**
 * The sources `npm start` runs: the configured ones; with none, the bundled demo council on loopback,
 * seeded as source `demo` — on a fresh data folder with a manual full sync requested (FULL-8).
 */
async function setUpSources(
  rt: LocalRuntime,
  opts: { demoObjects: number; allowLoopback: boolean; say: (line: string) => void },
): Promise<{ demo: FakeCouncil | undefined; firstStart: boolean; allowLoopback: boolean }> {
  const { say } = opts;
  let demo: FakeCouncil | undefined;
  const { parsed } = await loadAllSources(rt.clients.doc, rt.env.SOURCES_TABLE);
  const others = parsed.filter((p) => (p.ok ? p.source.sourceId : p.sourceId) !== DEMO_SOURCE_ID);
  let allowLoopback = opts.allowLoopback;
  // A fresh data folder: the demo has never been set up here.
  const firstStart =
    others.length === 0 &&
    (await getSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, DEMO_SOURCE_ID)) === undefined;
  if (others.length === 0) {
    demo = await startDemoOnStablePort(opts.demoObjects);
    allowLoopback = true;
    await putSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, {
      sourceId: DEMO_SOURCE_ID,
      name: 'Demo-Ratsinformationssystem (bundled)',
      systemUrl: demo.systemUrl,
      active: true,
      note: 'Seeded by npm start: a fake council system on loopback.',
      updatedAt: new Date().toISOString(),
      updatedBy: 'npm start',
    });
    say(`demo council system on ${demo.url}/ (OParl ${demo.systemUrl})`);
    // OTH-5: a meeting that runs now, so the demo's broadcast has an open window to show.
    scheduleDemoMeetingNow(demo, new Date());
  }
  if (firstStart) {
    // FULL-8: what an operator does after adding a system — a manual full sync, not the 7-day window.
    const request = await requestCommand(rt, DEMO_SOURCE_ID, true, new Date());
    for (const line of request.text) say(`first start: ${line}`);
  }
  return { demo, firstStart, allowLoopback };
}

/** What one cycle of `npm start` works with: the handlers, the passes after each tick, the totals. */
interface Cycle {
  rt: LocalRuntime;
  planner: typeof import('../../functions/planner');
  sync: typeof import('../../functions/sync');
  progress: ReturnType<typeof createProgress>;
  totals: StartSummary;
  demo: FakeCouncil | undefined;
  documents: ReturnType<typeof createLocalDocumentPasses>;
  geo: ReturnType<typeof createLocalGeoPass>;
  broadcasts: ReturnType<typeof createLocalBroadcastPasses>;
  /** The first cycle of a fresh data folder: it lists the demo's bodies and prints the summary. */
  firstCycle: boolean;
  preview?: LocalServePort;
  interrupt: AbortController;
}

/** One cycle: a planner tick, the queue drained (runs and continuations), then the passes. */
async function tickAndDrain(cycle: Cycle): Promise<void> {
  const { rt, planner, sync, progress, totals, demo, documents, geo, broadcasts, interrupt } = cycle;
  const say = progress.say;
  progress.step('planner tick');
  const tick = await planner.handler();
  totals.sources = tick.sources;
  for (const d of tick.decisions) {
    say(`planner: ${d.sourceId} → ${d.started ? `sync ${d.kind}` : d.action}: ${d.reason}`);
  }
  await drainQueue(
    rt,
    async (body) => {
      progress.step('sync');
      const head = await sync.processSyncBody(body, 15 * 60_000, interrupt.signal);
      // Host lanes: the runs of the same host the invocation started after the message's own run.
      for (const result of [head, ...(head.laneRuns ?? [])]) {
        if (result.status === 'dropped') {
          say(`sync ${result.sourceId}: dropped (${result.reason})`);
          continue;
        }
        const { report } = result;
        const objects = report.objects.new + report.objects.modified + report.objects.deleted;
        totals.objects += objects;
        if (result.status === 'done') totals.syncs += 1;
        say(
          `sync ${result.sourceId} (${report.kind}) ${result.status}${result === head ? '' : ' (host lane)'}: ${report.requests} requests, ` +
            `${report.objects.new} new, ${report.objects.modified} modified, ${report.objects.deleted} deleted` +
            `${report.complete ? '' : ' (incomplete)'}${report.failures.length > 0 ? `; failures: ${report.failures.join(', ')}` : ''}`,
        );
      }
    },
    interrupt.signal,
  );
  if (interrupt.signal.aborted) return progress.end();
  if (cycle.firstCycle) {
    // ONB-4: new bodies stay unlisted; the first start lists the demo's, so its files are fetched.
    const listed = await listAllBodies(rt, DEMO_SOURCE_ID, 'npm start');
    if (listed.length > 0) say(`first start: listed the demo's bodies (ONB-4): ${listed.join(', ')}`);
    if (demo) await broadcasts.addDemoBroadcast(demo, DEMO_SOURCE_ID, say);
  }
  await documents.afterTick(say, new Date(), progress);
  const geoSummary = await geo.afterTick(say, new Date());
  if (geoSummary) totals.geo = geoSummary;
  const broadcast = await broadcasts.afterTick(say);
  totals.broadcasts.requests += broadcast.requests;
  totals.broadcasts.live += broadcast.live;
  progress.end();
  if (cycle.firstCycle) {
    cycle.firstCycle = false;
    totals.demo = await firstStartSummary(rt, DEMO_SOURCE_ID, cycle.preview?.url);
    for (const line of await firstStartLines(rt, DEMO_SOURCE_ID, totals.demo, new Date())) say(line);
  }
}

/** A cycle every TICK_MS until stopped (Ctrl-C); a cycle still running finishes before the next starts. */
async function everyTick(cycle: Cycle, onStoppable: (stop: () => void) => void): Promise<void> {
  const say = cycle.progress.say;
  let inFlight: Promise<void> | undefined;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      // A long first sync must not overlap the next tick: the planner would only find the lease anyway.
      if (inFlight) return;
      inFlight = tickAndDrain(cycle)
        .catch((err) => say(`tick failed: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => {
          inFlight = undefined;
        });
    }, TICK_MS);
    onStoppable(() => {
      clearInterval(timer);
      resolve();
    });
  });
  // The tick in progress finishes at its checkpoint before the peers close under it.
  await inFlight;
}

/** `--demo-objects N` (a whole number ≥ 1, the parser's check): at most the demo's own size. */
function demoObjectsOf(value: number | undefined): number {
  if (value === undefined) return DEMO_OBJECTS_PER_LIST;
  if (value > DEMO_OBJECTS_PER_LIST) {
    throw new UsageError(
      `--demo-objects must be a whole number from 1 to ${DEMO_OBJECTS_PER_LIST}: ${value}`,
    );
  }
  return value;
}

async function startDemoOnStablePort(objectsPerList: number): Promise<FakeCouncil> {
  // One page per list keeps the demo's first sync short; the pace stays one request per second. Fewer
  // objects (--demo-objects) mean fewer files to fetch, each at that pace.
  const overrides = { pageSize: 20, objectsPerList };
  try {
    return await startDemoCouncil({ port: DEMO_PORT, overrides });
  } catch {
    return startDemoCouncil({ overrides });
  }
}

function envForHandlers(rt: LocalRuntime, allowLoopback: boolean): Record<string, string> {
  const e = rt.env;
  const out: Record<string, string> = {
    SOURCES_TABLE: e.SOURCES_TABLE,
    STATE_TABLE: e.STATE_TABLE,
    DOCUMENTS_TABLE: e.DOCUMENTS_TABLE,
    MIRROR_TABLE: e.MIRROR_TABLE,
    MIRROR_TABLE_PHASE: e.MIRROR_TABLE_PHASE,
    BUCKET: e.BUCKET,
    SYNC_QUEUE_URL: e.SYNC_QUEUE_URL ?? '',
    INGESTOR_ALLOW_LOOPBACK: allowLoopback ? 'true' : 'false',
    AWS_REGION: e.AWS_REGION,
  };
  if (e.INGESTOR_DYNAMODB_ENDPOINT) out.INGESTOR_DYNAMODB_ENDPOINT = e.INGESTOR_DYNAMODB_ENDPOINT;
  if (e.INGESTOR_S3_ENDPOINT) out.INGESTOR_S3_ENDPOINT = e.INGESTOR_S3_ENDPOINT;
  if (e.INGESTOR_SQS_ENDPOINT) out.INGESTOR_SQS_ENDPOINT = e.INGESTOR_SQS_ENDPOINT;
  return out;
}

/** Receive until the queue is empty (continuations included); delete each message once handled. */
export async function drainQueue(
  rt: LocalRuntime,
  handle: (body: string) => Promise<void>,
  signal?: AbortSignal,
): Promise<number> {
  const queue = new SyncQueue({ sqs: rt.clients.sqs, queueUrl: rt.env.SYNC_QUEUE_URL as string });
  let handled = 0;
  for (;;) {
    if (signal?.aborted) return handled;
    const [message] = await queue.receive({ max: 1, waitSeconds: 1, visibilitySeconds: 900 });
    if (!message) return handled;
    await handle(message.body);
    await queue.delete(message.receiptHandle);
    handled += 1;
  }
}
