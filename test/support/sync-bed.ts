import { Readable } from 'node:stream';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll } from 'vitest';
import type { SyncEngine } from '../../shared/engine';
import { engineReportOf, syncTablesFromEnv } from '../../shared/engine';
import { syncSource } from '../../shared/oparl/engine';
import type { OParlFetcher } from '../../shared/oparl/ports';
import { plannerTick } from '../../shared/planner/tick';
import { DEFAULT_LEASE_MINUTES, DEFAULT_SCHEDULE_SETTINGS } from '../../shared/schedule';
import { SyncQueue } from '../../shared/store';
import type { SyncRunDeps } from '../../shared/sync/run';
import { takedownGuards } from '../../shared/takedown';
import { type AwsTestbed, lateBound, startAwsTestbed } from './aws';
import { type MiniCouncil, oneBodySystem, startMiniCouncil } from './mini-council';
import { putActiveSource } from './sync-runtime';

/** Monday 2026-11-30 10:00 Europe/Berlin: weekday daytime, outside the default full-sync window. */
export const NOW = new Date('2026-11-30T09:00:00Z');

export interface SourceBed {
  bed: AwsTestbed;
  council: MiniCouncil;
}

/** The local AWS peers and a small council on loopback, with an active source of it per id. */
export async function startSourceBed(sourceIds: readonly string[]): Promise<SourceBed> {
  const [bed, council] = await Promise.all([
    startAwsTestbed(),
    startMiniCouncil(oneBodySystem(() => undefined)),
  ]);
  for (const sourceId of sourceIds) await putActiveSource(bed, sourceId, council.systemUrl);
  return { bed, council };
}

/** `startSourceBed` in the calling `describe`'s `beforeAll`, both peers closed in its `afterAll`. */
export function useSourceBed(...sourceIds: string[]): SourceBed {
  let started: SourceBed | undefined;
  beforeAll(async () => {
    started = await startSourceBed(sourceIds);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([started?.bed.stop(), started?.council.close()]);
  });
  return {
    bed: lateBound(() => started?.bed, 'the AWS testbed'),
    council: lateBound(() => started?.council, 'the council'),
  };
}

/** The real OParl engine and store over a test fetcher port (the council on loopback, no pace). */
export function oparlTestEngine(bed: AwsTestbed, fetcher: OParlFetcher, now: () => Date): SyncEngine {
  return async (source, message, budget) =>
    engineReportOf(
      await syncSource(
        {
          fetcher,
          clients: bed.clients,
          tables: syncTablesFromEnv(bed.env),
          takedowns: takedownGuards({
            clients: bed.clients,
            bucket: bed.env.BUCKET,
            stateTable: bed.env.STATE_TABLE,
          }),
          now,
        },
        source,
        {
          kind: message.kind,
          runId: message.runId,
          deadlineMs: budget.deadlineMs,
          startedAt: budget.runStartedAt,
        },
      ),
    );
}

export function runDepsOf(bed: AwsTestbed, engine: SyncEngine, now: () => Date): SyncRunDeps {
  return {
    doc: bed.clients.doc,
    tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
    queue: new SyncQueue({ sqs: bed.clients.sqs, queueUrl: bed.queues.syncQueueUrl }),
    engine,
    now,
    leaseMinutes: DEFAULT_LEASE_MINUTES,
    settings: DEFAULT_SCHEDULE_SETTINGS,
  };
}

/** One real planner tick: takes the leases of the due sources and sends their messages to the queue. */
export function plan(bed: AwsTestbed, now: Date) {
  return plannerTick(
    {
      doc: bed.clients.doc,
      sqs: bed.clients.sqs,
      tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
      syncQueueUrl: bed.queues.syncQueueUrl,
      settings: DEFAULT_SCHEDULE_SETTINGS,
      leaseMinutes: DEFAULT_LEASE_MINUTES,
    },
    now,
  );
}

/**
 * One delivery of the source's sync message from the real queue (fauxqs), as the Lambda event source
 * hands it over. Visibility timeout 0: the message stays in the queue, so the next call delivers the
 * same message again — SQS's at-least-once delivery, on demand.
 */
export async function deliver(bed: AwsTestbed, sourceId: string): Promise<SQSRecord> {
  const received = await bed.clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: bed.queues.syncQueueUrl,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 0,
      WaitTimeSeconds: 1,
    }),
  );
  const m = (received.Messages ?? []).find(
    (x) => (JSON.parse(x.Body ?? '{}') as { sourceId?: string }).sourceId === sourceId,
  );
  if (m === undefined) throw new Error(`no sync message for ${sourceId} in the queue`);
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes: {} as SQSRecord['attributes'],
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-central-1:000000000000:sync',
    awsRegion: 'eu-central-1',
  };
}

export const eventOf = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

/** Log lines the sync batch writes, captured. */
export function captureLog() {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields: Record<string, unknown>) =>
    lines.push({ level, message, fields });
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}

/** The part of an SDK client's middleware stack used here (its overloads are typed per step). */
interface DeserializeStack {
  add(
    mw: (
      next: (args: { input: Record<string, unknown> }) => Promise<unknown>,
      context: { commandName?: string },
    ) => (args: { input: Record<string, unknown> }) => Promise<unknown>,
    options: { step: 'deserialize'; priority: 'low'; name: string },
  ): void;
  remove(name: string): boolean;
}

export interface InjectedFault {
  /** Calls the fault answered (every SDK attempt counts: the SDK retries before giving up). */
  hits: number;
  remove(): void;
}

/**
 * FAULT INJECTION through client middleware around the real peer: inside the SDK's retry and
 * deserialize steps, a chosen call is answered with the given HTTP error instead of reaching the peer
 * (dynalite / s3rver); the SDK's own deserializer turns it into the service's real exception and its
 * own retry strategy retries it. Every other call goes to the peer unchanged.
 */
export function injectFault(
  client: DynamoDBClient | S3Client,
  matches: (commandName: string, input: Record<string, unknown>) => boolean,
  answer: { statusCode: number; headers: Record<string, string>; body: string },
): InjectedFault {
  const stack = client.middlewareStack as unknown as DeserializeStack;
  const name = `faultInjection-${Math.random().toString(36).slice(2)}`;
  const fault: InjectedFault = {
    hits: 0,
    remove: () => {
      stack.remove(name);
    },
  };
  stack.add(
    (next, context) => async (args) => {
      if (!matches(context.commandName ?? '', args.input)) return next(args);
      fault.hits += 1;
      return {
        // The shape of the SDK's HttpResponse (it is recognised by shape).
        response: {
          statusCode: answer.statusCode,
          headers: answer.headers,
          body: Readable.from([Buffer.from(answer.body)]),
        },
      };
    },
    { step: 'deserialize', priority: 'low', name },
  );
  return fault;
}
