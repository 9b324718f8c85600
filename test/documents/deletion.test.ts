import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, type RecordedRequest, startFakeCouncil } from '../../demo';
import {
  DEL_SAMPLE_INTERVAL_MS,
  DEL_SAMPLES_PER_BODY,
  type DeletionReport,
  runDeletionCheck,
  runFilesPass,
  samplePhaseMs,
  sampleWalkKey,
  shards,
} from '../../shared/documents';
import { fileKey, textKey } from '../../shared/mirror';
import {
  DAY,
  type DocumentsBed,
  getDoc,
  HOUR,
  objectExists,
  putBody,
  putSource,
  recordFile,
  setFailureStreak,
  startDocumentsBed,
} from '../support/documents-bed';

/**
 * The deletion check against fake councils on loopback, on a fake clock (SPEC DEL-1 … DEL-5, RATE-6,
 * B-1). Each test has its own council host and source, and asserts on that council's requests.
 */
describe('deletion check', () => {
  let bed: DocumentsBed;
  const councils: FakeCouncil[] = [];

  beforeAll(async () => {
    bed = await startDocumentsBed();
  });
  afterAll(async () => {
    await Promise.all(councils.map((c) => c.close()));
    await bed?.close();
  });
  // Each test's source is retired after it (DOC-1 off: the deletion check leaves it alone), so every
  // report and count below belongs to the test's own source.
  const retire: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const r of retire.splice(0)) await r();
  });

  interface Setup {
    council: FakeCouncil;
    sourceId: string;
    bodyId: string;
    docIds: string[];
    url(n: number): string;
  }

  /** A council and source with `count` files stored by the cache; their samples due 7 days later. */
  async function storedSource(
    name: string,
    count: number,
    options: { files?: number; listed?: boolean } = {},
  ): Promise<Setup> {
    const council = await startFakeCouncil({
      hostname: `ris-${name}.test`,
      objectsPerList: { file: options.files ?? count },
    });
    councils.push(council);
    const sourceId = `stadt-${name}`;
    const bodyId = `https://ris-${name}.test/oparl/v1/bodies/1`;
    await putSource(bed, { sourceId, systemUrl: council.systemUrl });
    await putBody(bed, sourceId, { id: bodyId, listed: options.listed ?? true });
    const url = (n: number) => `${council.url}/files/1/${n}.pdf`;
    const docIds: string[] = [];
    for (let n = 1; n <= count; n++) docIds.push(await recordFile(bed, { sourceId, bodyId, url: url(n) }));
    if (options.listed === false) await putBody(bed, sourceId, { id: bodyId, listed: true });
    await runFilesPass(bed.deps, { now: bed.now() });
    if (options.listed === false) await putBody(bed, sourceId, { id: bodyId, listed: false });
    for (const docId of docIds) expect((await getDoc(bed, docId)).state).toBe('stored');
    council.clearRequests();
    retire.push(() => putSource(bed, { sourceId, systemUrl: council.systemUrl, fileFetching: false }));
    return { council, sourceId, bodyId, docIds, url };
  }

  const check = (): Promise<DeletionReport> => runDeletionCheck(bed.deps, { now: bed.now() });
  const fileCalls = (c: FakeCouncil): RecordedRequest[] =>
    c.requests.filter((r) => r.path.startsWith('/files/'));

  it('DEL-2 / B-1: a stored document is HEAD-sampled 7 days on, conditionally; the 304 keeps the copy and places it in its body walk, sampled again a week later without a write', async () => {
    // prepare
    const s = await storedSource('sample', 1);
    const storedDoc = await getDoc(bed, s.docIds[0]!);
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS - HOUR);
    // not yet due: nothing is asked
    await check();
    expect(fileCalls(s.council)).toHaveLength(0);
    bed.clock.advance(HOUR);
    const at = bed.clock.now();
    // act
    await check();
    // assess
    const calls = fileCalls(s.council);
    expect(calls.map((c) => [c.method, c.status])).toEqual([['HEAD', 304]]);
    expect(calls[0]?.ifNoneMatch).toBe(storedDoc.etag);
    const doc = await getDoc(bed, s.docIds[0]!);
    expect(doc).toMatchObject({ state: 'stored', sha256: storedDoc.sha256, lastOutcome: 'PRESENT' });
    // issue 28: its place in the body's walk is the time of week it was sampled at
    expect(doc.nextAttemptAt).toBe(sampleWalkKey(samplePhaseMs(at), s.docIds[0]!));
    // the next sample: not before a week is over, then one conditional HEAD that writes nothing
    s.council.clearRequests();
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS - HOUR);
    await check();
    expect(fileCalls(s.council)).toHaveLength(0);
    bed.clock.advance(HOUR);
    const report = await check();
    expect(fileCalls(s.council).map((c) => [c.method, c.status, c.ifNoneMatch])).toEqual([
      ['HEAD', 304, storedDoc.etag],
    ]);
    expect(report.checks['sample:unchanged']).toBe(1);
    expect(await getDoc(bed, s.docIds[0]!)).toEqual(doc);
  });

  it('DEL-1 / B-1: a document the source changed is re-fetched conditionally — 304 costs nothing, 200 replaces the copy and its text', async () => {
    const s = await storedSource('changed', 2);
    const [same, changed] = s.docIds as [string, string];
    const before = await getDoc(bed, changed);
    // the sync notes a change of both File objects; only file 2's content really changed
    s.council.mutate({ op: 'update', list: 'file', n: 2, set: { name: 'Einladung (geändert)' } });
    await recordFile(bed, {
      sourceId: s.sourceId,
      bodyId: s.bodyId,
      url: s.url(1),
      modified: '2026-03-02T12:00:00+01:00',
    });
    await recordFile(bed, {
      sourceId: s.sourceId,
      bodyId: s.bodyId,
      url: s.url(2),
      modified: '2026-03-02T12:00:00+01:00',
    });
    bed.clock.advance(HOUR);
    const report = await check();
    expect(report.routed['to-refetch']).toBe(2);
    expect(report.checks).toMatchObject({ 'refetch:not-modified': 1, 'refetch:refetched': 1 });
    const calls = fileCalls(s.council).sort((a, b) => a.path.localeCompare(b.path));
    expect(calls.map((c) => [c.method, c.path, c.status, c.conditional])).toEqual([
      ['GET', '/files/1/1.pdf', 304, true],
      ['GET', '/files/1/2.pdf', 200, true],
    ]);
    expect(await getDoc(bed, same)).toMatchObject({ state: 'stored' });
    const after = await getDoc(bed, changed);
    expect(after.sha256).not.toBe(before.sha256);
    expect(after.etag).not.toBe(before.etag);
    // the new version waits for its text (DOC-2), the files run extracts it from the new copy
    expect(after.attemptShard).toBe(shards.text(s.sourceId));
    const files = await runFilesPass(bed.deps, { now: bed.now() });
    expect(files.text.extracted).toBe(1);
    expect(await getDoc(bed, changed)).toMatchObject({ textFor: after.sha256, hasText: true });
  });

  it('DEL-3: gone with 404 → re-checked after 1, 7 and 25 days (HEAD) and 30 days (GET), then our copy and text are deleted', async () => {
    const s = await storedSource('gone', 1);
    const docId = s.docIds[0]!;
    expect(await objectExists(bed, fileKey(s.sourceId, docId))).toBe(true);
    expect(await objectExists(bed, textKey(s.sourceId, docId))).toBe(true);
    s.council.mutate({ op: 'delete', list: 'file', n: 1 });
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    const goneAt = bed.clock.now();
    await check();
    expect(await getDoc(bed, docId)).toMatchObject({ state: 'gone', goneStatus: 404, goneChecks: 0 });
    const expectations: [number, string, string][] = [
      [1, 'HEAD', 'recheck:still-gone'],
      [7, 'HEAD', 'recheck:still-gone'],
      [25, 'HEAD', 'recheck:still-gone'],
      [30, 'GET', 'recheck:deleted'],
    ];
    for (const [days, method, outcome] of expectations) {
      // an hour before the re-check is due: nothing
      bed.clock.timeMs = goneAt + days * DAY - HOUR;
      s.council.clearRequests();
      await check();
      expect(fileCalls(s.council)).toHaveLength(0);
      bed.clock.timeMs = goneAt + days * DAY;
      const report = await check();
      expect(fileCalls(s.council).map((c) => [c.method, c.status])).toEqual([[method, 404]]);
      expect(report.checks[outcome]).toBe(1);
    }
    const doc = await getDoc(bed, docId);
    expect(doc).toMatchObject({ state: 'gone', goneChecks: 4 });
    expect(doc.hasText).toBeUndefined();
    expect(doc.copyDeletedAt).toBeDefined();
    expect(doc.storedKey).toBeUndefined();
    expect(doc.attemptShard).toBeUndefined();
    expect(await objectExists(bed, fileKey(s.sourceId, docId))).toBe(false);
    expect(await objectExists(bed, textKey(s.sourceId, docId))).toBe(false);
    // and it is never asked again
    bed.clock.advance(60 * DAY);
    s.council.clearRequests();
    await check();
    expect(fileCalls(s.council)).toHaveLength(0);
  });

  it('DEL-3: present again at a re-check → the mark is lifted and the copy kept', async () => {
    const s = await storedSource('back', 1);
    const docId = s.docIds[0]!;
    const fault = s.council.setFault('/files/1/1.pdf', { kind: 'status', status: 410 });
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    await check();
    expect(await getDoc(bed, docId)).toMatchObject({ state: 'gone', goneStatus: 410 });
    fault.remove();
    bed.clock.advance(DAY);
    const report = await check();
    expect(report.checks['recheck:lifted']).toBe(1);
    const doc = await getDoc(bed, docId);
    expect(doc).toMatchObject({ state: 'stored', hasText: true });
    expect(doc.goneSince).toBeUndefined();
    expect(doc.attemptShard).toMatch(/^sample#/);
    expect(await objectExists(bed, fileKey(s.sourceId, docId))).toBe(true);
  });

  it('RATE-6: ≥ 2 s between two checks of one server in a run; the GET after an unclear HEAD keeps only the shared pace', async () => {
    const s = await storedSource('pace', 3);
    // HEAD is not allowed on file 3: the sample is unclear and one GET follows
    s.council.setFault((r) => r.method === 'HEAD' && r.path.startsWith('/files/1/3.pdf'), {
      kind: 'status',
      status: 405,
    });
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    const mark = bed.requestTimes.length;
    await check();
    const times = bed.requestTimes
      .slice(mark)
      .filter((r) => r.host === 'ris-pace.test' && r.url.includes('/files/'));
    const seen = times.map((t) => `${t.method} ${new URL(t.url).pathname}`);
    expect([...seen].sort()).toEqual([
      'GET /files/1/3.pdf',
      'HEAD /files/1/1.pdf',
      'HEAD /files/1/2.pdf',
      'HEAD /files/1/3.pdf',
    ]);
    const followUp = seen.indexOf('GET /files/1/3.pdf');
    expect(seen[followUp - 1]).toBe('HEAD /files/1/3.pdf');
    for (let i = 1; i < times.length; i++) {
      const gapMs = (times[i]?.atMs ?? 0) - (times[i - 1]?.atMs ?? 0);
      if (i === followUp) {
        // the follow-up GET: the shared pace (1 s) only
        expect(gapMs).toBeGreaterThanOrEqual(1_000);
        expect(gapMs).toBeLessThan(2_000);
      } else {
        expect(gapMs).toBeGreaterThanOrEqual(2_000);
      }
    }
  });

  it('DEL-4: after a 429 the run asks that server nothing more', async () => {
    const s = await storedSource('busy', 3);
    s.council.setFault('/files/*', { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    const report = await check();
    expect(fileCalls(s.council)).toHaveLength(1);
    expect(report.checks['sample:server-stopped']).toBe(2);
    expect(report.stoppedServers).toContainEqual({ host: 'ris-busy.test', reason: 'HTTP_429 (DEL-4)' });
  });

  it('DEL-4: after five errors in a row the run asks that server nothing more', async () => {
    const s = await storedSource('broken', 7);
    s.council.setFault('/files/*', { kind: 'status', status: 500 });
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    const report = await check();
    expect(fileCalls(s.council)).toHaveLength(5);
    expect(report.checks['sample:server-stopped']).toBe(2);
    expect(report.stoppedServers).toContainEqual({
      host: 'ris-broken.test',
      reason: '5 errors in a row (DEL-4)',
    });
    // the copies stay; the failed samples are tried again a day later
    const docs = await Promise.all(s.docIds.map((id) => getDoc(bed, id)));
    expect(docs.every((d) => d.state === 'stored')).toBe(true);
    expect(docs.filter((d) => d.lastOutcome === 'HTTP_500')).toHaveLength(5);
  });

  it('DEL-4: more than 10 newly gone documents of one source in a run → the source rests for the rest of that run', async () => {
    const s = await storedSource('mass', 13);
    s.council.setFault('/files/*', { kind: 'status', status: 404 });
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    const report = await check();
    expect(fileCalls(s.council)).toHaveLength(11);
    expect(report.checks['sample:gone']).toBe(11);
    expect(report.checks['sample:source-resting']).toBe(2);
    expect(report.restingSources).toContainEqual({ sourceId: s.sourceId, newGone: 11 });
  });

  it(`DEL-2: at most ${DEL_SAMPLES_PER_BODY} samples per body and run, and only for listed bodies`, async () => {
    const s = await storedSource('many', DEL_SAMPLES_PER_BODY + 2);
    const unlisted = await storedSource('hidden', 1, { listed: false });
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    await check();
    expect(fileCalls(s.council)).toHaveLength(DEL_SAMPLES_PER_BODY);
    expect(fileCalls(unlisted.council)).toHaveLength(0);
    // the two left over are sampled by the next run
    s.council.clearRequests();
    bed.clock.advance(HOUR);
    await check();
    expect(fileCalls(s.council)).toHaveLength(2);
  });

  it('DEL-5: an inactive source is still checked; file fetching off or ERR-6 rest → nothing is asked', async () => {
    const inactive = await storedSource('inactive', 1);
    const off = await storedSource('fileoff', 1);
    const resting = await storedSource('resting', 1);
    await putSource(bed, {
      sourceId: inactive.sourceId,
      systemUrl: inactive.council.systemUrl,
      active: false,
    });
    await putSource(bed, { sourceId: off.sourceId, systemUrl: off.council.systemUrl, fileFetching: false });
    await setFailureStreak(bed, resting.sourceId, 3);
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    await check();
    expect(fileCalls(inactive.council)).toHaveLength(1);
    expect(fileCalls(off.council)).toHaveLength(0);
    expect(fileCalls(resting.council)).toHaveLength(0);
  });
});
