import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type FakeCouncil, startDemoCouncil } from '../../demo';
import { resetEnvCache } from '../../shared/config/env';
import type { FetchEvent } from '../../shared/fetch';
import { createPreviewListener, createPreviewRuntime } from '../../shared/preview';
import { loadAllSources, putSourceItem } from '../../shared/store/sources';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, progress } from '../output';
import { createLocalDocumentPasses } from './documents-local';

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
}

export async function startCommand(
  rt: LocalRuntime,
  opts: { once: boolean; json: boolean; allowLoopback: boolean },
): Promise<CommandResult> {
  const say = (line: string) => progress(opts.json, line);
  let demo: FakeCouncil | undefined;
  const { parsed } = await loadAllSources(rt.clients.doc, rt.env.SOURCES_TABLE);
  const others = parsed.filter((p) => (p.ok ? p.source.sourceId : p.sourceId) !== DEMO_SOURCE_ID);
  let allowLoopback = opts.allowLoopback;
  if (others.length === 0) {
    demo = await startDemoOnStablePort();
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
  }

  // The handlers read their configuration from the environment, exactly as in AWS.
  Object.assign(process.env, envForHandlers(rt, allowLoopback));
  resetEnvCache();
  const planner = await import('../../functions/planner');
  const sync = await import('../../functions/sync');
  const totals: StartSummary = { sources: 0, syncs: 0, requests: 0, objects: 0 };
  // Files + deletion check hourly, photos Mondays 03:00 — the same passes as the scheduled functions.
  const documents = createLocalDocumentPasses(rt, { allowLoopback });
  sync.configureSyncRuntime({
    onRequest: (event: FetchEvent) => {
      if (event.kind !== 'request') return;
      totals.requests += 1;
      const outcome =
        'status' in event && event.status !== undefined
          ? event.status
          : (event as { errorCode?: string }).errorCode;
      say(`  ${event.purpose.padEnd(6)} ${String(outcome).padEnd(4)} ${event.url}`);
    },
  });

  const tickAndDrain = async () => {
    const tick = await planner.handler();
    totals.sources = tick.sources;
    for (const d of tick.decisions) {
      say(`planner: ${d.sourceId} → ${d.started ? `sync ${d.kind}` : d.action}: ${d.reason}`);
    }
    await drainQueue(rt, async (body) => {
      const result = await sync.processSyncBody(body, 15 * 60_000);
      if (result.status === 'dropped') {
        say(`sync ${result.sourceId}: dropped (${result.reason})`);
        return;
      }
      const { report } = result;
      const objects = report.objects.new + report.objects.modified + report.objects.deleted;
      totals.objects += objects;
      if (result.status === 'done') totals.syncs += 1;
      say(
        `sync ${result.sourceId} (${report.kind}) ${result.status}: ${report.requests} requests, ` +
          `${report.objects.new} new, ${report.objects.modified} modified, ${report.objects.deleted} deleted` +
          `${report.complete ? '' : ' (incomplete)'}${report.failures.length > 0 ? `; failures: ${report.failures.join(', ')}` : ''}`,
      );
    });
    await documents.afterTick(say);
  };

  let preview: { url: string; close(): Promise<void> } | undefined;
  try {
    await tickAndDrain();
    if (opts.once) {
      return {
        text: [`summary: ${JSON.stringify(totals)}`, JSON.stringify(totals)],
        json: totals,
      };
    }
    preview = await startLocalPreview(rt, allowLoopback);
    say(`document preview on ${preview.url}/documents/{docId}`);
    say(`running; a planner tick every ${TICK_MS / 1000} s (Ctrl-C to stop)`);
    let busy = false;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        // A long first sync must not overlap the next tick: the planner would only find the lease anyway.
        if (busy) return;
        busy = true;
        tickAndDrain()
          .catch((err) => say(`tick failed: ${err instanceof Error ? err.message : String(err)}`))
          .finally(() => {
            busy = false;
          });
      }, TICK_MS);
      const stop = () => {
        clearInterval(timer);
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return { text: [`stopped: ${JSON.stringify(totals)}`], json: totals };
  } finally {
    await preview?.close();
    await documents.close();
    await demo?.close();
  }
}

/** The preview endpoint (issue 9) on loopback, over the same core as the Lambda. */
async function startLocalPreview(
  rt: LocalRuntime,
  allowLoopback: boolean,
): Promise<{ url: string; close(): Promise<void> }> {
  const runtime = await createPreviewRuntime(
    { ...rt.env, INGESTOR_ALLOW_LOOPBACK: allowLoopback },
    { clients: rt.clients },
  );
  const server = createServer(createPreviewListener(runtime.handler, {}));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await runtime.close();
    },
  };
}

async function startDemoOnStablePort(): Promise<FakeCouncil> {
  // One page per list keeps the demo's first sync short; the pace stays one request per second.
  const overrides = { pageSize: 20 };
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
export async function drainQueue(rt: LocalRuntime, handle: (body: string) => Promise<void>): Promise<number> {
  const queueUrl = rt.env.SYNC_QUEUE_URL as string;
  let handled = 0;
  for (;;) {
    const res = await rt.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 900,
      }),
    );
    const message = res.Messages?.[0];
    if (!message) return handled;
    await handle(message.Body ?? '');
    await rt.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
    );
    handled += 1;
  }
}
