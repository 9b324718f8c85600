import { createHash } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { parseEnv } from '../../shared/config/env';
import { fileKey } from '../../shared/mirror/keys';
import { createTestResolver } from '../../shared/net';
import {
  composePreview,
  PREVIEW_DEFAULT_RETRY_AFTER_S,
  PREVIEW_MAX_WAIT_MS,
  type PreviewRuntime,
} from '../../shared/preview';
import type { PreviewResponse } from '../../shared/preview/types';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import {
  fileRequests,
  type PreviewBed,
  putBody,
  putSource,
  recordFile,
  setDocumentFields,
} from '../support/preview-bed';
import { type RedisPeer, startRedisPeer } from '../support/redis';
import { type StallProxy, startStallProxy } from '../support/stall-proxy';

/**
 * The preview with its Redis (PRV-2 limits, host slots) unreachable: a real redis-server behind the
 * Upstash REST adapter, reached through a TCP proxy on loopback that can stall (fault injection by
 * proxy), and then the redis-server itself stopped. Stored documents need no slot and are served; the
 * rest is answered 503 with Retry-After — within the PRV-1 budget, never a 500 or a hang.
 */
describe('PRV-1 / PRV-2: preview with Redis unreachable', () => {
  let aws: AwsTestbed;
  let redis: RedisPeer;
  let proxy: StallProxy;
  let runtime: PreviewRuntime;
  let council: FakeCouncil;
  const SOURCE = 'stadt-noredis';
  const BODY = 'https://ris-noredis.test/oparl/v1/bodies/1';
  const PDF = Buffer.from('%PDF-1.4\nstored copy\n%%EOF\n');
  let storedDoc: string;
  let unstoredDoc: string;

  beforeAll(async () => {
    aws = await startAwsTestbed();
    redis = await startRedisPeer();
    proxy = await startStallProxy({ host: '127.0.0.1', port: Number(new URL(redis.adapter.url).port) });
    council = await startFakeCouncil({ hostname: 'ris-noredis.test' });
    const env = parseEnv({
      ...aws.peers.env,
      INGESTOR_ALLOW_LOOPBACK: 'true',
      UPSTASH_REDIS_REST_URL: proxy.url,
      UPSTASH_REDIS_REST_TOKEN: redis.adapter.token,
    });
    runtime = await composePreview(env, { clients: aws.clients, resolver: createTestResolver() });
    // The support helpers need only the AWS peers of a bed.
    const bed = { aws } as PreviewBed;
    await putSource(bed, { sourceId: SOURCE, systemUrl: council.systemUrl });
    await putBody(bed, SOURCE, { id: BODY, listed: true });
    storedDoc = await recordFile(bed, {
      sourceId: SOURCE,
      bodyId: BODY,
      url: `${council.url}/files/1/1.pdf`,
      listed: true,
    });
    const key = fileKey(SOURCE, storedDoc);
    await aws.clients.s3.send(
      new PutObjectCommand({ Bucket: aws.env.BUCKET, Key: key, Body: PDF, ContentType: 'application/pdf' }),
    );
    await setDocumentFields(bed, storedDoc, {
      state: 'stored',
      storedKey: key,
      size: PDF.length,
      sha256: createHash('sha256').update(PDF).digest('hex'),
      contentType: 'application/pdf',
    });
    unstoredDoc = await recordFile(bed, {
      sourceId: SOURCE,
      bodyId: BODY,
      url: `${council.url}/files/1/2.pdf`,
      listed: true,
    });
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await runtime?.close();
    await council?.close();
    await redis?.stop();
    await aws?.stop();
  });

  /** One opening, timed; a hang is cut off well after the budget so the test reports it. */
  async function open(docId: string): Promise<{ response: PreviewResponse; ms: number; body: Buffer }> {
    const t0 = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const response = await Promise.race([
      runtime.handler.handle({ method: 'GET', path: `/documents/${docId}`, visitorAddress: '198.51.100.9' }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error('no answer within 3 × the PRV-1 budget')),
          3 * PREVIEW_MAX_WAIT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const ms = Date.now() - t0;
    let body = Buffer.alloc(0);
    // A stored copy is a redirect to a presigned URL of the S3 peer (PRV-3): follow it for the bytes.
    const location = response.status === 302 ? response.headers.location : undefined;
    if (location !== undefined) body = Buffer.from(await (await fetch(location)).arrayBuffer());
    else if (typeof response.body === 'string') body = Buffer.from(response.body);
    else if (response.body) {
      const chunks: Buffer[] = [];
      for await (const chunk of response.body) chunks.push(chunk as Buffer);
      body = Buffer.concat(chunks);
    }
    return { response, ms, body };
  }

  async function expectServedWithoutRedis(): Promise<void> {
    council.clearRequests();
    const stored = await open(storedDoc);
    expect(stored.response.status).toBe(302);
    expect(stored.response.headers['x-preview-source']).toBe('stored');
    expect(stored.body.equals(PDF)).toBe(true);
    expect(stored.ms).toBeLessThan(PREVIEW_MAX_WAIT_MS);

    const unstored = await open(unstoredDoc);
    expect(unstored.response.status).toBe(503);
    expect(Number(unstored.response.headers['retry-after'])).toBe(PREVIEW_DEFAULT_RETRY_AFTER_S);
    expect(unstored.ms).toBeLessThan(PREVIEW_MAX_WAIT_MS);
    // without the shared pace nothing is asked of the council
    expect(fileRequests(council.requests)).toEqual([]);
  }

  it('with Redis reachable the stored copy is served (the baseline)', async () => {
    const stored = await open(storedDoc);
    expect(stored.response.status).toBe(302);
    expect(stored.body.equals(PDF)).toBe(true);
  });

  it('Redis stalls (a proxy that swallows every request): stored → 302 to S3, the rest → 503 with Retry-After, within 5 s', async () => {
    proxy.stall();
    try {
      await expectServedWithoutRedis();
    } finally {
      proxy.resume();
    }
  });

  it('redis-server stopped: stored → 302 to S3, the rest → 503 with Retry-After, within 5 s', async () => {
    await redis.redisServer.stop();
    await expectServedWithoutRedis();
  });
});
