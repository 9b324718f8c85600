import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../../shared/changes';
import {
  asPublished,
  documentId,
  embeddingTakenDown,
  MirrorWriter,
  type OParlObject,
  type PageObject,
  PageTakedowns,
  SyncStateStore,
  type SyncTables,
  stampedWhenSeen,
  syncTablesFromEnv,
} from '../../shared/engine';
import { lookupKey, type MirrorIndexEntry, MirrorStore } from '../../shared/mirror';
import { TakedownGuard, TakedownRegistry } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { countCalls } from '../support/write-counter';

/**
 * The mirror write path every source kind shares (issue 15), against the real local peers: dynalite for
 * the index, State and Documents, s3rver for the records. The takedown guard is the real one.
 */
const T0 = Date.parse('2030-03-02T09:00:00Z');
const BODY = { id: 'https://ris.example/body/1', bodyKey: 'b1', listed: true };
const PAPER = 'https://schema.oparl.org/1.1/Paper';
const FILE = 'https://schema.oparl.org/1.1/File';

/**
 * A paper of the page with its main file and an auxiliary file embedded, and the files as the page
 * holds them (the OParl engine adds every embedded object to the page).
 */
function paperWithFiles(n: number, name: string, modified: string): PageObject[] {
  const id = `https://ris.example/paper/${n}`;
  const file = (k: string) => ({
    id: `https://ris.example/file/${n}${k}`,
    type: FILE,
    fileName: `${n}${k}.pdf`,
  });
  const [main, aux] = [file(''), file('-anlage')];
  return [
    { type: 'paper', id, object: { id, type: PAPER, name, modified, mainFile: main, auxiliaryFile: [aux] } },
    ...[main, aux].map((f) => ({ type: 'file', id: f.id, object: f, embedded: true, parentId: id })),
  ];
}

describe('OPT-5 (pure): what a page treats as taken down', () => {
  const entry = (id: string, takedown?: { at: string; by: string }) =>
    ({ id, type: 'file', ...(takedown ? { takedown } : {}) }) as MirrorIndexEntry;
  it('an entry the lookup found marked, an object whose commit met a mark, and what the guard covers', () => {
    const index = new Map([
      ['file\na', entry('a', { at: 't', by: 'op' })],
      ['file\nb', entry('b')],
    ]);
    const takenDown = new PageTakedowns(index, { covers: (s) => (s.id === 'c' ? 'mark' : undefined) });
    takenDown.met('d');
    expect(['a', 'b', 'c', 'd'].filter(takenDown.has)).toEqual(['a', 'c', 'd']);
  });
  it('a committed object still embedding a taken-down one is stale; one embedding none of them is not', () => {
    const [page] = paperWithFiles(1, 'A', '2030-01-01T10:00:00+01:00') as [PageObject];
    const committed = [{ object: page, committed: page.object }];
    expect(embeddingTakenDown(committed, (id) => id === 'https://ris.example/file/1')).toEqual(committed);
    expect(embeddingTakenDown(committed, (id) => id === 'https://ris.example/file/2')).toEqual([]);
  });
});

function paper(id: string, name: string, modified?: string): PageObject {
  const object: OParlObject = { id, type: PAPER, name, ...(modified ? { modified } : {}) };
  return { type: 'paper', id, object };
}

describe('MirrorWriter: one page of objects into the mirror', () => {
  let bed: AwsTestbed;
  let tables: SyncTables;
  let mirror: MirrorStore;
  let n = 0;

  beforeAll(async () => {
    bed = await startAwsTestbed();
    tables = syncTablesFromEnv(bed.env);
    mirror = new MirrorStore(bed.clients, { bucket: tables.bucket, stateTable: tables.state });
  });
  afterAll(async () => {
    await bed?.stop();
  });

  /**
   * A writer of a fresh source with a real takedown guard, a settable clock and its totals; writer and
   * guard on the testbed's clients unless given others.
   */
  async function writerFor(clients: Pick<FeedClients, 'doc' | 's3'> = bed.clients) {
    n += 1;
    const sourceId = `writer-${n}`;
    const clock = { ms: T0 };
    const totals = { new: 0, modified: 0, deleted: 0, documents: 0 };
    const state = new SyncStateStore(bed.clients, tables.state, sourceId);
    const guard = new TakedownGuard({ clients, bucket: tables.bucket, stateTable: tables.state }, sourceId);
    await guard.load();
    const writer = new MirrorWriter({
      clients,
      tables,
      sourceId,
      guard,
      sessionDays: state,
      totals: () => totals,
      nowMs: () => clock.ms,
    });
    const registry = new TakedownRegistry(bed.clients.doc, tables.state);
    const entry = async (type: string, id: string) =>
      (await mirror.lookup(sourceId, [{ type, id }], { consistent: true })).get(lookupKey(type, id));
    return { sourceId, clock, totals, state, guard, writer, registry, entry };
  }

  it('OPT-2 / asPublished: new, unchanged, modified; a stale or abridged copy never rolls back; deleted keeps the last good copy', async () => {
    const w = await writerFor();
    const page = (objects: PageObject[]) =>
      w.writer.writePage({ objects, url: 'https://ris.example/papers', body: BODY, versioning: asPublished });
    const id = 'https://ris.example/paper/1';

    expect((await page([paper(id, 'A', '2030-01-01T10:00:00+01:00')])).changed).toBe(1);
    expect((await page([paper(id, 'A', '2030-01-01T10:00:00+01:00')])).changed).toBe(0);
    expect((await page([paper(id, 'B', '2030-02-01T10:00:00+01:00')])).changed).toBe(1);
    // A stale list page (older `modified`) and an embedded copy without a newer one leave ours alone.
    expect((await page([paper(id, 'stale', '2030-01-15T10:00:00+01:00')])).changed).toBe(0);
    expect(
      (await page([{ ...paper(id, 'abridged', '2030-02-01T10:00:00+01:00'), embedded: true }])).changed,
    ).toBe(0);
    expect((await mirror.read(w.sourceId, 'paper', id))?.object).toMatchObject({ name: 'B' });
    expect((await w.entry('paper', id))?.modified).toBe('2030-02-01T10:00:00+01:00');

    const gone = { ...paper(id, 'B'), object: { id, type: PAPER, deleted: true } };
    expect((await page([gone])).changed).toBe(1);
    expect((await page([gone])).changed).toBe(0);
    const record = await mirror.read(w.sourceId, 'paper', id);
    expect(record?.meta.deleted).toBe(true);
    expect(record?.meta.lastGood).toMatchObject({ name: 'B' });
    expect(w.totals).toEqual({ new: 1, modified: 1, deleted: 1, documents: 0 });
  });

  it('ISSUE-8 / stampedWhenSeen: compared without `modified`, stamped with when the change was seen', async () => {
    const w = await writerFor();
    const id = 'https://ris.example/to010?SILFDNR=7';
    const page = (name: string) =>
      w.writer.writePage({
        objects: [{ type: 'meeting', id, object: { id, type: 'Meeting', name } }],
        url: 'https://ris.example/si010',
        body: BODY,
        versioning: stampedWhenSeen,
      });
    expect((await page('Rat')).changed).toBe(1);
    const seen = new Date(T0).toISOString();
    expect((await mirror.read(w.sourceId, 'meeting', id))?.object).toMatchObject({
      name: 'Rat',
      modified: seen,
    });
    // The same content an hour later: nothing is written although the stamp would differ.
    w.clock.ms += 3_600_000;
    expect((await page('Rat')).changed).toBe(0);
    expect((await page('Rat (geändert)')).changed).toBe(1);
    const entry = await w.entry('meeting', id);
    expect(entry?.modified).toBe(new Date(w.clock.ms).toISOString());
    expect(w.totals).toMatchObject({ new: 1, modified: 1 });
  });

  it('write scopes: stubs (`absent`) never overwrite and report what they created; tombstones (`known`) need a copy', async () => {
    const w = await writerFor();
    const owner = paper('https://ris.example/paper/9', 'owner copy');
    await w.writer.writePage({ objects: [owner], url: 'p', body: BODY, versioning: stampedWhenSeen });
    const org = { type: 'organization', id: 'https://ris.example/org/1', object: { id: 'o', name: 'Rat' } };
    const stubs = await w.writer.writePage({
      objects: [paper(owner.id, 'stub copy'), org],
      url: 's',
      body: BODY,
      versioning: stampedWhenSeen,
      scope: 'absent',
    });
    expect(stubs.created.map((o) => o.id)).toEqual([org.id]);
    expect((await mirror.read(w.sourceId, 'paper', owner.id))?.object).toMatchObject({ name: 'owner copy' });

    const tombstone = (id: string) => ({ type: 'paper', id, object: { id, type: PAPER, deleted: true } });
    const never = await w.writer.writePage({
      objects: [tombstone('https://ris.example/paper/never-seen')],
      url: 't',
      body: BODY,
      versioning: stampedWhenSeen,
      scope: 'known',
    });
    expect(never.changed).toBe(0);
    expect(await w.entry('paper', 'https://ris.example/paper/never-seen')).toBeUndefined();
    const known = await w.writer.writePage({
      objects: [tombstone(owner.id)],
      url: 't',
      body: BODY,
      versioning: stampedWhenSeen,
      scope: 'known',
    });
    expect(known.changed).toBe(1);
    expect((await w.entry('paper', owner.id))?.deleted).toBe(true);
    expect(w.totals).toMatchObject({ new: 2, deleted: 1 });
  });

  it('DOC-7 / SCH-2: a file of a body becomes a Document, a meeting notes its session day; without a body, neither', async () => {
    const w = await writerFor();
    const fileUrl = 'https://ris.example/files/1.pdf';
    const file = { type: 'file', id: 'https://ris.example/file/1', object: { id: 'f1', accessUrl: fileUrl } };
    const meeting = {
      type: 'meeting',
      id: 'https://ris.example/meeting/1',
      object: { id: 'm1', start: '2030-03-10T17:00:00+01:00' },
    };
    await w.writer.writePage({
      objects: [file, meeting],
      url: 'p',
      body: undefined,
      versioning: asPublished,
    });
    const documentOf = async () =>
      (
        await bed.clients.doc.send(
          new GetCommand({ TableName: tables.documents, Key: { docId: documentId(fileUrl) } }),
        )
      ).Item;
    expect(await documentOf()).toBeUndefined();
    expect(await w.state.upcomingSessionDays('2030-03-02')).toEqual([]);

    const other = (o: PageObject) => ({ ...o, id: `${o.id}/b`, object: { ...o.object, name: 'x' } });
    await w.writer.writePage({
      objects: [other(file), other(meeting)],
      url: 'p',
      body: BODY,
      versioning: asPublished,
    });
    expect(await documentOf()).toMatchObject({ sourceId: w.sourceId, bodyId: BODY.id, listed: true });
    expect(await w.state.upcomingSessionDays('2030-03-02')).toEqual(['2030-03-10']);
    expect(w.totals.documents).toBe(1);
  });

  it('OPT-5: a subject the registry covers is not written; one taken down before the page committed is sealed after it', async () => {
    const w = await writerFor();
    const mark = { at: new Date(T0).toISOString(), by: 'test' };
    const covered = paper('https://ris.example/paper/covered', 'covered');
    await w.registry.record({ sourceId: w.sourceId, scope: 'object', id: covered.id, mark });
    await w.guard.load();
    const first = await w.writer.writePage({
      objects: [covered],
      url: 'p',
      body: BODY,
      versioning: asPublished,
    });
    expect(first.changed).toBe(0);
    expect(await w.entry('paper', covered.id)).toBeUndefined();

    // Recorded after the guard loaded (a `tombstone` racing the run): the page writes the new object,
    // then re-reads the registry for what it created and seals it.
    const raced = paper('https://ris.example/paper/raced', 'raced');
    await w.registry.record({ sourceId: w.sourceId, scope: 'object', id: raced.id, mark });
    const second = await w.writer.writePage({
      objects: [raced],
      url: 'p',
      body: BODY,
      versioning: asPublished,
    });
    expect(second.created.map((o) => o.id)).toEqual([raced.id]);
    expect(await w.entry('paper', raced.id)).toMatchObject({ deleted: true, takedown: mark });
    expect((await mirror.read(w.sourceId, 'paper', raced.id))?.meta.deleted).toBe(true);
    expect(w.guard.sealed).toBe(1);
  });

  it('OPT-5 cost: a page that committed objects embedding others reads the registry once more — an unchanged page, or one of objects embedding nothing, none; a file marked before the lookup leaves its paper at the first commit, one recorded after it at a second', async () => {
    // Writer and guard on clients of their own, so the calls counted are exactly the page's.
    const clients: FeedClients = createFeedClients(bed.env);
    try {
      const counted = countCalls(clients.dynamo);
      const paperId = 'https://ris.example/paper/1';
      const fileId = 'https://ris.example/file/1';
      const [v1, v2, v3] = [
        '2030-01-01T10:00:00+01:00',
        '2030-02-01T10:00:00+01:00',
        '2030-03-01T10:00:00+01:00',
      ];
      const mark = { at: new Date(T0).toISOString(), by: 'op' };
      /** One page; its index lookups, registry reads and index commits, in order. */
      const write = async (w: Awaited<ReturnType<typeof writerFor>>, objects: PageObject[]) => {
        counted.reset();
        await w.writer.writePage({ objects, url: 'p', body: BODY, versioning: asPublished });
        return counted
          .calls()
          .map((c) => c.command)
          .filter((c) => c === 'BatchGetItem' || c === 'Query' || c === 'PutItem')
          .join(' ');
      };
      const stored = async (sourceId: string) =>
        JSON.stringify((await mirror.read(sourceId, 'paper', paperId))?.object);

      const w = await writerFor(clients);
      // New: the registry read for created entries was made before this change too.
      expect(await write(w, paperWithFiles(1, 'A', v1))).toBe('BatchGetItem PutItem PutItem PutItem Query');
      // Unchanged: the lookup only.
      expect(await write(w, paperWithFiles(1, 'A', v1))).toBe('BatchGetItem');
      // A modified file alone (it embeds nothing): no read.
      const [, file] = paperWithFiles(1, 'A', v1) as [PageObject, PageObject];
      const renamed = { ...file, embedded: false, object: { ...file.object, name: 'neu', modified: v2 } };
      expect(await write(w, [renamed])).toBe('BatchGetItem PutItem');
      // A modified paper embedding a file: one registry read more — the whole cost of the check.
      expect(await write(w, paperWithFiles(1, 'B', v2).slice(0, 1))).toBe('BatchGetItem PutItem Query');

      // A `tombstone` of the file ran before the lookup (registry item, then mark), after the guard's
      // load: the lookup's mark drops the file at the first commit.
      await w.registry.record({ sourceId: w.sourceId, scope: 'object', id: fileId, mark });
      await mirror.markTakenDown((await w.entry('file', fileId)) as MirrorIndexEntry, mark);
      expect(await write(w, paperWithFiles(1, 'C', v3))).toBe('BatchGetItem PutItem Query');
      expect(await stored(w.sourceId)).toContain('"name":"C"');
      expect(await stored(w.sourceId)).not.toContain(JSON.stringify(fileId));

      // Only its registry item, recorded after the guard's load (a command killed after it, or one
      // racing the commit): the paper is committed with the file, the read finds it, the paper is
      // committed again without it (after a consistent lookup), and one more read finds nothing new.
      const w2 = await writerFor(clients);
      await write(w2, paperWithFiles(1, 'A', v1));
      await w2.registry.record({ sourceId: w2.sourceId, scope: 'object', id: fileId, mark });
      expect(await write(w2, paperWithFiles(1, 'B', v2))).toBe(
        'BatchGetItem PutItem Query BatchGetItem PutItem Query',
      );
      expect(await stored(w2.sourceId)).toContain('"name":"B"');
      expect(await stored(w2.sourceId)).not.toContain(JSON.stringify(fileId));
      // Counted once: the commit again is no change of the source's.
      expect(w2.totals).toMatchObject({ new: 3, modified: 1 });
    } finally {
      destroyFeedClients(clients);
    }
  });
});
