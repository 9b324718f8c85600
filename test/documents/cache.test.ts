import { createHash } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { filesCommand } from '../../cli/commands/files';
import type { LocalRuntime } from '../../cli/local/runtime';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import {
  CACHE_MAX_FILES_PER_RUN,
  DOC_RETRY_LADDER_MS,
  DOC_RETRY_WEEKLY_MS,
  type PassProgress,
  roundRobin,
  runFilesPass,
  shards,
} from '../../shared/documents';
import { fileKey, textKey } from '../../shared/mirror';
import {
  DAY,
  type DocumentsBed,
  fileRequests,
  getDoc,
  keysUnder,
  MINUTE,
  objectExists,
  putBody,
  putSource,
  recordFile,
  setFailureStreak,
  startDocumentsBed,
} from '../support/documents-bed';

/**
 * The document cache against the fake council on loopback (real HTTP, robots.txt, S3 and DynamoDB
 * peers), with every time decision on a fake clock: SPEC DOC-1 … DOC-7, ERR-6.
 */
describe('document cache (files function)', () => {
  let bed: DocumentsBed;
  let council: FakeCouncil;
  const BODY = 'https://ris-a.test/oparl/v1/bodies/1';
  const SOURCE = 'stadt-a';

  beforeAll(async () => {
    bed = await startDocumentsBed();
    council = await startFakeCouncil({ hostname: 'ris-a.test', objectsPerList: { file: 20 } });
    await putSource(bed, { sourceId: SOURCE, systemUrl: council.systemUrl });
    await putBody(bed, SOURCE, { id: BODY, listed: true });
  });
  afterAll(async () => {
    await council?.close();
    await bed?.close();
  });
  afterEach(() => {
    council.clearFaults();
  });

  const fileUrl = (n: number, tag: string) => `${council.url}/files/1/${n}.pdf?case=${tag}`;
  const pass = () => runFilesPass(bed.deps, { now: bed.now() });

  it('DOC-3: a due file is streamed into S3 under files/<sourceId>/<docId> with size, SHA-256, type and validators; its text is extracted (DOC-2)', async () => {
    // prepare
    const docId = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: fileUrl(1, 'store') });
    council.clearRequests();
    const at = bed.clock.now();
    const progress: PassProgress[] = [];
    // act
    const report = await runFilesPass(bed.deps, { now: bed.now(), onProgress: (p) => progress.push(p) });
    // assess
    expect(report.files.stored).toBe(1);
    expect(report.text.extracted).toBe(1);
    // The CLI's status line: the file done of one selected, on the council's host; then the text stage.
    expect(progress).toEqual([
      { stage: 'files', done: 1, total: 1, host: new URL(council.url).hostname },
      expect.objectContaining({ stage: 'text', done: 0, total: 1 }),
    ]);
    const doc = await getDoc(bed, docId);
    const object = await bed.aws.clients.s3.send(
      new GetObjectCommand({ Bucket: bed.aws.env.BUCKET, Key: fileKey(SOURCE, docId) }),
    );
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    expect(doc).toMatchObject({
      state: 'stored',
      attempts: 1,
      storedKey: `files/${SOURCE}/${docId}`,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      contentType: 'application/pdf',
      hasText: true,
      textLayer: true,
      textKey: `text/${SOURCE}/${docId}.txt`,
    });
    expect(doc.etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(doc.lastModified).toMatch(/GMT$/);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await bed.aws.clients.s3.send(
      new GetObjectCommand({ Bucket: bed.aws.env.BUCKET, Key: textKey(SOURCE, docId) }),
    );
    expect(await text.Body!.transformToString()).toContain('Erzeugt vom Test-Ratsinformationssystem');
    // The text came from our copy: the file was fetched exactly once (DOC-2 shares the download).
    expect(fileRequests(council.requests)).toHaveLength(1);
    // Next it waits for its DEL-2 sample, 7 days on.
    expect(doc.attemptShard).toMatch(/^sample#stadt-a#[0-9a-f]{16}$/);
    expect(Date.parse(doc.nextAttemptAt!) - at).toBe(7 * DAY);
  });

  it('DOC-4: 503 is retried after 15 min, 1 h, 6 h, 24 h, 72 h, then every 7 days — never earlier', async () => {
    // prepare
    const url = fileUrl(2, 'ladder');
    const docId = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url });
    council.setFault('/files/1/2.pdf', { kind: 'status', status: 503 });
    const expected = [...DOC_RETRY_LADDER_MS, DOC_RETRY_WEEKLY_MS, DOC_RETRY_WEEKLY_MS];
    for (const [step, delayMs] of expected.entries()) {
      // act: the attempt that fails
      council.clearRequests();
      const attemptAt = bed.clock.now();
      await pass();
      // assess
      const doc = await getDoc(bed, docId);
      expect(fileRequests(council.requests)).toHaveLength(1);
      expect(doc).toMatchObject({
        state: 'retrying',
        attempts: step + 1,
        failures: step + 1,
        lastOutcome: 'HTTP_503',
      });
      expect(Date.parse(doc.nextAttemptAt!) - attemptAt).toBe(delayMs);
      // one minute before the retry is due, nothing is asked
      bed.clock.advance(delayMs - MINUTE);
      council.clearRequests();
      await pass();
      expect(fileRequests(council.requests)).toHaveLength(0);
      bed.clock.advance(MINUTE);
    }
    // the server recovers: the next due attempt stores it
    council.clearFaults();
    await pass();
    expect(await getDoc(bed, docId)).toMatchObject({
      state: 'stored',
      failures: 0,
      attempts: expected.length + 1,
    });
  });

  it.each([
    ['429', { kind: 'status', status: 429 } as const, DOC_RETRY_LADDER_MS[0]],
    ['a connection reset', { kind: 'hangup' } as const, DOC_RETRY_LADDER_MS[0]],
    ['403 (any other error)', { kind: 'status', status: 403 } as const, DOC_RETRY_WEEKLY_MS],
    ['400 (any other error)', { kind: 'status', status: 400 } as const, DOC_RETRY_WEEKLY_MS],
  ])('DOC-4: after %s the first retry is due in the rule’s time', async (tag, fault, delayMs) => {
    const n =
      3 + ['429', 'a connection reset', '403 (any other error)', '400 (any other error)'].indexOf(tag);
    const docId = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: fileUrl(n, `first-${n}`) });
    council.setFault(`/files/1/${n}.pdf`, fault);
    const at = bed.clock.now();
    await pass();
    const doc = await getDoc(bed, docId);
    expect(doc.state).toBe('retrying');
    expect(Date.parse(doc.nextAttemptAt!) - at).toBe(delayMs);
  });

  it('DOC-4: an empty 200 body is retried on the ladder; no empty object is kept', async () => {
    const docId = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: fileUrl(7, 'empty') });
    council.setFault('/files/1/7.pdf', {
      kind: 'status',
      status: 200,
      body: '',
      contentType: 'application/pdf',
    });
    await pass();
    const doc = await getDoc(bed, docId);
    expect(doc).toMatchObject({ state: 'retrying', lastOutcome: 'EMPTY_BODY' });
    expect(await objectExists(bed, fileKey(SOURCE, docId))).toBe(false);
  });

  it('DOC-5 / DOC-6: an HTML page instead of the PDF (bot wall) is blocked-html and not asked again until an operator clears it', async () => {
    // prepare
    const url = fileUrl(8, 'html');
    const docId = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url });
    council.setFault('/files/1/8.pdf', {
      kind: 'status',
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: '<!doctype html><html><body>Bitte bestätigen Sie, dass Sie kein Roboter sind.</body></html>',
    });
    // act
    await pass();
    // assess
    const blocked = await getDoc(bed, docId);
    expect(blocked).toMatchObject({ state: 'blocked-html', lastOutcome: 'HTML_INSTEAD_OF_FILE' });
    expect(blocked.attemptShard).toBeUndefined();
    expect(await objectExists(bed, fileKey(SOURCE, docId))).toBe(false);
    // 30 days later it is still not asked (DOC-6)
    council.clearFaults();
    bed.clock.advance(30 * DAY);
    council.clearRequests();
    await pass();
    expect(fileRequests(council.requests, '/files/1/8.pdf?case=html')).toHaveLength(0);
    // the operator clears it (`files clear <fileId>`), the next run stores it
    const rt = { env: bed.aws.env, clients: bed.aws.clients } as LocalRuntime;
    const cleared = await filesCommand(rt, { positionals: ['clear', url], json: true }, bed.now());
    expect(cleared.json).toMatchObject({ docId, cleared: true, was: 'blocked-html' });
    await pass();
    expect(await getDoc(bed, docId)).toMatchObject({ state: 'stored', clearedBy: expect.any(String) });
    // a document that is not blocked cannot be "cleared"
    await expect(
      filesCommand(rt, { positionals: ['clear', docId], json: true }, bed.now()),
    ).rejects.toMatchObject({
      code: 'DOCUMENT_NOT_BLOCKED',
    });
  });

  it('DOC-5 / DOC-6: a file robots.txt forbids is blocked-robots, without a request to it', async () => {
    const other = await startFakeCouncil({
      hostname: 'ris-robots.test',
      robots: 'User-agent: mandari-ingestor\nDisallow: /files/\n',
    });
    try {
      await putSource(bed, { sourceId: 'stadt-robots', systemUrl: other.systemUrl });
      const body = 'https://ris-robots.test/oparl/v1/bodies/1';
      await putBody(bed, 'stadt-robots', { id: body, listed: true });
      const docId = await recordFile(bed, {
        sourceId: 'stadt-robots',
        bodyId: body,
        url: `${other.url}/files/1/1.pdf`,
      });
      await pass();
      expect(await getDoc(bed, docId)).toMatchObject({
        state: 'blocked-robots',
        lastOutcome: 'ROBOTS_DISALLOWED',
      });
      expect(fileRequests(other.requests)).toHaveLength(0);
      expect(other.requests.map((r) => r.path)).toEqual(['/robots.txt']);
    } finally {
      await other.close();
    }
  });

  it('DOC-5: 404 within 7 days of first sight is provisional and retried; after 7 days it is gone and handed to the deletion check', async () => {
    // prepare: file 99 does not exist at the source
    const early = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: fileUrl(99, 'fresh') });
    const old = await recordFile(bed, {
      sourceId: SOURCE,
      bodyId: BODY,
      url: fileUrl(99, 'old'),
      atMs: bed.clock.now() - 8 * DAY,
    });
    const at = bed.clock.now();
    // act
    await pass();
    // assess
    const provisional = await getDoc(bed, early);
    expect(provisional).toMatchObject({
      state: 'gone-provisional',
      goneStatus: 404,
      attemptShard: shards.cache(SOURCE),
    });
    expect(Date.parse(provisional.nextAttemptAt!) - at).toBe(DOC_RETRY_LADDER_MS[0]);
    const gone = await getDoc(bed, old);
    expect(gone).toMatchObject({ state: 'gone', goneStatus: 404, goneChecks: 0 });
    expect(gone.attemptShard).toMatch(/^recheck#stadt-a#/);
    expect(Date.parse(gone.nextAttemptAt!) - at).toBe(DAY);
    // the provisional one, still 404 when it is 7 days old, is gone for good
    bed.clock.advance(7 * DAY);
    await pass();
    expect(await getDoc(bed, early)).toMatchObject({ state: 'gone' });
  });

  it('DOC-1: with file fetching off nothing is fetched and due files become disabled; switched on, they are fetched', async () => {
    const other = await startFakeCouncil({ hostname: 'ris-off.test' });
    try {
      await putSource(bed, { sourceId: 'stadt-off', systemUrl: other.systemUrl, fileFetching: false });
      const body = 'https://ris-off.test/oparl/v1/bodies/1';
      await putBody(bed, 'stadt-off', { id: body, listed: true });
      const docId = await recordFile(bed, {
        sourceId: 'stadt-off',
        bodyId: body,
        url: `${other.url}/files/1/2.pdf`,
      });
      await pass();
      expect(await getDoc(bed, docId)).toMatchObject({
        state: 'disabled',
        attemptShard: shards.disabled('stadt-off'),
      });
      expect(other.requests).toHaveLength(0);
      // DOC-5: an inactive source ends the attempts too
      await putSource(bed, {
        sourceId: 'stadt-off',
        systemUrl: other.systemUrl,
        fileFetching: true,
        active: false,
      });
      await pass();
      expect(other.requests).toHaveLength(0);
      // both on again: un-parked and stored in the same run
      await putSource(bed, {
        sourceId: 'stadt-off',
        systemUrl: other.systemUrl,
        fileFetching: true,
        active: true,
      });
      const report = await pass();
      expect(report.unparked).toBe(1);
      expect(await getDoc(bed, docId)).toMatchObject({ state: 'stored' });
    } finally {
      await other.close();
    }
  });

  it('DOC-7 / ONB-4: a document of an unlisted body is not stored, but its text is; once the body is listed it is stored', async () => {
    const other = await startFakeCouncil({ hostname: 'ris-unlisted.test' });
    try {
      await putSource(bed, { sourceId: 'stadt-neu', systemUrl: other.systemUrl });
      const body = 'https://ris-unlisted.test/oparl/v1/bodies/1';
      await putBody(bed, 'stadt-neu', { id: body, listed: false });
      const docId = await recordFile(bed, {
        sourceId: 'stadt-neu',
        bodyId: body,
        url: `${other.url}/files/1/3.pdf`,
        listed: false,
      });
      const report = await pass();
      expect(report.files.unlisted).toBe(1);
      const doc = await getDoc(bed, docId);
      expect(doc).toMatchObject({ state: 'pending', parked: 'unlisted', hasText: true });
      expect(doc.storedKey).toBeUndefined();
      expect(await keysUnder(bed, 'files/stadt-neu/')).toEqual([]);
      expect(await objectExists(bed, textKey('stadt-neu', docId))).toBe(true);
      // nothing more is fetched while the body stays unlisted
      other.clearRequests();
      bed.clock.advance(DAY);
      await pass();
      expect(fileRequests(other.requests)).toHaveLength(0);
      // listed by an operator: stored from the next run (its text is not extracted twice)
      await putBody(bed, 'stadt-neu', { id: body, listed: true });
      const listed = await pass();
      expect(listed.unparked).toBe(1);
      expect(await getDoc(bed, docId)).toMatchObject({ state: 'stored', hasText: true });
    } finally {
      await other.close();
    }
  });

  it('ERR-6: from the 3rd failed sync run in a row the cache rests for the source; after a good run it goes on', async () => {
    const other = await startFakeCouncil({ hostname: 'ris-rest.test' });
    try {
      await putSource(bed, { sourceId: 'stadt-rest', systemUrl: other.systemUrl });
      const body = 'https://ris-rest.test/oparl/v1/bodies/1';
      await putBody(bed, 'stadt-rest', { id: body, listed: true });
      const docId = await recordFile(bed, {
        sourceId: 'stadt-rest',
        bodyId: body,
        url: `${other.url}/files/1/4.pdf`,
      });
      await setFailureStreak(bed, 'stadt-rest', 2);
      await setFailureStreak(bed, 'stadt-rest', 3);
      const rested = await pass();
      expect(rested.sources.find((s) => s.sourceId === 'stadt-rest')?.ruleIds).toContain('ERR-6');
      expect(other.requests).toHaveLength(0);
      expect(await getDoc(bed, docId)).toMatchObject({ state: 'pending' });
      await setFailureStreak(bed, 'stadt-rest', 0);
      await pass();
      expect(await getDoc(bed, docId)).toMatchObject({ state: 'stored' });
    } finally {
      await other.close();
    }
  });

  describe('crash between upload and record', () => {
    /** The record write of a stored file fails once, as if the function died right after the upload. */
    function crashingDoc(real: DynamoDBDocumentClient): {
      doc: DynamoDBDocumentClient;
      crashes: () => number;
    } {
      let crashes = 0;
      const doc = new Proxy(real, {
        get(target, prop, receiver) {
          if (prop !== 'send') return Reflect.get(target, prop, receiver);
          return async (command: unknown) => {
            const values = (command as UpdateCommand).input?.ExpressionAttributeValues ?? {};
            if (
              command instanceof UpdateCommand &&
              crashes === 0 &&
              Object.values(values).includes('stored')
            ) {
              crashes += 1;
              throw new Error('process killed after the upload');
            }
            return target.send(command as UpdateCommand);
          };
        },
      });
      return { doc, crashes: () => crashes };
    }

    it('the next run finds the document due and records the object (no record without object, no unknown object)', async () => {
      // prepare
      const docId = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: fileUrl(10, 'crash') });
      const crashing = crashingDoc(bed.aws.clients.doc);
      // act: the run "dies" between upload and record
      const crashed = await runFilesPass({ ...bed.deps, doc: crashing.doc }, { now: bed.now() });
      // assess: the object is there, the record does not claim it, the document is still due
      expect(crashing.crashes()).toBe(1);
      expect(crashed.files.error).toBe(1);
      expect(await objectExists(bed, fileKey(SOURCE, docId))).toBe(true);
      const after = await getDoc(bed, docId);
      expect(after).toMatchObject({ state: 'pending', attemptShard: shards.cache(SOURCE) });
      expect(after.storedKey).toBeUndefined();
      // act: the next run
      await pass();
      // assess: recorded, and the record describes the object under the key
      const stored = await getDoc(bed, docId);
      const object = await bed.aws.clients.s3.send(
        new GetObjectCommand({ Bucket: bed.aws.env.BUCKET, Key: stored.storedKey! }),
      );
      const bytes = Buffer.from(await object.Body!.transformToByteArray());
      expect(stored.state).toBe('stored');
      expect(stored.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    });

    it('when the next run does not store it (now a bot wall), the leftover object is deleted', async () => {
      const docId = await recordFile(bed, {
        sourceId: SOURCE,
        bodyId: BODY,
        url: fileUrl(11, 'crash-then-html'),
      });
      const crashing = crashingDoc(bed.aws.clients.doc);
      await runFilesPass({ ...bed.deps, doc: crashing.doc }, { now: bed.now() });
      expect(await objectExists(bed, fileKey(SOURCE, docId))).toBe(true);
      council.setFault('/files/1/11.pdf', { kind: 'contentType', contentType: 'text/html' });
      await pass();
      expect(await getDoc(bed, docId)).toMatchObject({ state: 'blocked-html' });
      expect(await objectExists(bed, fileKey(SOURCE, docId))).toBe(false);
    });
  });

  it('DOC-3: at most 400 per run, taken in turns from the sources (each query reads at most 200)', () => {
    const lists = ['a', 'b', 'c'].map((s) => Array.from({ length: 200 }, (_, i) => `${s}${i}`));
    const picked = roundRobin(lists, CACHE_MAX_FILES_PER_RUN);
    expect(picked).toHaveLength(400);
    expect(picked.slice(0, 3)).toEqual(['a0', 'b0', 'c0']);
    for (const s of ['a', 'b', 'c']) {
      expect(picked.filter((p) => p.startsWith(s)).length).toBeGreaterThanOrEqual(133);
    }
    expect(roundRobin([['x'], [], ['y', 'z']], 400)).toEqual(['x', 'y', 'z']);
  });
});
