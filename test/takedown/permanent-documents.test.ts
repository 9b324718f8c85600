import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../shared/config/env';
import { runDeletionCheck, runFilesPass, runPhotosPass } from '../../shared/documents';
import { deleteObjects } from '../../shared/documents/objects';
import { embeddedObjects, isRecord } from '../../shared/engine';
import { fileKey, textKey } from '../../shared/mirror/keys';
import { createTestResolver } from '../../shared/net';
import { setBodyListed } from '../../shared/onboarding';
import { composePreview, type PreviewRuntime } from '../../shared/preview';
import { putSourceItem } from '../../shared/store/sources';
import { purgeDeleted, tombstoneBody, tombstoneIds } from '../../shared/takedown';
import { type DocumentsBed, keysUnder, startDocumentsBed } from '../support/documents-bed';
import {
  beforeFirstWriteTo,
  documentsOf,
  killedAfterRecorded,
  liveEntries,
  type SeededSource,
  seedSyncedSource,
  setDocument,
} from '../support/takedown';

/**
 * OPT-5 for the functions that fetch files: the document cache and text extraction (files pass), the
 * deletion check, the photo pass and the preview never fetch, store or serve a taken-down object —
 * after a purge, and when the takedown's flags on the Documents items never got written. Real peers:
 * dynalite, s3rver, the fake council on loopback, the real polite fetcher on a fake clock.
 */
describe('OPT-5: document functions and preview leave a taken-down object alone', () => {
  let bed: DocumentsBed;
  let preview: PreviewRuntime;
  const seeded: SeededSource[] = [];
  beforeAll(async () => {
    bed = await startDocumentsBed();
    const env = parseEnv({ ...bed.aws.peers.env, INGESTOR_ALLOW_LOOPBACK: 'true' });
    preview = await composePreview(env, { clients: bed.aws.clients, resolver: createTestResolver() });
  });
  afterAll(async () => {
    await Promise.all(seeded.map((s) => s.council.close()));
    await preview.close();
    await bed.close();
  });

  async function seedWithPhotos(prefix: string) {
    const s = await seedSyncedSource(bed.aws, prefix);
    seeded.push(s);
    const koeln = s.bodies.find((b) => b.slug === 'koeln');
    if (!koeln) throw new Error('no koeln');
    await putSourceItem(bed.aws.clients.doc, bed.aws.env.SOURCES_TABLE, {
      sourceId: s.sourceId,
      systemUrl: s.council.systemUrl,
      active: true,
      photoUrlPatterns: { [koeln.id]: `${s.council.url}/photos/{personId}.jpg` },
    });
    return { s, koeln };
  }

  async function passes() {
    const now = bed.now();
    await runFilesPass(bed.deps, { now });
    await runDeletionCheck(bed.deps, { now });
    await runPhotosPass(bed.deps, { now });
  }

  function openDocument(docId: string) {
    return preview.handler.handle({
      method: 'GET',
      path: `/documents/${docId}`,
      visitorAddress: '192.0.2.7',
    });
  }

  it('OPT-5: after tombstone --ids, purge and a full sync, files pass, deletion check, photos and preview fetch nothing of it', async () => {
    const { s, koeln } = await seedWithPhotos('perm-docs');
    const entries = await liveEntries(s.h, koeln.id);
    let paper: { id: string; files: string[] } | undefined;
    for (const e of entries.filter((x) => x.type === 'paper')) {
      const object = (await s.h.mirror.read(s.sourceId, 'paper', e.id))?.object;
      const files = isRecord(object)
        ? embeddedObjects(object)
            .filter((c) => c.type === 'file')
            .map((c) => c.id)
        : [];
      if (files.length > 0) {
        paper = { id: e.id, files };
        break;
      }
    }
    const person = entries.find((e) => e.type === 'person');
    if (!paper || !person) throw new Error('seed lacks a paper with files or a person');
    const docs = (await documentsOf(bed.aws, s.sourceId)).filter((d) =>
      paper.files.includes(String(d.fileId)),
    );
    expect(docs.length).toBeGreaterThan(0);
    const filePaths = docs.map((d) => new URL(String(d.url)).pathname);
    const photoPath = `/photos/${new URL(person.id).pathname.split('/').pop()}.jpg`;

    await tombstoneIds(s.deps, [paper.id, person.id], { by: 'test', sourceId: s.sourceId });
    await purgeDeleted(s.deps, 'koeln', { sourceId: s.sourceId, yes: true });
    await s.h.sync('full');
    s.council.clearRequests();

    await passes();
    const opened = await Promise.all(docs.map((d) => openDocument(String(d.docId))));

    const paths = s.council.requests.map((r) => r.path);
    // The passes ran and asked the council for other things (other persons' photos) …
    expect(paths.some((p) => p.startsWith('/photos/'))).toBe(true);
    // … but nothing of the taken-down paper's files or person's photo.
    for (const p of filePaths) expect(paths).not.toContain(p);
    expect(paths).not.toContain(photoPath);
    for (const res of opened) expect(res.status).not.toBe(200);
    for (const d of docs) expect(await keysUnder(bed, `files/${s.sourceId}/${d.docId}`)).toEqual([]);
  });

  it('OPT-5: tombstone --body killed after its registry item: files pass, deletion check, photos and preview already leave the body alone', async () => {
    const { s, koeln } = await seedWithPhotos('perm-docs-crash');
    // Make every document of the body wait for a fetch again (as if newly recorded).
    const docs = await documentsOf(bed.aws, s.sourceId, koeln.id);
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) {
      await setDocument(bed.aws, String(d.docId), waiting(bed.now(), true), ['storedKey']);
    }
    await killedAfterRecorded((afterRecorded) =>
      tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId, afterRecorded }),
    );
    // Nothing but the registry item was written: no flag on any document.
    expect((await documentsOf(bed.aws, s.sourceId, koeln.id)).every((d) => d.takedownAt === undefined)).toBe(
      true,
    );
    s.council.clearRequests();

    await passes();
    const opened = await Promise.all(docs.map((d) => openDocument(String(d.docId))));

    const koelnFiles = docs.map((d) => new URL(String(d.url)).pathname);
    const paths = s.council.requests.map((r) => r.path);
    for (const p of koelnFiles) expect(paths).not.toContain(p);
    expect(paths.filter((p) => p.startsWith('/photos/'))).toEqual([]);
    for (const res of opened) expect(res.status).toBe(410);
  });

  /** One document of the body, waiting for the given pass, with no copy or text of ours yet. */
  async function oneWaitingDocument(s: SeededSource, bodyId: string, listed: boolean) {
    const [doc] = await documentsOf(bed.aws, s.sourceId, bodyId);
    if (!doc) throw new Error('no document');
    const docId = String(doc.docId);
    await setDocument(bed.aws, docId, waiting(bed.now(), listed), ['storedKey', 'textKey', 'textFor']);
    await deleteObjects(bed.aws.clients.s3, bed.aws.env.BUCKET, [
      fileKey(s.sourceId, docId),
      textKey(s.sourceId, docId),
    ]);
    const takeDown = () => tombstoneIds(s.deps, [String(doc.fileId)], { by: 'race', sourceId: s.sourceId });
    return { docId, takeDown };
  }

  it('OPT-5: a takedown issued while the preview fetches a document wins: the fetched copy is not kept', async () => {
    const { s, koeln } = await seedWithPhotos('perm-prv-race');
    await setBodyListed(bed.aws.clients.doc, s.deps.tables, 'koeln', {
      listed: true,
      by: 'test',
      sourceId: s.sourceId,
    });
    // Listed and not stored yet: an opening fetches it from the council and stores it (PRV-3).
    const { docId, takeDown } = await oneWaitingDocument(s, koeln.id, true);

    const { fired } = await beforeFirstWriteTo(bed.aws, fileKey(s.sourceId, docId), takeDown, async () => {
      const res = await openDocument(docId);
      expect(res.status).toBe(200);
      for await (const _ of res.body as AsyncIterable<unknown>) {
        // drain: the visitor who opened it before the takedown gets it
      }
      await res.after;
    });

    expect(fired).toBe(1);
    expect(await keysUnder(bed, fileKey(s.sourceId, docId))).toEqual([]);
    expect((await bed.store.get(docId))?.state).not.toBe('stored');
    expect((await openDocument(docId)).status).toBe(410);
  });

  it('OPT-5: a takedown issued while the files pass fetches a document wins: the fetched copy is not kept', async () => {
    const { s, koeln } = await seedWithPhotos('perm-cache-race');
    await setBodyListed(bed.aws.clients.doc, s.deps.tables, 'koeln', {
      listed: true,
      by: 'test',
      sourceId: s.sourceId,
    });
    const { docId, takeDown } = await oneWaitingDocument(s, koeln.id, true);

    const { fired } = await beforeFirstWriteTo(bed.aws, fileKey(s.sourceId, docId), takeDown, () =>
      runFilesPass(bed.deps, { now: bed.now() }),
    );

    expect(fired).toBe(1);
    expect(await keysUnder(bed, fileKey(s.sourceId, docId))).toEqual([]);
    expect((await bed.store.get(docId))?.state).not.toBe('stored');
  });

  it('OPT-5: a takedown issued while text is extracted wins: the new text is not kept', async () => {
    const { s, koeln } = await seedWithPhotos('perm-text-race');
    // An unlisted body's document: not stored, but its text is made from the source (ONB-4, DOC-2).
    const { docId, takeDown } = await oneWaitingDocument(s, koeln.id, false);

    const { fired } = await beforeFirstWriteTo(bed.aws, textKey(s.sourceId, docId), takeDown, async () => {
      // The first pass routes the document to text extraction; the text may come in the second.
      await runFilesPass(bed.deps, { now: bed.now() });
      await runFilesPass(bed.deps, { now: bed.now() });
    });

    expect(fired).toBe(1);
    expect(await keysUnder(bed, textKey(s.sourceId, docId))).toEqual([]);
    expect((await bed.store.get(docId))?.textKey).toBeUndefined();
  });
});

/** Fields of a document waiting in the intake queue for the document functions. */
function waiting(now: Date, listed: boolean): Record<string, unknown> {
  return { state: 'pending', listed, attemptShard: 'due', nextAttemptAt: now.toISOString() };
}
