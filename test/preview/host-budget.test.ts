import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { parseEnv } from '../../shared/config/env';
import { MAX_OTHER_FETCH_SHARE, MIN_OTHER_FETCH_SHARE } from '../../shared/hosts';
import { createTestResolver } from '../../shared/net';
import { composePreview, PREVIEW_HOST_BUSY_RETRY_AFTER_S, type PreviewRuntime } from '../../shared/preview';
import { RedisHostLedger } from '../../shared/slots';
import {
  fileRequests,
  open,
  type PreviewBed,
  putBody,
  putSource,
  recordFile,
  startPreviewBed,
} from '../support/preview-bed';
import { createTestRedisClient } from '../support/redis';

/**
 * Issue 27 item 5 (RATE-9 "one host, one budget", RATE-1): the preview fetches an unstored document from
 * its council (PRV-1), so it is an other fetch like the document passes — admitted against the same host
 * budget and counted in the same host ledger. The preview runtime as deployed (its ledger from the
 * environment, Upstash over a real redis-server), local DynamoDB and S3, councils on loopback.
 */
describe('the preview asks the host budget and is counted in it (RATE-9, RATE-1)', () => {
  let bed: PreviewBed;
  let lone: FakeCouncil;
  let hosting: FakeCouncil;
  let ledger: RedisHostLedger;
  const LONE_BODY = 'https://ris-lone.test/oparl/v1/bodies/1';
  const HOSTED_BODY = 'https://ris-hosting.test/oparl/v1/bodies/1';
  const HOSTED = Array.from({ length: 40 }, (_, i) => `hosted-${i}`);
  /** Monday 10:00 Berlin: the weekday daytime cadence (SCH-1), every source's sync every 10 minutes. */
  const MONDAY_MORNING = new Date('2026-11-30T09:00:00Z');
  /** The preview runtime as deployed, its clock at MONDAY_MORNING (the syncs' demand depends on it). */
  let mondayRuntime: PreviewRuntime;
  let visitor = 0;
  const nextVisitor = () => {
    visitor += 1;
    return `visitor-${visitor}`;
  };

  beforeAll(async () => {
    bed = await startPreviewBed();
    [lone, hosting] = await Promise.all([
      startFakeCouncil({ hostname: 'ris-lone.test' }),
      startFakeCouncil({ hostname: 'ris-hosting.test' }),
    ]);
    // The ledger the runtime built from the environment: same Upstash, default key prefix.
    ledger = new RedisHostLedger(createTestRedisClient(bed.redis.adapter));
    await putSource(bed, { sourceId: 'lone', systemUrl: lone.systemUrl });
    await putBody(bed, 'lone', { id: LONE_BODY, listed: false });
    // Forty councils on one hosting host (RATE-2): on a Monday morning their syncs' cadence (16
    // requests every 10 minutes each) needs 1.07 requests/s of its 1 — a host the syncs fill.
    for (const sourceId of HOSTED) await putSource(bed, { sourceId, systemUrl: hosting.systemUrl });
    await putBody(bed, 'hosted-0', { id: HOSTED_BODY, listed: false });
    mondayRuntime = await composePreview(
      parseEnv({
        ...bed.aws.peers.env,
        INGESTOR_ALLOW_LOOPBACK: 'true',
        UPSTASH_REDIS_REST_URL: bed.redis.adapter.url,
        UPSTASH_REDIS_REST_TOKEN: bed.redis.adapter.token,
      }),
      { clients: bed.aws.clients, resolver: createTestResolver(), overrides: { now: () => MONDAY_MORNING } },
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([lone?.close(), hosting?.close()]);
    await mondayRuntime?.close();
    await bed?.close();
  });

  it('RATE-9 / RATE-1: a preview fetch is admitted on a host with room, and its requests (robots.txt and file) are counted in the host ledger', async () => {
    const docId = await recordFile(bed, {
      sourceId: 'lone',
      bodyId: LONE_BODY,
      url: `${lone.url}/files/1/1.pdf`,
      listed: false,
    });
    expect((await ledger.read()).otherRequestsPerSecond.get('ris-lone.test')).toBeUndefined();

    const opened = await open(bed, docId, nextVisitor());
    expect(opened.status).toBe(200);
    expect(fileRequests(lone.requests)).toHaveLength(1);
    // The leader's invocation ends only after the record (its `after`, once the last byte went out):
    // the ledger has the preview's requests.
    const rate = await vi.waitFor(async () => {
      const read = (await ledger.read()).otherRequestsPerSecond.get('ris-lone.test') ?? 0;
      expect(read).toBeGreaterThan(0);
      return read;
    });
    expect(rate * 10 * 60).toBeLessThanOrEqual(lone.requests.length + 0.001);
  });

  it("RATE-9 / RATE-1: on a host the syncs fill, a preview gets the other fetches' minimum share — then 503 with Retry-After and nothing asked of the council", async () => {
    const hostedFile = (n: number) =>
      recordFile(bed, {
        sourceId: 'hosted-0',
        bodyId: HOSTED_BODY,
        url: `${hosting.url}/files/1/${n}.pdf`,
        listed: false,
      });
    const openMonday = async (docId: string) => {
      const response = await mondayRuntime.handler.handle({
        method: 'GET',
        path: `/documents/${docId}`,
        visitorAddress: nextVisitor(),
      });
      if (response.body !== undefined && typeof response.body !== 'string')
        for await (const _chunk of response.body);
      await response.after;
      return response;
    };
    // Nobody else used the hosting host: below MIN_OTHER_FETCH_SHARE a preview is admitted (never starved).
    const first = await openMonday(await hostedFile(1));
    expect(first.status).toBe(200);
    expect(fileRequests(hosting.requests)).toHaveLength(1);

    // A files pass used the host meanwhile: other fetches now above their minimum share of its pace.
    await ledger.recordOtherFetches(new Map([['ris-hosting.test', 130]]));
    const inUse = (await ledger.read()).otherRequestsPerSecond.get('ris-hosting.test') ?? 0;
    expect(inUse).toBeGreaterThanOrEqual(MIN_OTHER_FETCH_SHARE);
    expect(inUse).toBeLessThan(MAX_OTHER_FETCH_SHARE);
    const requestsBefore = hosting.requests.length;
    const refused = await openMonday(await hostedFile(2));
    // PRV-1: rather than add to the host's load, ask the visitor to come back.
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe(String(PREVIEW_HOST_BUSY_RETRY_AFTER_S));
    expect(hosting.requests.length).toBe(requestsBefore);

    // The lone host is not held back by the hosting host's load.
    const loneDoc = await recordFile(bed, {
      sourceId: 'lone',
      bodyId: LONE_BODY,
      url: `${lone.url}/files/1/2.pdf`,
      listed: false,
    });
    expect((await open(bed, loneDoc, nextVisitor())).status).toBe(200);
  });

  it('RATE-9: once other fetches use their whole share of a host, a preview there is refused whatever the syncs need', async () => {
    const docId = await recordFile(bed, {
      sourceId: 'lone',
      bodyId: LONE_BODY,
      url: `${lone.url}/files/1/3.pdf`,
      listed: false,
    });
    // More than half the lone host's 1 request/s over the ledger's window (two 10-minute buckets at most).
    await ledger.recordOtherFetches(new Map([['ris-lone.test', 1300]]));
    expect((await ledger.read()).otherRequestsPerSecond.get('ris-lone.test')).toBeGreaterThanOrEqual(
      MAX_OTHER_FETCH_SHARE,
    );
    const before = fileRequests(lone.requests).length;
    const refused = await open(bed, docId, nextVisitor());
    expect(refused.status).toBe(503);
    expect(fileRequests(lone.requests)).toHaveLength(before);
  });
});
