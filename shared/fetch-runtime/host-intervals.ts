import type { FeedClients } from '../changes';
import type { IngestorEnv } from '../config';
import { loadHostIntervals } from '../pace';
import { loadAllSources, type SourcesLoad } from '../store';
import { hostKeyOrUndefined } from '../util';
import { createSourcesCache, type SourcesCache } from './sources-cache';

/** RATE-2: changes of any source's interval reach every fetch to its host within 5 minutes. */
export const HOST_INTERVAL_REFRESH_MS = 5 * 60_000;

/**
 * RATE-2: the largest interval configured for any source on a hostname applies to every fetch to that
 * hostname. Kept per process and derived again whenever the process's Sources cache re-read the table
 * (at most every 5 minutes).
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

/** The process's Sources cache as RATE-2 needs it: the table re-read at most every 5 minutes. */
export function createRuntimeSourcesCache(
  clients: Pick<FeedClients, 'doc'>,
  env: Pick<IngestorEnv, 'SOURCES_TABLE'>,
  nowMs: () => number = Date.now,
): SourcesCache {
  return createSourcesCache(() => loadAllSources(clients.doc, env.SOURCES_TABLE), {
    maxAgeMs: HOST_INTERVAL_REFRESH_MS,
    nowMs,
  });
}

/** `sources`: the runtime's shared cache; a cache of its own when none is given (tests, tools). */
export function createHostIntervalIndex(
  clients: FeedClients,
  env: IngestorEnv,
  nowMs: () => number = Date.now,
  sources: SourcesCache = createRuntimeSourcesCache(clients, env, nowMs),
): HostIntervalIndex {
  let byHost = new Map<string, number>();
  let hostOf = new Map<string, string>();
  // The table read the index was last derived from (or is being derived from).
  let derived: { load: SourcesLoad; done: Promise<void> } | undefined;
  return {
    async refresh(): Promise<void> {
      const load = await sources.read();
      if (derived?.load === load) return derived.done;
      const mine = { load, done: Promise.resolve() };
      // A broken item keeps counting with its last valid pace (issue 13), not dropping out.
      mine.done = loadHostIntervals(clients.doc, env.STATE_TABLE, load).then((intervals) => {
        // A newer table read overtook this one: its view wins.
        if (derived === mine) ({ byHostMs: byHost, hostOf } = intervals);
      });
      derived = mine;
      mine.done.catch(() => {
        if (derived === mine) derived = undefined;
      });
      return mine.done;
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
