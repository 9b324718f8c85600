import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetEnvCache } from '../../shared/config';
import { MAX_OTHER_FETCH_SHARE } from '../../shared/hosts';
import { MirrorStore } from '../../shared/mirror';
import { type HostLedgerReading, RedisHostLedger } from '../../shared/slots';
import { type DocumentsBed, putBody, putSource, startDocumentsBed } from '../support/documents-bed';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';

/**
 * Issue 27 item 5 (RATE-9 "one host, one budget", RATE-1): the photos pass through the real function
 * handler (functions/photos.ts: its composition root from the environment, the host ledger in Upstash)
 * asks the host budget before it fetches from a photo server. Two photo servers on loopback, two hosts
 * by RATE-2 (127.0.0.1 and 127.0.0.2): on the first, other fetches already use their whole share of the
 * pace (MAX_OTHER_FETCH_SHARE); the second has room. The ledger is a real redis-server behind the
 * Upstash protocol; DynamoDB and S3 are the usual local peers.
 */
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);

interface PhotoServer {
  host: string;
  port: number;
  paths: string[];
  close(): Promise<void>;
}

/** A photo server on one loopback address (the host key RATE-2 paces it by). */
async function startPhotoServer(address: string): Promise<PhotoServer> {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    paths.push(path);
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'image/jpeg' });
    res.end(JPEG);
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  return {
    host: address,
    port: (server.address() as AddressInfo).port,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the photos function asks the host budget (RATE-9, RATE-1)', () => {
  let peer: RedisPeer;
  let bed: DocumentsBed;
  let busy: PhotoServer;
  let free: PhotoServer;
  let ledger: RedisHostLedger;

  async function seedPersons(sourceId: string, bodyId: string, count: number) {
    const mirror = new MirrorStore(bed.aws.clients, {
      bucket: bed.aws.env.BUCKET,
      stateTable: bed.aws.env.STATE_TABLE,
    });
    for (let n = 1; n <= count; n++) {
      const id = `${bodyId}/person/${n}`;
      await mirror.writeLive({
        sourceId,
        type: 'person',
        id,
        object: { id, type: 'https://schema.oparl.org/1.1/Person', name: `Person ${n}` },
        sourceUrl: `${bodyId}/person`,
        fetchedAt: new Date().toISOString(),
        bodyId,
        hash: `h${n}`,
      });
    }
  }

  beforeAll(async () => {
    [peer, bed, busy, free] = await Promise.all([
      startRedisPeer(),
      startDocumentsBed(),
      startPhotoServer('127.0.0.1'),
      startPhotoServer('127.0.0.2'),
    ]);
    // The ledger the function builds from the environment (same Upstash, default key prefix).
    ledger = new RedisHostLedger(createTestRedisClient(peer.adapter));
    for (const [sourceId, server] of [
      ['fotos-busy', busy],
      ['fotos-free', free],
    ] as const) {
      const bodyId = `https://${sourceId}.example/oparl/v1/bodies/1`;
      await putSource(bed, {
        sourceId,
        systemUrl: `https://${sourceId}.example/oparl/v1/system`,
        photoUrlPatterns: { [bodyId]: `http://${server.host}:${server.port}/photos/{personId}.jpg` },
      });
      await putBody(bed, sourceId, { id: bodyId, listed: true });
      await seedPersons(sourceId, bodyId, 2);
    }
    // The deployment's environment, as the Lambda runtime gives it to the function.
    for (const [name, value] of Object.entries(bed.aws.peers.env)) vi.stubEnv(name, value);
    vi.stubEnv('UPSTASH_REDIS_REST_URL', peer.adapter.url);
    vi.stubEnv('UPSTASH_REDIS_REST_TOKEN', peer.adapter.token);
    vi.stubEnv('INGESTOR_ALLOW_LOOPBACK', 'true');
    resetEnvCache();
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    resetEnvCache();
    await Promise.all([busy?.close(), free?.close()]);
    await bed?.close();
    await peer?.stop();
  });

  it('RATE-9 / RATE-1: the host whose other fetches used their whole share is skipped (nothing asked, nothing noted, retried next run); the host with room is served and its requests are counted in the ledger', async () => {
    // Other fetches (a files pass, previews) used 127.0.0.1 at more than half its 1 request/s pace
    // over the ledger's window: its share is used up.
    await ledger.recordOtherFetches(new Map([['127.0.0.1', 1300]]));
    const before: HostLedgerReading = await ledger.read();
    expect(before.otherRequestsPerSecond.get('127.0.0.1')).toBeGreaterThanOrEqual(MAX_OTHER_FETCH_SHARE);
    expect(before.otherRequestsPerSecond.get('127.0.0.2')).toBeUndefined();

    const { handler } = await import('../../functions/photos');
    const report = await handler(undefined, { getRemainingTimeInMillis: () => 5 * 60_000 });

    // Refused: the busy host is named with its reason, and no request went there.
    expect(report.busyHosts).toEqual([
      expect.objectContaining({
        host: '127.0.0.1',
        reason: expect.stringMatching(/other fetches use .* their whole share .*RATE-9/),
        ruleIds: ['RATE-9', 'RATE-1'],
      }),
    ]);
    expect(busy.paths).toEqual([]);
    expect(report.photos['not-noted:HOST_BUSY']).toBe(2);
    // Admitted: the free host's photos were fetched (robots.txt first, ROB-1).
    expect(free.paths).toEqual([
      '/robots.txt',
      expect.stringMatching(/^\/photos\//),
      expect.stringMatching(/^\/photos\//),
    ]);
    // Its requests are in the ledger now: the planner's and the next pass's other-fetch share.
    const after = await ledger.read();
    expect(after.otherRequestsPerSecond.get('127.0.0.2')).toBeGreaterThan(0);
    expect(after.otherRequestsPerSecond.get('127.0.0.1')).toBeCloseTo(
      before.otherRequestsPerSecond.get('127.0.0.1') ?? 0,
      1,
    );

    // Deferred, not lost: the busy host's persons were not noted, so the next run asks again — the
    // free host's are noted (PHO-2: not again within 30 days) and not asked again.
    const second = await handler(undefined, { getRemainingTimeInMillis: () => 5 * 60_000 });
    expect(second.busyHosts.map((b) => b.host)).toEqual(['127.0.0.1']);
    expect(second.photos['not-noted:HOST_BUSY']).toBe(2);
    expect(free.paths.filter((p) => p.startsWith('/photos/'))).toHaveLength(2);
    expect(busy.paths).toEqual([]);
  }, 60_000);
});
