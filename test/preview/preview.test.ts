import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { DocumentsStore } from '../../shared/documents/store';
import { fileKey } from '../../shared/mirror/keys';
import {
  PREVIEW_LINGER_MS,
  PREVIEW_STORED_REDIRECT_MAX_AGE_S,
  PREVIEW_STORED_URL_TTL_S,
  presignStoredObject,
} from '../../shared/preview';
import { createHostSlots, type SlotLease } from '../../shared/slots';
import {
  fileRequests,
  followStored,
  open,
  type PreviewBed,
  putBody,
  putSource,
  recordFile,
  recordStoredFile,
  setDocumentFields,
  setFailureStreak,
  startPreviewBed,
  tombstoneFile,
} from '../support/preview-bed';
import { createTestRedisClient } from '../support/redis';

/**
 * The preview endpoint against real local peers (DynamoDB, S3), a real redis-server behind the Upstash
 * REST adapter and the fake council on loopback, on real time: SPEC PRV-1 … PRV-4, ROB-8, OPT-2.
 */
async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('document preview', () => {
  let bed: PreviewBed;
  let a: FakeCouncil;
  let held: FakeCouncil;
  let blocked: FakeCouncil;
  const SRC_A = 'stadt-a';
  const BODY_LISTED = 'https://ris-a.test/oparl/v1/bodies/1';
  const BODY_UNLISTED = 'https://ris-a.test/oparl/v1/bodies/2';
  let visitor = 0;
  const nextVisitor = () => {
    visitor += 1;
    return `198.51.100.${visitor}`;
  };
  /** A document of the listed body with a stored copy of `bytes` under its own Content-Type. */
  const storedDocument = (path: string, bytes: Buffer, contentType: string) =>
    recordStoredFile(
      bed,
      { sourceId: SRC_A, bodyId: BODY_LISTED, url: `${a.url}${path}` },
      bytes,
      contentType,
    );

  beforeAll(async () => {
    bed = await startPreviewBed();
    a = await startFakeCouncil({ hostname: 'ris-a.test' });
    held = await startFakeCouncil({ hostname: 'ris-held.test' });
    blocked = await startFakeCouncil({
      hostname: 'ris-blocked.test',
      robots: 'User-agent: *\nDisallow: /files/\n',
    });
    await putSource(bed, { sourceId: SRC_A, systemUrl: a.systemUrl });
    await putSource(bed, { sourceId: 'held', systemUrl: held.systemUrl });
    await putSource(bed, { sourceId: 'blocked', systemUrl: blocked.systemUrl });
    await putSource(bed, {
      sourceId: 'off',
      systemUrl: 'https://ris-off.test/oparl/v1/system',
      fileFetching: false,
    });
    await putSource(bed, { sourceId: 'failing', systemUrl: 'https://ris-failing.test/oparl/v1/system' });
    await setFailureStreak(bed, 'failing', 3);
    await putBody(bed, SRC_A, { id: BODY_LISTED, listed: true });
    await putBody(bed, SRC_A, { id: BODY_UNLISTED, listed: false });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), held?.close(), blocked?.close()]);
    await bed?.close();
  });

  it('PRV-1 / PRV-3: an unstored document of a listed body is fetched within the budget, streamed and stored; the next opening is served from S3 without a request', async () => {
    // prepare
    const url = `${a.url}/files/1/1.pdf`;
    const docId = await recordFile(bed, { sourceId: SRC_A, bodyId: BODY_LISTED, url, listed: true });
    a.clearRequests();
    // act
    const started = Date.now();
    const first = await open(bed, docId, nextVisitor());
    const tookMs = Date.now() - started;
    // assess
    expect(first.status).toBe(200);
    expect(first.headers.get('x-preview-source')).toBe('fetched');
    expect(first.headers.get('content-type')).toBe('application/pdf');
    expect(first.headers.get('content-disposition')).toBe('inline; filename="1.pdf"');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.body.subarray(0, 5).toString()).toBe('%PDF-');
    expect(tookMs).toBeLessThan(5_000);
    expect(fileRequests(a.requests)).toHaveLength(1);
    // The record is written once the upload completed, right after the last byte went out.
    const item = await waitFor(async () => {
      const doc = await new DocumentsStore(bed.aws.clients.doc, bed.aws.env.DOCUMENTS_TABLE).get(docId);
      return doc?.state === 'stored' ? doc : undefined;
    });
    expect(item).toMatchObject({
      state: 'stored',
      storedKey: fileKey(SRC_A, docId),
      size: first.body.length,
    });
    await bed.aws.clients.s3.send(
      new HeadObjectCommand({ Bucket: bed.aws.env.BUCKET, Key: fileKey(SRC_A, docId) }),
    );

    // act: stored → redirected to our copy, which S3 (the local s3rver) serves
    a.clearRequests();
    const second = await open(bed, docId, nextVisitor());
    const copy = await followStored(bed, second);
    // assess
    expect(second.status).toBe(302);
    expect(second.headers.get('x-preview-source')).toBe('stored');
    expect(copy.status).toBe(200);
    expect(copy.body.equals(first.body)).toBe(true);
    expect(copy.headers.get('content-type')).toBe('application/pdf');
    expect(copy.headers.get('content-disposition')).toBe('inline; filename="1.pdf"');
    expect(a.requests).toHaveLength(0);
  });

  it('PRV-3: a stored copy is a 302 to a presigned S3 URL valid at most PREVIEW_STORED_URL_TTL_S; the function streams none of its bytes, Range works on the URL', async () => {
    // prepare: a stored copy of 200 kB, written as the document cache writes its copies
    const bytes = Buffer.alloc(200_000, 7);
    bytes.write('%PDF-1.7\n');
    const docId = await storedDocument('/files/7/bericht.pdf', bytes, 'application/pdf');
    a.clearRequests();
    // act
    const opened = await open(bed, docId, nextVisitor());
    const location = new URL(opened.headers.get('location') ?? '');
    const ranged = await followStored(bed, opened, { range: 'bytes=100-199' });
    const whole = await followStored(bed, opened, {
      accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
      'accept-language': 'de-DE,de;q=0.9',
      'sec-fetch-mode': 'navigate',
    });
    // assess
    expect(opened.status).toBe(302);
    expect(opened.body).toHaveLength(0);
    expect(opened.headers.get('cache-control')).toBe(`public, max-age=${PREVIEW_STORED_REDIRECT_MAX_AGE_S}`);
    expect(PREVIEW_STORED_REDIRECT_MAX_AGE_S).toBeLessThan(PREVIEW_STORED_URL_TTL_S);
    expect(location.origin).toBe(bed.aws.peers.s3Endpoint);
    expect(Number(location.searchParams.get('X-Amz-Expires'))).toBe(PREVIEW_STORED_URL_TTL_S);
    // Only the host is signed: a browser that opens the link (and adds its own headers) is served.
    expect(location.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(PREVIEW_STORED_URL_TTL_S).toBeLessThanOrEqual(300);
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(ranged.body.equals(bytes.subarray(100, 200))).toBe(true);
    expect(whole.body.equals(bytes)).toBe(true);
    expect(a.requests).toHaveLength(0);
  });

  it('PRV-3: the presigned URL is short-lived — S3 (s3rver) refuses it PREVIEW_STORED_URL_TTL_S after signing', async () => {
    // prepare: a stored copy; URLs signed by the clock, not by waiting five minutes
    const docId = await storedDocument('/files/9/kurz.pdf', Buffer.from('%PDF-1.7\nkurz'), 'application/pdf');
    const sign = (ageS: number) =>
      presignStoredObject(
        { s3: bed.aws.clients.s3, bucket: bed.aws.env.BUCKET },
        fileKey(SRC_A, docId),
        { contentType: 'application/pdf', contentDisposition: 'inline; filename="kurz.pdf"' },
        { signedAt: new Date(Date.now() - ageS * 1000) },
      );
    // act
    const fresh = await fetch(await sign(PREVIEW_STORED_URL_TTL_S - 30));
    const expired = await fetch(await sign(PREVIEW_STORED_URL_TTL_S + 1));
    // assess
    expect(fresh.status).toBe(200);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
    await expect(
      presignStoredObject(
        { s3: bed.aws.clients.s3, bucket: bed.aws.env.BUCKET },
        'files/x',
        { contentType: 'application/pdf', contentDisposition: 'inline' },
        { expiresInS: PREVIEW_STORED_URL_TTL_S + 1 },
      ),
    ).rejects.toThrow(RangeError);
  });

  it('PRV-3: a stored HTML file is never shown inline — the presigned URL makes S3 answer octet-stream + attachment', async () => {
    // prepare: the source delivered HTML under a file URL and it was stored with its own type
    const docId = await storedDocument(
      '/files/8/seite.html',
      Buffer.from('<script>alert(1)</script>'),
      'text/html; charset=utf-8',
    );
    // act
    const opened = await open(bed, docId, nextVisitor());
    const copy = await followStored(bed, opened);
    // assess
    expect(opened.status).toBe(302);
    expect(copy.status).toBe(200);
    expect(copy.headers.get('content-type')).toBe('application/octet-stream');
    expect(copy.headers.get('content-disposition')).toBe('attachment; filename="seite.html"');
    expect(copy.body.toString()).toBe('<script>alert(1)</script>');
  });

  it('PRV-3: a record naming a copy S3 does not have is fetched from the source instead of redirected to nothing', async () => {
    // prepare
    const url = `${a.url}/files/1/12.pdf`;
    const docId = await recordFile(bed, { sourceId: SRC_A, bodyId: BODY_UNLISTED, url, listed: false });
    await setDocumentFields(bed, docId, { state: 'stored', storedKey: fileKey(SRC_A, docId) });
    a.clearRequests();
    // act
    const opened = await open(bed, docId, nextVisitor());
    // assess
    expect(opened.status).toBe(200);
    expect(opened.headers.get('x-preview-source')).toBe('fetched');
    expect(fileRequests(a.requests)).toHaveLength(1);
  });

  it('PRV-3 / DOC-7: a document of an unlisted body is not stored — every opening asks the source', async () => {
    // prepare
    const url = `${a.url}/files/1/11.pdf`;
    const docId = await recordFile(bed, { sourceId: SRC_A, bodyId: BODY_UNLISTED, url, listed: false });
    a.clearRequests();
    // act
    const first = await open(bed, docId, nextVisitor());
    // (openings within PREVIEW_LINGER_MS of a finished fetch share it: they count as one rush)
    await new Promise((r) => setTimeout(r, PREVIEW_LINGER_MS + 200));
    const second = await open(bed, docId, nextVisitor());
    // assess
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-preview-source')).toBe('fetched');
    expect(fileRequests(a.requests)).toHaveLength(2);
    const item = await new DocumentsStore(bed.aws.clients.doc, bed.aws.env.DOCUMENTS_TABLE).get(docId);
    expect(item?.state).toBe('pending');
    expect(item?.storedKey).toBeUndefined();
  });

  it('PRV-2: concurrent openings of one unstored document in one instance cause one source request', async () => {
    // prepare
    const url = `${a.url}/files/1/12.pdf`;
    const docId = await recordFile(bed, { sourceId: SRC_A, bodyId: BODY_UNLISTED, url, listed: false });
    a.setFault('/files/1/12.pdf', { kind: 'delay', delayMs: 300 });
    a.clearRequests();
    // act
    const answers = await Promise.all(Array.from({ length: 12 }, () => open(bed, docId, nextVisitor())));
    // assess
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(answers.map((r) => r.body.toString('base64'))).size).toBe(1);
    expect(fileRequests(a.requests)).toHaveLength(1);
    a.clearFaults();
  });

  it('PRV-1: a host slot held by another worker for more than 5 s → 503 with Retry-After, no request to the source', async () => {
    // prepare: another worker holds both of the host's in-flight places (RATE-4) for longer than 5 s
    const docId = await recordFile(bed, {
      sourceId: 'held',
      bodyId: 'https://ris-held.test/oparl/v1/bodies/1',
      url: `${held.url}/files/1/1.pdf`,
      listed: true,
    });
    const other = createHostSlots({ redis: createTestRedisClient(bed.redis.adapter), maxInstances: 10 });
    const leases: SlotLease[] = [];
    for (let i = 0; i < 2; i += 1) {
      const lease = await other.acquire('ris-held.test', { intervalMs: 1_000, leaseTtlMs: 60_000 });
      if (!lease.granted) throw new Error('no lease for the other worker');
      leases.push(lease);
    }
    held.clearRequests();
    // act
    const started = Date.now();
    const answer = await open(bed, docId, nextVisitor());
    const tookMs = Date.now() - started;
    await Promise.all(leases.map((l) => l.release()));
    // assess: waited at most the budget, then asked the visitor to come back — nothing was requested
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Never more than the PRV-1 budget (the slots give up early once no place can come in time).
    expect(tookMs).toBeLessThan(6_000);
    expect(held.requests).toHaveLength(0);
  }, 30_000);

  it('ROB-8: robots.txt forbids the file → a clear error page, the file is not requested; a recorded block asks nothing at all (DOC-6)', async () => {
    // prepare
    const docId = await recordFile(bed, {
      sourceId: 'blocked',
      bodyId: 'https://ris-blocked.test/oparl/v1/bodies/1',
      url: `${blocked.url}/files/1/1.pdf`,
      listed: true,
    });
    blocked.clearRequests();
    // act
    const answer = await open(bed, docId, nextVisitor());
    // assess
    expect(answer.status).toBe(403);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.body.toString()).toContain('robots.txt');
    expect(fileRequests(blocked.requests)).toHaveLength(0);

    // prepare: the cache recorded the block
    await setDocumentFields(bed, docId, { state: 'blocked-robots' });
    blocked.clearRequests();
    // act
    const again = await open(bed, docId, nextVisitor());
    // assess
    expect(again.status).toBe(403);
    expect(blocked.requests).toHaveLength(0);
  });

  it('PRV-4: file fetching off or the source resting (ERR-6) → redirect to the original, nothing requested', async () => {
    // prepare
    const offUrl = 'https://ris-off.test/files/1/1.pdf';
    const off = await recordFile(bed, { sourceId: 'off', bodyId: 'b', url: offUrl, listed: true });
    const failingUrl = 'https://ris-failing.test/files/1/1.pdf';
    const failing = await recordFile(bed, {
      sourceId: 'failing',
      bodyId: 'b',
      url: failingUrl,
      listed: true,
    });
    const before = bed.events.length;
    // act
    const r1 = await open(bed, off, nextVisitor());
    const r2 = await open(bed, failing, nextVisitor());
    // assess
    expect(r1.status).toBe(302);
    expect(r1.headers.get('location')).toBe(offUrl);
    expect(r2.status).toBe(302);
    expect(r2.headers.get('location')).toBe(failingUrl);
    expect(bed.events.length).toBe(before);
  });

  it('OPT-2: a taken-down or tombstoned document → 410', async () => {
    // prepare
    const d1 = await recordFile(bed, {
      sourceId: SRC_A,
      bodyId: BODY_LISTED,
      url: `${a.url}/files/1/5.pdf`,
      listed: true,
    });
    await setDocumentFields(bed, d1, { takedownAt: new Date().toISOString() });
    const fileId = 'https://ris-a.test/oparl/v1/files/6';
    const d2 = await recordFile(bed, {
      sourceId: SRC_A,
      bodyId: BODY_LISTED,
      url: `${a.url}/files/1/6.pdf`,
      listed: true,
      fileId,
    });
    await tombstoneFile(bed, SRC_A, fileId);
    a.clearRequests();
    // act
    const r1 = await open(bed, d1, nextVisitor());
    const r2 = await open(bed, d2, nextVisitor());
    // assess
    expect(r1.status).toBe(410);
    expect(r2.status).toBe(410);
    expect(a.requests).toHaveLength(0);
  });

  it('unknown or malformed ids → 404, never a request (no open proxy)', async () => {
    // act
    const unknown = await open(bed, 'a'.repeat(64), nextVisitor());
    const malformed = await fetch(`${bed.url}/documents/${encodeURIComponent('http://evil.test/x')}`);
    const traversal = await fetch(`${bed.url}/documents/../../etc/passwd`);
    // assess
    expect(unknown.status).toBe(404);
    expect(malformed.status).toBe(404);
    expect(traversal.status).toBe(404);
  });

  it('PRV-2: the 21st request of one address within a minute → 429 with Retry-After', async () => {
    // prepare
    const who = nextVisitor();
    const statuses: number[] = [];
    // act
    for (let i = 0; i < 21; i += 1) statuses.push((await open(bed, 'b'.repeat(64), who)).status);
    const other = await open(bed, 'b'.repeat(64), nextVisitor());
    // assess
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(404));
    expect(statuses[20]).toBe(429);
    expect(other.status).toBe(404);
    const last = await open(bed, 'b'.repeat(64), who);
    const retryAfter = Number(last.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The address is kept only as a salted hash (PRV-2).
    const keys = await bed.redis.redis.keys('ingestor:preview:*');
    expect(keys.some((k) => k.includes(who))).toBe(false);
  });
});
