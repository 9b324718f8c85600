/**
 * The fetch runtime: the polite fetcher wired onto its peers — the clients, the per-host slots
 * (Upstash when configured, else process-local), the request log and metrics, and the RATE-2 host
 * interval index. Every function and command that fetches builds it here once (sync, geo, broadcasts,
 * preview, the probe, `sources add`). It sits above `fetch` (layer 4), which gets slots, pace and logs
 * only through ports and so cannot build them itself. Other folders import this front door only.
 */
export {
  createHostIntervalIndex,
  createRuntimeSourcesCache,
  HOST_INTERVAL_REFRESH_MS,
  type HostIntervalIndex,
} from './host-intervals';
export { createFetchRuntime, type FetchRuntime, type FetchRuntimeOptions } from './runtime';
export { createSourcesCache, type SourcesCache, type SourcesCacheOptions } from './sources-cache';
