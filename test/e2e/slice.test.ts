import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { plannerTick } from '../../shared/planner/tick';
import { DEFAULT_LEASE_MINUTES, DEFAULT_SCHEDULE_SETTINGS } from '../../shared/schedule';
import { getSourceState } from '../../shared/store/source-state';
import type { SyncRuntime } from '../../shared/sync/compose';
import { parseSyncMessage } from '../../shared/sync/message';
import { runSyncMessage } from '../../shared/sync/run';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { type RedisPeer, startRedisPeer } from '../support/redis';
import { putActiveSource, startSyncRuntime } from '../support/sync-runtime';

/**
 * The walking skeleton end to end: planner tick → SQS → sync → System, bodies and lists from a council
 * server on loopback → S3 mirror and State table, with host slots in a real Redis behind the Upstash
 * REST protocol. Real pace (1 request per second), so the council is kept small.
 */
describe('thin slice: planner → queue → sync → S3 and DynamoDB', () => {
  let bed: AwsTestbed;
  let redis: RedisPeer;
  let council: FakeCouncil;
  let runtime: SyncRuntime;
  const sourceId = 'kleinstadt';

  beforeAll(async () => {
    [bed, redis, council] = await Promise.all([
      startAwsTestbed(),
      startRedisPeer(),
      startFakeCouncil({
        bodies: ['Stadt Kleinstadt'],
        objectsPerList: 3,
        pageSize: 10,
        // OParl 1.0's four lists: seven paced requests (a declared-but-missing list costs two: the
        // filtered ask, then the unfiltered one).
        oparlVersion: '1.0',
      }),
    ]);
    runtime = await startSyncRuntime(bed, {
      extraEnv: { UPSTASH_REDIS_REST_URL: redis.adapter.url, UPSTASH_REDIS_REST_TOKEN: redis.adapter.token },
    });
    await putActiveSource(bed, sourceId, council.systemUrl);
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await Promise.all([bed?.stop(), redis?.stop(), council?.close()]);
  });

  it('mirrors System and Body objects, records bodies unlisted (ONB-4), paces 1/s through Redis (RATE-1) with our identity (ID-1/ID-2)', async () => {
    const now = new Date();
    const tick = await plannerTick(
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
    expect(tick.started.map((s) => s.sourceId)).toEqual([sourceId]);

    const received = await bed.clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: bed.queues.syncQueueUrl, WaitTimeSeconds: 1 }),
    );
    const raw = received.Messages?.[0];
    expect(raw).toBeDefined();
    const result = await runSyncMessage(runtime.runDeps, parseSyncMessage(raw?.Body ?? ''), {
      deadlineMs: Date.now() + 120_000,
    });
    await bed.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: bed.queues.syncQueueUrl, ReceiptHandle: raw?.ReceiptHandle }),
    );
    expect(result.status).toBe('done');

    // S3: the System, the Body and the list objects, under mirror/<source>/<type>/.
    const listed = await bed.clients.s3.send(
      new ListObjectsV2Command({ Bucket: bed.env.BUCKET, Prefix: `mirror/${sourceId}/` }),
    );
    const keys = (listed.Contents ?? []).map((o) => o.Key ?? '');
    const types = new Set(keys.map((k) => k.split('/')[2]));
    expect(types.has('system')).toBe(true);
    expect(types.has('body')).toBe(true);

    // State: the body recorded, unlisted (ONB-4); the lease released and the run recorded.
    const items = await bed.clients.doc.send(
      new QueryCommand({
        TableName: bed.env.STATE_TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :body)',
        ExpressionAttributeValues: { ':pk': `SOURCE#${sourceId}`, ':body': 'BODY#' },
      }),
    );
    expect(items.Items?.length).toBe(1);
    expect(items.Items?.[0]?.listed).toBe(false);
    const state = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, sourceId);
    expect(state?.leaseRunId).toBeUndefined();
    expect((state?.lastRun as { ok?: boolean } | undefined)?.ok).toBe(true);

    // The council saw our identity and never two requests closer than 1 s (5 ms tolerance).
    const seen = council.requests;
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(
      seen.every((r) =>
        /^mandari-ingestor\/\d+\.\d+\.\d+ \(\+https:\/\/mandari\.de\/ingestor\/; support@mandari\.de\)$/.test(
          r.userAgent ?? '',
        ),
      ),
    ).toBe(true);
    expect(
      seen.filter((r) => r.path.startsWith('/oparl')).every((r) => r.accept === 'application/json'),
    ).toBe(true);
    expect(seen.find((r) => r.path === '/robots.txt')?.accept).toBe('text/plain');
    for (let i = 1; i < seen.length; i += 1) {
      expect((seen[i]?.at ?? 0) - (seen[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(995);
    }
  }, 90_000);
});
