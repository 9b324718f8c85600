import { createFeedClients, type FeedClients } from '../changes';
import type { IngestorEnv } from '../config';
import { upstashCredentials } from '../config';
import { createPoliteFetcherFromEnv, type FetchEvent, type HostSlots, type PoliteFetcher } from '../fetch';
import type { HostResolver } from '../net';
import { logger, logRequestEvent, metrics } from '../observability';
import { createHostSlotsFromEnv } from '../slots';
import { createHostIntervalIndex, createRuntimeSourcesCache, type HostIntervalIndex } from './host-intervals';
import type { SourcesCache } from './sources-cache';

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
  /**
   * The Sources table as this process last read it (at most 5 minutes old, RATE-2): the host interval
   * index and the preview's host budget read it, one scan for both.
   */
  sources: SourcesCache;
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
  /** The Sources cache's clock; tests advance it past the 5 minutes. */
  nowMs?: () => number;
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
  const nowMs = options.nowMs ?? Date.now;
  const sources = createRuntimeSourcesCache(clients, env, nowMs);
  return {
    clients,
    slots,
    fetcher,
    hostIntervals: createHostIntervalIndex(clients, env, nowMs, sources),
    sources,
    flushReleases: () => baseSlots.flushReleases(),
    async close() {
      await baseSlots.flushReleases();
      metrics.flush();
      await fetcher.close();
    },
  };
}
