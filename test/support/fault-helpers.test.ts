import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../../shared/changes';
import { useAwsTestbed } from './aws';
import { injectAwsFaults } from './aws-faults';
import { type RedisPeer, startRedisPeer } from './redis';
import { startTcpProxy } from './tcp-proxy';

// The fault helpers of the chaos bench (issue 13), against the real local peers: they must fail what
// they are told to fail, the way AWS and a network would, and nothing else.
describe('injectAwsFaults: SDK middleware in front of the real peers', () => {
  const bed = useAwsTestbed();
  let clients: FeedClients;

  it('fails matching attempts inside the SDK retry loop: two throttled attempts are absorbed, a persistent fault surfaces typed', async () => {
    clients = createFeedClients(bed.env);
    const faults = injectAwsFaults(clients);
    const key = { pk: { S: 'x' }, sk: { S: 'y' } };
    const absorbed = faults.fail({ service: 'dynamodb', command: /GetItem/, kind: 'throttle', times: 2 });
    await clients.dynamo.send(new GetItemCommand({ TableName: bed.env.STATE_TABLE, Key: key }));
    expect(absorbed.hits).toBe(2);

    const persistent = faults.fail({ service: 'dynamodb', command: /GetItem/, kind: 'throttle' });
    const err = await clients.doc
      .send(new GetCommand({ TableName: bed.env.STATE_TABLE, Key: { pk: 'x', sk: 'y' } }))
      .catch((e: Error) => e);
    expect((err as Error).name).toBe('ProvisionedThroughputExceededException');
    // The SDK retried (its standard strategy), and every attempt met the fault.
    expect(persistent.hits).toBeGreaterThan(1);
    persistent.remove();

    const s3 = faults.fail({
      service: 's3',
      kind: 'server-error',
      when: (input) => String(input.Key).startsWith('mirror/'),
    });
    await clients.s3.send(new PutObjectCommand({ Bucket: bed.env.BUCKET, Key: 'other/a', Body: 'a' }));
    const s3err = await clients.s3
      .send(new PutObjectCommand({ Bucket: bed.env.BUCKET, Key: 'mirror/a', Body: 'a' }))
      .catch((e: Error) => e);
    expect((s3err as Error).name).toBe('InternalError');
    expect(s3.hits).toBeGreaterThanOrEqual(1);
    expect(faults.failed.s3).toBe(s3.hits);
    destroyFeedClients(clients);
  });

  it('freeze(): every later call hangs and reaches no peer (a dead instance)', async () => {
    clients = createFeedClients(bed.env);
    const faults = injectAwsFaults(clients);
    faults.freeze();
    const outcome = await Promise.race([
      clients.doc.send(new GetCommand({ TableName: bed.env.STATE_TABLE, Key: { pk: 'x', sk: 'y' } })),
      new Promise((resolve) => setTimeout(() => resolve('still pending'), 300)),
    ]);
    expect(outcome).toBe('still pending');
    destroyFeedClients(clients);
  });
});

describe('startTcpProxy: one path to a real peer, stalled or killed', () => {
  let peer: RedisPeer;

  beforeAll(async () => {
    peer = await startRedisPeer();
  }, 30_000);
  afterAll(async () => peer?.stop());

  const ping = (url: string, timeoutMs = 500) =>
    fetch(`${url}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${peer.adapter.token}` },
      body: JSON.stringify(['ping']),
      signal: AbortSignal.timeout(timeoutMs),
    }).then(
      (r) => r.status,
      (e: Error) => e.name,
    );

  it('forwards, black-holes (timeout), refuses (error) and heals', async () => {
    const proxy = await startTcpProxy({ port: Number(new URL(peer.adapter.url).port) });
    try {
      expect(await ping(proxy.url)).toBe(200);
      proxy.stall();
      expect(await ping(proxy.url)).toBe('TimeoutError');
      proxy.kill();
      expect(await ping(proxy.url)).toBe('TypeError');
      proxy.heal();
      expect(await ping(proxy.url)).toBe(200);
    } finally {
      await proxy.close();
    }
  });

  it('slows the answers only: the call runs at once, its answer comes the delay later', async () => {
    const proxy = await startTcpProxy({ port: Number(new URL(peer.adapter.url).port) });
    try {
      proxy.slow(400);
      const before = peer.adapter.requestCount();
      expect(await ping(proxy.url, 200)).toBe('TimeoutError');
      expect(peer.adapter.requestCount()).toBe(before + 1); // it ran, unanswered in time
      const startedMs = Date.now();
      expect(await ping(proxy.url, 2_000)).toBe(200);
      expect(Date.now() - startedMs).toBeGreaterThanOrEqual(390);
    } finally {
      await proxy.close();
    }
  });
});
