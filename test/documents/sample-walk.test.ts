import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import {
  DEL_SAMPLE_INTERVAL_MS,
  DEL_WALK_CHECKPOINT,
  type DeletionReport,
  runDeletionCheck,
  runFilesPass,
  WALK_KEY_PREFIX,
} from '../../shared/documents';
import { DocumentItems } from '../../shared/store';
import {
  type DocumentsBed,
  getDoc,
  HOUR,
  putBody,
  putSource,
  recordFile,
  startDocumentsBed,
} from '../support/documents-bed';

/**
 * Issue 28, DEL-2: the sample walk — a stored document keeps its place in its body's weekly walk, so
 * an unchanged sample writes nothing of its own; the walk's cursor is one small item written per
 * checkpoint. Real local DynamoDB and S3, fake councils on loopback, a fake clock. Crashes and lost
 * writes are injected by a middleware on the real DynamoDB client (the peer itself is untouched).
 */
describe('DEL-2 sample walk', () => {
  let bed: DocumentsBed;
  const councils: FakeCouncil[] = [];
  const retire: (() => Promise<void>)[] = [];

  /** Document-table writes by key (`docId`), seen by a middleware on the real client. */
  let writes: string[] = [];
  /** When set, decides whether a DynamoDB write fails as if the process had died before it. */
  let crashWrite: ((key: string) => boolean) | undefined;
  const CRASH = 'process died (injected)';

  beforeAll(async () => {
    bed = await startDocumentsBed();
    bed.aws.clients.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? '';
        if (/^(Put|Update|Delete)/.test(name)) {
          const input = args.input as { Item?: { docId?: unknown }; Key?: { docId?: unknown } };
          const raw = input.Item?.docId ?? input.Key?.docId;
          const key = String((raw as { S?: string } | undefined)?.S ?? raw ?? '');
          if (crashWrite?.(key)) throw new Error(CRASH);
          const out = await next(args);
          writes.push(key);
          return out;
        }
        return next(args);
      },
      { step: 'initialize', name: 'sampleWalkWrites' },
    );
  });
  afterAll(async () => {
    await Promise.all(councils.map((c) => c.close()));
    await bed?.close();
  });
  afterEach(async () => {
    crashWrite = undefined;
    for (const r of retire.splice(0)) await r();
  });

  /** A council and source with `perHour` files stored in each of `hours` consecutive hours. */
  async function storedSource(name: string, perHour: number, hours = 1) {
    const files = perHour * hours;
    const council = await startFakeCouncil({ hostname: `ris-${name}.test`, objectsPerList: { file: files } });
    councils.push(council);
    const sourceId = `stadt-${name}`;
    const bodyId = `https://ris-${name}.test/oparl/v1/bodies/1`;
    await putSource(bed, { sourceId, systemUrl: council.systemUrl });
    await putBody(bed, sourceId, { id: bodyId, listed: true });
    const docIds: string[] = [];
    for (let hour = 0; hour < hours; hour++) {
      if (hour > 0) bed.clock.advance(HOUR);
      for (let n = 1; n <= perHour; n++) {
        const url = `${council.url}/files/1/${hour * perHour + n}.pdf`;
        docIds.push(await recordFile(bed, { sourceId, bodyId, url }));
      }
      await runFilesPass(bed.deps, { now: bed.now() });
    }
    for (const docId of docIds) expect((await getDoc(bed, docId)).state).toBe('stored');
    council.clearRequests();
    retire.push(() => putSource(bed, { sourceId, systemUrl: council.systemUrl, fileFetching: false }));
    const urlOf = new Map(
      await Promise.all(
        docIds.map(async (id) => [new URL((await getDoc(bed, id)).url).pathname, id] as const),
      ),
    );
    /** Document ids HEADed at the council, in order. */
    const heads = () =>
      council.requests.filter((r) => r.method === 'HEAD').map((r) => urlOf.get(r.path) ?? r.path);
    return { council, sourceId, docIds, heads };
  }

  const STEP = 6 * HOUR;
  const check = (): Promise<DeletionReport> => runDeletionCheck(bed.deps, { now: bed.now() });

  it('DEL-2: every stored file is sampled once in each weekly interval; an unchanged sample writes no document, the cursor ≤ one write a run', async () => {
    // prepare: 4 files stored in each of 3 hours, then checks every 6 hours for three weeks (the hours
    // between skipped as if the function had not run: the walk covers whatever the clock passed)
    const s = await storedSource('walk-all', 4, 3);
    const startMs = bed.clock.now();
    const headsAt = new Map<string, number[]>();
    let runs = 0;
    let docWritesLastWeek = 0;
    let cursorWritesLastWeek = 0;
    for (let t = 0; t <= 3 * DEL_SAMPLE_INTERVAL_MS; t += STEP) {
      bed.clock.timeMs = startMs + t;
      const before = s.heads().length;
      writes = [];
      await check();
      runs += 1;
      for (const docId of s.heads().slice(before)) headsAt.set(docId, [...(headsAt.get(docId) ?? []), t]);
      if (t > 2 * DEL_SAMPLE_INTERVAL_MS) {
        docWritesLastWeek += writes.filter((k) => s.docIds.includes(k)).length;
        cursorWritesLastWeek += writes.filter(
          (k) => k.startsWith(WALK_KEY_PREFIX) && k.includes(s.sourceId),
        ).length;
      }
    }
    // assess: every file HEADed once a week (the first at ≈ 7 days after it was stored), never twice
    // within an interval
    for (const docId of s.docIds) {
      const times = headsAt.get(docId) ?? [];
      expect(
        times.map((t) => t / HOUR),
        docId,
      ).toHaveLength(3);
      for (let i = 1; i < times.length; i++) {
        const gap = (times[i] ?? 0) - (times[i - 1] ?? 0);
        expect(gap).toBeGreaterThanOrEqual(DEL_SAMPLE_INTERVAL_MS - STEP);
        expect(gap).toBeLessThanOrEqual(DEL_SAMPLE_INTERVAL_MS + STEP);
      }
    }
    // the third week: 12 unchanged samples, no document written; the cursor at most once a run
    expect(docWritesLastWeek).toBe(0);
    expect(cursorWritesLastWeek).toBeGreaterThan(0);
    expect(cursorWritesLastWeek).toBeLessThanOrEqual(3);
    expect(runs).toBe(3 * 28 + 1);
    // the walked documents still name their place in the walk
    for (const docId of s.docIds) expect((await getDoc(bed, docId)).nextAttemptAt).toMatch(/^walk#/);
  }, 300_000);

  it('DEL-2: a run that dies mid-walk is resumed from its last checkpoint — no file skipped, at most one checkpoint of HEADs repeated', async () => {
    // prepare: 25 files, sampled once (into the walk), then their second round due in one run
    const s = await storedSource('walk-crash', 25);
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    await check();
    expect(new Set(s.heads()).size).toBe(25);
    s.council.clearRequests();
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    // act: the process dies three HEADs after the walk's first checkpoint landed — every write from
    // then on fails (the run's later HEADs are what a dead process would not have sent: not counted)
    let headsAtCheckpoint: number | undefined;
    let headsAtCrash: number | undefined;
    crashWrite = (key) => {
      const heads = s.heads().length;
      if (headsAtCrash === undefined && headsAtCheckpoint !== undefined && heads >= headsAtCheckpoint + 3)
        headsAtCrash = headsAtCheckpoint + 3;
      if (headsAtCrash !== undefined) return true;
      if (key.startsWith(WALK_KEY_PREFIX) && key.includes(s.sourceId)) headsAtCheckpoint = heads;
      return false;
    };
    await check().catch((error: Error) => expect(error.message).toBe(CRASH));
    crashWrite = undefined;
    expect(headsAtCheckpoint).toBeGreaterThanOrEqual(DEL_WALK_CHECKPOINT);
    const beforeCrash = s.heads().slice(0, headsAtCrash ?? s.heads().length);
    s.council.clearRequests();
    bed.clock.advance(HOUR);
    await check();
    const resumed = s.heads();
    // assess: together every file, each at most twice; the repeated ones are fewer than a checkpoint
    expect(new Set([...beforeCrash, ...resumed])).toEqual(new Set(s.docIds));
    const repeated = resumed.filter((d) => beforeCrash.includes(d));
    expect(repeated.length).toBeLessThanOrEqual(DEL_WALK_CHECKPOINT);
    expect(new Set(resumed).size).toBe(resumed.length);
    // and the walk is past them all: the next hour asks nothing
    s.council.clearRequests();
    bed.clock.advance(HOUR);
    await check();
    expect(s.heads()).toEqual([]);
  });

  it('OPT-2 / OPT-3 with DEL-2: a taken-down or purged document is never HEADed by the walk, under duplicate delivery and after a crash', async () => {
    const s = await storedSource('walk-takedown', 6);
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    await check();
    expect(new Set(s.heads()).size).toBe(6);
    s.council.clearRequests();
    const [takenDown, purged] = s.docIds as [string, string];
    const items = new DocumentItems({ doc: bed.aws.clients.doc, table: bed.aws.env.DOCUMENTS_TABLE });
    await items.flagTakenDown(takenDown, bed.now().toISOString());
    await items.delete(purged);
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    // act: a crashed run (every cursor write lost), then the same run delivered twice at once
    crashWrite = (key) => key.startsWith(WALK_KEY_PREFIX);
    await check().catch((error: Error) => expect(error.message).toBe(CRASH));
    crashWrite = undefined;
    const [a, b] = await Promise.all([check(), check()]);
    // assess: neither is ever asked; each other file at most once a run (three runs)
    const heads = s.heads();
    expect(heads).not.toContain(takenDown);
    expect(heads).not.toContain(purged);
    for (const docId of s.docIds.slice(2)) {
      const n = heads.filter((d) => d === docId).length;
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(3);
    }
    expect((a.checks['sample:taken-down'] ?? 0) + (b.checks['sample:taken-down'] ?? 0)).toBeLessThanOrEqual(
      1,
    );
    // the taken-down document left the walk (no queue), the purged one stays gone
    const left = await getDoc(bed, takenDown);
    expect(left.attemptShard).toBeUndefined();
    expect(await bed.store.get(purged)).toBeUndefined();
    // and once a run got through, the next hour asks nothing
    s.council.clearRequests();
    bed.clock.advance(HOUR);
    await check();
    expect(s.heads()).toEqual([]);
  });
});
