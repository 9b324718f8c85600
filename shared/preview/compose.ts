import type { IngestorEnv, SourceConfig } from '../config';
import { upstashCredentials } from '../config';
import type { FetchEvent } from '../fetch';
import { createFetchRuntime } from '../fetch-runtime';
import type { HostResolver } from '../net';
import { logger } from '../observability';
import { scheduleSettingsFromEnv } from '../schedule';
import { createHostLedgerFromEnv, createSlotRedisClient, type HostLedger } from '../slots';
import { type AwsClients, mirrorTablePlacement, type SourcesLoad } from '../store';
import { createPreviewHostBudget, hostStatesReader, type PreviewHostBudget } from './admission';
import { createPreviewHandler, type PreviewDeps, type PreviewHandler } from './handler';
import { createLocalPreviewLimits, createRedisPreviewLimits, type PreviewLimits } from './limits';

/**
 * The preview's composition root, built once per process (cold start) on the same fetch runtime as the
 * sync (clients, host slots, the polite fetcher, RATE-2 host intervals). The PRV-2 limits live in the
 * same Redis as the slots; without Upstash (local `serve`) they are process-local.
 */
export interface PreviewRuntime {
  handler: PreviewHandler;
  close(): Promise<void>;
}

export interface PreviewRuntimeOptions {
  clients?: AwsClients;
  resolver?: HostResolver;
  onRequest?: (event: FetchEvent) => void;
  limits?: PreviewLimits;
  /**
   * RATE-9 (issue 27 item 5): the host ledger previews are admitted against and counted in. Default:
   * the one the slots use (Upstash when configured, else this process's own).
   */
  ledger?: HostLedger;
  overrides?: Pick<PreviewDeps, 'maxWaitMs' | 'maxFetchesPerInstance' | 'lingerMs' | 'now'>;
}

export async function composePreview(
  env: IngestorEnv,
  options: PreviewRuntimeOptions = {},
): Promise<PreviewRuntime> {
  const credentials = await upstashCredentials(env);
  const token = credentials?.token ?? env.UPSTASH_REDIS_REST_TOKEN;
  let hostBudget: PreviewHostBudget | undefined;
  const fetchRuntime = await createFetchRuntime(env, {
    ...(options.clients ? { clients: options.clients } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
    onRequest: (event) => {
      // RATE-9: every request of a preview counts towards the other fetches' share of its host.
      if (event.kind === 'request') hostBudget?.count(event.host);
      options.onRequest?.(event);
    },
  });
  // RATE-9: the sources per host from the runtime's Sources cache — the scan the RATE-2 host interval
  // index reads too, one per 5 minutes for both.
  let valid: { load: SourcesLoad; sources: SourceConfig[] } | undefined;
  hostBudget = createPreviewHostBudget({
    ledger: options.ledger ?? createHostLedgerFromEnv(env, token ? { token } : {}),
    settings: scheduleSettingsFromEnv(env),
    loadSources: async () => {
      const load = await fetchRuntime.sources.read();
      if (valid?.load !== load)
        valid = { load, sources: load.parsed.flatMap((p) => (p.ok ? [p.source] : [])) };
      return valid.sources;
    },
    loadHostStates: hostStatesReader({ doc: fetchRuntime.clients.doc, table: env.STATE_TABLE }),
    log: (event, fields) => logger.info(event, fields),
  });
  let limits = options.limits;
  if (!limits) {
    limits =
      env.UPSTASH_REDIS_REST_URL && token
        ? createRedisPreviewLimits(createSlotRedisClient({ url: env.UPSTASH_REDIS_REST_URL, token }))
        : createLocalPreviewLimits();
  }
  const { hostIntervals } = fetchRuntime;
  // RATE-2: start with the host intervals known; refreshed in the background at most every 5 minutes.
  // RATE-9: the sources per host the host budget judges a fetch by, loaded in the same cold start.
  await Promise.all([
    hostIntervals.refresh().catch(() => undefined),
    hostBudget.warm().catch(() => undefined),
  ]);
  const handler = createPreviewHandler({
    doc: fetchRuntime.clients.doc,
    s3: fetchRuntime.clients.s3,
    bucket: env.BUCKET,
    tables: {
      sources: env.SOURCES_TABLE,
      state: env.STATE_TABLE,
      documents: env.DOCUMENTS_TABLE,
      mirror: mirrorTablePlacement(env),
    },
    fetcher: fetchRuntime.fetcher,
    limits,
    hostBudget,
    hostIntervalMs: (host) => {
      void hostIntervals.refresh().catch(() => undefined);
      return hostIntervals.forHost(host);
    },
    // Never the visitor's address: ids, codes and sizes only (PRV-2).
    log: (event, fields) => logger.info(event, fields),
    ...(options.overrides ?? {}),
  });
  return {
    handler,
    close: () => fetchRuntime.close(),
  };
}
