import { parseEnv } from '../shared/config';

/**
 * Deploy-time knobs of the stack. Each comes from CDK context (`-c key=value`) first, then from the
 * same `INGESTOR_*` variable the functions read, then a documented default, so a bare
 * `cdk synth` works offline and a deploy can be tuned without editing code.
 */
export interface IngestorSettings {
  /** Upstash REST endpoint. The default is a placeholder: set the real one at deploy. */
  upstashRestUrl: string;
  /** Name of the existing Secrets Manager secret holding the Upstash token (never the token). */
  upstashSecretName: string;
  /** ID-1 operator User-Agent; unset = the functions' built-in default. */
  userAgent: string | undefined;
  /** SCH-5: sources synced at once. */
  maxConcurrentSyncs: number;
  /** FULL-1: start hour of the default full-sync window, Europe/Berlin. */
  fullSyncHour: number;
  /**
   * Issue 28: the runs the sync keeps in flight on average (`npm run bench -- cost` prints it as
   * `week.concurrentRunsNeeded`); the sync event source's cap is built from it
   * (infra/sync-concurrency.ts). Unset: every slot (`maxConcurrentSyncs`), the cap from the slots alone.
   */
  syncRunsInFlight: number | undefined;
  /**
   * Reserve concurrency for the planner (1), each scheduled job (1) and the preview
   * (PREVIEW_MAX_INSTANCES): 14 in all. Off by default — a new account's quota (10, all of it
   * unreservable) refuses any reservation; turn it on once the quota was raised.
   */
  reservedConcurrency: boolean;
}

export const UPSTASH_URL_PLACEHOLDER = 'https://example.upstash.io';
export const DEFAULT_UPSTASH_SECRET_NAME = 'mandari-ingestor/upstash-token';

/** Context keys, as passed with `cdk deploy -c <key>=<value>`. */
export const CONTEXT_KEYS = {
  upstashRestUrl: 'upstashRestUrl',
  upstashSecretName: 'upstashSecretName',
  userAgent: 'userAgent',
  maxConcurrentSyncs: 'maxConcurrentSyncs',
  fullSyncHour: 'fullSyncHour',
  syncRunsInFlight: 'syncRunsInFlight',
  reservedConcurrency: 'reservedConcurrency',
} as const;

type ContextLookup = (key: string) => unknown;

/** Context values arrive as strings from the CLI and as JSON values from cdk.json. */
function contextString(lookup: ContextLookup, key: string): string | undefined {
  const value = lookup(key);
  if (value === undefined || value === null) return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

export function resolveSettings(
  lookup: ContextLookup,
  env: Record<string, string | undefined> = process.env,
): IngestorSettings {
  // The numeric knobs go through the functions' own env schema: same ranges, same defaults, same
  // error messages as at runtime, so synth refuses a value the functions would refuse.
  const parsed = parseEnv({
    INGESTOR_MAX_CONCURRENT_SYNCS:
      contextString(lookup, CONTEXT_KEYS.maxConcurrentSyncs) ?? env.INGESTOR_MAX_CONCURRENT_SYNCS,
    INGESTOR_FULL_SYNC_HOUR: contextString(lookup, CONTEXT_KEYS.fullSyncHour) ?? env.INGESTOR_FULL_SYNC_HOUR,
    INGESTOR_USER_AGENT: contextString(lookup, CONTEXT_KEYS.userAgent) ?? env.INGESTOR_USER_AGENT,
  });

  const upstashRestUrl = contextString(lookup, CONTEXT_KEYS.upstashRestUrl) ?? UPSTASH_URL_PLACEHOLDER;
  let url: URL;
  try {
    url = new URL(upstashRestUrl);
  } catch {
    throw new Error(`context ${CONTEXT_KEYS.upstashRestUrl} must be an https URL, got "${upstashRestUrl}"`);
  }
  if (url.protocol !== 'https:') {
    throw new Error(`context ${CONTEXT_KEYS.upstashRestUrl} must be an https URL, got "${upstashRestUrl}"`);
  }

  const inFlightText = contextString(lookup, CONTEXT_KEYS.syncRunsInFlight);
  const syncRunsInFlight = inFlightText === undefined ? undefined : Number(inFlightText);
  // A mean of runs, so a fraction is fine (the bench prints one decimal); the stack checks it against
  // the slots.
  if (syncRunsInFlight !== undefined && !(Number.isFinite(syncRunsInFlight) && syncRunsInFlight > 0)) {
    throw new Error(
      `context ${CONTEXT_KEYS.syncRunsInFlight} must be a number > 0 (the mean runs in flight), got "${inFlightText}"`,
    );
  }

  const reserved = contextString(lookup, CONTEXT_KEYS.reservedConcurrency) ?? 'false';
  if (reserved !== 'true' && reserved !== 'false') {
    throw new Error(`context ${CONTEXT_KEYS.reservedConcurrency} must be true or false, got "${reserved}"`);
  }

  return {
    upstashRestUrl,
    reservedConcurrency: reserved === 'true',
    upstashSecretName: contextString(lookup, CONTEXT_KEYS.upstashSecretName) ?? DEFAULT_UPSTASH_SECRET_NAME,
    userAgent: parsed.INGESTOR_USER_AGENT,
    maxConcurrentSyncs: parsed.INGESTOR_MAX_CONCURRENT_SYNCS,
    fullSyncHour: parsed.INGESTOR_FULL_SYNC_HOUR,
    syncRunsInFlight,
  };
}
