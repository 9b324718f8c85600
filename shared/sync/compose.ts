import type { FeedClients } from '../changes';
import type { IngestorEnv } from '../config';
import { syncTablesFromEnv } from '../engine';
import type { FetchEvent } from '../fetch';
import { createFetchRuntime } from '../fetch-runtime';
import type { HostResolver } from '../net';
import { logger, metrics, recordSyncReport } from '../observability';
import { createOParlSyncEngine } from '../oparl';
import { DEFAULT_LEASE_MINUTES, scheduleSettingsFromEnv } from '../schedule';
import { createScraperSyncEngine } from '../scraper';
import { RELEASE_LINGER_MS } from '../slots';
import { SyncQueue } from '../store';
import { takedownGuards } from '../takedown';
import type { SyncRunDeps } from './run';

/**
 * The composition root of the sync function: clients, slots (Upstash when configured, else
 * process-local), the polite fetcher, the takedown guards and the engines, built once per process (cold start).
 */
export interface SyncRuntime {
  env: IngestorEnv;
  clients: FeedClients;
  runDeps: SyncRunDeps;
  /** The sync queue the worker refills from (shared/sync/worker.ts). */
  queue: SyncQueue;
  /** Issue 28: the wake queue, when the planner starts the workers (the worker holds its wake there). */
  wakeQueue: SyncQueue | undefined;
  close(): Promise<void>;
}

export interface SyncRuntimeOptions {
  clients?: FeedClients;
  /** Only the local demo and tests pass a resolver (e.g. `*.test` → loopback). */
  resolver?: HostResolver;
  onRequest?: (event: FetchEvent) => void;
}

export async function composeSync(env: IngestorEnv, options: SyncRuntimeOptions = {}): Promise<SyncRuntime> {
  if (!env.SYNC_QUEUE_URL) throw new Error('SYNC_QUEUE_URL is not set');
  // A sync fetches page after page from one host: each release rides with the next reservation.
  const { clients, fetcher, hostIntervals, flushReleases, close } = await createFetchRuntime(env, {
    ...options,
    releaseLingerMs: RELEASE_LINGER_MS,
  });
  const tables = syncTablesFromEnv(env);
  // OPT-5: the kinds take the takedown guard as a port; it is built here, over the same clients.
  const takedowns = takedownGuards({
    clients,
    bucket: tables.bucket,
    stateTable: tables.state,
    mirrorTable: tables.mirror,
  });
  const engineDeps = {
    fetcher,
    clients,
    tables,
    takedowns,
    hostIntervalMs: (sourceId: string) => hostIntervals.forSource(sourceId),
    log: (event: string, fields: Record<string, unknown>) => logger.info(event, fields),
  };
  const oparlEngine = createOParlSyncEngine(engineDeps);
  // Issue 8: sources of kind `scraper` (no OParl API) run the HTML scraper over the same fetcher and deps.
  const scraperEngine = createScraperSyncEngine(engineDeps);
  // One queue for the whole process: the worker refills from it, runs send continuations to it.
  const queue = new SyncQueue({ sqs: clients.sqs, queueUrl: env.SYNC_QUEUE_URL });
  const runDeps: SyncRunDeps = {
    doc: clients.doc,
    tables: { sources: env.SOURCES_TABLE, state: env.STATE_TABLE },
    queue,
    engine: async (source, message, budget) => {
      await hostIntervals.refresh();
      try {
        const engine = source.kind === 'scraper' ? scraperEngine : oparlEngine;
        let report: Awaited<ReturnType<typeof engine>>;
        try {
          report = await engine(source, message, budget);
        } catch (error) {
          // What the failed run committed is still published (or outboxed); the run's error wins.
          await clients.changes?.flush().catch(() => {});
          throw error;
        }
        // Issue 16: the run's committed changes leave before the message counts as done; a publish that
        // can be neither delivered nor outboxed fails the message (redelivered, events kept buffered).
        await clients.changes?.flush();
        recordSyncReport(source.sourceId, report);
        return report;
      } finally {
        // Before the invocation may end (a frozen instance runs no timers).
        await flushReleases();
        // One EMF line per dimension set and sync message, not one per request.
        metrics.flush();
      }
    },
    now: () => new Date(),
    leaseMinutes: DEFAULT_LEASE_MINUTES,
    settings: scheduleSettingsFromEnv(env),
  };
  return {
    env,
    clients,
    runDeps,
    queue,
    wakeQueue: env.SYNC_WAKE_QUEUE_URL
      ? new SyncQueue({ sqs: clients.sqs, queueUrl: env.SYNC_WAKE_QUEUE_URL })
      : undefined,
    close,
  };
}
