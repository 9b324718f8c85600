import { UPSTASH_URL_PLACEHOLDER } from '../../infra/settings';
import type { IngestorEnv } from '../../shared/config';
import { UsageError } from '../output';

/**
 * RATE-1 / RATE-4 under `--aws`: the operator's machine fetches from the same council servers as the
 * deployed functions, so it must take its host slots from the same Redis. Process-local slots would
 * add a second, unshared pace per host. Commands that only read or write our tables need no slots.
 */

/** Does this command line make requests to council servers? (`positionals` = command and its words.) */
export function commandFetches(positionals: readonly string[]): boolean {
  const [command, sub] = positionals;
  switch (command) {
    case 'sync':
    case 'probe':
    case 'deletion-check':
    case 'photos':
    case 'serve':
    case 'start':
      return true;
    case 'files':
      // `files clear <fileId>` only resets a record; the pass itself fetches.
      return sub !== 'clear';
    case 'geo':
      // OTH-2: geo services share the council hosts' pace through the same slot store.
      return sub === 'refresh';
    case 'broadcasts':
      // OTH-2: a poll asks streaming providers through the same shared slot store.
      return sub === 'poll';
    case 'sources':
      // ONB-2: adding (one or many) reads robots.txt, the System and the body list first.
      return sub === 'add' || sub === 'import';
    default:
      return false;
  }
}

/** Is a shared slot store configured (a real Upstash URL and a token or the secret holding it)? */
export function hasSharedSlots(
  env: Pick<IngestorEnv, 'UPSTASH_REDIS_REST_URL' | 'UPSTASH_REDIS_REST_TOKEN' | 'UPSTASH_SECRET_ARN'>,
): boolean {
  const url = env.UPSTASH_REDIS_REST_URL;
  if (!url || url === UPSTASH_URL_PLACEHOLDER) return false;
  return Boolean(env.UPSTASH_REDIS_REST_TOKEN || env.UPSTASH_SECRET_ARN);
}

/** Refuses (exit 2) a fetching command under `--aws` without the shared slot store. */
export function requireSharedSlots(
  positionals: readonly string[],
  env: Pick<IngestorEnv, 'UPSTASH_REDIS_REST_URL' | 'UPSTASH_REDIS_REST_TOKEN' | 'UPSTASH_SECRET_ARN'>,
  stackName: string,
): void {
  if (!commandFetches(positionals) || hasSharedSlots(env)) return;
  const what = positionals.slice(0, 2).join(' ');
  throw new UsageError(
    `"${what}" fetches from council servers; under --aws it must share the deployed functions' per-host pace ` +
      `(RATE-1/RATE-4) through Upstash Redis, but no Upstash is configured: stack ${stackName} has no usable ` +
      'UpstashRestUrl / UpstashSecretArn output and UPSTASH_REDIS_REST_URL with UPSTASH_REDIS_REST_TOKEN is not set. ' +
      'Commands that only read or change the tables (status, sources list|show|set, documents, bodies, request, tombstone) work without it.',
  );
}
