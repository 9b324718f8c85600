import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseEnv } from '../shared/config';
import { composeDocuments, type DocumentsRuntime, runFilesPass } from '../shared/documents';
import { createTestResolver } from '../shared/net';
import { createHostSlotsFromEnv, type PacedHostSlots } from '../shared/slots';

/**
 * One files function instance for bench/files-politeness.ts, in a process of its own: the composition
 * the function builds at its cold start (host slots from the environment — Upstash through the bench's
 * adapter — warmed up, the polite fetcher, the host ledger), then one real files pass at the width
 * asked for. It records when each request to a council was written to its socket (undici's
 * `sendHeaders`), its event-loop delay and its peak RSS; the councils' arrivals are judged elsewhere.
 */

export interface FilesPassPrepare {
  type: 'prepare';
  /** The function's environment: the local peers', Upstash URL and token, loopback allowed. */
  env: Record<string, string>;
  hostsAtOnce: number;
  /** The pass's `now` (the documents were recorded due before it). */
  nowMs: number;
}

export interface FilesPassSend {
  hostname: string;
  writtenMs: number;
}

export interface FilesPassDone {
  type: 'done';
  files: Record<string, number>;
  text: Record<string, number>;
  /** From the pass's start to its last download settled (the text phase follows). */
  downloadMs: number;
  sends: FilesPassSend[];
  lateForfeits: number;
  sendAllowanceMs: number;
  sharedStoreFailures: number;
  loopLagP99Ms: number;
  loopLagMaxMs: number;
  peakRssMb: number;
}

const now = () => performance.timeOrigin + performance.now();
const sends: FilesPassSend[] = [];
subscribe('undici:client:sendHeaders', (message) => {
  const { request } = message as { request: { origin: string } };
  const hostname = new URL(request.origin).hostname;
  // The councils only: the slot store's and the peers' requests go through undici too.
  if (hostname.endsWith('.test')) sends.push({ hostname, writtenMs: now() });
});

let runtime: DocumentsRuntime | undefined;
let slots: PacedHostSlots | undefined;
let prepared: FilesPassPrepare | undefined;

async function prepare(message: FilesPassPrepare): Promise<void> {
  const env = parseEnv(message.env);
  slots = createHostSlotsFromEnv(env, { onEvent: () => {} });
  // As composeDocuments does at a cold start: the Redis clock placed before the first reservation.
  await slots.warmUp();
  runtime = await composeDocuments(env, { resolver: createTestResolver(), slots, ledger: slots.ledger });
  prepared = message;
}

async function go(): Promise<FilesPassDone> {
  if (!runtime || !slots || !prepared) throw new Error('not prepared');
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 50);
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const started = performance.now();
  let downloadsDone = started;
  const report = await runFilesPass(runtime.deps, {
    now: new Date(prepared.nowMs),
    hostsAtOnce: prepared.hostsAtOnce,
    onProgress: (p) => {
      if (p.stage === 'files') downloadsDone = performance.now();
    },
  });
  lag.disable();
  clearInterval(sampler);
  await slots.flushReleases();
  await runtime.close();
  const stats = slots.stats();
  return {
    type: 'done',
    files: report.files,
    text: report.text,
    downloadMs: Math.round(downloadsDone - started),
    sends,
    lateForfeits: stats.lateForfeits,
    sendAllowanceMs: stats.sendAllowanceMs,
    sharedStoreFailures: stats.sharedStoreFailures,
    loopLagP99Ms: Math.round(lag.percentile(99) / 1e6),
    loopLagMaxMs: Math.round(lag.max / 1e6),
    peakRssMb: Math.round(peakRss / 1e6),
  };
}

process.on('message', (message: FilesPassPrepare | { type: 'go' }) => {
  const reply = (work: Promise<object>, answer: (value: object) => object) =>
    work.then(
      (value) => process.send?.(answer(value)),
      (error: Error) => process.send?.({ type: 'failed', error: error.stack ?? String(error) }),
    );
  if (message.type === 'prepare')
    void reply(
      prepare(message).then(() => ({})),
      () => ({ type: 'prepared' }),
    );
  else if (message.type === 'go') void reply(go(), (done) => done);
});
process.send?.({ type: 'ready' });
