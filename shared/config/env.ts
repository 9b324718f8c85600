import * as z from 'zod';
import { ConfigError } from './errors';

/**
 * Process environment, parsed once. Every knob has a documented default so `npm start` needs none;
 * deployed functions get theirs from the CDK stack. Secrets (the Upstash token) are read here but never
 * logged: `describeEnv` redacts them.
 */
const intFrom = (min: number, max: number, fallback: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return fallback;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < min || value > max) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a whole number from ${min} to ${max}, got "${raw}"`,
        });
        return z.NEVER;
      }
      return value;
    });

const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/**
 * SCH-5's slots are a count, not a pace: every host keeps its own (RATE-1/4/9) however many there are. A fleet
 * needs ≈ 92 per 1,000 sources (docs/scale.md, `week.maxConcurrentSyncsWithBurst` of `npm run bench -- cost`),
 * so the bound sits above 100,000 sources' ≈ 9,200 rather than at the old 100, which made every fleet above
 * ≈ 1,100 sources slot-bound.
 */
export const MAX_CONCURRENT_SYNCS_LIMIT = 10_000;

const envSchema = z.object({
  /** ID-1: operator's User-Agent; `SCRAPER_USER_AGENT` is the legacy name. */
  INGESTOR_USER_AGENT: optionalString,
  SCRAPER_USER_AGENT: optionalString,
  /** SCH-1: base interval of weekday 07–19 in minutes (default 10). */
  INGESTOR_INTERVAL: intFrom(1, 1440, 10),
  /** FULL-1: start hour of the default full-sync window, Europe/Berlin (default 03). */
  INGESTOR_FULL_SYNC_HOUR: intFrom(0, 23, 3),
  /** SCH-5: sources synced at once (default 4). */
  INGESTOR_MAX_CONCURRENT_SYNCS: intFrom(1, MAX_CONCURRENT_SYNCS_LIMIT, 4),
  /** RATE-7: maximum concurrent function instances, the multiplier of the Redis-less fallback pace. */
  INGESTOR_MAX_INSTANCES: intFrom(1, 1000, 10),
  SOURCES_TABLE: z.string().trim().default('ingestor-sources'),
  STATE_TABLE: z.string().trim().default('ingestor-state'),
  DOCUMENTS_TABLE: z.string().trim().default('ingestor-documents'),
  /** Issue 28: the mirror's object index in a table of its own (shared/store tables.ts MIRROR_TABLE). */
  MIRROR_TABLE: z.string().trim().default('ingestor-mirror-index'),
  /**
   * Where the mirror's object items are read and written during the move (shared/store tables.ts
   * `MirrorTablePhase`): the stack sets it from `-c mirrorTable=dual|own`; absent = `state`, where
   * every earlier release kept them (a local `.data/` included).
   */
  MIRROR_TABLE_PHASE: z.enum(['state', 'dual', 'own']).default('state'),
  BUCKET: z.string().trim().default('ingestor-mirror'),
  SYNC_QUEUE_URL: optionalString,
  /**
   * Issue 28: the wake queue of the sync workers the planner starts (infra `syncTrigger` planner), and
   * the most workers it keeps alive (infra/sync-concurrency.ts plannerSyncWorkers). Unset: the sync
   * queue's event source starts them.
   */
  SYNC_WAKE_QUEUE_URL: optionalString,
  INGESTOR_SYNC_WORKERS_MAX: intFrom(1, 1000, 1),
  /** Runs one sync worker keeps in flight (shared/sync WORKER_RUNS_AT_ONCE unless the stack sets it). */
  INGESTOR_SYNC_RUNS_AT_ONCE: z.coerce.number().int().min(1).max(200).optional(),
  /** Upstash REST endpoint and token; in AWS the token comes from Secrets Manager (UPSTASH_SECRET_ARN). */
  UPSTASH_REDIS_REST_URL: optionalString,
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  UPSTASH_SECRET_ARN: optionalString,
  /**
   * Issue 25 point 5: where the key of the mirror's ids comes from (shared/config api-id-key.ts) — the
   * secret the stack generates (AWS), or a file created once under the data folder (local mode).
   */
  INGESTOR_API_ID_KEY_SECRET_ARN: optionalString,
  INGESTOR_API_ID_KEY_FILE: optionalString,
  /** Local mode only: endpoint of the local DynamoDB / S3 / SQS peers. Never set in AWS. */
  INGESTOR_DYNAMODB_ENDPOINT: optionalString,
  INGESTOR_S3_ENDPOINT: optionalString,
  INGESTOR_SQS_ENDPOINT: optionalString,
  /** Local mode and tests only: endpoint of a local EventBridge peer. Never set in AWS. */
  INGESTOR_EVENTBRIDGE_ENDPOINT: optionalString,
  /**
   * The change feed (issue 16): the EventBridge bus (`default` or a named one) every committed mirror
   * change is published to. Unset = no feed. The CDK stack sets it when the `changeFeed` context is on.
   */
  INGESTOR_CHANGE_BUS: optionalString,
  /** `ingestor --aws` only (stack output CdnDistributionId): where a takedown invalidates (OPT-2). */
  INGESTOR_CDN_DISTRIBUTION_ID: optionalString,
  /** Local mode: the change feed as a JSON lines file (`.data/changes.jsonl`). */
  INGESTOR_CHANGE_FILE: optionalString,
  /**
   * The mirror API (issue 16): `false` when no document endpoint (`/documents/…`, the preview) is
   * deployed beside it — File objects then keep the origin's own accessUrl/downloadUrl instead of
   * pointing to a route that does not exist. The CDK stack sets it; default: documents are served.
   */
  INGESTOR_API_DOCUMENTS: z
    .string()
    .trim()
    .optional()
    .transform((v) => v !== 'false' && v !== '0'),
  /** Local mode only (`--allow-loopback`): lets the fetcher reach 127.0.0.0/8 and ::1. */
  INGESTOR_ALLOW_LOOPBACK: z
    .string()
    .trim()
    .optional()
    .transform((v) => v === 'true' || v === '1'),
  AWS_REGION: z.string().trim().default('eu-central-1'),
});

export type IngestorEnv = z.output<typeof envSchema>;

export function parseEnv(source: Record<string, string | undefined> = process.env): IngestorEnv {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => ({
      field: issue.path.join('.'),
      message: issue.message,
    }));
    throw new ConfigError(
      `invalid environment: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
      problems,
    );
  }
  return result.data;
}

let cached: IngestorEnv | undefined;
/** The environment of this process, parsed on first use. */
export function env(): IngestorEnv {
  cached ??= parseEnv();
  return cached;
}

/** For tests and the local runner, which set variables after import. */
export function resetEnvCache(): void {
  cached = undefined;
}

const SECRET_KEYS = new Set(['UPSTASH_REDIS_REST_TOKEN']);
export function describeEnv(e: IngestorEnv): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(e).map(([k, v]) => [k, SECRET_KEYS.has(k) && v !== undefined ? '***' : v]),
  );
}
