import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, Duration, Token } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, DEFAULT_TAGS } from '../../infra/create-app';
import { SYNC_BATCH_SIZE } from '../../infra/function-sizes';
import { ESM_REQUIRE_BANNER, type IngestorFunction, PROJECT_ROOT } from '../../infra/ingestor-function';
import { UPSTASH_URL_PLACEHOLDER } from '../../infra/settings';
import {
  IngestorStack,
  MIRROR_PREFIXES,
  ROBOTS_PREFIX,
  SYNC_MAX_RECEIVE_COUNT,
  SYNC_TIMEOUT,
  SYNC_VISIBILITY_TIMEOUT,
} from '../../infra/stack';
import { FILES_TO_GLACIER_IR_AFTER_DAYS, FILES_TO_GLACIER_IR_MIN_BYTES } from '../../infra/storage-classes';
import { planFor } from '../../infra/table-capacity';
import { OPTIONAL_STACK_OUTPUTS, STACK_OUTPUT_ENV } from '../../shared/config/stack-outputs';
import { FILES_PREFIX, fileKey, INCOMING_PREFIX, textKey } from '../../shared/mirror/keys';
import { DEFAULT_LEASE_MINUTES } from '../../shared/schedule';
import {
  DUE_INDEX,
  LEGACY_LIST_INDEX,
  LIST_INDEX,
  MIRROR_TABLE,
  RETIRED_LEASE_INDEX,
  retiringIndexes,
  STATE_TABLE,
  TABLES,
} from '../../shared/store/tables';
import { WORKER_RUNS_AT_ONCE } from '../../shared/sync';
import { cdkJsonContext, NO_BUNDLING, removeTempOutdirs, TEST_ENV, tempOutdir } from '../support/cdk';

type Json = Record<string, unknown>;
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:PartiQLInsert',
  'dynamodb:PartiQLUpdate',
  'dynamodb:PartiQLDelete',
  'dynamodb:*',
];

const REQUIRED_ENV = [
  'SOURCES_TABLE',
  'STATE_TABLE',
  'DOCUMENTS_TABLE',
  'BUCKET',
  'SYNC_QUEUE_URL',
  'UPSTASH_REDIS_REST_URL',
  'UPSTASH_SECRET_ARN',
  'INGESTOR_MAX_CONCURRENT_SYNCS',
  'INGESTOR_FULL_SYNC_HOUR',
  'INGESTOR_MAX_INSTANCES',
  'NODE_OPTIONS',
];

const UPSTASH_URL = 'https://eu1-test-db.upstash.io';

// One synthesis with real esbuild bundling for the whole file (slow part: ~10 s of aws-cdk-lib import
// plus two bundles); every test reads the same template.
let stack: IngestorStack;
let template: Template;
let outdir: string;

beforeAll(() => {
  outdir = tempOutdir('stack');
  const app = new App({ outdir, context: cdkJsonContext() });
  // The base composition (planner + sync); document functions, preview and the mirror API have their own tests.
  stack = new IngestorStack(app, 'IngestorTest', {
    env: TEST_ENV,
    documentFunctions: false,
    previewFunction: false,
    geoFunction: false,
    broadcastFunction: false,
    mirrorApi: false,
    upstashRestUrl: UPSTASH_URL,
    upstashSecretName: 'test/upstash-token',
    userAgent: 'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; ops@example.org)',
  });
  template = Template.fromStack(stack);
});
afterAll(removeTempOutdirs);

const logicalId = (construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

function functionResource(fn: IngestorFunction): Json {
  const resources = template.findResources('AWS::Lambda::Function');
  const resource = resources[logicalId(fn.fn)];
  if (!resource) throw new Error(`function ${fn.node.id} not in template`);
  return resource.Properties as Json;
}

function statementsOf(fn: IngestorFunction): Statement[] {
  const roleRef = { Ref: logicalId(fn.role) };
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => asArray(policy.Properties.Roles).some((role) => same(role, roleRef)))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

/** Actions the statements allow on exactly this resource expression. */
function actionsOn(statements: Statement[], resource: unknown): string[] {
  return statements
    .filter((s) => s.Effect === 'Allow' && asArray(s.Resource).some((r) => same(r, resource)))
    .flatMap((s) => asArray(s.Action));
}

describe('DynamoDB tables (from shared/store/tables.ts)', () => {
  it('SCH-5 / issue 28: the State indexes the planner reads project only what it reads, not the whole item', () => {
    const state = Object.values(template.findResources('AWS::DynamoDB::Table')).find((t) =>
      ((t.Properties.GlobalSecondaryIndexes ?? []) as Json[]).some((i) => i.IndexName === DUE_INDEX),
    );
    const indexes = (state?.Properties.GlobalSecondaryIndexes ?? []) as Json[];
    expect(indexes.find((i) => i.IndexName === DUE_INDEX)?.Projection).toEqual({
      ProjectionType: 'INCLUDE',
      NonKeyAttributes: ['sourceId', 'schedule', 'lastDecision', 'configProblems', 'leaseUntil', 'leaseKind'],
    });
    // Issue 28: the running syncs are read from byDueAt; the lease index of the release before stays
    // for one release (CloudFormation deletes one global index per update, and this one adds byDueAt).
    expect(indexes.find((i) => i.IndexName === RETIRED_LEASE_INDEX)?.KeySchema).toEqual([
      { AttributeName: 'leaseShard', KeyType: 'HASH' },
      { AttributeName: 'leaseUntil', KeyType: 'RANGE' },
    ]);
    expect(indexes.map((i) => i.IndexName)).not.toContain('byLeaseUntil');
  });

  it('issue 28: each deploy of a stack deployed before changes one State index — step 1 adds byDueAt and keeps byBodyList, the final step deletes byBodyList', () => {
    const first = new IngestorStack(
      new App({
        outdir: tempOutdir('rollout'),
        context: { ...cdkJsonContext(), ...NO_BUNDLING, indexRolloutStep: '1' },
      }),
      'IngestorRollout',
      {
        env: TEST_ENV,
        documentFunctions: false,
        previewFunction: false,
        geoFunction: false,
        broadcastFunction: false,
        mirrorApi: false,
        upstashRestUrl: UPSTASH_URL,
        upstashSecretName: 'test/upstash-token',
        userAgent: 'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; ops@example.org)',
      },
    );
    // The State table's indexes (the one with the due index; the Mirror table has a list index too).
    const stateIndexes = (t: Template) =>
      Object.values(t.findResources('AWS::DynamoDB::Table'))
        .map((table) => (table.Properties.GlobalSecondaryIndexes ?? []) as Json[])
        .find((indexes) => indexes.some((i) => i.IndexName === DUE_INDEX)) ?? [];
    const names = (t: Template) => stateIndexes(t).map((i) => String(i.IndexName));
    // As deployed by session 12's release.
    const deployed = ['byDue', 'byLease', LIST_INDEX, LEGACY_LIST_INDEX];
    const step1 = Template.fromStack(first);
    // CloudFormation creates or deletes one global index per table update.
    expect(names(step1).filter((n) => !deployed.includes(n))).toEqual([DUE_INDEX]);
    expect(names(step1)).toEqual(expect.arrayContaining(deployed));
    // The dropped index as deployed (a changed projection would be a replacement, two changes).
    expect(stateIndexes(step1).find((i) => i.IndexName === LEGACY_LIST_INDEX)).toEqual({
      IndexName: LEGACY_LIST_INDEX,
      KeySchema: [
        { AttributeName: 'apiList', KeyType: 'HASH' },
        { AttributeName: 'apiListSort', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['deleted', 'takedown', 'o'] },
    });
    // The final step (no context) after step 1: byBodyList deleted, nothing added.
    expect(names(step1).filter((n) => !names(template).includes(n))).toEqual([LEGACY_LIST_INDEX]);
    expect(names(template).filter((n) => !names(step1).includes(n))).toEqual([]);
    expect(names(template)).not.toContain(LEGACY_LIST_INDEX);
    // Nothing grants the dropped index (it is read by nothing).
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain(LEGACY_LIST_INDEX);
  });

  it('creates exactly one table per shared definition', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', TABLES.length);
  });

  it.each(TABLES.map((definition) => [definition.logicalName, definition] as const))(
    '%s: keys and GSIs match the definition, capacity mode as decided, PITR, encrypted, retained, deletion protection on',
    (_name, definition) => {
      const keySchema = [
        { AttributeName: definition.partitionKey, KeyType: 'HASH' },
        ...(definition.sortKey ? [{ AttributeName: definition.sortKey, KeyType: 'RANGE' }] : []),
      ];
      // State and Mirror share their key names (issue 28): the table by its construct.
      const table =
        template.findResources('AWS::DynamoDB::Table')[logicalId(stack.tables[definition.logicalName])];
      expect(table?.Properties.KeySchema).toEqual(keySchema);
      expect(table?.DeletionPolicy).toBe('Retain');
      expect(table?.UpdateReplacePolicy).toBe('Retain');

      const props = table?.Properties as Json;
      // Issue 28: the mode decided by cost for the default fleet (infra/table-capacity.ts).
      // State stays on-demand while it still carries the mirror (`-c mirrorTable=dual`, the default).
      const mode =
        definition === STATE_TABLE
          ? 'onDemand'
          : (planFor(1_000).tables[definition.logicalName]?.mode ?? 'onDemand');
      // CloudFormation's default mode: CDK leaves BillingMode out for provisioned tables.
      expect(props.BillingMode ?? 'PROVISIONED').toBe(
        mode === 'provisioned' ? 'PROVISIONED' : 'PAY_PER_REQUEST',
      );
      // Issue 28: the mirror's index can be rebuilt from S3 — no PITR (test/cdk/mirror-table.test.ts).
      expect(props.PointInTimeRecoverySpecification).toEqual({
        PointInTimeRecoveryEnabled: definition !== MIRROR_TABLE,
      });
      expect(props.DeletionProtectionEnabled).toBe(true);
      // SSEEnabled without a key = the AWS-managed key (aws/dynamodb).
      expect(props.SSESpecification).toEqual({ SSEEnabled: true });

      const indexes = (props.GlobalSecondaryIndexes ?? []) as Json[];
      // Issue 28: beside each index, the one it replaces, kept for one release.
      expect(indexes.map((i) => i.IndexName).sort()).toEqual(
        [...definition.globalIndexes, ...retiringIndexes(definition)].map((i) => i.indexName).sort(),
      );
      for (const retiring of retiringIndexes(definition)) {
        expect(indexes.find((i) => i.IndexName === retiring.indexName)).toMatchObject({
          Projection: { ProjectionType: 'ALL' },
        });
      }
      for (const index of definition.globalIndexes) {
        expect(indexes.find((i) => i.IndexName === index.indexName)).toMatchObject({
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          // The API's list index projects keys and a few flags only (issue 16: read units per page).
          Projection: index.include
            ? { ProjectionType: 'INCLUDE', NonKeyAttributes: index.include }
            : { ProjectionType: 'ALL' },
        });
      }
      // All key attributes are strings (the definitions have no other type).
      for (const attribute of props.AttributeDefinitions as Json[]) {
        expect(attribute.AttributeType).toBe('S');
      }
    },
  );
});

describe('mirror bucket', () => {
  it('is private, S3-encrypted, unversioned, access-logged to the log bucket and retained', () => {
    const mirror = template.findResources('AWS::S3::Bucket')[logicalId(stack.mirrorBucket)];
    expect(mirror?.DeletionPolicy).toBe('Retain');
    const props = mirror?.Properties as Json;
    expect(props.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(props.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    expect(props.VersioningConfiguration).toBeUndefined();
    expect(props.LoggingConfiguration).toMatchObject({
      DestinationBucketName: { Ref: logicalId(stack.accessLogBucket) },
    });
    expect(props.LifecycleConfiguration).toEqual({
      Rules: expect.arrayContaining([
        expect.objectContaining({
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
          Status: 'Enabled',
        }),
        // DOC-5: fetched files never promoted to a copy's key expire
        expect.objectContaining({ Prefix: INCOMING_PREFIX, ExpirationInDays: 1, Status: 'Enabled' }),
      ]),
    });
  });

  it('issue 28: stored file copies (files/ only) move to Glacier Instant Retrieval after N days when larger than the threshold; texts and mirror records stay Standard', () => {
    const mirror = template.findResources('AWS::S3::Bucket')[logicalId(stack.mirrorBucket)];
    const props = (mirror?.Properties ?? {}) as Json;
    const rules = (props.LifecycleConfiguration as { Rules: Json[] }).Rules;
    const transitioning = rules.filter((r) => r.Transitions !== undefined);
    expect(transitioning).toEqual([
      expect.objectContaining({
        Prefix: FILES_PREFIX,
        Status: 'Enabled',
        Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: FILES_TO_GLACIER_IR_AFTER_DAYS }],
        // Issue 28: only files whose move pays (bench/cost file-sizes.ts), not S3's default 128 KiB.
        ObjectSizeGreaterThan: FILES_TO_GLACIER_IR_MIN_BYTES,
      }),
    ]);
    // The one rule's prefix covers file copies, never the texts or the mirror records.
    expect(textKey('s', 'd').startsWith(String(transitioning[0]?.Prefix))).toBe(false);
    expect(fileKey('s', 'd').startsWith(String(transitioning[0]?.Prefix))).toBe(true);
  });

  it.each([
    ['mirror', () => stack.mirrorBucket],
    ['access log', () => stack.accessLogBucket],
  ])('%s bucket policy denies every request without TLS', (_name, bucket) => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logicalId(bucket()) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('the log bucket admits log delivery from the mirror bucket only, by bucket policy', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logicalId(stack.accessLogBucket) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'logging.s3.amazonaws.com' },
            Condition: Match.objectLike({
              ArnLike: { 'aws:SourceArn': stack.resolve(stack.mirrorBucket.bucketArn) },
            }),
          }),
        ]),
      },
    });
  });
});

describe('sync queue', () => {
  it('redrives to the DLQ after 5 receives; the DLQ keeps messages 14 days; both SSE', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    const queue = queues[logicalId(stack.syncQueue)]?.Properties as Json;
    const dlq = queues[logicalId(stack.syncDeadLetterQueue)]?.Properties as Json;
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: stack.resolve(stack.syncDeadLetterQueue.queueArn),
      maxReceiveCount: SYNC_MAX_RECEIVE_COUNT,
    });
    expect(dlq.MessageRetentionPeriod).toBe(Duration.days(14).toSeconds());
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(dlq.SqsManagedSseEnabled).toBe(true);
  });

  it('visibility timeout outlasts the sync function timeout', () => {
    const queue = template.findResources('AWS::SQS::Queue')[logicalId(stack.syncQueue)]?.Properties as Json;
    const syncTimeout = functionResource(stack.sync).Timeout as number;
    expect(syncTimeout).toBe(900);
    expect(queue.VisibilityTimeout as number).toBeGreaterThan(syncTimeout);
  });

  it('SCH-5: the sync lease outlasts the visibility timeout, so a given-back message finds its run still holding the source', () => {
    const queue = template.findResources('AWS::SQS::Queue')[logicalId(stack.syncQueue)]?.Properties as Json;
    expect(queue.VisibilityTimeout).toBe(SYNC_VISIBILITY_TIMEOUT.toSeconds());
    expect(SYNC_TIMEOUT.toSeconds()).toBeLessThan(SYNC_VISIBILITY_TIMEOUT.toSeconds());
    expect(DEFAULT_LEASE_MINUTES * 60 - SYNC_VISIBILITY_TIMEOUT.toSeconds()).toBeGreaterThanOrEqual(5 * 60);
  });

  it.each([
    ['queue', () => stack.syncQueue],
    ['DLQ', () => stack.syncDeadLetterQueue],
  ])('%s policy denies every request without TLS', (_name, queue) => {
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: logicalId(queue()) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('functions', () => {
  it.each([
    ['planner', () => stack.planner],
    ['sync', () => stack.sync],
  ])('%s: nodejs22.x on arm64, own log group with retention, no managed policies', (_name, get) => {
    const fn = get();
    const props = functionResource(fn);
    expect(props.Runtime).toBe('nodejs22.x');
    expect(props.Architectures).toEqual(['arm64']);
    expect(props.Handler).toBe('index.handler');
    expect(props.LoggingConfig).toEqual({ LogGroup: { Ref: logicalId(fn.logGroup) } });
    const logGroup = template.findResources('AWS::Logs::LogGroup')[logicalId(fn.logGroup)];
    expect(logGroup?.Properties.RetentionInDays).toBe(30);
    const role = template.findResources('AWS::IAM::Role')[logicalId(fn.role)];
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it.each([
    ['planner', () => stack.planner],
    ['sync', () => stack.sync],
  ])('%s: environment names every resource it needs', (_name, get) => {
    const variables = (functionResource(get()).Environment as { Variables: Json }).Variables;
    expect(Object.keys(variables)).toEqual(expect.arrayContaining(REQUIRED_ENV));
    expect(variables).toMatchObject({
      SOURCES_TABLE: stack.resolve(stack.tables.Sources.tableName),
      STATE_TABLE: stack.resolve(stack.tables.State.tableName),
      DOCUMENTS_TABLE: stack.resolve(stack.tables.Documents.tableName),
      BUCKET: stack.resolve(stack.mirrorBucket.bucketName),
      SYNC_QUEUE_URL: stack.resolve(stack.syncQueue.queueUrl),
      UPSTASH_REDIS_REST_URL: UPSTASH_URL,
      INGESTOR_MAX_CONCURRENT_SYNCS: '4',
      INGESTOR_FULL_SYNC_HOUR: '3',
      // RATE-7: the sync invocations that may fetch at once — 2 workers hold SCH-5's 4 runs (issue 28).
      INGESTOR_MAX_INSTANCES: '2',
      INGESTOR_USER_AGENT: 'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; ops@example.org)',
      NODE_OPTIONS: '--enable-source-maps',
    });
    expect(JSON.stringify(variables.UPSTASH_SECRET_ARN)).toContain(':secret:test/upstash-token');
  });

  it('planner: 1 minute, 512 MB, no reserved concurrency by default (a new account refuses any), stale async events dropped', () => {
    const props = functionResource(stack.planner);
    expect(props).toMatchObject({ Timeout: 60, MemorySize: 512 });
    expect(props.ReservedConcurrentExecutions).toBeUndefined();
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { ReservedConcurrentExecutions: Match.anyValue() },
      0,
    );
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(stack.planner.fn) },
      MaximumEventAgeInSeconds: 60,
      MaximumRetryAttempts: 0,
    });
  });

  it('sync: 15 minutes, 227 MB (34 runs, measured peak RSS, infra/function-sizes.ts), recursive loop allowed for continuation messages', () => {
    expect(functionResource(stack.sync)).toMatchObject({
      Timeout: 900,
      MemorySize: 227,
      RecursiveLoop: 'Allow',
    });
  });

  it('issue 28: the planner starts the sync workers — one wake per invocation from the wake queue, none from the sync queue; the worker refills from it', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    // With the event source's trigger (the variants below), a batch larger than the worker would be
    // handed over and not run.
    expect(SYNC_BATCH_SIZE).toBeLessThanOrEqual(WORKER_RUNS_AT_ONCE);
    expect(stack.syncTrigger).toBe('planner');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: stack.resolve(stack.syncWakeQueue?.queueArn),
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // SQS's minimum: the bound RATE-7 counts; the planner keeps INGESTOR_SYNC_WORKERS_MAX alive.
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    // Issue 28: it invokes the sync's alias that holds the provisioned worker (test/cdk/sync-provisioned.test.ts).
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(stack.syncAlias).toBeDefined();
    expect(JSON.stringify(mapping?.Properties.FunctionName)).toContain(
      JSON.stringify({ Ref: logicalId(stack.syncAlias as Alias) }),
    );
  });

  it.each([
    ['planner', () => stack.planner],
    ['sync', () => stack.sync],
  ])('%s bundle: one minified ESM file with the require banner and a source map', (_name, get) => {
    const code = functionResource(get()).Code as { S3Key: string };
    const assetDir = join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
    const bundle = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    expect(bundle.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    expect(bundle).toMatch(/export\s*\{[^}]*\bas handler\b[^}]*\}/);
    expect(bundle).toContain('//# sourceMappingURL=index.mjs.map');
    expect(existsSync(join(assetDir, 'index.mjs.map'))).toBe(true);
  });
});

describe('schedule', () => {
  it('invokes the planner every minute without retries', () => {
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Target: {
        Arn: stack.resolve(stack.planner.fn.functionArn),
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
      },
    });
  });
});

describe('IAM: least privilege', () => {
  const tableArn = (name: 'Sources' | 'State' | 'Documents') => stack.resolve(stack.tables[name].tableArn);

  it('the planner may read the Sources table but not write it', () => {
    const actions = actionsOn(statementsOf(stack.planner), tableArn('Sources'));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Scan']));
    expect(actions.filter((a) => TABLE_WRITE_ACTIONS.includes(a))).toEqual([]);
  });

  it('the sync may read the Sources table but not write it', () => {
    const actions = actionsOn(statementsOf(stack.sync), tableArn('Sources'));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem']));
    expect(actions.filter((a) => TABLE_WRITE_ACTIONS.includes(a))).toEqual([]);
  });

  it('the planner writes State and sends to the queue, and touches neither Documents, the bucket nor receives', () => {
    const statements = statementsOf(stack.planner);
    expect(actionsOn(statements, tableArn('State'))).toEqual(expect.arrayContaining(['dynamodb:PutItem']));
    expect(actionsOn(statements, tableArn('Documents'))).toEqual([]);
    const queueActions = actionsOn(statements, stack.resolve(stack.syncQueue.queueArn));
    expect(queueActions).toContain('sqs:SendMessage');
    expect(queueActions).not.toContain('sqs:ReceiveMessage');
    expect(statements.flatMap((s) => asArray(s.Action)).filter((a) => a.startsWith('s3:'))).toEqual([]);
  });

  it('the sync writes State and Documents, reads and writes only mirror/ objects and the shared robots/ cache (ROB-5), sends and consumes', () => {
    const statements = statementsOf(stack.sync);
    expect(actionsOn(statements, tableArn('State'))).toEqual(expect.arrayContaining(['dynamodb:UpdateItem']));
    expect(actionsOn(statements, tableArn('Documents'))).toEqual(
      expect.arrayContaining(['dynamodb:PutItem']),
    );
    const mirrorObjects = stack.resolve(stack.mirrorBucket.arnForObjects(`${MIRROR_PREFIXES.mirror}*`));
    expect(actionsOn(statements, mirrorObjects).sort()).toEqual([
      's3:AbortMultipartUpload',
      's3:DeleteObject',
      's3:GetObject',
      's3:PutObject',
    ]);
    const objectResources = statements
      .filter((s) => asArray(s.Action).some((a) => a.endsWith('Object')))
      .flatMap((s) => asArray(s.Resource));
    const robotsObjects = stack.resolve(stack.mirrorBucket.arnForObjects(`${ROBOTS_PREFIX}*`));
    expect(actionsOn(statements, robotsObjects).sort()).toEqual([
      's3:AbortMultipartUpload',
      's3:DeleteObject',
      's3:GetObject',
      's3:PutObject',
    ]);
    expect(objectResources.sort()).toEqual([mirrorObjects, robotsObjects].sort());
    // Issue 28: the worker receives, deletes and gives back (visibility 0) itself — on the sync queue
    // only, and nothing more (no purge, no queue changes).
    expect([...new Set(actionsOn(statements, stack.resolve(stack.syncQueue.queueArn)))].sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);
    const sqsResources = statements
      .filter((s) => asArray(s.Action).some((a) => a.startsWith('sqs:')))
      .flatMap((s) => asArray(s.Resource));
    // And the wake queue it is started from: the event source's consume grant (the worker keeps its
    // wake hidden while it lives, WAKE_LEASE_SECONDS).
    expect([...new Set(actionsOn(statements, stack.resolve(stack.syncWakeQueue?.queueArn)))].sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ]);
    expect(new Set(sqsResources.map((r) => JSON.stringify(r)))).toEqual(
      new Set([
        JSON.stringify(stack.resolve(stack.syncQueue.queueArn)),
        JSON.stringify(stack.resolve(stack.syncWakeQueue?.queueArn)),
      ]),
    );
  });

  it('GSI access names each index of the definition, never index/*', () => {
    for (const [fn, tables] of [
      [stack.planner, ['State']],
      [stack.sync, ['State', 'Documents']],
    ] as const) {
      const resources = statementsOf(fn).flatMap((s) => asArray(s.Resource));
      for (const name of tables) {
        const definition = TABLES.find((t) => t.logicalName === name);
        for (const index of definition?.globalIndexes ?? []) {
          const indexArn = stack.resolve(`${stack.tables[name].tableArn}/index/${index.indexName}`);
          expect(resources).toContainEqual(indexArn);
        }
      }
    }
  });

  it('no policy in the stack has a wildcard action, and wildcard resources are only the acknowledged ones', () => {
    const allowedWildcards = [
      JSON.stringify(stack.resolve(stack.mirrorBucket.arnForObjects(`${MIRROR_PREFIXES.mirror}*`))),
      JSON.stringify(stack.resolve(stack.mirrorBucket.arnForObjects(`${ROBOTS_PREFIX}*`))),
      JSON.stringify(stack.resolve(`${stack.planner.fn.functionArn}:*`)),
    ];
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
    );
    for (const statement of statements.filter((s) => s.Effect === 'Allow')) {
      expect(asArray(statement.Action).filter((a) => a.includes('*'))).toEqual([]);
      for (const resource of asArray(statement.Resource)) {
        const text = JSON.stringify(resource);
        if (text.includes('*')) expect(allowedWildcards).toContain(text);
      }
    }
  });

  it('both functions may read the Upstash secret, by name, and nothing else in Secrets Manager but the sync its id key', () => {
    const keyArn = stack.resolve(stack.apiIdKey.secretArn);
    for (const fn of [stack.planner, stack.sync]) {
      const secretStatements = statementsOf(fn).filter(
        (s) => asArray(s.Action).some((a) => a.startsWith('secretsmanager:')) && !same(s.Resource, keyArn),
      );
      expect(secretStatements).toHaveLength(1);
      expect(asArray(secretStatements[0]?.Action).sort()).toEqual([
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
      ]);
      expect(JSON.stringify(secretStatements[0]?.Resource)).toContain(':secret:test/upstash-token-??????');
    }
  });
});

describe('secrets', () => {
  it('issue 25 point 5: the key of the mirror ids is generated by Secrets Manager (no value in the template), kept when the stack goes, read by GetSecretValue alone, and only by functions that derive ids (not the planner)', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    const [id, secret] = Object.entries(template.findResources('AWS::SecretsManager::Secret'))[0] as [
      string,
      Json,
    ];
    expect(stack.resolve(stack.apiIdKey.secretArn)).toEqual({ Ref: id });
    expect(secret.DeletionPolicy).toBe('Retain');
    const props = secret.Properties as Json;
    expect(props.SecretString).toBeUndefined();
    expect(props.GenerateSecretString).toMatchObject({
      PasswordLength: 64,
      ExcludePunctuation: true,
    });
    const keyStatements = (fn: IngestorFunction) =>
      statementsOf(fn).filter(
        (s) => same(s.Resource, { Ref: id }) || asArray(s.Resource).some((r) => same(r, { Ref: id })),
      );
    expect(keyStatements(stack.sync).flatMap((s) => asArray(s.Action))).toEqual([
      'secretsmanager:GetSecretValue',
    ]);
    expect(keyStatements(stack.planner)).toEqual([]);
    const vars = (functionResource(stack.sync).Environment as { Variables: Json }).Variables;
    expect(vars.INGESTOR_API_ID_KEY_SECRET_ARN).toEqual({ Ref: id });
  });

  it('the template holds no secret value: only the generated key, no dynamic reference, no token variable', () => {
    const json = template.toJSON();
    // The generated key's template is its generation rule, not a value.
    const text = JSON.stringify(json).replaceAll('GenerateSecretString', '');
    expect(text).not.toContain('{{resolve:secretsmanager');
    expect(text).not.toContain('SecretString');
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      const names = Object.keys((fn.Properties.Environment as { Variables: Json }).Variables);
      expect(names.filter((n) => /TOKEN|PASSWORD|SECRET(?!_ARN)/.test(n))).toEqual([]);
    }
  });
});

describe('outputs', () => {
  it('every key `ingestor --aws` reads (STACK_OUTPUT_ENV) is an output, plus the access-log bucket and the DLQ', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    for (const key of Object.keys(STACK_OUTPUT_ENV)) {
      if ((OPTIONAL_STACK_OUTPUTS as readonly string[]).includes(key)) continue;
      expect(Object.keys(outputs)).toContain(key);
    }
    expect(outputs).toMatchObject({
      UpstashRestUrl: { Value: UPSTASH_URL },
      UpstashSecretArn: { Value: stack.resolve(stack.upstashSecret.secretArn) },
      AccessLogBucketName: { Value: stack.resolve(stack.accessLogBucket.bucketName) },
      SyncDeadLetterQueueUrl: { Value: stack.resolve(stack.syncDeadLetterQueue.queueUrl) },
    });
  });

  it('exports table names, bucket name and queue URL', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs).toMatchObject({
      SourcesTableName: { Value: stack.resolve(stack.tables.Sources.tableName) },
      StateTableName: { Value: stack.resolve(stack.tables.State.tableName) },
      DocumentsTableName: { Value: stack.resolve(stack.tables.Documents.tableName) },
      MirrorBucketName: { Value: stack.resolve(stack.mirrorBucket.bucketName) },
      SyncQueueUrl: { Value: stack.resolve(stack.syncQueue.queueUrl) },
    });
  });
});

// Wiring variants: no esbuild (NO_BUNDLING), so each costs well under a second.
describe('settings and extension points', () => {
  const unbundled = (props: ConstructorParameters<typeof IngestorStack>[2] = {}) => {
    const app = new App({ outdir: tempOutdir('variant'), context: { ...cdkJsonContext(), ...NO_BUNDLING } });
    return new IngestorStack(app, 'Variant', {
      env: TEST_ENV,
      documentFunctions: false,
      previewFunction: false,
      geoFunction: false,
      broadcastFunction: false,
      mirrorApi: false,
      ...props,
    });
  };

  it('maxConcurrentSyncs 1 keeps SCH-5 in the env and raises the SQS cap to its minimum of 2; 45 slots need 3 workers of 20 (issue 28, the event source’s trigger)', () => {
    Template.fromStack(
      unbundled({ maxConcurrentSyncs: 45, syncTrigger: 'eventSource' }),
    ).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 2,
      ScalingConfig: { MaximumConcurrency: 3 },
    });
    const variant = unbundled({ maxConcurrentSyncs: 1, syncTrigger: 'eventSource' });
    const t = Template.fromStack(variant);
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 2 } });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ INGESTOR_MAX_CONCURRENT_SYNCS: '1', INGESTOR_MAX_INSTANCES: '2' }),
      },
    });
  });

  // The synthesised event source mapping's cap (issue 28): a 1,000-source fleet keeps ≈ 21 runs in
  // flight (`npm run bench -- cost`, week.concurrentRunsNeeded) and needs ≈ 100 slots to hold a tick's
  // burst as well; before, the cap was those slots ÷ 20 = 5, so a burst opened up to 5 invocations.
  it('syncRunsInFlight caps the sync event source at ⌈1.5 × mean ÷ 20⌉, never above slots ÷ 20, at least 2 (issue 28)', () => {
    const capOf = (props: ConstructorParameters<typeof IngestorStack>[2]) => {
      const variant = unbundled({ syncTrigger: 'eventSource', ...props });
      const mappings = Template.fromStack(variant).findResources('AWS::Lambda::EventSourceMapping');
      const caps = Object.values(mappings).map(
        (m) =>
          (m as { Properties: { ScalingConfig?: { MaximumConcurrency?: number } } }).Properties.ScalingConfig
            ?.MaximumConcurrency,
      );
      expect(caps).toHaveLength(1);
      expect(caps[0]).toBe(variant.syncMaxConcurrency);
      return caps[0];
    };
    // Small fleet: the default 4 slots, 2 runs in flight — SQS's minimum either way.
    expect(capOf({ syncRunsInFlight: 2 })).toBe(2);
    // Large fleet: 100 slots. Unset, the cap is the slots' as before; from 21 runs in flight it is 2.
    expect(capOf({ maxConcurrentSyncs: 100 })).toBe(5);
    expect(capOf({ maxConcurrentSyncs: 100, syncRunsInFlight: 21 })).toBe(2);
    expect(capOf({ maxConcurrentSyncs: 100, syncRunsInFlight: 50 })).toBe(4); // ⌈75 ÷ 20⌉
    // It only lowers the cap: every slot busy on average still gives slots ÷ 20.
    expect(capOf({ maxConcurrentSyncs: 100, syncRunsInFlight: 100 })).toBe(5);
    // RATE-7's bound counts the sync's capped instances (no other fetchers in this variant).
    Template.fromStack(unbundled({ maxConcurrentSyncs: 100, syncRunsInFlight: 21 })).hasResourceProperties(
      'AWS::Lambda::Function',
      {
        Environment: {
          Variables: Match.objectLike({ INGESTOR_MAX_CONCURRENT_SYNCS: '100', INGESTOR_MAX_INSTANCES: '2' }),
        },
      },
    );
    // More runs in flight than the planner may start (SCH-5) is a settings mistake, refused at synth.
    expect(() => unbundled({ maxConcurrentSyncs: 8, syncRunsInFlight: 21 })).toThrow(/syncRunsInFlight/);
    expect(() => unbundled({ syncRunsInFlight: 0 })).toThrow(/syncRunsInFlight/);
  });

  it('rejects out-of-range knobs at synth', () => {
    expect(() => unbundled({ maxConcurrentSyncs: 0 })).toThrow(/maxConcurrentSyncs/);
    expect(() => unbundled({ fullSyncHour: 24 })).toThrow(/fullSyncHour/);
    expect(() => unbundled({ maxConcurrentSyncs: 10_001 })).toThrow(
      /maxConcurrentSyncs must be a whole number from 1 to 10000/,
    );
  });

  it('SCH-5: a 10,000-source fleet gets the ≈ 920 slots it needs (the old bound of 100 made it slot-bound)', () => {
    const t = Template.fromStack(unbundled({ maxConcurrentSyncs: 920 }));
    const planner = Object.values(t.findResources('AWS::Lambda::Function')).find(
      (f) => f.Properties?.Environment?.Variables?.INGESTOR_MAX_CONCURRENT_SYNCS !== undefined,
    );
    expect(planner?.Properties.Environment.Variables.INGESTOR_MAX_CONCURRENT_SYNCS).toBe('920');
  });

  it('without upstashRestUrl it uses the placeholder and warns', () => {
    const variant = unbundled();
    const t = Template.fromStack(variant);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ UPSTASH_REDIS_REST_URL: UPSTASH_URL_PLACEHOLDER }) },
    });
    const warnings = variant.node.metadata.filter((m) => m.type === 'aws:cdk:warning');
    expect(JSON.stringify(warnings)).toContain('upstashRestUrl');
  });

  it('addScheduledFunction: Europe/Berlin cron, one at a time (reservedConcurrency), secret readable, counted in INGESTOR_MAX_INSTANCES', () => {
    const variant = unbundled({ reservedConcurrency: true });
    const photos = variant.addScheduledFunction('Photos', 'functions/planner.ts', {
      weekDay: 'MON',
      hour: '3',
      minute: '0',
    });
    const t = Template.fromStack(variant);
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0 3 ? * MON *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      Target: Match.objectLike({ Arn: variant.resolve(photos.fn.functionArn) }),
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: Match.absent(),
      ReservedConcurrentExecutions: 1,
      Timeout: 900,
      Environment: { Variables: Match.objectLike({ INGESTOR_MAX_INSTANCES: '3' }) },
    });
    // The sync's own variable counts the new fetcher too (2 sync instances + 1).
    const syncId = variant.getLogicalId(variant.sync.fn.node.defaultChild as CfnElement);
    const sync = t.findResources('AWS::Lambda::Function')[syncId];
    expect(sync?.Properties.Environment.Variables.INGESTOR_MAX_INSTANCES).toBe('3');
  });
});

describe('the app as cdk synth builds it (infra/create-app.ts)', () => {
  let app: ReturnType<typeof createApp>;
  const savedAccount = process.env.CDK_DEFAULT_ACCOUNT;
  beforeAll(() => {
    // What an offline `cdk synth` without credentials sees.
    delete process.env.CDK_DEFAULT_ACCOUNT;
    app = createApp({
      outdir: tempOutdir('app'),
      context: { ...cdkJsonContext(), ...NO_BUNDLING, owner: 'team-mandari' },
    });
    app.app.synth();
  });
  afterAll(() => {
    if (savedAccount !== undefined) process.env.CDK_DEFAULT_ACCOUNT = savedAccount;
  });

  it('synthesises account-agnostic (no invented account) in a concrete region', () => {
    const text = JSON.stringify(Template.fromStack(app.stack).toJSON());
    expect(Token.isUnresolved(app.stack.account)).toBe(true);
    expect(app.stack.region).toBe('eu-central-1');
    expect(text).not.toContain('000000000000');
  });

  it('tags every taggable resource with project and component, and owner from context', () => {
    const resources = Object.entries(
      Template.fromStack(app.stack).toJSON().Resources as Record<string, Json>,
    );
    const taggable = resources.filter(([, r]) =>
      [
        'AWS::DynamoDB::Table',
        'AWS::S3::Bucket',
        'AWS::SQS::Queue',
        'AWS::Lambda::Function',
        'AWS::IAM::Role',
        'AWS::CloudFront::Distribution',
      ].includes(r.Type as string),
    );
    expect(taggable.length).toBeGreaterThan(15);
    for (const [id, r] of taggable) {
      const tags = (r.Properties as Json).Tags as { Key: string; Value: string }[] | undefined;
      expect(tags, id).toEqual(
        expect.arrayContaining([
          { Key: 'project', Value: DEFAULT_TAGS.project },
          { Key: 'component', Value: DEFAULT_TAGS.component },
          { Key: 'owner', Value: 'team-mandari' },
        ]),
      );
    }
  });

  it('the feature flags live in cdk.json: the recommended set of this aws-cdk-lib, none set in code', () => {
    const recommended = JSON.parse(
      readFileSync(join(PROJECT_ROOT, 'node_modules/aws-cdk-lib/recommended-feature-flags.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(cdkJsonContext()).toMatchObject(recommended);
    const stackSource = readFileSync(join(PROJECT_ROOT, 'infra/stack.ts'), 'utf8');
    expect(stackSource).not.toMatch(/setContext\(/);
  });
});
