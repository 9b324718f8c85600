import type { Context } from 'aws-lambda';
import { createFeedClients, type FeedClients } from '../changes';
import type { IngestorEnv } from '../config';
import { upstashCredentials } from '../config';
import { createPoliteFetcherFromEnv, type FetchEvent, type HostSlots } from '../fetch';
import type { HostResolver } from '../net';
import { logger } from '../observability';
import { scheduleSettingsFromEnv } from '../schedule';
import { createHostSlotsFromEnv, type HostLedger } from '../slots';
import { mirrorTablePlacement } from '../store';
import { HostBudget } from './admission';
import type { DocumentsDeps, PassOptions } from './context';

/**
 * The composition root of the files, deletion-check and photos functions: clients, host slots
 * (Upstash when configured, else process-local), the polite fetcher — built once per process (cold
 * start) from the same builders the sync uses, and shared by the three passes of one process so that
 * process-local slots pace all of them together.
 */
export interface DocumentsRuntime {
  env: IngestorEnv;
  clients: FeedClients;
  deps: DocumentsDeps;
  close(): Promise<void>;
}

export interface DocumentsRuntimeOptions {
  clients?: FeedClients;
  /** Only the local demo and tests pass a resolver (e.g. `*.test` → loopback). */
  resolver?: HostResolver;
  /** Tests pass slots on a fake clock; otherwise from the environment. */
  slots?: HostSlots;
  /**
   * Item 5 of issue 27: the host ledger the passes are admitted against and record their requests in.
   * Default: the ledger of the slots built from the environment; with `slots` given, none unless passed.
   */
  ledger?: HostLedger;
  /** Pacing clock and sleep (RATE-6, PHO-1 pause); tests pass a fake clock. */
  clock?: { now(): number };
  sleep?: (ms: number) => Promise<void>;
  onRequest?: (event: FetchEvent) => void;
}

export async function composeDocuments(
  env: IngestorEnv,
  options: DocumentsRuntimeOptions = {},
): Promise<DocumentsRuntime> {
  const clients = options.clients ?? createFeedClients(env);
  let slots = options.slots;
  let ledger = options.ledger;
  if (!slots) {
    const credentials = await upstashCredentials(env);
    const fromEnv = createHostSlotsFromEnv(env, credentials ? { token: credentials.token } : {});
    // In the init phase: place the Redis clock before the first reservation (no-op without Redis).
    await fromEnv.warmUp();
    slots = fromEnv;
    ledger ??= fromEnv.ledger;
  }
  const log = (event: string, fields: Record<string, unknown>) => logger.info(event, fields);
  const hostBudget =
    ledger === undefined
      ? undefined
      : new HostBudget({ ledger, settings: scheduleSettingsFromEnv(env), log });
  const clock = options.clock ?? { now: () => Date.now() };
  const fetcher = createPoliteFetcherFromEnv(env, {
    slots,
    s3: clients.s3,
    clock,
    ...(options.resolver ? { resolver: options.resolver } : {}),
    onRequest: (event) => {
      // Outcome per request: source, host, status or error code — never headers or bodies.
      logger.debug('request', { ...event });
      // Item 5: every request of a pass counts towards the other fetches' share of its host.
      if (event.kind === 'request') hostBudget?.count(event.host);
      options.onRequest?.(event);
    },
    onRobotsStoreError: (error, operation) =>
      logger.warn('robots store unavailable', { operation, error: String(error) }),
  });
  const deps: DocumentsDeps = {
    doc: clients.doc,
    s3: clients.s3,
    tables: {
      sources: env.SOURCES_TABLE,
      state: env.STATE_TABLE,
      documents: env.DOCUMENTS_TABLE,
      mirror: mirrorTablePlacement(env),
    },
    bucket: env.BUCKET,
    fetcher,
    clock,
    sleep:
      options.sleep ??
      ((ms) =>
        new Promise<void>((resolve) => {
          setTimeout(resolve, ms);
        })),
    log,
    ...(hostBudget === undefined ? {} : { hostBudget }),
  };
  return {
    env,
    clients,
    deps,
    async close() {
      await fetcher.close();
    },
  };
}

/** Without a Lambda context (a local call), a pass may take the longest a Lambda may run. */
const LAMBDA_MAX_MS = 15 * 60_000;

export interface DocumentsPassHandlerSpec<R, O extends PassOptions = PassOptions> {
  /** The function's runtime (`composeDocuments`), kept while the instance is warm (`warmRuntime`). */
  runtime: () => Promise<DocumentsRuntime>;
  pass: (deps: DocumentsDeps, options: O) => Promise<R>;
  /** Issue 28: what the invocation's event adds to the pass's options (a deletion-check shard). */
  optionsOf?: (event: unknown) => Omit<O, keyof PassOptions>;
  /** Kept back from the invocation's remaining time: the pass starts no new item in its last minutes. */
  reserveMs: number;
  /** One log line of what the pass did. */
  done: (report: R) => void;
}

/** A document pass as a scheduled Lambda handler, under the invocation's remaining time less `reserveMs`. */
export function documentsPassHandler<R, O extends PassOptions = PassOptions>({
  runtime,
  pass,
  reserveMs,
  done,
  optionsOf,
}: DocumentsPassHandlerSpec<R, O>): (
  event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
) => Promise<R> {
  return async (event, context) => {
    // Read first: a malformed event fails before any work.
    const extra = optionsOf?.(event);
    const rt = await runtime();
    const remainingMs = context?.getRemainingTimeInMillis() ?? LAMBDA_MAX_MS;
    const report = await pass(rt.deps, {
      ...extra,
      now: new Date(),
      deadlineMs: Date.now() + Math.max(0, remainingMs - reserveMs),
    } as O);
    done(report);
    return report;
  };
}
