import type { FeedClients } from '../changes';
import type { IngestorEnv } from '../config';
import { loadHostIntervals } from '../pace';
import { loadAllSources } from '../store';
import { hostKeyOrUndefined } from '../util';

/** RATE-2: changes of any source's interval reach every fetch to its host within 5 minutes. */
export const HOST_INTERVAL_REFRESH_MS = 5 * 60_000;

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
