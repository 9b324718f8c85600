import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createFeedClients, destroyFeedClients } from '../../shared/changes';
import { documentId, fileUrl, isRecord, withoutEmbedded } from '../../shared/engine';
import { apiIdHash, indexPartition, MirrorStore } from '../../shared/mirror';
import { apiUrls } from '../../shared/mirror-api';
import { listBodies } from '../../shared/onboarding';
import { unpackInline } from '../../shared/store';
import { liftTakedown, purgeDeleted, TAKEDOWN_TAG, tombstoneIds } from '../../shared/takedown';
import { useAwsTestbed } from '../support/aws';
import { injectAwsFaults, untilCrashed } from '../support/aws-faults';
import {
  EMBEDDING_MIRROR,
  getJson,
  paperWrite,
  type ServedMirror,
  seedListedBody,
  servedMirrorSeeds,
  walkList,
  withApi,
} from '../support/mirror-api';
import { killedAfterRecorded, liveEntries, takedownDepsOf } from '../support/takedown';

/**
 * OPT-5 for embedded objects: a File or an AgendaItem taken down by id disappears from the objects
 * that embed it — in the API (by id, on list pages, from inline copies), in the mirror copy in S3, after
 * later syncs, after a purge and a resync — until `takedown lift`. Real peers (dynalite, s3rver, the
 * fake council on loopback, the real sync engine and the real API handler over node:http).
 */

type Obj = Record<string, unknown>;

/** What must appear nowhere once a child is taken down: its ids (origin and ours) and its own words. */
interface Traces {
  strings: string[];
}

function tracesOf(m: Pick<ServedMirror, 'base' | 'h'>, type: string, child: Obj): Traces {
  const urls = apiUrls(m.base);
  const originId = String(child.id);
  const strings = [originId, urls.object(m.h.source.sourceId, type, originId)];
  if (type === 'file') {
    const url = fileUrl(child);
    if (url !== undefined) strings.push(url, urls.document(documentId(url)));
    if (typeof child.fileName === 'string') strings.push(child.fileName);
  }
  return { strings };
}

function leaked(value: unknown, traces: Traces): string[] {
  const text = JSON.stringify(value);
  return traces.strings.filter((s) => text.includes(s));
}

/** A live paper of the body with a main file and at least one auxiliary file, as stored. */
async function paperWithFiles(m: ServedMirror, bodyId: string): Promise<Obj> {
  for (const e of await liveEntries(m.h, bodyId)) {
    if (e.type !== 'paper') continue;
    const object = (await m.h.mirror.read(m.h.source.sourceId, 'paper', e.id))?.object;
    if (isRecord(object) && isRecord(object.mainFile) && Array.isArray(object.auxiliaryFile)) {
      if (object.auxiliaryFile.length > 0) return object;
    }
  }
  throw new Error('no paper with a main file and auxiliary files');
}

async function meetingWithAgenda(m: ServedMirror, bodyId: string): Promise<Obj> {
  for (const e of await liveEntries(m.h, bodyId)) {
    if (e.type !== 'meeting') continue;
    const object = (await m.h.mirror.read(m.h.source.sourceId, 'meeting', e.id))?.object;
    if (isRecord(object) && Array.isArray(object.agendaItem) && object.agendaItem.length > 1) return object;
  }
  throw new Error('no meeting with agenda items');
}

/** The parent as every reader sees it: the API by id, the API's list, and the S3 mirror copy. */
async function everyCopy(m: ServedMirror, base: string, type: string, parent: Obj, bodyId: string) {
  const urls = apiUrls(base);
  const sourceId = m.h.source.sourceId;
  const byId = await getJson(urls.object(sourceId, type, String(parent.id)));
  const list = await walkList(urls.list(sourceId, bodyId, type as 'paper'));
  const listed = list.objects.find((o) => o['mandari:originId'] === parent.id);
  const s3 = await m.h.mirror.read(sourceId, type, String(parent.id));
  return { byId: byId.status === 200 ? byId.json : undefined, listed, s3: s3?.object };
}

/** None of the traces in any copy (API by id, list page, S3). */
function expectGone(copies: Awaited<ReturnType<typeof everyCopy>>, traces: Traces): void {
  for (const copy of [copies.byId, copies.listed, copies.s3]) expect(leaked(copy, traces)).toEqual([]);
}

/** The paper's commit in the index (hash and time): equal when no write happened. */
async function commitOf(m: ServedMirror, object: Obj): Promise<unknown> {
  const [entry] = (
    await m.h.mirror.lookup(m.h.source.sourceId, [{ type: 'paper', id: String(object.id) }])
  ).values();
  return { hash: entry?.hash, fetchedAt: entry?.fetchedAt };
}

describe('withoutEmbedded (pure)', () => {
  it('OPT-5: drops named embedded objects at any depth — array items filtered, a single value removed — and returns the object itself when nothing is named', () => {
    const T = 'https://schema.oparl.org/1.1/';
    const file = (n: number) => ({ id: `f${n}`, type: `${T}File`, name: `Datei ${n}` });
    const meeting = {
      id: 'm1',
      type: `${T}Meeting`,
      invitation: file(1),
      agendaItem: [{ id: 'a1', type: `${T}AgendaItem`, auxiliaryFile: [file(2), file(3)] }],
      location: { id: 'l1', type: `${T}Location`, geojson: { type: 'Feature', properties: { id: 'f2' } } },
    };
    const out = withoutEmbedded(meeting, (id) => id === 'f1' || id === 'f2');
    expect(out).not.toHaveProperty('invitation');
    expect(out.agendaItem).toEqual([{ id: 'a1', type: `${T}AgendaItem`, auxiliaryFile: [file(3)] }]);
    expect(out.location).toBe(meeting.location);
    expect(meeting.invitation).toEqual(file(1));
    expect(withoutEmbedded(meeting, () => false)).toBe(meeting);
  });
});

describe('OPT-5: a taken-down embedded object disappears from the objects that embed it', () => {
  const bed = useAwsTestbed();
  // Three papers and meetings, so each has several files (main, auxiliary) and agenda items.
  const seedMirror = servedMirrorSeeds(bed, EMBEDDING_MIRROR);
  const seed = async (prefix: string) => {
    const m = await seedMirror(prefix);
    // The listed body (koeln); the other is not served.
    const rows = await listBodies(bed.clients.doc, m.tables, m.h.source.sourceId);
    return { m, bodyId: String(rows.find((r) => r.slug === 'koeln')?.id) };
  };
  /** A seeded mirror, a paper of it with files, and its main file with the traces it leaves. */
  const seedPaper = async (prefix: string) => {
    const { m, bodyId } = await seed(prefix);
    const paper = await paperWithFiles(m, bodyId);
    const main = paper.mainFile as Obj;
    return { m, bodyId, paper, main, traces: tracesOf(m, 'file', main), sourceId: m.h.source.sourceId };
  };

  it('OPT-5: tombstone --ids of a paper’s main file and an auxiliary file — the paper (API by id, list page, S3 copy) shows neither, the paper stays', async () => {
    const { m, bodyId } = await seed('emb-file');
    const paper = await paperWithFiles(m, bodyId);
    const main = paper.mainFile as Obj;
    const aux = (paper.auxiliaryFile as Obj[])[0] as Obj;
    const traces = { strings: [...tracesOf(m, 'file', main).strings, ...tracesOf(m, 'file', aux).strings] };
    const before = await everyCopy(m, m.base, 'paper', paper, bodyId);
    // Proof that the traces are real: before the takedown every copy shows both files.
    for (const copy of [before.byId, before.listed, before.s3]) {
      expect(leaked(copy, traces)).toEqual(
        expect.arrayContaining([main.id, main.fileName, aux.id, aux.fileName]),
      );
    }

    const result = await tombstoneIds(takedownDepsOf(bed), [String(main.id), String(aux.id)], {
      by: 'test',
      sourceId: m.h.source.sourceId,
    });
    expect(result.embedders).toBe(1);

    const after = await everyCopy(m, m.base, 'paper', paper, bodyId);
    expect(after.byId).toMatchObject({ 'mandari:originId': paper.id, name: paper.name });
    expectGone(after, traces);
    // A single-valued property is removed, an array keeps the other files.
    expect(after.s3).not.toHaveProperty('mainFile');
    expect((after.s3 as Obj).auxiliaryFile).toHaveLength((paper.auxiliaryFile as Obj[]).length - 1);
  });

  it('OPT-5: tombstone --ids of an agenda item — its meeting (API by id, list page, S3 copy) no longer embeds it', async () => {
    const { m, bodyId } = await seed('emb-agenda');
    const meeting = await meetingWithAgenda(m, bodyId);
    const item = (meeting.agendaItem as Obj[])[1] as Obj;
    const traces = tracesOf(m, 'agendaitem', item);
    await tombstoneIds(takedownDepsOf(bed), [String(item.id)], { by: 'test', sourceId: m.h.source.sourceId });

    const after = await everyCopy(m, m.base, 'meeting', meeting, bodyId);
    expect(after.byId).toMatchObject({ 'mandari:originId': meeting.id });
    expectGone(after, traces);
    expect((after.s3 as Obj).agendaItem).toHaveLength((meeting.agendaItem as Obj[]).length - 1);
  });

  it('OPT-5: later full syncs do not bring the file back into its paper, nor does purge-deleted followed by a resync; `takedown lift` and the next sync restore it', async () => {
    const { m, bodyId, paper, main, traces, sourceId } = await seedPaper('emb-sync');
    const deps = takedownDepsOf(bed);
    await tombstoneIds(deps, [String(main.id)], { by: 'test', sourceId });
    const committed = await commitOf(m, paper);

    // The council still publishes the paper with the file embedded; a full sync reads it again.
    expect((await m.h.sync('full')).complete).toBe(true);
    let copies = await everyCopy(m, m.base, 'paper', paper, bodyId);
    expectGone(copies, traces);
    // The sync computes the hash the takedown's rewrite stored: the paper is unchanged, not rewritten.
    expect(await commitOf(m, paper)).toEqual(committed);

    await purgeDeleted(deps, 'koeln', { sourceId, yes: true });
    expect(await m.h.mirror.read(sourceId, 'file', String(main.id))).toBeUndefined();
    expect((await m.h.sync('full')).complete).toBe(true);
    copies = await everyCopy(m, m.base, 'paper', paper, bodyId);
    expectGone(copies, traces);

    await liftTakedown(deps, { ids: [String(main.id)], sourceId, by: 'test' }, () => {});
    expect((await m.h.sync('full')).complete).toBe(true);
    // A fresh API instance (the serve-time cache of takedowns is per instance, BODIES_TTL_MS).
    await withApi(bed, async (api) => {
      copies = await everyCopy(m, api.base, 'paper', paper, bodyId);
      const restored = tracesOf({ ...m, base: api.base }, 'file', main);
      for (const copy of [copies.byId, copies.listed, copies.s3]) {
        expect(leaked(copy, restored)).toEqual(expect.arrayContaining([main.id, main.fileName]));
      }
      expect(leaked(copies.byId, restored)).toContain(restored.strings[1]);
    });
  });

  it('OPT-5: tombstone killed after its registry item — the API already hides the file inside its paper; the next sync rewrites the stored paper', async () => {
    const { m, bodyId, paper, main, traces, sourceId } = await seedPaper('emb-killed');
    await killedAfterRecorded((afterRecorded) =>
      tombstoneIds(takedownDepsOf(bed), [String(main.id)], { by: 'test', sourceId, afterRecorded }),
    );
    // Nothing of the mirror was touched: S3 still holds the paper with its file …
    let copies = await everyCopy(m, m.base, 'paper', paper, bodyId);
    expect(leaked(copies.s3, traces)).toEqual(expect.arrayContaining([main.id, main.fileName]));
    // … yet the API serves it without (defence in depth: the registry, read at serve time) — and not
    // the file itself either, whose own index entry was never marked.
    for (const copy of [copies.byId, copies.listed]) expect(leaked(copy, traces)).toEqual([]);
    expect((await getJson(apiUrls(m.base).object(sourceId, 'file', String(main.id)))).status).toBe(404);

    expect((await m.h.sync('full')).complete).toBe(true);
    copies = await everyCopy(m, m.base, 'paper', paper, bodyId);
    expectGone(copies, traces);
  });

  it('OPT-5: tombstone of a paper killed after its registry item — the API serves it neither by id nor in its list, and filtered lists show only the bare deletion', async () => {
    const { m, bodyId, paper, sourceId } = await seedPaper('emb-killed-paper');
    await killedAfterRecorded((afterRecorded) =>
      tombstoneIds(takedownDepsOf(bed), [String(paper.id)], { by: 'test', sourceId, afterRecorded }),
    );
    const urls = apiUrls(m.base);
    const traces = tracesOf(m, 'paper', paper);
    expect((await getJson(urls.object(sourceId, 'paper', String(paper.id)))).status).toBe(404);
    const list = await walkList(urls.list(sourceId, bodyId, 'paper'));
    expect(list.objects.length).toBeGreaterThan(0);
    expect(leaked(list.objects, traces)).toEqual([]);
    const since = new URL(urls.list(sourceId, bodyId, 'paper'));
    since.searchParams.set('modified_since', '2000-01-01T00:00:00Z');
    const filtered = await walkList(since.toString());
    const stub = filtered.objects.find((o) => o.id === urls.object(sourceId, 'paper', String(paper.id)));
    expect(stub && Object.keys(stub).sort()).toEqual(['deleted', 'id', 'modified', 'type']);
  });

  it('OPT-5: tombstone crashes right after committing the file’s tombstone (before its paper) — the API hides the file at once, re-running rewrites the paper', async () => {
    const { m, bodyId, paper, main, traces, sourceId } = await seedPaper('emb-crash');
    const clients = createFeedClients(bed.env);
    try {
      const faults = injectAwsFaults(clients);
      // The file's sealed record (tagged as a takedown) lands; the process dies before hearing back.
      faults.crashAfter({
        service: 's3',
        command: /PutObject/,
        when: (input) => input.Tagging === TAKEDOWN_TAG,
      });
      const doomed = { ...takedownDepsOf(bed), clients };
      await untilCrashed(faults, tombstoneIds(doomed, [String(main.id)], { by: 'test', sourceId }));
      expect(await m.h.mirror.readLive(sourceId, 'file', String(main.id))).toBeUndefined();
      let copies = await everyCopy(m, m.base, 'paper', paper, bodyId);
      expect(leaked(copies.s3, traces)).toEqual(expect.arrayContaining([main.id, main.fileName]));
      for (const copy of [copies.byId, copies.listed]) expect(leaked(copy, traces)).toEqual([]);

      const again = await tombstoneIds(takedownDepsOf(bed), [String(main.id)], { by: 'test', sourceId });
      expect(again).toMatchObject({ alreadyDeleted: 1, embedders: 1 });
      copies = await everyCopy(m, m.base, 'paper', paper, bodyId);
      expectGone(copies, traces);
    } finally {
      destroyFeedClients(clients);
    }
  });

  it('OPT-5: a small parent served inline from its index item drops a taken-down file too (list page and index copy)', async () => {
    const sourceId = 'emb-inline';
    const origin = 'https://ris-emb-inline.test/oparl';
    const bodyId = `${origin}/body/1`;
    await seedListedBody(bed, sourceId, bodyId, '2024-06-01T08:00:00.000Z');
    const file = {
      id: `${origin}/file/7`,
      type: 'https://schema.oparl.org/1.1/File',
      fileName: 'geheim-7.pdf',
      accessUrl: `${origin}/files/7.pdf`,
    };
    const write = paperWrite(sourceId, bodyId, 1, '2024-06-01T08:00:00.000Z', { mainFile: file });
    const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
    await mirror.writeLive(write);
    await mirror.writeLive({ ...write, type: 'file', id: file.id, object: file, embeddedIn: write.id });
    // The paper's index item with its inline copy unpacked (issue 28: stored packed), so that a leak in
    // the copy is seen.
    const index = async () => {
      const item = (
        await bed.clients.doc.send(
          new GetCommand({
            TableName: bed.env.STATE_TABLE,
            Key: { pk: indexPartition(sourceId, 'paper'), sk: apiIdHash(write.id) },
          }),
        )
      ).Item;
      return item?.o === undefined ? item : { ...item, o: unpackInline(item.o) };
    };
    expect(JSON.stringify((await index())?.o)).toContain(file.id);
    await withApi(bed, async (api) => {
      const m = { base: api.base, h: { source: { sourceId } } } as ServedMirror;
      const traces = tracesOf(m, 'file', file);
      await tombstoneIds(takedownDepsOf(bed), [file.id], { by: 'test', sourceId });
      const reads = api.reader.consumed.objectReads;
      const page = await getJson(apiUrls(api.base).list(sourceId, bodyId, 'paper'));
      expect(api.reader.consumed.objectReads).toBe(reads);
      expect((page.json.data as Obj[]).map((o) => o['mandari:originId'])).toEqual([write.id]);
      expect(leaked(page.json, traces)).toEqual([]);
      expect(leaked(await index(), traces)).toEqual([]);
    });
  });
});
