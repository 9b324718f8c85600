import type { IngestorEnv } from '../config';
import type { FetchEvent } from '../fetch';
import { createFetchRuntime } from '../fetch-runtime';
import { MirrorStore } from '../mirror';
import type { HostResolver } from '../net';
import { createOtherFetch } from '../other-fetch';
import { type AwsClients, mirrorTablePlacement } from '../store';
import { type GeoRunSummary, runGeoRefresh } from './run';
import { createGeoStore } from './store';

/**
 * The composition root of the geo refresh (function and CLI): the shared fetch runtime — slots from
 * Upstash when configured (OTH-2: the same store as council fetches), the polite fetcher, the council
 * host intervals re-read at most every 5 minutes — with the other-fetch mode on top.
 */
export interface GeoRuntime {
  refresh(options?: { sourceId?: string }): Promise<GeoRunSummary>;
  close(): Promise<void>;
}

export interface GeoRuntimeOptions {
  clients?: AwsClients;
  resolver?: HostResolver;
  onRequest?: (event: FetchEvent) => void;
  now?: () => Date;
}

export async function composeGeo(env: IngestorEnv, options: GeoRuntimeOptions = {}): Promise<GeoRuntime> {
  const fetchRuntime = await createFetchRuntime(env, {
    ...(options.clients ? { clients: options.clients } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  const { clients } = fetchRuntime;
  const tables = { bucket: env.BUCKET, stateTable: env.STATE_TABLE };
  const deps = {
    otherFetch: createOtherFetch({
      fetcher: fetchRuntime.fetcher,
      hostIntervals: fetchRuntime.hostIntervals,
    }),
    store: createGeoStore({ doc: clients.doc, s3: clients.s3, ...tables }),
    mirror: new MirrorStore(clients, { ...tables, mirrorTable: mirrorTablePlacement(env) }),
    now: options.now ?? (() => new Date()),
    doc: clients.doc,
    sourcesTable: env.SOURCES_TABLE,
  };
  return {
    refresh: (refreshOptions = {}) => runGeoRefresh(deps, refreshOptions),
    close: () => fetchRuntime.close(),
  };
}
