import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { runDeletionCheck, runFilesPass, shards } from '../../shared/documents';
import { MIN_OTHER_FETCH_SHARE } from '../../shared/hosts';
import { RedisHostLedger } from '../../shared/slots';
import {
  type DocumentsBed,
  fileRequests,
  getDoc,
  HOUR,
  putBody,
  putSource,
  recordFile,
  startDocumentsBed,
} from '../support/documents-bed';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';

/**
 * Issue 27 item 5 (RATE-9 "one host, one budget", RATE-1): the files pass is admitted per host against
 * the host budget instead of blind. Two councils share `hosting.test` at 30 s (RATE-2): their syncs'
 * cadence (16 requests every 10 min each on a Monday morning) needs more than its pace (one request per
 * 30 s) — a host the syncs fill. A third council is alone on `lone.test`. The host ledger is a real
 * redis-server behind the Upstash protocol; files, S3 and DynamoDB are the usual loopback peers; the
 * pass runs on the bed's instant clock (Monday 10:00 Berlin).
 */
describe('the files pass asks the host budget before it starts a host', () => {
  let peer: RedisPeer;
  let ledger: RedisHostLedger;
  let bed: DocumentsBed;
  let hosting: FakeCouncil;
  let lone: FakeCouncil;
  const HOSTED_BODY = 'https://hosting.test/oparl/v1/bodies/1';
  const LONE_BODY = 'https://lone.test/oparl/v1/bodies/1';

  beforeAll(async () => {
    peer = await startRedisPeer();
    ledger = new RedisHostLedger(createTestRedisClient(peer.adapter), `test:ledger:${Date.now()}:`);
    bed = await startDocumentsBed({ ledger });
    hosting = await startFakeCouncil({ hostname: 'hosting.test', objectsPerList: { file: 5 } });
    lone = await startFakeCouncil({ hostname: 'lone.test', objectsPerList: { file: 5 } });
    for (const sourceId of ['hosted-1', 'hosted-2']) {
      await putSource(bed, { sourceId, systemUrl: hosting.systemUrl, requestIntervalSeconds: 30 });
      await putBody(bed, sourceId, { id: HOSTED_BODY, listed: true });
    }
    await putSource(bed, { sourceId: 'lone-1', systemUrl: lone.systemUrl });
    await putBody(bed, 'lone-1', { id: LONE_BODY, listed: true });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([hosting?.close(), lone?.close()]);
    await bed?.close();
    await peer?.stop();
  });

  const hostedFile = (n: number) => `${hosting.url}/files/1/${n}.pdf?case=hosted-${n}`;
  const loneFile = (n: number) => `${lone.url}/files/1/${n}.pdf?case=lone-${n}`;

  it('RATE-9: on a host the syncs fill, the pass still gets its minimum share (never starved), and records its requests for the planner', async () => {
    await recordFile(bed, { sourceId: 'hosted-1', bodyId: HOSTED_BODY, url: hostedFile(1) });
    await recordFile(bed, { sourceId: 'lone-1', bodyId: LONE_BODY, url: loneFile(1) });

    const report = await runFilesPass(bed.deps, { now: bed.now() });

    // Nobody else used the hosting host: below MIN_OTHER_FETCH_SHARE the pass is admitted there too.
    expect(report.files.stored).toBe(2);
    expect(report.busyHosts).toEqual([]);
    // Its requests (robots.txt and file, per host) are in the ledger: the planner's other-fetch share.
    const { otherRequestsPerSecond } = await ledger.read();
    expect(otherRequestsPerSecond.get('hosting.test')).toBeGreaterThan(0);
    expect(otherRequestsPerSecond.get('lone.test')).toBeGreaterThan(0);
  }, 60_000);

  it('RATE-9 / RATE-1: once other fetches use their minimum share of the filled host, the pass skips it and says why; the lone host is served', async () => {
    // Another pass used the hosting host meanwhile: 6 more requests in this 10-minute bucket, which
    // with the first pass's puts the other fetches above a tenth of its 1/30 requests/s pace.
    await ledger.recordOtherFetches(new Map([['hosting.test', 6]]));
    const inUse = (await ledger.read()).otherRequestsPerSecond.get('hosting.test') ?? 0;
    expect(inUse).toBeGreaterThanOrEqual((MIN_OTHER_FETCH_SHARE * 1) / 30);

    const hostedId = await recordFile(bed, { sourceId: 'hosted-2', bodyId: HOSTED_BODY, url: hostedFile(2) });
    const loneId = await recordFile(bed, { sourceId: 'lone-1', bodyId: LONE_BODY, url: loneFile(2) });
    hosting.clearRequests();
    lone.clearRequests();

    const report = await runFilesPass(bed.deps, { now: bed.now() });

    expect(report.files['host-busy']).toBe(1);
    expect(report.files.stored).toBe(1);
    expect(report.busyHosts).toEqual([
      {
        host: 'hosting.test',
        reason: expect.stringMatching(
          /^host hosting\.test busy with syncs: .*skipped this time, sync runs first \(RATE-9, RATE-1\)$/,
        ),
        ruleIds: ['RATE-9', 'RATE-1'],
      },
    ]);
    // Nothing was asked of the busy host; its document stays due in the cache queue for the next pass.
    expect(fileRequests(hosting.requests)).toEqual([]);
    const hosted = await getDoc(bed, hostedId);
    expect(hosted).toMatchObject({ state: 'pending', attemptShard: shards.cache('hosted-2') });
    expect(hosted.storedKey).toBeUndefined();
    expect((await getDoc(bed, loneId)).storedKey).toBeDefined();
    expect(fileRequests(lone.requests)).toHaveLength(1);
  }, 60_000);

  it('RATE-9 / RATE-1: the deletion check skips the filled host too (its re-fetch stays due) and checks the lone one', async () => {
    // The sync saw both stored files change (DEL-1): each is due for a conditional re-fetch.
    const modified = '2026-03-02T12:00:00+01:00';
    await recordFile(bed, { sourceId: 'hosted-1', bodyId: HOSTED_BODY, url: hostedFile(1), modified });
    await recordFile(bed, { sourceId: 'lone-1', bodyId: LONE_BODY, url: loneFile(1), modified });
    bed.clock.advance(HOUR);
    hosting.clearRequests();
    lone.clearRequests();

    const report = await runDeletionCheck(bed.deps, { now: bed.now() });

    expect(report.routed['to-refetch']).toBe(2);
    expect(report.checks['refetch:host-busy']).toBe(1);
    expect(report.checks['refetch:not-modified']).toBe(1);
    expect(report.busyHosts.map((b) => [b.host, b.ruleIds])).toEqual([
      ['hosting.test', ['RATE-9', 'RATE-1']],
    ]);
    expect(fileRequests(hosting.requests)).toEqual([]);
    expect(fileRequests(lone.requests)).toHaveLength(1);
  }, 60_000);
});
