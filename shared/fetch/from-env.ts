import type { S3Client } from '@aws-sdk/client-s3';
import type { IngestorEnv } from '../config';
import { createGuardedAgent, type HostResolver } from '../net';
import { createPoliteFetcher } from './fetcher';
import type { Clock, HostSlots } from './ports';
import { createLayeredRobotsStore, createMemoryRobotsStore, createS3RobotsStore } from './robots-store';
import type { FetchEvent, PoliteFetcher } from './types';
import { userAgentFromEnv } from './user-agent';

export interface FetcherFromEnvOptions {
  /** shared/slots `createHostSlotsFromEnv(env)` — Redis when configured, else process-local. */
  slots: HostSlots;
  /** With it, robots.txt state is shared through `robots/<host>/<agent>.json` in `env.BUCKET` (ROB-5). */
  s3?: S3Client;
  /** Only the local demo passes a test resolver; production resolves through the system. */
  resolver?: HostResolver;
  clock?: Clock;
  onRequest?: (event: FetchEvent) => void;
  onRobotsStoreError?: (error: unknown, operation: 'get' | 'put') => void;
}

/**
 * The fetcher of one process, wired from its environment: ID-1 agent from INGESTOR_USER_AGENT /
 * SCRAPER_USER_AGENT, loopback only with INGESTOR_ALLOW_LOOPBACK (local mode), robots.txt state in
 * S3 behind a process memory layer. Build it once at module load (STYLE), not per invocation.
 */
export function createPoliteFetcherFromEnv(
  env: IngestorEnv,
  options: FetcherFromEnvOptions,
): PoliteFetcher & { close(): Promise<void> } {
  const allowLoopback = env.INGESTOR_ALLOW_LOOPBACK;
  const clock = options.clock ?? { now: () => Date.now() };
  const robotsStore = options.s3
    ? createLayeredRobotsStore({
        shared: createS3RobotsStore({ s3: options.s3, bucket: env.BUCKET }),
        clock,
        ...(options.onRobotsStoreError ? { onSharedError: options.onRobotsStoreError } : {}),
      })
    : createMemoryRobotsStore();
  const dispatcher = createGuardedAgent({
    allowLoopback,
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  const fetcher = createPoliteFetcher({
    slots: options.slots,
    robotsStore,
    dispatcher,
    addressPolicy: { allowLoopback },
    clock,
    userAgent: { userAgent: userAgentFromEnv(env) },
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  /** Closes the sockets (local runner shutdown, tests); a Lambda never needs it. */
  return { ...fetcher, close: () => dispatcher.close() };
}
