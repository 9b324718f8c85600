import { createFeedClients, type FeedClients } from '../changes';
import type { IngestorEnv } from '../config';
import { upstashCredentials } from '../config';
import { syncTablesFromEnv } from '../engine';
import { createPoliteFetcherFromEnv, type FetchEvent, type HostSlots, type PoliteFetcher } from '../fetch';
import type { HostResolver } from '../net';
import { logger, logRequestEvent, metrics, recordSyncReport } from '../observability';
import { createOParlSyncEngine } from '../oparl';
import { loadHostIntervals } from '../pace';
import { DEFAULT_LEASE_MINUTES, scheduleSettingsFromEnv } from '../schedule';
import { createScraperSyncEngine } from '../scraper';
import { createHostSlotsFromEnv, RELEASE_LINGER_MS } from '../slots';
import { loadAllSources, SyncQueue } from '../store';
import { takedownGuards } from '../takedown';
import { hostKeyOrUndefined } from '../util';
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
  close(): Promise<void>;
}

/** RATE-2: changes of any source's interval reach every fetch to its host within 5 minutes. */
export const HOST_INTERVAL_REFRESH_MS = 5 * 60_000;

export interface SyncRuntimeOptions {
  clients?: FeedClients;
  /** Only the local demo and tests pass a resolver (e.g. `*.test` → loopback). */
  resolver?: HostResolver;
  onRequest?: (event: FetchEvent) => void;
}

/**
 * The fetching half of the composition root, shared by the sync function and the operator CLI (probe,
 * `sources add`): clients, slots (Upstash when configured, else process-local), the polite fetcher with
 * the request log and metrics (source, host, outcome — never headers or bodies), and the RATE-2 host
 * interval index. Built once per process.
 */
export interface FetchRuntime {
  clients: FeedClients;
  slots: HostSlots;
  fetcher: PoliteFetcher & { close(): Promise<void> };
  hostIntervals: HostIntervalIndex;
  /** Sends lingering slot releases (see FetchRuntimeOptions.releaseLingerMs); before an invocation ends. */
  flushReleases(): Promise<void>;
  close(): Promise<void>;
}

export interface FetchRuntimeOptions {
  clients?: FeedClients;
  /** Only the local demo and tests pass a resolver (e.g. `*.test` → loopback). */
  resolver?: HostResolver;
  onRequest?: (event: FetchEvent) => void;
  /** ONB-1: the probe wraps the slots to count and cap every request (robots.txt and hops included). */
  wrapSlots?: (slots: HostSlots) => HostSlots;
  /**
   * Let a released slot lease's Redis release ride along with the next reservation of the same host
   * (`HostSlotsOptions.releaseLingerMs`). Only for callers that call `flushReleases()` before an
   * invocation ends (the sync function, after each message).
   */
  releaseLingerMs?: number;
}

export async function createFetchRuntime(
  env: IngestorEnv,
  options: FetchRuntimeOptions = {},
): Promise<FetchRuntime> {
  const clients = options.clients ?? createFeedClients(env);
  const credentials = await upstashCredentials(env);
  const baseSlots = createHostSlotsFromEnv(env, {
    ...(credentials ? { token: credentials.token } : {}),
    ...(options.releaseLingerMs ? { releaseLingerMs: options.releaseLingerMs } : {}),
  });
  // In the init phase: place the Redis clock before the first reservation (no-op without Redis).
  await baseSlots.warmUp();
  const slots = options.wrapSlots ? options.wrapSlots(baseSlots) : baseSlots;
  const fetcher = createPoliteFetcherFromEnv(env, {
    slots,
    s3: clients.s3,
    ...(options.resolver ? { resolver: options.resolver } : {}),
    onRequest: (event) => {
      // Outcome per request: source, host, status or error code — never headers or bodies.
      logRequestEvent(event);
      options.onRequest?.(event);
    },
    onRobotsStoreError: (error, operation) =>
      logger.warn('robots store unavailable', { operation, error: String(error) }),
  });
  return {
    clients,
    slots,
    fetcher,
    hostIntervals: createHostIntervalIndex(clients, env),
    flushReleases: () => baseSlots.flushReleases(),
    async close() {
      await baseSlots.flushReleases();
      metrics.flush();
      await fetcher.close();
    },
  };
}

export async function createSyncRuntime(
  env: IngestorEnv,
  options: SyncRuntimeOptions = {},
): Promise<SyncRuntime> {
  if (!env.SYNC_QUEUE_URL) throw new Error('SYNC_QUEUE_URL is not set');
  // A sync fetches page after page from one host: each release rides with the next reservation.
  const { clients, fetcher, hostIntervals, flushReleases, close } = await createFetchRuntime(env, {
    ...options,
    releaseLingerMs: RELEASE_LINGER_MS,
  });
  const tables = syncTablesFromEnv(env);
  // OPT-5: the kinds take the takedown guard as a port; it is built here, over the same clients.
  const takedowns = takedownGuards({ clients, bucket: tables.bucket, stateTable: tables.state });
  const oparlEngine = createOParlSyncEngine({
    fetcher,
    clients,
    tables,
    takedowns,
    hostIntervalMs: (sourceId) => hostIntervals.forSource(sourceId),
    log: (event, fields) => logger.info(event, fields),
  });
  // Issue 8: sources of kind `scraper` (no OParl API) run the HTML scraper over the same fetcher.
  const scraperEngine = createScraperSyncEngine({
    fetcher,
    clients,
    tables,
    takedowns,
    hostIntervalMs: (sourceId) => hostIntervals.forSource(sourceId),
    log: (event, fields) => logger.info(event, fields),
  });
  const runDeps: SyncRunDeps = {
    doc: clients.doc,
    sqs: clients.sqs,
    tables: { sources: env.SOURCES_TABLE, state: env.STATE_TABLE },
    syncQueueUrl: env.SYNC_QUEUE_URL,
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
    queue: new SyncQueue({ sqs: clients.sqs, queueUrl: env.SYNC_QUEUE_URL }),
    close,
  };
}

/**
 * RATE-2: the largest interval configured for any source on a hostname applies to every fetch to that
 * hostname. Kept per process and re-read from the Sources table at most every 5 minutes.
 */
export interface HostIntervalIndex {
  refresh(): Promise<void>;
  forSource(sourceId: string): number | undefined;
  /**
   * The largest interval of any source on `host`, ms (RATE-2); undefined when none is known. Inactive
   * sources count too: other fetches on that host keep it (OTH-2).
   */
  forHost(host: string): number | undefined;
}

export function createHostIntervalIndex(
  clients: FeedClients,
  env: IngestorEnv,
  nowMs: () => number = Date.now,
): HostIntervalIndex {
  let loadedAt = Number.NEGATIVE_INFINITY;
  let byHost = new Map<string, number>();
  let hostOf = new Map<string, string>();
  return {
    async refresh(): Promise<void> {
      if (nowMs() - loadedAt < HOST_INTERVAL_REFRESH_MS) return;
      // A broken item keeps counting with its last valid pace (issue 13), not dropping out.
      const load = await loadAllSources(clients.doc, env.SOURCES_TABLE);
      ({ byHostMs: byHost, hostOf } = await loadHostIntervals(clients.doc, env.STATE_TABLE, load));
      loadedAt = nowMs();
    },
    forSource(sourceId: string): number | undefined {
      const host = hostOf.get(sourceId);
      return host === undefined ? undefined : byHost.get(host);
    },
    forHost(host: string): number | undefined {
      return byHost.get(hostKeyOrUndefined(host) ?? host);
    },
  };
}
