import {
  Annotations,
  CfnOutput,
  Duration,
  Lazy,
  RemovalPolicy,
  Stack,
  type StackProps,
  TimeZone,
  Token,
  Validations,
} from 'aws-cdk-lib';
import {
  AllowedMethods,
  type BehaviorOptions,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  PriceClass,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { AttributeType, ProjectionType, Table, TableClass, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  Alias,
  type CfnFunction,
  type FunctionUrl,
  FunctionUrlAuthType,
  InvokeMode,
  RecursiveLoop,
} from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
  StorageClass,
} from 'aws-cdk-lib/aws-s3';
import {
  type CronOptionsWithTimezone,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
} from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import {
  MAX_CONCURRENT_SYNCS_LIMIT,
  type OptionalStackOutputKey,
  STACK_OUTPUT_ENV,
  type StackOutputKey,
} from '../shared/config';
import { deletionShardsFor, TEXT_WORKER } from '../shared/documents';
import { GEO_OBJECT_PREFIX, GEO_REFRESH_HOUR, GEO_REFRESH_MINUTE } from '../shared/geo';
import { FILES_PREFIX, INCOMING_PREFIX, MIRROR_PREFIX, TEXT_PREFIX } from '../shared/mirror';
import {
  API_BASE_HEADER,
  API_PREFIX,
  API_QUERY_PARAMETERS,
  LIST_MAX_AGE_S,
  OBJECT_MAX_AGE_S,
} from '../shared/mirror-api';
import { PREVIEW_DOWNLOAD_PARAM, PREVIEW_STORED_REDIRECT_MAX_AGE_S } from '../shared/preview';
import {
  DOCUMENTS_TABLE,
  LIST_INDEX,
  MIRROR_TABLE,
  MIRROR_TABLE_PHASES,
  type MirrorTablePhase,
  retiringIndexes,
  SOURCES_TABLE,
  STATE_TABLE,
  type TableDefinition,
} from '../shared/store';
import { WORKER_RUNS_AT_ONCE } from '../shared/sync';
import {
  FUNCTION_MEMORY_MB,
  MIRROR_API_MAX_INSTANCES,
  SYNC_BATCH_SIZE,
  SYNC_BATCHING_WINDOW_SECONDS,
  SYNC_EVENT_SOURCE_MEMORY_MB,
  SYNC_MALLOC,
  SYNC_PLANNER_WORKER,
} from './function-sizes';

export { MIRROR_API_MAX_INSTANCES };

import { grantBucketPrefixes, grantTable, grantTableReads } from './grants';
import { IngestorFunction, type WorkerEntry } from './ingestor-function';
import { IngestorObservability } from './observability';
import { DEFAULT_UPSTASH_SECRET_NAME, type IngestorSettings, UPSTASH_URL_PLACEHOLDER } from './settings';
import { FILES_TO_GLACIER_IR_AFTER_DAYS, FILES_TO_GLACIER_IR_MIN_BYTES } from './storage-classes';
import { plannerSyncWorkers, syncMaxConcurrency } from './sync-concurrency';
import { SYNC_ALIAS_NAME, SYNC_PROVISIONED_CONTEXT, syncProvisionedOf } from './sync-provisioned';
import { capacityModeOf, DYNAMO_CAPACITY_CONTEXT, ON_DEMAND, tableCapacity } from './table-capacity';

/** Key prefixes of the mirror bucket; each function is granted only the prefixes it works on. */
export const MIRROR_PREFIXES = {
  mirror: `${MIRROR_PREFIX}/`,
  files: FILES_PREFIX,
  text: TEXT_PREFIX,
} as const;

/** The sync function's hard limit (DESIGN: it checkpoints and hands over before this runs out). */
export const SYNC_TIMEOUT = Duration.minutes(15);
/**
 * Longer than SYNC_TIMEOUT, so a message is never handed to a second instance while the first may
 * still be working on it.
 */
export const SYNC_VISIBILITY_TIMEOUT = Duration.minutes(20);
export const SYNC_MAX_RECEIVE_COUNT = 5;

export type TableName = TableDefinition['logicalName'];

export interface IngestorStackProps extends StackProps, Partial<IngestorSettings> {
  /**
   * Issue 28: who starts the sync workers — the sync queue's SQS event source, or the planner through
   * the wake queue (shared/planner/wake.ts). Also context `-c syncTrigger=planner|eventSource`. The
   * planner by cost: €13.53 → €8.73 a month for the sync at 1,000 sources (docs/scale.md sync-workers).
   * @default 'planner'
   */
  syncTrigger?: SyncTrigger;
  /**
   * Issue 6: add the files, deletion-check and photos functions (`addDocumentFunctions`). Also on
   * unless context `-c documentFunctions=false`. @default true
   */
  documentFunctions?: boolean;
  /** The document preview behind CloudFront and a Function URL (issue 9). @default true */
  previewFunction?: boolean;
  /** The daily geo refresh (OTH-4, `addGeoFunction`); `-c geoFunction=false` leaves it out. @default true */
  geoFunction?: boolean;
  /**
   * OTH-5: the once-a-minute broadcast poller (`addBroadcastFunction`). Also on unless context
   * `-c broadcastFunction=false`. @default true
   */
  broadcastFunction?: boolean;
  /**
   * Issue 16: the OParl 1.1 API over the mirror, read-only, behind CloudFront (`/oparl/*` beside the
   * preview's `/documents/*`). Also on unless context `-c mirrorApi=false`. @default true
   */
  mirrorApi?: boolean;
  /**
   * Issue 25 point 4: a rate-based AWS WAF rule on the API's distribution — each client address at most
   * `apiWafRateLimit` requests per 5 minutes (`API_WAF_RATE_LIMIT`), then 403 until it slows down. A
   * CloudFront web ACL lives in us-east-1: in a stack of that region it is created here, in any other
   * in a companion stack `<stack>-api-waf` (us-east-1) whose ACL this stack reads through CDK's
   * cross-region references. Also from context `-c apiWaf=true`. Billed by the cost model when on.
   * @default false
   */
  apiWaf?: boolean;
  /** Requests per 5 minutes per client address before the WAF rule blocks (context `apiWafRateLimit`). */
  apiWafRateLimit?: number;
  /**
   * Issue 16: the change feed — every committed mirror change as an EventBridge event. `default` (or
   * `true`) publishes on the account's default bus, any other name on a bus of that name created here;
   * unset or `false` = no feed. Also from context `-c changeFeed=…`. @default off
   */
  changeFeed?: string;
}

/** Context keys of the stack's own switches (`cdk deploy -c <key>=<value>`). */
/** Issue 28: who starts the sync workers (IngestorStackProps.syncTrigger). */
export type SyncTrigger = 'eventSource' | 'planner';

export const STACK_CONTEXT_KEYS = {
  syncTrigger: 'syncTrigger',
  documentFunctions: 'documentFunctions',
  previewFunction: 'previewFunction',
  geoFunction: 'geoFunction',
  broadcastFunction: 'broadcastFunction',
  mirrorApi: 'mirrorApi',
  changeFeed: 'changeFeed',
  apiWaf: 'apiWaf',
  apiWafRateLimit: 'apiWafRateLimit',
  fleetSources: 'fleetSources',
  /**
   * Issue 28 (docs/operations.md, "State indexes"): `1` on the first of two deploys of an existing
   * stack — CloudFormation creates or deletes one global index per table update, so that deploy adds
   * only the first index that replaces another and keeps the indexes the release drops (TableDefinition
   * `dropped`); the next deploy, without it, deletes them (this release: `byBodyList`, one).
   */
  indexRolloutStep: 'indexRolloutStep',
  /**
   * Issue 28 (docs/operations.md, "The mirror table"): where the mirror's object items are read and
   * written — `dual` (the default: deploy 1 of an existing stack, State read, both written) until
   * `ingestor --aws migrate mirror-table` has copied them, then `own` (deploy 2: the Mirror table only),
   * then `ownDropped` once `migrate mirror-table --delete-old` has emptied State of them (deploy 3: `own`,
   * and State's `byList` index, which then indexes nothing, deleted). A new stack, with nothing in State
   * to move, may deploy `ownDropped` at once.
   */
  mirrorTable: 'mirrorTable',
} as const;

/**
 * Requests per 5 minutes one client address may send before the WAF rule blocks it (WAF's minimum is
 * 10): 2,000 is ≈ 7 a second sustained — an OParl client walking every list at full speed stays below
 * it (each page it waits for), a flood does not.
 */
export const API_WAF_RATE_LIMIT = 2_000;

/**
 * The API function's invocations per 5 minutes above which its alarm fires (two of three periods): the
 * CDN answers repeated requests, so sustained misses at this rate (≈ 33 a second) are a flood, or a
 * cache that stopped caching.
 */
export const MIRROR_API_INVOCATION_ALARM = 10_000;

/** The EventBridge bus every account has; `-c changeFeed=true` means this one. */
export const DEFAULT_EVENT_BUS = 'default';

/** A list page is one Query plus ≤ 100 parallel S3 reads: seconds at worst, never minutes. */
export const MIRROR_API_TIMEOUT = Duration.seconds(10);

/**
 * The change feed's bus name from a switch value (pure): undefined = off. `true` and `default` name the
 * default bus; anything else must be a valid EventBridge bus name.
 */
export function changeFeedBus(value: unknown): string | undefined {
  if (value === undefined || value === null || value === false) return undefined;
  const text = String(value).trim();
  if (text === '' || text === 'false') return undefined;
  if (text === 'true' || text === DEFAULT_EVENT_BUS) return DEFAULT_EVENT_BUS;
  if (!/^[A-Za-z0-9._-]{1,256}$/.test(text))
    throw new Error(
      `context ${STACK_CONTEXT_KEYS.changeFeed} must be true, default or a bus name, got "${text}"`,
    );
  return text;
}

/** The one region where AWS WAF accepts a web ACL for CloudFront (scope CLOUDFRONT). */
export const WAF_CLOUDFRONT_REGION = 'us-east-1';

/** Whether the API's WAF rule is asked for (prop, else context `apiWaf`); refuses other values. */
function apiWafWanted(scope: Construct, props: IngestorStackProps): boolean {
  const value = props.apiWaf ?? scope.node.tryGetContext(STACK_CONTEXT_KEYS.apiWaf) ?? false;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${STACK_CONTEXT_KEYS.apiWaf} must be true or false, got "${String(value)}"`);
}

/**
 * Issue 28: the context value for the phase after the move — `own`, with State's `byList` index deleted
 * (State holds no mirror item once `migrate mirror-table --delete-old` has run; the index then holds
 * nothing and costs its provisioned floor, ≈ €0.6 a month). The functions see `own`.
 */
export const MIRROR_MOVED_DROPPED = 'ownDropped';

/** The context's value (pure): a phase of this stack, or the phase after the move with State's index gone. */
function mirrorTableContextOf(scope: Construct): 'dual' | 'own' | typeof MIRROR_MOVED_DROPPED {
  const raw = scope.node.tryGetContext(STACK_CONTEXT_KEYS.mirrorTable) ?? 'dual';
  if (raw === 'dual' || raw === 'own' || raw === MIRROR_MOVED_DROPPED) return raw;
  throw new Error(
    `context ${STACK_CONTEXT_KEYS.mirrorTable} must be ${[...MIRROR_TABLE_PHASES.filter((p) => p !== 'state'), MIRROR_MOVED_DROPPED].join(' or ')}, got "${String(raw)}"`,
  );
}

/** Issue 28: the sync's trigger from the props, else `-c syncTrigger=…`, else the planner (by cost). */
function syncTriggerOf(scope: Construct, props: IngestorStackProps): SyncTrigger {
  const raw = props.syncTrigger ?? scope.node.tryGetContext(STACK_CONTEXT_KEYS.syncTrigger) ?? 'planner';
  if (raw === 'eventSource' || raw === 'planner') return raw;
  throw new Error(
    `context ${STACK_CONTEXT_KEYS.syncTrigger} must be eventSource or planner, got "${String(raw)}"`,
  );
}

/**
 * The mirror table's rollout phase (context `mirrorTable`, default `dual`: safe for a stack that
 * has its items in State — `own` before the copy would read a Mirror table that lacks them). `state`
 * is no phase of this stack: it has the Mirror table, and every writer keeps it written. `ownDropped`
 * is `own` to every function.
 */
export function mirrorTablePhaseOf(scope: Construct): Exclude<MirrorTablePhase, 'state'> {
  const value = mirrorTableContextOf(scope);
  return value === MIRROR_MOVED_DROPPED ? 'own' : value;
}

/**
 * Whether State's `byList` index is left out (`-c mirrorTable=ownDropped`): only after the move, when
 * nothing reads it (`dual` reads State's list index; `own` reads the Mirror table's) and State holds no
 * mirror item. Going back to `dual` from there would rebuild it empty: the move is one way after
 * `--delete-old` in any case.
 */
export function stateListIndexDropped(scope: Construct): boolean {
  return mirrorTableContextOf(scope) === MIRROR_MOVED_DROPPED;
}

/**
 * Issue 28, DEL-2 at 10,000+ sources: the hourly deletion check's shards for the fleet the stack is
 * sized for, context `-c fleetSources=…` (default 1,000: one run). Each shard is its own schedule and
 * invocation (a host in exactly one); a fleet grown past it is logged by every shard (`deletion check:
 * fleet outgrew its shards`) — deploy again with the new size.
 */
function deletionShardsOf(scope: Construct): number {
  return deletionShardsFor(fleetSourcesOf(scope));
}

/** The fleet the stack is sized for: context `-c fleetSources=…`, default 1,000. */
function fleetSourcesOf(scope: Construct): number {
  const raw = scope.node.tryGetContext(STACK_CONTEXT_KEYS.fleetSources);
  return checkInteger('fleetSources', raw === undefined ? 1_000 : Number(raw), 1, 10_000_000);
}

/**
 * Most preview instances at once, and how many of its fetches count towards RATE-7's
 * INGESTOR_MAX_INSTANCES. Enforced by Lambda only with `reservedConcurrency` (see IngestorSettings).
 */
export const PREVIEW_MAX_INSTANCES = 10;

/** Prefix of the shared robots.txt state in the bucket (ROB-5, shared/fetch robots-store). */
export const ROBOTS_PREFIX = 'robots/';

/** The document functions and their schedules (DESIGN "Shape"; PHO-1: Mondays 03:00 Europe/Berlin). */
export const DOCUMENT_SCHEDULES = {
  files: { minute: '5' },
  deletionCheck: { minute: '35' },
  photos: { weekDay: 'MON', hour: '3', minute: '0' },
} as const;

/** OTH-4: plan boundaries are refreshed daily, in the night (Europe/Berlin), away from the full syncs' hour. */
export const GEO_SCHEDULE = { hour: String(GEO_REFRESH_HOUR), minute: String(GEO_REFRESH_MINUTE) };
/** Prefix of the geo sources' FeatureCollections in the bucket (shared/geo `GEO_OBJECT_PREFIX`). */
export const GEO_PREFIX = `${GEO_OBJECT_PREFIX}/`;
/**
 * OTH-5: a pass waits at most 20 s for a slot (BROADCAST_MAX_WAIT_MS), then the service fetch's head
 * and body deadlines (60 s + 120 s) for one slow provider; passes that overlap the next minute's are
 * harmless (the minute's poll is a conditional claim in State).
 */
export const BROADCAST_TIMEOUT = Duration.minutes(4);

/** Options of a later scheduled function (files, deletion-check, photos). */
export interface ScheduledFunctionOptions {
  description?: string;
  /** @default 15 minutes */
  timeout?: Duration;
  /** @default 1024 */
  memorySize?: number;
  /** Worker-thread entries bundled next to the handler (infra/ingestor-function.ts). */
  workerEntries?: WorkerEntry[];
  /**
   * Issue 28: invocations of one tick, each with `{ shard: { index, of } }` from its own schedule (the
   * deletion check at 10,000+ sources); they may run at once and count as that many fetchers. @default 1
   */
  shards?: number;
}

/** The deployment's numbers the stack checks once and hands to its builders. */
interface DeploymentSettings {
  /** SCH-5: syncs at once (1–100). */
  maxConcurrentSyncs: number;
  /** FULL-2: the full syncs' night hour, Europe/Berlin (0–23). */
  fullSyncHour: number;
  upstashRestUrl: string;
}

/**
 * The whole ingestor in one stack: the three tables (from the shared definitions), the mirror bucket,
 * the sync queue with its dead-letter queue, the planner (every minute) and the sync function (per
 * message). See DESIGN.md "Shape".
 */
export class IngestorStack extends Stack {
  readonly tables: Record<TableName, Table>;
  /** Issue 28: the mirror's object items' rollout phase (`-c mirrorTable=dual|own`). */
  readonly mirrorTablePhase: Exclude<MirrorTablePhase, 'state'>;
  readonly mirrorBucket: Bucket;
  readonly accessLogBucket: Bucket;
  readonly syncQueue: Queue;
  readonly syncDeadLetterQueue: Queue;
  /** Issue 28: the on-failure destination of every scheduled function; one alarm watches it. */
  readonly failedInvocationsQueue: Queue;
  /** Issue 28: who starts the sync workers; with `planner`, the wake queue the planner sends to. */
  readonly syncTrigger: SyncTrigger;
  readonly syncWakeQueue: Queue | undefined;
  /** Runs one sync worker keeps in flight (WORKER_RUNS_AT_ONCE, or SYNC_PLANNER_WORKER's). */
  readonly syncRunsAtOnce: number;
  readonly upstashSecret: ISecret;
  /** Issue 25 point 5: the key of the mirror's ids (shared/config api-id-key.ts), generated here. */
  readonly apiIdKey: Secret;
  readonly planner: IngestorFunction;
  readonly sync: IngestorFunction;
  /** The sync event source's maximum concurrency, from the runs in flight (infra/sync-concurrency.ts). */
  readonly syncMaxConcurrency: number;
  /** Issue 28: the most sync workers the planner keeps alive (`planner` trigger). */
  private readonly plannerSyncWorkers: number;
  /**
   * Issue 28: sync instances on provisioned concurrency (`-c syncProvisioned`, else the decided count for
   * `fleetSources` with the planner's trigger, infra/sync-provisioned.ts); 0 = none.
   */
  readonly syncProvisioned: number;
  /** The alias the sync's event source invokes when `syncProvisioned` > 0 (it holds the instances). */
  syncAlias: Alias | undefined;
  /** Whether functions get reserved concurrency (IngestorSettings.reservedConcurrency). */
  readonly reservedConcurrency: boolean;
  /** Issue 28: shards of the hourly deletion check, from `fleetSources` (set by addDocumentFunctions). */
  deletionShards = 1;
  /** CloudFront in front of the preview's Function URL (when the preview is deployed). */
  previewDistribution: Distribution | undefined;
  /** The OParl API's function and the distribution that serves it (when deployed, issue 16). */
  mirrorApi: { function: IngestorFunction; distribution: Distribution } | undefined;
  /** The change feed's bus (when the feed is on, issue 16). */
  changeBus: IEventBus | undefined;
  /** The API's rate-based web ACL (with `apiWaf`) and the stack that holds it (this one in us-east-1). */
  apiWebAcl: { acl: CfnWebACL; stack: Stack } | undefined;

  private readonly functionEnvironment: Record<string, string>;
  /** Instance bounds of fetching functions besides the sync (scheduled batch jobs, later the preview). */
  private readonly otherFetcherInstances: number[] = [];

  constructor(scope: Construct, id: string, props: IngestorStackProps = {}) {
    // A web ACL for CloudFront exists only in us-east-1: from another region the stack reads the
    // companion stack's ACL through a cross-region reference, which must be enabled at construction.
    const waf = apiWafWanted(scope, props);
    super(scope, id, {
      ...props,
      ...(waf && props.env?.region !== WAF_CLOUDFRONT_REGION ? { crossRegionReferences: true } : {}),
    });
    this.reservedConcurrency = props.reservedConcurrency ?? false;
    const settings = this.deploymentSettings(props);
    // SCH-5 is enforced by the planner (it enqueues at most maxConcurrentSyncs). Issue 28: each sync
    // invocation is a worker with up to WORKER_RUNS_AT_ONCE runs of distinct hosts, taking messages from
    // the queue itself while it has room — so the event source needs only enough invocations for the runs
    // in flight (infra/sync-concurrency.ts); more would let a tick's burst open invocations each billed
    // for its own waits.
    this.syncTrigger = syncTriggerOf(this, props);
    this.syncRunsAtOnce =
      this.syncTrigger === 'planner' ? SYNC_PLANNER_WORKER.runsAtOnce : WORKER_RUNS_AT_ONCE;
    const capInput = {
      maxConcurrentSyncs: settings.maxConcurrentSyncs,
      syncRunsInFlight: props.syncRunsInFlight,
      runsAtOnce: this.syncRunsAtOnce,
    };
    // With the planner's trigger the cap is the wake queue's event source's: the planner keeps at most
    // plannerSyncWorkers alive, SQS's floor of 2 only bounds the instances (RATE-7 counts it).
    this.syncMaxConcurrency = syncMaxConcurrency(capInput);
    this.plannerSyncWorkers = plannerSyncWorkers(capInput);
    // Issue 28: the decided count is priced for the planner's workers; with the event source's trigger
    // only an explicit `-c syncProvisioned` provisions any.
    const provisionedRaw = this.node.tryGetContext(SYNC_PROVISIONED_CONTEXT);
    this.syncProvisioned =
      this.syncTrigger === 'planner' || provisionedRaw !== undefined
        ? syncProvisionedOf({
            raw: provisionedRaw,
            fleetSources: fleetSourcesOf(this),
            maxConcurrency: this.syncMaxConcurrency,
          })
        : 0;

    // Typed by the definitions' logical names: a fourth definition without a table here fails to compile.
    this.tables = {
      Sources: this.createTable(SOURCES_TABLE),
      State: this.createTable(STATE_TABLE),
      Documents: this.createTable(DOCUMENTS_TABLE),
      Mirror: this.createTable(MIRROR_TABLE),
    };
    this.mirrorTablePhase = mirrorTablePhaseOf(this);

    this.accessLogBucket = this.createAccessLogBucket();
    this.mirrorBucket = this.createMirrorBucket();
    const queues = this.createSyncQueues();
    this.syncDeadLetterQueue = queues.deadLetterQueue;
    this.syncQueue = queues.queue;
    this.syncWakeQueue = this.syncTrigger === 'planner' ? this.createWakeQueue() : undefined;
    this.failedInvocationsQueue = this.createFailedInvocationsQueue();

    // Imported by name: the token is put into Secrets Manager by an operator and never appears in
    // the template. Functions get the ARN and read the value at cold start.
    this.upstashSecret = Secret.fromSecretNameV2(
      this,
      'UpstashToken',
      props.upstashSecretName ?? DEFAULT_UPSTASH_SECRET_NAME,
    );

    this.apiIdKey = this.createApiIdKey();
    this.functionEnvironment = this.environmentOf(settings, props.userAgent);

    this.planner = this.createPlanner();
    this.sync = this.createSync();
    this.addOptionalParts(props, waf);

    this.schedule('PlannerSchedule', this.planner, ScheduleExpression.rate(Duration.minutes(1)), {
      description: 'Planner tick; the planner computes Europe/Berlin time itself',
      maxEventAge: Duration.minutes(1),
    });

    this.addObservability();
    this.addOutputs(settings.upstashRestUrl);
  }

  /** The deployment's own numbers, checked, and the notes `cdk synth` prints about them. */
  private deploymentSettings(props: IngestorStackProps): DeploymentSettings {
    const maxConcurrentSyncs = checkInteger(
      'maxConcurrentSyncs',
      props.maxConcurrentSyncs ?? 4,
      1,
      MAX_CONCURRENT_SYNCS_LIMIT,
    );
    const fullSyncHour = checkInteger('fullSyncHour', props.fullSyncHour ?? 3, 0, 23);
    const upstashRestUrl = props.upstashRestUrl ?? UPSTASH_URL_PLACEHOLDER;
    if (!this.reservedConcurrency) {
      Annotations.of(this).addInfo(
        'Reserved concurrency is off (a new account has too little to reserve): one planner and one run of each scheduled job at a time are then kept by leases and schedules, and the preview and the OParl API may exceed their intended instances (a flood of API misses can then take the sync’s share of the account’s pool: see -c apiWaf); deploy with -c reservedConcurrency=true once the account allows it (docs/operations.md).',
      );
    }
    if (upstashRestUrl === UPSTASH_URL_PLACEHOLDER) {
      Annotations.of(this).addWarningV2(
        'ingestor:upstashPlaceholder',
        `UPSTASH_REDIS_REST_URL is the placeholder ${UPSTASH_URL_PLACEHOLDER}: deploy with -c upstashRestUrl=https://<your-db>.upstash.io`,
      );
    }
    return { maxConcurrentSyncs, fullSyncHour, upstashRestUrl };
  }

  /** The mirror bucket's access-log target (AwsSolutions-S1 acknowledged: it cannot log into itself). */
  private createAccessLogBucket(): Bucket {
    const bucket = new Bucket(this, 'AccessLogBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log target of the mirror bucket; logging it into itself would loop.',
    });

    return bucket;
  }

  /** The mirror bucket: private, logged, with its lifecycle rules (DOC-5's incoming files, issue 28's Glacier IR). */
  private createMirrorBucket(): Bucket {
    const bucket = new Bucket(this, 'MirrorBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'mirror-bucket/',
      lifecycleRules: [
        {
          id: 'clean-up-uploads-and-old-versions',
          abortIncompleteMultipartUploadAfter: Duration.days(7),
          // Versioning is off; this only bounds cost should it ever be switched on.
          noncurrentVersionExpiration: Duration.days(7),
        },
        {
          // Files fetched but never promoted (a run died in between, DOC-5): the next fetch of the
          // document overwrites its incoming object; this removes those no run comes back for.
          id: 'expire-incoming-files',
          prefix: INCOMING_PREFIX,
          expiration: Duration.days(1),
        },
        {
          // Issue 28: stored copies of council files move to Glacier Instant Retrieval after
          // FILES_TO_GLACIER_IR_AFTER_DAYS (why that class, and why a presigned GET still works:
          // infra/storage-classes.ts). The files/ prefix only: texts and mirror records stay Standard.
          id: 'files-to-glacier-instant-retrieval',
          prefix: FILES_PREFIX,
          // Issue 28: small files cost more to move than they save (FILES_TO_GLACIER_IR_MIN_BYTES).
          objectSizeGreaterThan: FILES_TO_GLACIER_IR_MIN_BYTES,
          transitions: [
            {
              storageClass: StorageClass.GLACIER_INSTANT_RETRIEVAL,
              transitionAfter: Duration.days(FILES_TO_GLACIER_IR_AFTER_DAYS),
            },
          ],
        },
        // Tombstone expiry (OPT-2 keeps them "for audit") lands with the tombstone key / tag scheme.
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // The schema types a rule's object size as a string, CDK writes a number (CloudFormation takes
    // both). CDK acknowledges this itself only for `objectSizeLessThan` (its check names that field
    // twice, aws-cdk-lib 2.x Bucket.addLifecycleRule), so the Glacier IR rule's size filter needs ours.
    Validations.of(bucket).acknowledge({
      id: 'CloudFormation-Validate::W9003',
      reason:
        'LifecycleRule.objectSizeGreaterThan is a number in CDK for historical reasons; CloudFormation accepts it.',
    });
    return bucket;
  }

  /** The sync queue and its dead-letter queue (SYNC_MAX_RECEIVE_COUNT receives, then parked 14 days). */
  private createSyncQueues(): { queue: Queue; deadLetterQueue: Queue } {
    const deadLetterQueue = new Queue(this, 'SyncDeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new Queue(this, 'SyncQueue', {
      visibilityTimeout: SYNC_VISIBILITY_TIMEOUT,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: SYNC_MAX_RECEIVE_COUNT },
    });

    return { queue, deadLetterQueue };
  }

  /**
   * Issue 28: the wake queue (`planner` trigger). A wake is hidden while its worker lives (the worker
   * renews it, shared/sync/worker.ts WAKE_LEASE_SECONDS) and deleted when it returns; one left over
   * starts a worker that finds nothing and leaves. An hour's retention: the planner sends anew each tick.
   */
  private createWakeQueue(): Queue {
    const queue = new Queue(this, 'SyncWakeQueue', {
      visibilityTimeout: SYNC_VISIBILITY_TIMEOUT,
      retentionPeriod: Duration.hours(1),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'Wake messages name no run: a wake that cannot be worked is worth nothing later (the planner sends anew each tick), so it expires after an hour instead of being parked.',
    });
    return queue;
  }

  /**
   * Issue 28: the on-failure destination of every asynchronously invoked (scheduled) function. Lambda
   * sends it a JSON record per failed invocation after the function's retries — which function, the
   * request, the error — and one alarm on it (infra/observability.ts) replaces six per-function errors
   * alarms. Nothing consumes it: on-call reads the records and purges them (docs/operations.md). Only the
   * functions' roles may send to it (granted by each destination).
   */
  private createFailedInvocationsQueue(): Queue {
    const queue = new Queue(this, 'FailedInvocations', {
      // As long as SQS keeps anything: a failure on a Friday night is still there to read on Monday.
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "It is itself the dead end of failed scheduled invocations (Lambda's on-failure destination): nothing consumes it, on-call reads its records and purges them; they are kept the 14 days SQS allows.",
    });
    return queue;
  }

  /** Issue 25 point 5: the key of the mirror API ids, generated at the first deploy and kept. */
  private createApiIdKey(): Secret {
    // Generated by Secrets Manager at the first deploy and kept when the stack goes (RETAIN): every
    // API id is derived from it, so a new key would change every URL a client holds. Never rotated.
    const key = new Secret(this, 'ApiIdKey', {
      description: 'mandari ingestor: key of the mirror API ids (HMAC-SHA-256, issue 25 point 5)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(key).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The key of the mirror API ids (HMAC): every public URL is derived from it, so rotating it would change every id a client holds. It never leaves Secrets Manager and the functions that derive ids.',
    });

    return key;
  }

  /** What every function reads from its environment: tables, bucket, queue, secrets, SCH-5 and RATE-7 numbers. */
  private environmentOf(settings: DeploymentSettings, userAgent: string | undefined): Record<string, string> {
    return {
      SOURCES_TABLE: this.tables.Sources.tableName,
      STATE_TABLE: this.tables.State.tableName,
      DOCUMENTS_TABLE: this.tables.Documents.tableName,
      ...this.mirrorTableEnvironment(),
      BUCKET: this.mirrorBucket.bucketName,
      SYNC_QUEUE_URL: this.syncQueue.queueUrl,
      UPSTASH_REDIS_REST_URL: settings.upstashRestUrl,
      UPSTASH_SECRET_ARN: this.upstashSecret.secretArn,
      INGESTOR_API_ID_KEY_SECRET_ARN: this.apiIdKey.secretArn,
      INGESTOR_MAX_CONCURRENT_SYNCS: String(settings.maxConcurrentSyncs),
      // Issue 28: with the planner's trigger, where it sends wakes, how many workers, and their width.
      ...(this.syncWakeQueue
        ? {
            SYNC_WAKE_QUEUE_URL: this.syncWakeQueue.queueUrl,
            INGESTOR_SYNC_WORKERS_MAX: String(this.plannerSyncWorkers),
            INGESTOR_SYNC_RUNS_AT_ONCE: String(this.syncRunsAtOnce),
          }
        : {}),
      INGESTOR_FULL_SYNC_HOUR: String(settings.fullSyncHour),
      // RATE-7: the fallback pace multiplies by the number of instances that may fetch at once. Lazy,
      // because scheduled fetchers added later (addScheduledFunction) raise it.
      INGESTOR_MAX_INSTANCES: Lazy.string({ produce: () => String(this.maxFetchingInstances()) }),
      ...(userAgent ? { INGESTOR_USER_AGENT: userAgent } : {}),
    };
  }

  /** Where the functions that touch the mirror's object items find them (issue 28). */
  private mirrorTableEnvironment(): Record<'MIRROR_TABLE' | 'MIRROR_TABLE_PHASE', string> {
    return { MIRROR_TABLE: this.tables.Mirror.tableName, MIRROR_TABLE_PHASE: this.mirrorTablePhase };
  }

  /** The planner (every minute, one at a time): reads Sources, writes State, sends to the sync queue. */
  private createPlanner(): IngestorFunction {
    const planner = new IngestorFunction(this, 'Planner', {
      entry: 'functions/planner.ts',
      description: 'Every minute: decides which sources are due and enqueues their syncs',
      timeout: Duration.minutes(1),
      memorySize: FUNCTION_MEMORY_MB.planner,
      environment: this.functionEnvironment,
      // One planner at a time (with reserved concurrency): a tick that overlaps a slow predecessor is
      // throttled, and with no retries and a one-minute event age it is dropped (recorded in
      // FailedInvocations as EventAgeExceeded); the next tick plans again. Without it an overlapping tick is harmless: sync leases are conditional writes.
      ...this.reserve(1),
      asyncInvoke: {
        maxEventAge: Duration.minutes(1),
        // No retry: the next tick, a minute later, plans from the current state anyway; Lambda's retry
        // (after ≈ 1 min) would run beside that tick. A failed tick is recorded in FailedInvocations.
        retryAttempts: 0,
        onFailure: this.failedInvocationsQueue,
      },
    });
    grantTable(planner.role, this.tables.Sources, SOURCES_TABLE, 'read');
    grantTable(planner.role, this.tables.State, STATE_TABLE, 'readWrite');
    this.syncQueue.grantSendMessages(planner.role);
    if (this.syncWakeQueue) {
      // Issue 28: it reads both queues' depths and sends wakes; it invokes nothing itself.
      this.syncQueue.grant(planner.role, 'sqs:GetQueueAttributes');
      this.syncWakeQueue.grant(planner.role, 'sqs:GetQueueAttributes');
      this.syncWakeQueue.grantSendMessages(planner.role);
    }
    this.upstashSecret.grantRead(planner.role);

    return planner;
  }

  /** The sync worker on the sync queue: SCH-5's invocations, the mirror and robots.txt prefixes, continuations. */
  private createSync(): IngestorFunction {
    const sync = new IngestorFunction(this, 'Sync', {
      entry: 'functions/sync.ts',
      description: 'Sync worker: runs of distinct hosts at once from the queue, continuing through it',
      timeout: SYNC_TIMEOUT,
      memorySize: this.syncWakeQueue ? SYNC_PLANNER_WORKER.memoryMb : SYNC_EVENT_SOURCE_MEMORY_MB,
      // Issue 28: glibc's mmap threshold, which the size is measured with (SYNC_MALLOC).
      environment: { ...this.functionEnvironment, ...SYNC_MALLOC.env },
      // The sync hands over to itself through the queue that triggers it (continuation messages);
      // loop detection would stop such a chain after ~16 hops (DESIGN "Known AWS traps").
      recursiveLoop: RecursiveLoop.ALLOW,
    });
    // Issue 28: with instances provisioned, the event source invokes an alias that holds them (Lambda
    // provisions a version or alias, never $LATEST); what spills over runs on-demand under the same alias.
    this.syncAlias =
      this.syncProvisioned > 0
        ? new Alias(this, 'SyncAlias', {
            aliasName: SYNC_ALIAS_NAME,
            version: sync.fn.currentVersion,
            provisionedConcurrentExecutions: this.syncProvisioned,
          })
        : undefined;
    const invoked = this.syncAlias ?? sync.fn;
    if (this.syncWakeQueue) {
      // Issue 28: one wake, one worker; it takes every run from the sync queue itself.
      invoked.addEventSource(
        new SqsEventSource(this.syncWakeQueue, {
          batchSize: 1,
          maxConcurrency: this.syncMaxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      this.syncQueue.grantConsumeMessages(sync.role);
    } else {
      invoked.addEventSource(
        new SqsEventSource(this.syncQueue, {
          batchSize: SYNC_BATCH_SIZE,
          maxBatchingWindow: Duration.seconds(SYNC_BATCHING_WINDOW_SECONDS),
          maxConcurrency: this.syncMaxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
    }
    grantTable(sync.role, this.tables.Sources, SOURCES_TABLE, 'read');
    grantTable(sync.role, this.tables.State, STATE_TABLE, 'readWrite');
    grantTable(sync.role, this.tables.Mirror, MIRROR_TABLE, 'readWrite');
    grantTable(sync.role, this.tables.Documents, DOCUMENTS_TABLE, 'readWrite');
    // robots/: the robots.txt cache every function shares (ROB-5), next to the mirror.
    grantBucketPrefixes(sync.role, this.mirrorBucket, [MIRROR_PREFIXES.mirror, ROBOTS_PREFIX], 'readWrite');
    // Continuations go back to the queue; the worker's own receive, delete and give-back (visibility 0)
    // are the event source's consume grant (receive, delete, change visibility) on this queue only.
    this.syncQueue.grantSendMessages(sync.role);
    this.upstashSecret.grantRead(sync.role);
    this.grantApiIdKey(sync.role);
    this.acknowledgePrefixWildcards(sync, [MIRROR_PREFIXES.mirror, ROBOTS_PREFIX]);

    return sync;
  }

  /** The functions a deployment may leave out (`-c <switch>=false`), the API's WAF and the change feed. */
  private addOptionalParts(props: IngestorStackProps, waf: boolean): void {
    // Document functions and the preview deploy by default; `-c documentFunctions=false` /
    // `-c previewFunction=false` leave them out (e.g. a first deployment that only mirrors objects).
    const switchOn = (value: boolean | undefined, key: string) => {
      const v = value ?? this.node.tryGetContext(key) ?? true;
      return v === true || v === 'true';
    };
    if (switchOn(props.documentFunctions, STACK_CONTEXT_KEYS.documentFunctions)) this.addDocumentFunctions();
    if (switchOn(props.previewFunction, STACK_CONTEXT_KEYS.previewFunction)) this.addPreviewFunction();
    if (switchOn(props.geoFunction, STACK_CONTEXT_KEYS.geoFunction)) this.addGeoFunction();
    if (switchOn(props.broadcastFunction, STACK_CONTEXT_KEYS.broadcastFunction)) this.addBroadcastFunction();
    if (switchOn(props.mirrorApi, STACK_CONTEXT_KEYS.mirrorApi)) {
      this.mirrorApi = this.addMirrorApi();
      if (waf) this.apiWebAcl = this.addApiWaf(this.mirrorApi.distribution, props);
    }
    const bus = changeFeedBus(props.changeFeed ?? this.node.tryGetContext(STACK_CONTEXT_KEYS.changeFeed));
    if (bus !== undefined) this.changeBus = this.addChangeFeed(bus);
  }

  /** Alarms and the dashboard (IngestorObservability), and the API's invocation alarm. */
  private addObservability(): void {
    // Alarms (DLQ, source paused > 1 day, function errors) and the dashboard: docs/operations.md.
    const observability = new IngestorObservability(this, 'Observability', {
      syncQueue: this.syncQueue,
      deadLetterQueue: this.syncDeadLetterQueue,
      failedInvocationsQueue: this.failedInvocationsQueue,
      alarmTopicArn: this.node.tryGetContext('alarmTopicArn'),
    });
    // Issue 25 point 4: a flood shows as invocations long before it shows as errors.
    if (this.mirrorApi)
      observability.alarmOnInvocations('MirrorApi', this.mirrorApi.function.fn, MIRROR_API_INVOCATION_ALARM);
  }

  /** The stack's outputs: what the functions and `ingestor --aws` read by name. */
  private addOutputs(upstashRestUrl: string): void {
    // Every table, bucket and queue by name; the keys of STACK_OUTPUT_ENV are what `ingestor --aws`
    // reads with DescribeStacks (typed: a renamed output here fails to compile).
    const outputs: Record<Exclude<StackOutputKey, OptionalStackOutputKey>, string> = {
      SourcesTableName: this.tables.Sources.tableName,
      StateTableName: this.tables.State.tableName,
      DocumentsTableName: this.tables.Documents.tableName,
      MirrorBucketName: this.mirrorBucket.bucketName,
      SyncQueueUrl: this.syncQueue.queueUrl,
      UpstashRestUrl: upstashRestUrl,
      UpstashSecretArn: this.upstashSecret.secretArn,
      ApiIdKeySecretArn: this.apiIdKey.secretArn,
    };
    // Issue 28: optional for `ingestor --aws` (a stack before the Mirror table has neither: `state`).
    const mirrorOutputs: Record<'MirrorTableName' | 'MirrorTablePhase', string> = {
      MirrorTableName: this.tables.Mirror.tableName,
      MirrorTablePhase: this.mirrorTablePhase,
    };
    Object.assign(outputs, mirrorOutputs);
    for (const [key, value] of Object.entries(outputs)) {
      new CfnOutput(this, key, {
        value,
        description: `${STACK_OUTPUT_ENV[key as StackOutputKey]} of the functions and of ingestor --aws`,
      });
    }
    // OPT-2 "at once": the one distribution (the preview's, which serves the API too, or the API's own)
    // where `ingestor --aws tombstone` invalidates a takedown's paths with the operator's credentials.
    const cdn = this.mirrorApi?.distribution ?? this.previewDistribution;
    if (cdn) {
      new CfnOutput(this, 'CdnDistributionId' satisfies StackOutputKey, {
        value: cdn.distributionId,
        description: `${STACK_OUTPUT_ENV.CdnDistributionId} of ingestor --aws (takedown invalidation)`,
      });
    }
    new CfnOutput(this, 'AccessLogBucketName', { value: this.accessLogBucket.bucketName });
    new CfnOutput(this, 'SyncDeadLetterQueueUrl', { value: this.syncDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'FailedInvocationsQueueUrl', { value: this.failedInvocationsQueue.queueUrl });
  }

  /**
   * Issue 25 point 5: a function that derives mirror ids reads their key — GetSecretValue of that one
   * secret, nothing else (not DescribeSecret, not the Upstash token's grant). The planner derives none.
   */
  grantApiIdKey(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.apiIdKey.secretArn],
      }),
    );
  }

  /** Reserved concurrency of `n` when the deployment reserves any (IngestorSettings.reservedConcurrency). */
  private reserve(n: number): { reservedConcurrentExecutions?: number } {
    return this.reservedConcurrency ? { reservedConcurrentExecutions: n } : {};
  }

  /**
   * Extension point for the later batch functions (DESIGN "Shape"): files and deletion-check hourly,
   * photos Mondays 03:00. The cron is read in Europe/Berlin (SPEC: all times of day are Berlin time).
   * The function gets the common environment and the Upstash secret, runs one at a time, and counts
   * towards INGESTOR_MAX_INSTANCES because it fetches; table and bucket grants are the caller's, e.g.
   *   const files = stack.addScheduledFunction('Files', 'functions/files.ts', { minute: '5' });
   *   grantBucketPrefixes(files.role, stack.mirrorBucket, [MIRROR_PREFIXES.files, MIRROR_PREFIXES.text], 'readWrite');
   */
  addScheduledFunction(
    name: string,
    entry: string,
    cron: Omit<CronOptionsWithTimezone, 'timeZone'>,
    options: ScheduledFunctionOptions = {},
  ): IngestorFunction {
    const shards = checkInteger(`${name} shards`, options.shards ?? 1, 1, 1_000);
    const fn = new IngestorFunction(this, name, {
      entry,
      description: options.description ?? `${name} (scheduled)`,
      timeout: options.timeout ?? Duration.minutes(15),
      memorySize: options.memorySize ?? 1024,
      environment: this.functionEnvironment,
      ...this.reserve(shards),
      asyncInvoke: {
        maxEventAge: Duration.minutes(15),
        // No retry: these are budgeted runs on a clock (files and deletion check hourly with DEL-1's
        // 200 re-fetches a run, geo daily, photos weekly with PHO-1's 500 persons per body and run). A
        // retry would be a second run of the same tick, spending a second budget against the same
        // councils' servers; the next tick resumes from the stored state. A failed run is recorded in
        // FailedInvocations; on-call reruns it by hand if it cannot wait (docs/operations.md). A timeout
        // would not be retried anyway: its event is older than maxEventAge by then.
        retryAttempts: 0,
        onFailure: this.failedInvocationsQueue,
      },
      ...(options.workerEntries === undefined ? {} : { workerEntries: options.workerEntries }),
    });
    this.upstashSecret.grantRead(fn.role);
    this.grantApiIdKey(fn.role);
    this.countFetchingInstances(shards);
    for (let index = 0; index < shards; index++) {
      this.schedule(
        index === 0 ? `${name}Schedule` : `${name}Schedule${index}`,
        fn,
        ScheduleExpression.cron({ ...cron, timeZone: TimeZone.EUROPE_BERLIN }),
        {
          description:
            shards === 1 ? `${name} (Europe/Berlin)` : `${name} shard ${index + 1}/${shards} (Europe/Berlin)`,
          maxEventAge: Duration.minutes(15),
          ...(shards === 1 ? {} : { input: { shard: { index, of: shards } } }),
        },
      );
    }
    return fn;
  }

  /**
   * Issue 6: files (document cache + text, DOC-1…DOC-7) and deletion-check (DEL-1…DEL-5) hourly,
   * photos (PHO-1…PHO-3) Mondays 03:00 Europe/Berlin. Each reads the Sources table and State (bodies,
   * ERR-6), works the Documents table through its indexes, and shares the robots.txt state (ROB-5);
   * files and deletion-check write `files/` and `text/`, photos writes `files/` (photos) and its marks
   * in State and reads persons from `mirror/`.
   */
  addDocumentFunctions(): {
    files: IngestorFunction;
    deletionCheck: IngestorFunction;
    photos: IngestorFunction;
  } {
    const deletionShards = deletionShardsOf(this);
    this.deletionShards = deletionShards;
    const files = this.addScheduledFunction('Files', 'functions/files.ts', DOCUMENT_SCHEDULES.files, {
      description: 'Hourly: document cache and text extraction (DOC-1…DOC-7)',
      memorySize: FUNCTION_MEMORY_MB.files,
      // DOC-2: pdf.js runs in a bounded worker thread (shared/documents/text-extractor.ts).
      workerEntries: [TEXT_WORKER],
    });
    const deletionCheck = this.addScheduledFunction(
      'DeletionCheck',
      'functions/deletion-check.ts',
      DOCUMENT_SCHEDULES.deletionCheck,
      {
        description: 'Hourly: deletion check of stored documents (DEL-1…DEL-5)',
        memorySize: FUNCTION_MEMORY_MB.deletionCheck,
        // Issue 28: a host in exactly one shard (shared/documents/deletion-shards.ts).
        shards: deletionShards,
      },
    );
    const photos = this.addScheduledFunction('Photos', 'functions/photos.ts', DOCUMENT_SCHEDULES.photos, {
      description: 'Mondays 03:00: person photos (PHO-1…PHO-3)',
      memorySize: FUNCTION_MEMORY_MB.photos,
    });
    for (const fn of [files, deletionCheck, photos]) {
      grantTable(fn.role, this.tables.Sources, SOURCES_TABLE, 'read');
      grantTable(fn.role, this.tables.Documents, DOCUMENTS_TABLE, 'readWrite');
    }
    grantTable(files.role, this.tables.State, STATE_TABLE, 'read');
    grantTable(deletionCheck.role, this.tables.State, STATE_TABLE, 'read');
    grantTable(photos.role, this.tables.State, STATE_TABLE, 'readWrite');
    const copies = [MIRROR_PREFIXES.files, MIRROR_PREFIXES.text, ROBOTS_PREFIX];
    grantBucketPrefixes(files.role, this.mirrorBucket, copies, 'readWrite');
    grantBucketPrefixes(deletionCheck.role, this.mirrorBucket, copies, 'readWrite');
    grantBucketPrefixes(photos.role, this.mirrorBucket, [MIRROR_PREFIXES.files, ROBOTS_PREFIX], 'readWrite');
    grantBucketPrefixes(photos.role, this.mirrorBucket, [MIRROR_PREFIXES.mirror], 'read');
    this.acknowledgePrefixWildcards(files, copies);
    this.acknowledgePrefixWildcards(deletionCheck, copies);
    this.acknowledgePrefixWildcards(photos, [MIRROR_PREFIXES.files, ROBOTS_PREFIX, MIRROR_PREFIXES.mirror]);
    return { files, deletionCheck, photos };
  }

  /**
   * Issue 17: the geo refresh (OTH-4) daily at GEO_SCHEDULE, Europe/Berlin. Reads the Sources table
   * (geo items, and council items for OTH-2's host intervals) and the mirror's papers (`mirror/`, index
   * in State) for paper links; writes its `GEO#` items in State and the FeatureCollections under `geo/`.
   * No robots/ state: other fetches do not evaluate robots.txt (OTH-3).
   */
  addGeoFunction(): IngestorFunction {
    const geo = this.addScheduledFunction('Geo', 'functions/geo.ts', GEO_SCHEDULE, {
      description: 'Daily: plan boundaries from geo services (OTH-1…OTH-4)',
      memorySize: FUNCTION_MEMORY_MB.geo,
    });
    grantTable(geo.role, this.tables.Sources, SOURCES_TABLE, 'read');
    grantTable(geo.role, this.tables.State, STATE_TABLE, 'readWrite');
    grantBucketPrefixes(geo.role, this.mirrorBucket, [GEO_PREFIX], 'readWrite');
    grantBucketPrefixes(geo.role, this.mirrorBucket, [MIRROR_PREFIXES.mirror], 'read');
    this.acknowledgePrefixWildcards(geo, [GEO_PREFIX, MIRROR_PREFIXES.mirror]);
    return geo;
  }

  /**
   * Issue 17 (OTH-5): the broadcast poller, every minute. Outside every meeting window it only reads:
   * the Sources table (broadcast items), the session days and the mirror index in State; in a window it
   * also reads meeting records under `mirror/`, writes its own `BROADCAST#` items in State and asks one
   * streaming provider through the shared slot store (the Upstash secret). No robots.txt (OTH-3), so no
   * `robots/` access. One instance at a time; it fetches, so it counts towards INGESTOR_MAX_INSTANCES.
   */
  addBroadcastFunction(): IngestorFunction {
    const broadcasts = new IngestorFunction(this, 'Broadcasts', {
      entry: 'functions/broadcasts.ts',
      description:
        'Every minute: live broadcasts of council meetings, only around scheduled meetings (OTH-5)',
      timeout: BROADCAST_TIMEOUT,
      memorySize: FUNCTION_MEMORY_MB.broadcasts,
      environment: this.functionEnvironment,
      ...this.reserve(1),
      asyncInvoke: {
        // A pass that starts late is worthless: the next minute's pass decides again.
        maxEventAge: Duration.minutes(1),
        // No retry, for the same reason: Lambda's retry (after ≈ 1 min) would overlap the next pass.
        retryAttempts: 0,
        onFailure: this.failedInvocationsQueue,
      },
    });
    grantTable(broadcasts.role, this.tables.Sources, SOURCES_TABLE, 'read');
    grantTable(broadcasts.role, this.tables.State, STATE_TABLE, 'readWrite');
    // A meeting's index items by id-hash prefix (shared/broadcasts meetings.ts): one Query, no write.
    grantTableReads(broadcasts.role, this.tables.Mirror, MIRROR_TABLE, { actions: ['dynamodb:Query'] });
    grantBucketPrefixes(broadcasts.role, this.mirrorBucket, [MIRROR_PREFIXES.mirror], 'read');
    this.acknowledgePrefixWildcards(broadcasts, [MIRROR_PREFIXES.mirror]);
    this.upstashSecret.grantRead(broadcasts.role);
    this.grantApiIdKey(broadcasts.role);
    this.countFetchingInstances(1);
    this.schedule('BroadcastsSchedule', broadcasts, ScheduleExpression.rate(Duration.minutes(1)), {
      description: 'Broadcast pass (OTH-5); meeting windows are computed from the mirror',
      maxEventAge: Duration.minutes(1),
    });
    return broadcasts;
  }

  /**
   * Issue 9: the document preview (PRV-1…PRV-4) behind a public Function URL in RESPONSE_STREAM mode.
   * Reads Sources, State (bodies, ERR-6, mirror tombstones) and the secret; reads and — for PRV-3 copies
   * of listed bodies — writes Documents and `files/`; shares the robots.txt state (ROB-5). At most 10
   * instances: each may fetch, so they count towards INGESTOR_MAX_INSTANCES (RATE-7).
   */
  addPreviewFunction(): IngestorFunction {
    const maxInstances = PREVIEW_MAX_INSTANCES;
    const preview = new IngestorFunction(this, 'Preview', {
      entry: 'functions/preview.ts',
      description: 'GET /documents/{docId}: stored copy, or one polite fetch within 5 s (PRV-1…PRV-4)',
      timeout: Duration.minutes(2),
      // An unstored file is held in memory while its visitors are served (≤ 80 MB, DOC-3 limit).
      memorySize: FUNCTION_MEMORY_MB.preview,
      environment: this.functionEnvironment,
      ...this.reserve(maxInstances),
    });
    // RATE-7 counts the intended bound even when Lambda does not enforce it (no reservation).
    this.countFetchingInstances(maxInstances);
    // AWS_IAM: only CloudFront (signing through origin access control) may call the URL, so the
    // visitor address it forwards (CloudFront-Viewer-Address, PRV-2) cannot be forged by calling the
    // function directly. The portal links the distribution's domain.
    const url = preview.fn.addFunctionUrl({
      authType: FunctionUrlAuthType.AWS_IAM,
      invokeMode: InvokeMode.RESPONSE_STREAM,
    });
    this.previewDistribution = this.previewCdn(url);
    grantTable(preview.role, this.tables.Sources, SOURCES_TABLE, 'read');
    grantTable(preview.role, this.tables.State, STATE_TABLE, 'read');
    // A file's index item (its takedown mark, shared/preview context.ts): GetItem only.
    grantTableReads(preview.role, this.tables.Mirror, MIRROR_TABLE, { actions: ['dynamodb:GetItem'] });
    grantTable(preview.role, this.tables.Documents, DOCUMENTS_TABLE, 'readWrite');
    grantBucketPrefixes(preview.role, this.mirrorBucket, [MIRROR_PREFIXES.files, ROBOTS_PREFIX], 'readWrite');
    this.upstashSecret.grantRead(preview.role);
    this.grantApiIdKey(preview.role);
    this.acknowledgePrefixWildcards(preview, [MIRROR_PREFIXES.files, ROBOTS_PREFIX]);
    new CfnOutput(this, 'PreviewUrl', {
      value: `https://${this.previewDistribution.distributionDomainName}/documents/`,
      description: 'The preview for the portal: append a document id (CloudFront in front of the function)',
    });
    return preview;
  }

  /**
   * Issue 16: the OParl 1.1 API over the mirror from a read-only function behind CloudFront. Its role
   * reads exactly what a request needs: the Sources table (Scan, as the planner does, cached 30 s), the
   * State table (GetItem of an index item, Query of a source's bodies) and its `byList` index
   * (one Query per list page), `mirror/` objects and the key of its ids (issue 25 point 5: GetSecretValue
   * of that secret alone) — no write anywhere, no other secret, no queue, no other
   * prefix. The Function URL admits only CloudFront (AWS_IAM + origin access control); CloudFront
   * caches by path and full query string (`modified_since`, `cursor` …) for the time the API's
   * Cache-Control says. With the preview deployed, `/oparl/*` is a behaviour of its distribution, so
   * `File.accessUrl` (`{base}/documents/…`) lands on the same domain; otherwise the API gets its own.
   */
  addMirrorApi(): { function: IngestorFunction; distribution: Distribution } {
    const api = new IngestorFunction(this, 'MirrorApi', {
      entry: 'functions/mirror-api.ts',
      description: 'OParl 1.1 API over the mirror, read-only (issue 16)',
      timeout: MIRROR_API_TIMEOUT,
      memorySize: FUNCTION_MEMORY_MB.mirrorApi,
      // Issue 25 point 4: its own bound, so a flood cannot take the sync's share of the account's pool.
      ...this.reserve(MIRROR_API_MAX_INSTANCES),
      // Only what it reads by: no queue, no Upstash, no Documents table.
      environment: {
        SOURCES_TABLE: this.tables.Sources.tableName,
        STATE_TABLE: this.tables.State.tableName,
        ...this.mirrorTableEnvironment(),
        BUCKET: this.mirrorBucket.bucketName,
        // Without the preview there is no /documents route: File links stay the origin's.
        INGESTOR_API_DOCUMENTS: this.previewDistribution ? 'true' : 'false',
        // Its ids are keyed (issue 25 point 5): the one secret it may read.
        INGESTOR_API_ID_KEY_SECRET_ARN: this.apiIdKey.secretArn,
      },
    });
    this.grantApiIdKey(api.role);
    grantTableReads(api.role, this.tables.Sources, SOURCES_TABLE, { actions: ['dynamodb:Scan'] });
    grantTableReads(api.role, this.tables.State, STATE_TABLE, {
      actions: ['dynamodb:GetItem', 'dynamodb:Query'],
      // Issue 28: `ownDropped` has deleted State's list index (the lists are the Mirror table's).
      indexes: stateListIndexDropped(this) ? [] : [LIST_INDEX],
    });
    // The index items and list pages (issue 28: here once moved; State's above until then).
    grantTableReads(api.role, this.tables.Mirror, MIRROR_TABLE, {
      actions: ['dynamodb:GetItem', 'dynamodb:Query'],
      indexes: [LIST_INDEX],
    });
    grantBucketPrefixes(api.role, this.mirrorBucket, [MIRROR_PREFIXES.mirror], 'read');
    this.acknowledgePrefixWildcards(api, [MIRROR_PREFIXES.mirror]);
    const url = api.fn.addFunctionUrl({
      authType: FunctionUrlAuthType.AWS_IAM,
      invokeMode: InvokeMode.BUFFERED,
    });
    const behavior = this.mirrorApiBehavior(url);
    let distribution = this.previewDistribution;
    if (distribution) {
      distribution.addBehavior(`${API_PREFIX}/*`, behavior.origin, behavior);
    } else {
      distribution = new Distribution(this, 'MirrorApiDistribution', {
        comment: 'mandari ingestor OParl API over the mirror (issue 16)',
        priceClass: PriceClass.PRICE_CLASS_100,
        defaultBehavior: behavior,
      });
      this.acknowledgeCdnFindings(distribution);
    }
    new CfnOutput(this, 'MirrorApiSystemUrl', {
      value: `https://${distribution.distributionDomainName}${API_PREFIX}/system`,
      description:
        'The OParl System of the API over the mirror (CloudFront in front of a read-only function)',
    });
    return { function: api, distribution };
  }

  /**
   * Issue 25 point 4: a rate-based rule per client address on the API's distribution (`apiWaf`). The
   * ACL's scope is CLOUDFRONT, which AWS accepts only in us-east-1: created here when this stack is
   * there, else in a companion stack in us-east-1 (same account), referenced across regions.
   */
  private addApiWaf(distribution: Distribution, props: IngestorStackProps): { acl: CfnWebACL; stack: Stack } {
    const raw = props.apiWafRateLimit ?? this.node.tryGetContext(STACK_CONTEXT_KEYS.apiWafRateLimit);
    const limit = checkInteger(
      'apiWafRateLimit',
      raw === undefined ? API_WAF_RATE_LIMIT : Number(raw),
      10,
      2_000_000_000,
    );
    const here = this.region === WAF_CLOUDFRONT_REGION;
    const home = here
      ? this
      : new Stack(this.node.scope as Construct, `${this.node.id}ApiWaf`, {
          stackName: `${this.stackName}-api-waf`,
          description:
            'mandari ingestor: rate-based WAF rule of the OParl API (CloudFront web ACLs live in us-east-1)',
          env: {
            ...(Token.isUnresolved(this.account) ? {} : { account: this.account }),
            region: WAF_CLOUDFRONT_REGION,
          },
          crossRegionReferences: true,
        });
    const visibility = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: name,
      sampledRequestsEnabled: true,
    });
    const acl = new CfnWebACL(home, 'MirrorApiWebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      description: `OParl API: at most ${limit} requests per 5 minutes per client address`,
      visibilityConfig: visibility('MirrorApiWebAcl'),
      rules: [
        {
          name: 'MirrorApiRatePerAddress',
          priority: 0,
          action: { block: {} },
          statement: { rateBasedStatement: { limit, aggregateKeyType: 'IP', evaluationWindowSec: 300 } },
          visibilityConfig: visibility('MirrorApiRatePerAddress'),
        },
      ],
    });
    distribution.attachWebAclId(acl.attrArn);
    return { acl, stack: home };
  }

  /**
   * The API's CloudFront behaviour: cache key = path + the query strings the API reads (issue 25: any
   * other name neither splits the cache nor reaches the function), no header, no cookie; TTL
   * from the API's Cache-Control (objects OBJECT_MAX_AGE_S, lists LIST_MAX_AGE_S), compressed JSON. A
   * viewer-request function names the public base URL for the ids (API_BASE_HEADER): the Function URL
   * only ever sees its own host.
   */
  private mirrorApiBehavior(url: FunctionUrl): BehaviorOptions {
    const cachePolicy = new CachePolicy(this, 'MirrorApiCachePolicy', {
      comment:
        'OParl API: path and the query strings it reads; TTL from the origin (lists 60 s, objects 300 s)',
      defaultTtl: Duration.seconds(0),
      minTtl: Duration.seconds(0),
      maxTtl: Duration.seconds(Math.max(OBJECT_MAX_AGE_S, LIST_MAX_AGE_S)),
      queryStringBehavior: CacheQueryStringBehavior.allowList(...API_QUERY_PARAMETERS),
      headerBehavior: CacheHeaderBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const originRequestPolicy = new OriginRequestPolicy(this, 'MirrorApiOriginRequestPolicy', {
      comment: 'OParl API: the query strings it reads and the public base URL, nothing else',
      headerBehavior: OriginRequestHeaderBehavior.allowList(API_BASE_HEADER),
      queryStringBehavior: OriginRequestQueryStringBehavior.allowList(...API_QUERY_PARAMETERS),
    });
    const baseUrl = new CloudFrontFunction(this, 'MirrorApiBaseUrl', {
      comment: 'Names the public base URL of the OParl API for its ids (overwrites any viewer value)',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(
        `function handler(event){var r=event.request;r.headers['${API_BASE_HEADER}']={value:'https://'+r.headers.host.value};return r;}`,
      ),
    });
    return {
      origin: FunctionUrlOrigin.withOriginAccessControl(url, { readTimeout: MIRROR_API_TIMEOUT }),
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy,
      originRequestPolicy,
      compress: true,
      functionAssociations: [{ function: baseUrl, eventType: FunctionEventType.VIEWER_REQUEST }],
    };
  }

  /**
   * Issue 16: the change feed. The sync publishes every committed change and the planner drains the
   * outbox (PutEvents on this bus only); `ingestor --aws` reads the bus from the stack output, so
   * takedowns and purges publish too.
   */
  addChangeFeed(busName: string): IEventBus {
    const bus =
      busName === DEFAULT_EVENT_BUS
        ? EventBus.fromEventBusName(this, 'ChangeBus', DEFAULT_EVENT_BUS)
        : new EventBus(this, 'ChangeBus', {
            eventBusName: busName,
            description: 'mandari ingestor: committed mirror changes',
          });
    // The planner drains the feed's outbox every few minutes, also while no sync runs (a dead sync's or
    // command's staged takedown events must not wait for the next sync).
    for (const fn of [this.sync, this.planner]) {
      fn.fn.addEnvironment(STACK_OUTPUT_ENV.ChangeBusName, bus.eventBusName);
      fn.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['events:PutEvents'], resources: [bus.eventBusArn] }),
      );
    }
    new CfnOutput(this, 'ChangeBusName' satisfies StackOutputKey, {
      value: bus.eventBusName,
      description: `${STACK_OUTPUT_ENV.ChangeBusName} of the sync and planner functions and of ingestor --aws`,
    });
    return bus;
  }

  /**
   * CloudFront in front of the preview. The cache key is the path and PREVIEW_DOWNLOAD_PARAM alone (no
   * other query string, no header or cookie: `/documents/{docId}` names the document, `download` whether
   * it is a download — the two answers differ, a cached view's redirect must never answer a download —
   * and no other parameter can bypass or split the cache), and the origin's Cache-Control decides:
   * redirects to stored copies for PREVIEW_STORED_REDIRECT_MAX_AGE_S, fetched files (`private`) and our
   * error pages (`no-store`) never. The function gets that one parameter and the visitor address as
   * CloudFront-Viewer-Address (PRV-2).
   */
  private previewCdn(url: FunctionUrl): Distribution {
    const cachePolicy = new CachePolicy(this, 'PreviewCachePolicy', {
      comment: 'Preview: path and download only; TTL from the origin, at most the stored-copy redirect age',
      defaultTtl: Duration.seconds(0),
      minTtl: Duration.seconds(0),
      maxTtl: Duration.seconds(PREVIEW_STORED_REDIRECT_MAX_AGE_S),
      queryStringBehavior: CacheQueryStringBehavior.allowList(PREVIEW_DOWNLOAD_PARAM),
    });
    const originRequestPolicy = new OriginRequestPolicy(this, 'PreviewOriginRequestPolicy', {
      comment: 'Preview: the viewer address for the PRV-2 visitor limit and download, nothing else',
      headerBehavior: OriginRequestHeaderBehavior.allowList('CloudFront-Viewer-Address'),
      // In the cache key already (so forwarded anyway); named here too, so the origin request says all
      // the function may receive.
      queryStringBehavior: OriginRequestQueryStringBehavior.allowList(PREVIEW_DOWNLOAD_PARAM),
    });
    const distribution = new Distribution(this, 'PreviewDistribution', {
      comment: 'mandari ingestor document preview (PRV-1…PRV-4)',
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: FunctionUrlOrigin.withOriginAccessControl(url, {
          // PRV-1 waits up to 5 s before the first byte; a large file streams for longer.
          readTimeout: Duration.seconds(60),
        }),
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy,
        originRequestPolicy,
        compress: false,
      },
    });
    this.acknowledgeCdnFindings(distribution);
    return distribution;
  }

  /** The cdk-nag findings every public distribution of this stack answers the same way. */
  private acknowledgeCdnFindings(distribution: Distribution): void {
    const acknowledge = (id: string, reason: string) =>
      Validations.of(distribution).acknowledge({ id, reason });
    acknowledge(
      'AwsSolutions-CFR1',
      'Public council information (documents, the OParl API) for a citizens’ portal: no geo restriction by design.',
    );
    acknowledge(
      'AwsSolutions-CFR2',
      'No WAF: the preview limits each visitor (PRV-2, 20 per minute), the OParl API is read-only and cached and never reaches a council server, and the sources are protected by the shared per-host pace; a web ACL can be attached later without code changes.',
    );
    acknowledge(
      'AwsSolutions-CFR3',
      'CloudFront standard logs need an ACL-enabled bucket, which this stack avoids; every request that reaches the origin is logged by the function (ids, codes, sizes — never the visitor address, PRV-2).',
    );
    acknowledge(
      'AwsSolutions-CFR4',
      'The default *.cloudfront.net certificate cannot pin a minimum TLS version; with a custom domain set minimumProtocolVersion TLSv1.2_2021.',
    );
  }

  /**
   * Object ARNs under a key prefix are wildcards by nature (`<bucket>/mirror/*`); cdk-nag IAM5 flags
   * them. Acknowledge exactly those findings on the function's role, nothing broader.
   */
  acknowledgePrefixWildcards(fn: IngestorFunction, prefixes: string[]): void {
    const bucketId = this.getLogicalId(this.mirrorBucket.node.defaultChild as CfnBucket);
    for (const prefix of prefixes) {
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${prefix}*]`,
        reason: `Object ARNs need a wildcard; access is limited to keys under the ${prefix} prefix of the mirror bucket.`,
      });
    }
  }

  /**
   * RATE-7 bookkeeping: call for every function added later that fetches, with the most instances it
   * can run at once (its reserved concurrency), so INGESTOR_MAX_INSTANCES stays a true upper bound.
   * addScheduledFunction does this itself.
   */
  countFetchingInstances(maxInstances: number): void {
    this.otherFetcherInstances.push(checkInteger('maxInstances', maxInstances, 1, 1000));
  }

  /** Sync instances plus every other fetcher's bound; the planner never fetches. */
  private maxFetchingInstances(): number {
    return this.otherFetcherInstances.reduce((sum, n) => sum + n, this.syncMaxConcurrency);
  }

  private createTable(definition: TableDefinition): Table {
    // Issue 28: on-demand or provisioned with auto scaling, as decided by cost (infra/table-capacity.ts).
    const replaces = Object.fromEntries(
      definition.globalIndexes.flatMap((i) => (i.replaces ? [[i.replaces, i.indexName]] : [])),
    );
    // The first step of an index rollout keeps the table as deployed (on-demand): one change to the
    // table per update — its capacity mode changes with a later deploy (docs/operations.md).
    const firstStep = String(this.node.tryGetContext(STACK_CONTEXT_KEYS.indexRolloutStep) ?? '') === '1';
    // Issue 28: while the mirror moves (`-c mirrorTable=dual`, deploy 1) State also carries the mirror's
    // items and their list copies — load the decided plan, sized for the Mirror table's own design
    // (`-c mirrorTable=own`), does not hold: State stays on-demand until deploy 2 unless a mode is asked.
    const moving =
      definition === STATE_TABLE &&
      mirrorTablePhaseOf(this) === 'dual' &&
      capacityModeOf(this.node.tryGetContext(DYNAMO_CAPACITY_CONTEXT)) === undefined;
    const capacity = firstStep || moving ? ON_DEMAND : tableCapacity(this, definition.logicalName, replaces);
    const rebuildable = definition === MIRROR_TABLE;
    const table = new Table(this, `${definition.logicalName}Table`, {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      ...(definition.sortKey ? { sortKey: { name: definition.sortKey, type: AttributeType.STRING } } : {}),
      ...capacity.tableProps,
      // PITR on for Sources, State and Documents: what they hold cannot be rebuilt — the takedown
      // registry (OPT-2), leases, cursors, on-call's edits. Issue 28: the mirror's index (16.8 of the
      // 18.4 GB at 1,000 sources) is in a table of its own without PITR, in Standard-IA (storage at
      // 40 % of Standard's price, requests at 125 %: an index read and written by changes only, stored
      // for ever): −€7.59 a month at 1,000 sources, −€75.9 at 10,000 (`npm run bench -- cost`,
      // docs/scale.md "The mirror index in a table of its own"). Without PITR because it can be rebuilt
      // from S3: every object's record (`mirror/<source>/<type>/<id>.json`) carries what its item holds
      // (meta: id, type, source, body, commit time, deleted, takedown; the hash and list keys follow from
      // the object and the commit time) — docs/operations.md "The mirror table" says how, and that the
      // command for it is not built yet.
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: !rebuildable },
      ...(rebuildable ? { tableClass: TableClass.STANDARD_INFREQUENT_ACCESS } : {}),
      encryption: TableEncryption.AWS_MANAGED,
      // A table is deleted only after an operator turns this off on purpose (console or a deploy).
      deletionProtection: true,
      // Sources are hand-edited by on-call, State and Documents are costly to rebuild: outlive the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    if (rebuildable)
      Validations.of(table).acknowledge({
        id: 'AwsSolutions-DDB3',
        reason:
          "The mirror's object index is rebuilt from the S3 records it indexes (each carries the item's data); PITR would cost more than the index's own storage (issue 28, docs/scale.md). The tables that cannot be rebuilt keep PITR.",
      });
    const firstReplacing = definition.globalIndexes.find((index) => index.replaces !== undefined);
    // Issue 28: State's list index, empty after the mirror's move, is deleted with `ownDropped`.
    const listDropped = definition === STATE_TABLE && stateListIndexDropped(this);
    const indexes = [
      ...definition.globalIndexes.filter(
        (index) =>
          (!firstStep || index.replaces === undefined || index === firstReplacing) &&
          !(listDropped && index.indexName === LIST_INDEX),
      ),
      ...retiringIndexes(definition),
      // Deleted by the step after (one global index per update): as deployed until then.
      ...(firstStep ? (definition.dropped ?? []) : []),
    ];
    for (const index of indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        ...(index.include ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: index.include } : {}),
        ...capacity.indexProps(index.indexName),
      });
    }
    capacity.autoScale(
      table,
      indexes.map((index) => index.indexName),
    );
    return table;
  }

  private schedule(
    id: string,
    target: IngestorFunction,
    expression: ScheduleExpression,
    options: { description: string; maxEventAge: Duration; input?: Record<string, unknown> },
  ): Schedule {
    // Issue 28: a scheduled function's failures are seen through its on-failure destination, which
    // replaces its own errors alarm; a schedule without one would leave its failures unrecorded.
    if (target.failureQueue !== this.failedInvocationsQueue) {
      throw new Error(
        `${id}: ${target.node.id} is invoked by a schedule, so it needs asyncInvoke.onFailure = the FailedInvocations queue`,
      );
    }
    const schedule = new Schedule(this, id, {
      schedule: expression,
      description: options.description,
      // A missed tick is not made up: every run decides from the current state and time.
      target: new LambdaInvoke(target.fn, {
        retryAttempts: 0,
        maxEventAge: options.maxEventAge,
        ...(options.input === undefined ? {} : { input: ScheduleTargetInput.fromObject(options.input) }),
      }),
    });
    // LambdaInvoke's role (created by the target, one per function, no handle to it) is granted the
    // function ARN and `<arn>:*` (its versions and aliases). Acknowledged on the stack for exactly
    // that resource string, so no other wildcard is covered.
    const functionId = this.getLogicalId(target.fn.node.defaultChild as CfnFunction);
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
      reason: `Scheduler role may invoke ${target.node.id} including its qualified ARNs (versions/aliases of that one function), as LambdaInvoke grants.`,
    });
    return schedule;
  }
}

function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return value;
}
