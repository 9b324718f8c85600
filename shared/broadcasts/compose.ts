import { createFeedClients, type FeedClients } from '../changes';
import type { IngestorEnv } from '../config';
import { createFetchRuntime } from '../fetch-runtime';
import { MirrorStore } from '../mirror';
import type { HostResolver } from '../net';
import { createOtherFetch } from '../other-fetch';
import { mirrorTablePlacement } from '../store';
import type { BroadcastDeps, BroadcastFetch } from './run';

/**
 * The composition root of broadcast polling (the once-a-minute function, `ingestor broadcasts poll`,
 * `npm start`). The fetcher — slots (Upstash when configured), the Upstash secret, the council host
 * intervals (OTH-2) — is built on the first request only: a pass outside every meeting window reads a
 * few State items and nothing else.
 */
export interface BroadcastRuntime {
  deps: BroadcastDeps;
  close(): Promise<void>;
}

export interface BroadcastRuntimeOptions {
  clients?: FeedClients;
  /** Only the local demo and tests pass a resolver (e.g. `*.test` → loopback). */
  resolver?: HostResolver;
}

export function composeBroadcasts(env: IngestorEnv, options: BroadcastRuntimeOptions = {}): BroadcastRuntime {
  const clients = options.clients ?? createFeedClients(env);
  let fetchRuntime: ReturnType<typeof createFetchRuntime> | undefined;
  const fetch = async (): Promise<BroadcastFetch> => {
    fetchRuntime ??= createFetchRuntime(env, {
      clients,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
    const rt = await fetchRuntime.catch((error: unknown) => {
      // A failed build (Upstash secret unreadable) is tried again by the next pass.
      fetchRuntime = undefined;
      throw error;
    });
    return createOtherFetch({ fetcher: rt.fetcher, hostIntervals: rt.hostIntervals });
  };
  return {
    deps: {
      clients,
      tables: { sources: env.SOURCES_TABLE, state: env.STATE_TABLE, mirror: mirrorTablePlacement(env) },
      mirror: new MirrorStore(clients, { bucket: env.BUCKET, stateTable: env.STATE_TABLE }),
      fetch,
    },
    async close() {
      const rt = await fetchRuntime?.catch(() => undefined);
      await rt?.close();
    },
  };
}
