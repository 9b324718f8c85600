import type { IngestorEnv } from '../config';
import { upstashCredentials } from '../config';
import type { FetchEvent } from '../fetch';
import { createFetchRuntime } from '../fetch-runtime';
import type { HostResolver } from '../net';
import { logger } from '../observability';
import { createSlotRedisClient } from '../slots';
import type { AwsClients } from '../store';
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
  overrides?: Pick<PreviewDeps, 'maxWaitMs' | 'maxFetchesPerInstance' | 'lingerMs' | 'now'>;
}

export async function createPreviewRuntime(
  env: IngestorEnv,
  options: PreviewRuntimeOptions = {},
): Promise<PreviewRuntime> {
  const fetchRuntime = await createFetchRuntime(env, {
    ...(options.clients ? { clients: options.clients } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  let limits = options.limits;
  if (!limits) {
    const credentials = await upstashCredentials(env);
    const token = credentials?.token ?? env.UPSTASH_REDIS_REST_TOKEN;
    limits =
      env.UPSTASH_REDIS_REST_URL && token
        ? createRedisPreviewLimits(createSlotRedisClient({ url: env.UPSTASH_REDIS_REST_URL, token }))
        : createLocalPreviewLimits();
  }
  const { hostIntervals } = fetchRuntime;
  // RATE-2: start with the host intervals known; refreshed in the background at most every 5 minutes.
  await hostIntervals.refresh().catch(() => undefined);
  const handler = createPreviewHandler({
    doc: fetchRuntime.clients.doc,
    s3: fetchRuntime.clients.s3,
    bucket: env.BUCKET,
    tables: { sources: env.SOURCES_TABLE, state: env.STATE_TABLE, documents: env.DOCUMENTS_TABLE },
    fetcher: fetchRuntime.fetcher,
    limits,
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
