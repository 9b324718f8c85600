import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { SYNC_BATCH_SIZE } from '../../infra/function-sizes';
import { SYNC_TIMEOUT, SYNC_VISIBILITY_TIMEOUT } from '../../infra/stack';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../../shared/changes';
import type { IngestorEnv } from '../../shared/config';
import { resetUpstashCredentialsCache } from '../../shared/config';
import { createTestResolver } from '../../shared/net';
import { type PlannerTickResult, plannerTick } from '../../shared/planner';
import type { SourceScheduleState } from '../../shared/schedule';
import { DEFAULT_LEASE_MINUTES, scheduleSettingsFromEnv } from '../../shared/schedule';
import {
  getSourceState,
  provisionLocal,
  putSourceItem,
  type QueuedMessage,
  type SourceStateItem,
  SyncQueue,
} from '../../shared/store';
import type { SyncRunResult, SyncWorkerDeps, SyncWorkerReport } from '../../shared/sync';
import {
  composeSync,
  processSyncBody,
  runSyncWorker,
  type SyncLog,
  type SyncRuntime,
} from '../../shared/sync';
import { type AwsFaults, injectAwsFaults } from '../../test/support/aws-faults';
import type { RedisPeer } from '../../test/support/redis';
import { type RemotePeers, startRemotePeers } from '../support';

/**
 * The chaos campaign's stack: one set of real local AWS peers (dynalite, s3rver, fauxqs in a child
 * process) and one real redis-server behind the Upstash-REST adapter, shared by every scenario. Each
 * scenario gets a *deployment* of its own — its own tables, bucket and sync queue on those peers — so
 * scenarios run side by side without seeing each other's sources, and *instances* (simulated Lambda
 * instances) built by the production composition root (`composeSync`) with their own AWS clients
 * (instrumented by `injectAwsFaults`) and, when asked, their own path to Redis.
 */
export interface ChaosStack {
  peers: RemotePeers;
  redis: RedisPeer;
  /** `overrides` change the deployment's environment (another Redis, INGESTOR_MAX_INSTANCES …). */
  deploy(name: string, overrides?: Partial<IngestorEnv>): Promise<Deployment>;
  stop(): Promise<void>;
}

/** The scenario's clock: what the code under test gets as `now` (planner, sync run bookkeeping). */
export class ChaosClock {
  constructor(public ms: number) {}
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface Instance {
  runtime: SyncRuntime;
  clients: FeedClients;
  faults: AwsFaults;
  /**
   * One invocation of the sync function (functions/sync.ts `handleSyncBatch`): the sync worker handed
   * `records` as its event, refilling from the deployment's queue and giving back to it through this
   * instance's own (instrumented) SQS client, with the function's timeout as its time.
   */
  invoke(records: readonly QueuedMessage[], remainingMs?: number): Promise<SyncWorkerReport>;
  /**
   * An invocation whose event is this one record, without the queue (the scenario decides who takes the
   * rest): through the worker, so the run's budget is the worker's (remaining − BUDGET_RESERVE_MS, every
   * request ended by the invocation's end − CHECKPOINT_RESERVE_MS). Throws what the run threw (the
   * record is then a batch item failure: redelivered), or when the worker gave the record back.
   */
  process(body: string, remainingMs?: number): Promise<SyncRunResult>;
  /**
   * The run alone (`processSyncBody`), outside the worker: for a budget the worker never starts a run
   * with (below WORKER_START_MIN_MS), when a scenario wants a run cut after a few pages.
   */
  processAlone(body: string, remainingMs: number): Promise<SyncRunResult>;
  close(): Promise<void>;
}

export interface Deployment {
  name: string;
  env: IngestorEnv;
  /** Clean clients of the harness (inspection, setup): never instrumented. */
  admin: FeedClients;
  queueUrl: string;
  clock: ChaosClock;
  addSource(item: { sourceId: string; systemUrl: string } & Record<string, unknown>): Promise<void>;
  /** A new simulated Lambda instance (cold start). `redisUrl` replaces the shared adapter (a proxy). */
  instance(opts?: { redisUrl?: string; noRedis?: boolean }): Promise<Instance>;
  tick(): Promise<PlannerTickResult>;
  /** One SQS receive (visibility in seconds); undefined when the queue is empty. */
  receive(visibilitySeconds?: number): Promise<{ body: string; receiptHandle: string } | undefined>;
  send(body: string): Promise<void>;
  ack(receiptHandle: string): Promise<void>;
  /**
   * The event source and the sync function until the queue is empty: a batch of up to SYNC_BATCH_SIZE
   * messages → one invocation of `instance` (the worker, which refills from the queue) → the records it
   * did not report as failed deleted, as Lambda does (a failed one comes back after its visibility
   * timeout). The runs' results, the worker's refills included.
   */
  drain(instance: Instance): Promise<SyncRunResult[]>;
  state(sourceId: string): Promise<SourceStateItem<SourceScheduleState> | undefined>;
  close(): Promise<void>;
}

/** A Tuesday in Berlin, inside the default full-sync window (FULL-1, 03:00): the first run reads everything. */
export const CHAOS_T0 = Date.parse('2026-03-10T03:05:00+01:00');
const LAMBDA_REMAINING_MS = SYNC_TIMEOUT.toMilliseconds();
/**
 * When SQS hands a message out again after the instance working on it died: the sync queue's visibility
 * timeout, longer than the function's timeout, so the dead invocation's time is up by then. Scenarios
 * advance the deployment's clock by this much before a redelivery (the run bookkeeping reads that clock).
 */
export const REDELIVERY_AFTER_MS = SYNC_VISIBILITY_TIMEOUT.toMilliseconds();
/** The instances' logs stay out of the campaign's output; the scenarios judge by state and wire. */
const QUIET: SyncLog = { info: () => {}, warn: () => {}, error: () => {} };
/** Invocations one `drain` makes at most: a run that keeps continuing is a finding, not a hang. */
const DRAIN_MAX_INVOCATIONS = 20;

/** A message handed to the worker by a scenario: a record of an event nobody else deletes. */
class GivenBackError extends Error {
  readonly code = 'CHAOS_GIVEN_BACK';
}

export async function startChaosStack(redis: RedisPeer): Promise<ChaosStack> {
  const peers = await startRemotePeers();
  const deployments: Deployment[] = [];
  return {
    peers,
    redis,
    async deploy(name, overrides = {}) {
      const d = await deploy(peers, redis, name, overrides);
      deployments.push(d);
      return d;
    },
    async stop() {
      await Promise.allSettled(deployments.map((d) => d.close()));
      await peers.stop();
    },
  };
}

async function deploy(
  peers: RemotePeers,
  redis: RedisPeer,
  name: string,
  overrides: Partial<IngestorEnv>,
): Promise<Deployment> {
  const env: IngestorEnv = {
    ...peers.env,
    SOURCES_TABLE: `${name}-sources`,
    STATE_TABLE: `${name}-state`,
    DOCUMENTS_TABLE: `${name}-documents`,
    BUCKET: `${name}-mirror`,
    INGESTOR_ALLOW_LOOPBACK: true,
    UPSTASH_REDIS_REST_URL: redis.adapter.url,
    UPSTASH_REDIS_REST_TOKEN: redis.adapter.token,
    ...overrides,
  };
  const admin = peers.clients;
  await provisionLocal(admin, env);
  const queue = await admin.sqs.send(
    new CreateQueueCommand({ QueueName: `${name}-sync`, Attributes: { VisibilityTimeout: '900' } }),
  );
  const queueUrl = queue.QueueUrl as string;
  const deployed: IngestorEnv = { ...env, SYNC_QUEUE_URL: queueUrl };
  const clock = new ChaosClock(CHAOS_T0);
  const instances: Instance[] = [];
  const eventSource = new SyncQueue({ sqs: admin.sqs, queueUrl });

  const d: Deployment = {
    name,
    env: deployed,
    admin,
    queueUrl,
    clock,
    async addSource(item) {
      await putSourceItem(admin.doc, deployed.SOURCES_TABLE, { active: true, ...item });
    },
    async instance(opts = {}) {
      const clients = createFeedClients(deployed);
      const faults = injectAwsFaults(clients);
      const instanceEnv: IngestorEnv = opts.noRedis
        ? { ...deployed, UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined }
        : { ...deployed, ...(opts.redisUrl ? { UPSTASH_REDIS_REST_URL: opts.redisUrl } : {}) };
      // The credentials are cached per process (one per cold start); every simulated instance is one.
      resetUpstashCredentialsCache();
      const runtime = await composeSync(instanceEnv, { clients, resolver: createTestResolver() });
      const runDeps = { ...runtime.runDeps, now: clock.now };
      const invoke = (deps: SyncWorkerDeps, records: readonly QueuedMessage[], remainingMs: number) => {
        // Lambda's getRemainingTimeInMillis: the invocation's time on the wall clock.
        const startedAt = Date.now();
        return runSyncWorker(
          deps,
          records.map((r) => ({ ...r, from: 'event' as const })),
          () => remainingMs - (Date.now() - startedAt),
        );
      };
      const instance: Instance = {
        runtime,
        clients,
        faults,
        invoke(records, remainingMs = LAMBDA_REMAINING_MS) {
          return invoke({ runDeps, log: QUIET, queue: runtime.queue }, records, remainingMs);
        },
        async process(body, remainingMs = LAMBDA_REMAINING_MS) {
          const record = { messageId: `handed-${randomUUID()}`, receiptHandle: '', body };
          const report = await invoke({ runDeps, log: QUIET }, [record], remainingMs);
          const failure = report.failures[0];
          if (failure !== undefined) throw failure.error;
          const result = report.results[0];
          if (result === undefined) throw new GivenBackError('the worker gave the record back unworked');
          return result;
        },
        processAlone(body, remainingMs) {
          return processSyncBody({ runDeps, log: QUIET }, body, remainingMs);
        },
        async close() {
          // A frozen (crashed) instance's clients never answer again; its sockets go with it.
          if (!faults.frozen) await runtime.close().catch(() => undefined);
          destroyFeedClients(clients);
        },
      };
      instances.push(instance);
      return instance;
    },
    tick() {
      return plannerTick(
        {
          doc: admin.doc,
          sqs: admin.sqs,
          tables: { sources: deployed.SOURCES_TABLE, state: deployed.STATE_TABLE },
          syncQueueUrl: queueUrl,
          settings: scheduleSettingsFromEnv(deployed),
          leaseMinutes: DEFAULT_LEASE_MINUTES,
        },
        clock.now(),
      );
    },
    async receive(visibilitySeconds = 900) {
      const res = await admin.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 0,
          VisibilityTimeout: visibilitySeconds,
        }),
      );
      const m = res.Messages?.[0];
      return m ? { body: m.Body ?? '', receiptHandle: m.ReceiptHandle ?? '' } : undefined;
    },
    async send(body) {
      await admin.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    },
    async ack(receiptHandle) {
      await admin.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
    },
    async drain(instance) {
      const results: SyncRunResult[] = [];
      for (let i = 0; i < DRAIN_MAX_INVOCATIONS; i += 1) {
        // The event source's look (the queue's own visibility timeout), on the harness's clean client.
        const records = await eventSource.receive({ max: SYNC_BATCH_SIZE, waitSeconds: 0 });
        if (records.length === 0) break;
        const report = await instance.invoke(records);
        results.push(...report.results);
        // Partial batch response: a failed record stays and comes back after its visibility timeout.
        const failed = new Set(report.failedEventIds);
        for (const r of records) if (!failed.has(r.messageId)) await d.ack(r.receiptHandle);
      }
      return results;
    },
    state(sourceId) {
      return getSourceState<SourceScheduleState>(admin.doc, deployed.STATE_TABLE, sourceId);
    },
    async close() {
      await Promise.allSettled(instances.map((i) => i.close()));
    },
  };
  return d;
}
