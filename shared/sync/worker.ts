import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { QueuedMessage, SyncQueue } from '../store';
import {
  BUDGET_RESERVE_MS,
  defaultSyncLog,
  processSyncBody,
  type SyncBatchDeps,
  type SyncBodyResult,
  type SyncLog,
} from './batch';
import { LANE_START_MIN_MS } from './lane';
import { parseSyncMessage } from './message';

/**
 * The sync worker (issue 28, "pay per work"): Lambda bills an invocation's wall time, and a sync's wall
 * time is mostly its host's pace (RATE-1: ≥ 1 s between requests, plus the council's 1–3 s answers).
 * One invocation therefore keeps several runs **of distinct hosts** in flight, so their waits overlap
 * and are billed once; when a run (with its host lane) ends and time is left, it takes more messages
 * from the sync queue itself. Politeness is untouched: every run still takes its SCH-5 lease through
 * the message's claim (`runSyncMessage`) and every request its Redis host slot (RATE-1/RATE-4) — the
 * worker only decides which runs share one billed invocation.
 *
 * Messages of a host that already has a run here wait in the invocation (a second run of the same host
 * would only wait for the same pace, billed twice) and start when that run ends; what cannot start in
 * time is given back at once (visibility 0) for the next invocation. A message the worker took itself is
 * deleted when its run has ended; one whose run failed on our store is left to its visibility timeout
 * (redelivered, as a failed event record is).
 */

/**
 * Runs in flight in one invocation. Twenty: the bill of a run is its invocation's wall time shared with
 * the runs beside it, and a planner tick starts its due runs at once, so an invocation lasts about its
 * longest run — twenty runs share it about two-thirds as dearly as ten (bench/cost/worker-model.ts with
 * the event source's pollers, 2026-12-03: billed ≈ 0.16 of the runs' seconds at 1,000 sources with 20,
 * ≈ 0.22 with 10). What bounds it: memory — the
 * bundle's ≈ 100 MB plus what the runs hold: measured (`RSS_ONLY=worker RSS_WORKER_RUNS=20 RSS_LAMBDA_MB=256
 * npm run bench -- rss`, 2026-12-03) 20 full syncs of real 100-object pages in flight in this worker,
 * under the heap bounds Lambda sets at 256 MB, grew the live heap 35 → 106 MB (≈ 3.6 MB a run; without
 * the bounds V8 collected late and showed ≈ 10 MB) — ≈ 172 MB with the bundle, 256 MB is 1.49× that
 * (infra/function-sizes.ts SYNC_MEMORY_HEADROOM); and cost — the cost bench prices every width and
 * memory that fit (`syncSizing`): wider workers at more memory bill at most 12 % less. And CPU — an
 * unchanged incremental run works ≈ 0.5 s at 512 MB (≈ 0.29 vCPU) over its ≈ 22 s, so twenty take about
 * half the function's share. Runs beyond SCH-5's slots never come: the planner leases no more.
 */
export const WORKER_RUNS_AT_ONCE = 20;

/**
 * Runs of one host in flight in one invocation. One: runs of one host share its pace (RATE-1/RATE-2),
 * so two of them here take as long together as one after the other — the overlap the worker buys is
 * across hosts only. RATE-4's two requests per server stay kept globally by the host slots regardless.
 */
export const WORKER_RUNS_PER_HOST = 1;

/**
 * A run starts (from the event, the queue or its wait here) only with this much of the invocation left:
 * the reserve for the last page and the hand-over, plus what a lane entry needs (shared/sync/lane.ts).
 * With less, it would end cut as a continuation in a second invocation — dearer than leaving it.
 */
export const WORKER_START_MIN_MS = BUDGET_RESERVE_MS + LANE_START_MIN_MS;

/**
 * Long-poll wait of the worker's last look before it ends (nothing in flight): long enough that SQS
 * looks at all its servers (a short poll may answer empty while messages wait), short enough that an
 * empty queue costs a second of billed time, not more.
 */
export const WORKER_RECEIVE_WAIT_SECONDS = 1;

/**
 * Long-poll wait while runs are in flight: the runs go on meanwhile, so the wait is free; a new message
 * is taken within this. Short, because a poll still open when the last run ends is billed to its end.
 */
export const WORKER_POLL_WAIT_SECONDS = 5;

/**
 * Issue 28: the body of a wake message. With the `planner` trigger (infra/stack.ts `syncTrigger`) the
 * planner starts sync workers by sending this to the wake queue, whose event source invokes the sync;
 * the worker then takes every run from the sync queue itself. It names no run.
 */
export const SYNC_WAKE_BODY = '{"wake":"sync-worker"}';

/**
 * While its worker lives, a wake message stays hidden this long and is hidden again every
 * WAKE_RENEW_SECONDS: the planner counts wake messages as workers alive, so a worker that dies (timeout,
 * crash) shows as gone within this — its wake turns visible and the wake queue's event source starts
 * the next worker with it — not after the queue's 15-minute visibility timeout.
 */
export const WAKE_LEASE_SECONDS = 120;
export const WAKE_RENEW_SECONDS = 60;

/** The named queue operations the worker uses (shared/store `SyncQueue`). */
export type SyncQueuePort = Pick<SyncQueue, 'receive' | 'delete' | 'changeVisibility'>;

export interface SyncWorkerDeps extends SyncBatchDeps {
  /** Without it the worker runs only what it was handed (no refill, nothing to give back). */
  queue?: SyncQueuePort;
  /** Runs in flight at most; WORKER_RUNS_AT_ONCE unless a bench measures another width (bench/rss). */
  runsAtOnce?: number;
  /** The wake queue (the planner's trigger): the worker keeps its wake message hidden while it lives. */
  wakeQueue?: Pick<SyncQueue, 'changeVisibility'>;
  /** Seconds a wake message stays hidden, and how often it is hidden again (tests shorten them). */
  wakeLease?: { leaseSeconds: number; renewSeconds: number };
}

/** One message the worker holds: from the invocation's event (Lambda deletes those) or taken itself. */
export interface WorkerMessage extends QueuedMessage {
  from: 'event' | 'queue';
}

export interface SyncWorkerReport {
  /** Event records to report as batch item failures (not deleted by Lambda: redelivered). */
  failedEventIds: string[];
  results: SyncBodyResult[];
  /** Runs that threw (left for redelivery), with what they threw: the caller may tell why. */
  failures: { messageId: string; from: WorkerMessage['from']; error: unknown }[];
  /** Messages the worker took from the queue itself. */
  received: number;
  /** Messages given back (visibility 0) because they could not start in time. */
  givenBack: number;
  /** The most runs in flight at once. */
  maxInFlight: number;
}

interface Held extends WorkerMessage {
  host: string;
}

/** The key a message's run is kept apart by: its host (RATE-2), else its source, else the message. */
export function workerHostOf(message: QueuedMessage): string {
  try {
    const m = parseSyncMessage(message.body);
    return m.host ?? m.lane?.host ?? `source:${m.sourceId}`;
  } catch {
    // A malformed body is dropped by its run (processSyncBody); it blocks no host.
    return `message:${message.messageId}`;
  }
}

export async function runSyncWorker(
  deps: SyncWorkerDeps,
  initial: readonly WorkerMessage[],
  remainingMs: () => number,
  signal?: AbortSignal,
): Promise<SyncWorkerReport> {
  const log = deps.log ?? defaultSyncLog;
  const report: SyncWorkerReport = {
    failedEventIds: [],
    results: [],
    failures: [],
    received: 0,
    givenBack: 0,
    maxInFlight: 0,
  };
  const held: Held[] = initial.map((m) => ({ ...m, host: workerHostOf(m) }));
  const busy = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const timeLeft = () => remainingMs() >= WORKER_START_MIN_MS && !signal?.aborted;
  const runsAtOnce = deps.runsAtOnce ?? WORKER_RUNS_AT_ONCE;

  const start = (m: Held) => {
    held.splice(held.indexOf(m), 1);
    busy.set(m.host, (busy.get(m.host) ?? 0) + 1);
    const run = (async () => {
      try {
        report.results.push(await processSyncBody(deps, m.body, remainingMs(), signal));
      } catch (error) {
        // Our store failed (logged and counted by processSyncBody): redelivered after the visibility
        // timeout — an event record by its batch item failure, a message taken here by not deleting it.
        report.failures.push({ messageId: m.messageId, from: m.from, error });
        if (m.from === 'event') report.failedEventIds.push(m.messageId);
        return;
      } finally {
        const n = (busy.get(m.host) ?? 1) - 1;
        if (n === 0) busy.delete(m.host);
        else busy.set(m.host, n);
      }
      if (m.from === 'queue') await deleteTaken(deps, m);
    })();
    running.add(run);
    report.maxInFlight = Math.max(report.maxInFlight, running.size);
    void run.finally(() => running.delete(run));
  };

  // One receive at a time. While runs are in flight and there is room, the worker keeps a long poll
  // open, so what the planner sends is taken here while the event source's few invocations are busy
  // (infra/sync-concurrency.ts: its maximum concurrency is 1.5 × the runs in flight ÷ WORKER_RUNS_AT_ONCE,
  // at most SCH-5's slots ÷ it). With nothing in flight it
  // looks once more and ends on an empty answer: an idle invocation is not billed to wait.
  let poll: Promise<QueuedMessage[]> | undefined;
  let idleLookEmpty = false;
  for (;;) {
    if (timeLeft()) {
      for (const m of [...held]) {
        if (running.size >= runsAtOnce) break;
        if ((busy.get(m.host) ?? 0) < WORKER_RUNS_PER_HOST) start(m);
      }
    } else if (held.length > 0) {
      // Too late to start them here: another invocation may, now rather than after our runs end.
      await giveBack(deps, held.splice(0), report);
    }
    const room = runsAtOnce - running.size - held.length;
    const idle = running.size === 0;
    if (deps.queue && poll === undefined && room > 0 && timeLeft() && !(idle && idleLookEmpty)) {
      poll = receive(deps.queue, room, idle ? WORKER_RECEIVE_WAIT_SECONDS : WORKER_POLL_WAIT_SECONDS, log);
    }
    if (idle && poll === undefined) break;
    const looked = poll;
    const settled = await Promise.race([
      ...[...running].map((r) => r.then(() => undefined)),
      ...(looked ? [looked] : []),
    ]);
    if (looked === undefined || settled === undefined) continue;
    poll = undefined;
    const got = await looked;
    idleLookEmpty = got.length === 0 && running.size === 0;
    if (got.length > 0) {
      report.received += got.length;
      held.push(...got.map((m) => ({ ...m, from: 'queue' as const, host: workerHostOf(m) })));
    }
  }
  await giveBack(deps, held.splice(0), report);
  log.info('sync worker done', {
    runs: report.results.length,
    received: report.received,
    givenBack: report.givenBack,
    maxInFlight: report.maxInFlight,
    failed: report.failedEventIds.length,
  });
  return report;
}

async function receive(
  queue: SyncQueuePort,
  room: number,
  waitSeconds: number,
  log: SyncLog,
): Promise<QueuedMessage[]> {
  try {
    return await queue.receive({ max: room, waitSeconds });
  } catch (error) {
    // The queue is ours; a failed look only ends the refill early, the runs in flight go on.
    log.warn('sync worker could not receive from the queue', {
      code: 'STORE_UNAVAILABLE',
      error: String(error),
    });
    return [];
  }
}

async function deleteTaken(deps: SyncWorkerDeps, m: WorkerMessage): Promise<void> {
  try {
    await deps.queue?.delete(m.receiptHandle);
  } catch (error) {
    // Redelivered after its visibility timeout and dropped then as a duplicate (its run ended).
    (deps.log ?? defaultSyncLog).warn('sync worker could not delete a finished message', {
      code: 'STORE_UNAVAILABLE',
      messageId: m.messageId,
      error: String(error),
    });
  }
}

/** Visibility 0: the next consumer takes it at once. An event record also fails, so Lambda keeps it. */
async function giveBack(
  deps: SyncWorkerDeps,
  messages: WorkerMessage[],
  report: SyncWorkerReport,
): Promise<void> {
  for (const m of messages) {
    if (m.from === 'event') report.failedEventIds.push(m.messageId);
    try {
      await deps.queue?.changeVisibility(m.receiptHandle, 0);
    } catch (error) {
      // It comes back after its visibility timeout instead.
      (deps.log ?? defaultSyncLog).warn('sync worker could not give a message back', {
        code: 'STORE_UNAVAILABLE',
        messageId: m.messageId,
        error: String(error),
      });
    }
    report.givenBack += 1;
  }
}

/**
 * The sync function's invocation: the event's records (up to infra SYNC_BATCH_SIZE) are the worker's
 * first messages; it refills from the queue while time is left. Partial batch response: an event record
 * whose run failed on our store, or that was given back, is a batch item failure, so Lambda does not
 * delete it; every other record was worked and is deleted by Lambda.
 */
export async function handleSyncBatch(
  deps: SyncWorkerDeps,
  event: SQSEvent,
  remainingMs: () => number,
): Promise<SQSBatchResponse> {
  const wakes = event.Records.filter((r) => r.body === SYNC_WAKE_BODY);
  const stopLease = holdWakes(
    deps,
    wakes.map((r) => r.receiptHandle),
  );
  try {
    const report = await runSyncWorker(
      deps,
      event.Records.filter((r) => r.body !== SYNC_WAKE_BODY).map((r) => ({
        messageId: r.messageId,
        receiptHandle: r.receiptHandle,
        body: r.body,
        from: 'event' as const,
      })),
      remainingMs,
    );
    // A wake record is worked once the worker ends: Lambda deletes it with the rest.
    return { batchItemFailures: report.failedEventIds.map((itemIdentifier) => ({ itemIdentifier })) };
  } finally {
    stopLease();
  }
}

/**
 * The wake messages as this worker's lease (WAKE_LEASE_SECONDS, renewed): hidden while it lives, visible
 * again soon after it dies. Returns the stop. A failed renewal only shortens the lease: at worst a
 * second worker starts beside this one (each run still takes its claim and its host slots).
 */
function holdWakes(deps: SyncWorkerDeps, handles: readonly string[]): () => void {
  const queue = deps.wakeQueue;
  if (queue === undefined || handles.length === 0) return () => {};
  const { leaseSeconds, renewSeconds } = deps.wakeLease ?? {
    leaseSeconds: WAKE_LEASE_SECONDS,
    renewSeconds: WAKE_RENEW_SECONDS,
  };
  const hide = () => {
    for (const h of handles)
      void queue.changeVisibility(h, leaseSeconds).catch((error: unknown) =>
        (deps.log ?? defaultSyncLog).warn('sync worker could not renew its wake', {
          code: 'STORE_UNAVAILABLE',
          error: String(error),
        }),
      );
  };
  hide();
  const timer = setInterval(hide, renewSeconds * 1000);
  return () => clearInterval(timer);
}
