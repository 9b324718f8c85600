import { MirrorStore } from '../mirror';
import { resolveBody } from '../onboarding';
import {
  BodyRecords,
  BucketObjects,
  DocumentItems,
  FILES_PREFIX,
  fileKey,
  MirrorRecords,
  photoKey,
  TEXT_PREFIX,
  textKey,
} from '../store';
import { PURGE_ORDER } from './constants';
import type { TakedownDeps } from './tombstone';
import type { PurgeCounts } from './types';

/**
 * OPT-3: physical deletion, on a municipality's explicit request, of everything of a body that is
 * marked deleted (by the source or by `tombstone`): the mirror records and index entries, our copies of
 * the files (`files/…`, person photos included) and their extracted texts (`text/…`, what search is
 * built from), and the Documents items. Without `--yes` nothing is deleted: the same plan is computed
 * and shown — the preview is, by construction, what `--yes` removes.
 *
 * Order: children first (files, agenda items … the body last); per object its copies and texts, then
 * its Documents items, then the mirror record, then its index entry — the entry is what finds the
 * object, so it goes last and an interrupted purge simply finds the rest on the next run. Every delete
 * is idempotent (S3 and DynamoDB deletes of something absent succeed).
 */

export interface PurgeCopy {
  key: string;
  kind: 'file' | 'text';
}

export interface PurgeObject {
  type: string;
  id: string;
  copies: PurgeCopy[];
  /** Documents items (docId) of this file object. */
  documents: string[];
}

export interface PurgePlan {
  sourceId: string;
  body: string;
  bodyId: string;
  objects: PurgeObject[];
  counts: PurgeCounts;
  documents: number;
}

export interface DocumentRef {
  docId: string;
  fileId?: string;
  /** S3 keys the item names (`storedKey`, `textKey`, …) plus the deterministic ones of its docId. */
  keys: string[];
}

/** What the purge needs from the stores; tests wrap it to interrupt a run. */
export interface PurgeStore {
  listDeleted(sourceId: string, type: string, bodyId: string): AsyncIterable<{ type: string; id: string }>;
  documentsOfBody(sourceId: string, bodyId: string): Promise<DocumentRef[]>;
  exists(key: string): Promise<boolean>;
  deleteKey(key: string): Promise<void>;
  deleteDocument(docId: string): Promise<void>;
  deleteMirrorRecord(sourceId: string, type: string, id: string): Promise<void>;
  deleteIndexEntry(sourceId: string, type: string, id: string): Promise<void>;
}

function copyKind(key: string): PurgeCopy['kind'] | undefined {
  if (key.startsWith(FILES_PREFIX)) return 'file';
  if (key.startsWith(TEXT_PREFIX)) return 'text';
  return undefined;
}

/** Every string value below `files/` or `text/` in a Documents item, however the field is named. */
function keysNamedBy(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (copyKind(value) !== undefined) into.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) keysNamedBy(v, into);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) keysNamedBy(v, into);
  }
}

export function emptyCounts(): PurgeCounts {
  const counts: Record<string, number> = {};
  for (const type of PURGE_ORDER) counts[type] = 0;
  return { ...counts, files: 0, texts: 0 } as PurgeCounts;
}

/** The preview: what `--yes` would delete, object by object, in deletion order. Reads only. */
export async function planPurge(
  store: PurgeStore,
  target: { sourceId: string; body: string; bodyId: string },
): Promise<PurgePlan> {
  const { sourceId, bodyId } = target;
  const documents = await store.documentsOfBody(sourceId, bodyId);
  const byFile = new Map<string, DocumentRef[]>();
  for (const d of documents) {
    if (d.fileId === undefined) continue;
    byFile.set(d.fileId, [...(byFile.get(d.fileId) ?? []), d]);
  }
  const counts = emptyCounts();
  const objects: PurgeObject[] = [];
  let documentCount = 0;
  for (const type of PURGE_ORDER) {
    for await (const entry of store.listDeleted(sourceId, type, bodyId)) {
      const candidates = new Set<string>();
      const docIds: string[] = [];
      if (type === 'file') {
        for (const d of byFile.get(entry.id) ?? []) {
          docIds.push(d.docId);
          for (const key of d.keys) candidates.add(key);
        }
      }
      // PHO-1 copies: a person's photo lives under files/ too.
      if (type === 'person') candidates.add(photoKey(sourceId, entry.id));
      const copies: PurgeCopy[] = [];
      for (const key of [...candidates].sort()) {
        const kind = copyKind(key);
        if (kind !== undefined && (await store.exists(key))) copies.push({ key, kind });
      }
      objects.push({ type, id: entry.id, copies, documents: docIds });
      counts[type] = (counts[type] ?? 0) + 1;
      counts.files += copies.filter((c) => c.kind === 'file').length;
      counts.texts += copies.filter((c) => c.kind === 'text').length;
      documentCount += docIds.length;
    }
  }
  return { ...target, objects, counts, documents: documentCount };
}

/** Deletes what the plan lists, in its order; safe to repeat after an interruption. */
export async function executePurge(store: PurgeStore, plan: PurgePlan): Promise<void> {
  for (const object of plan.objects) {
    for (const copy of object.copies) await store.deleteKey(copy.key);
    for (const docId of object.documents) await store.deleteDocument(docId);
    await store.deleteMirrorRecord(plan.sourceId, object.type, object.id);
    // Last: the entry is how the next run would find this object again.
    await store.deleteIndexEntry(plan.sourceId, object.type, object.id);
  }
}

/** The AWS implementation of the port (S3 bucket, State and Documents tables). */
export function awsPurgeStore(deps: TakedownDeps): PurgeStore {
  const mirror = new MirrorStore(deps.clients, {
    bucket: deps.bucket,
    stateTable: deps.tables.state,
    mirrorTable: deps.tables.mirror,
  });
  const bucket = { s3: deps.clients.s3, bucket: deps.bucket };
  const objects = new BucketObjects(bucket);
  const records = new MirrorRecords(bucket);
  const documents = new DocumentItems({ doc: deps.clients.doc, table: deps.tables.documents });
  return {
    async *listDeleted(sourceId, type, bodyId) {
      for await (const entry of mirror.listAll(sourceId, type, { bodyId })) {
        if (entry.deleted) yield { type: entry.type, id: entry.id };
      }
    },
    async documentsOfBody(sourceId, bodyId) {
      const refs: DocumentRef[] = [];
      for await (const item of documents.ofSource(sourceId, { bodyId })) {
        const docId = String(item.docId);
        const keys = new Set<string>([fileKey(sourceId, docId), textKey(sourceId, docId)]);
        keysNamedBy(item, keys);
        refs.push({
          docId,
          ...(typeof item.fileId === 'string' ? { fileId: item.fileId } : {}),
          keys: [...keys],
        });
      }
      return refs;
    },
    exists: (key) => objects.exists(key),
    deleteKey: (key) => objects.delete(key),
    deleteDocument: (docId) => documents.delete(docId),
    deleteMirrorRecord: (sourceId, type, id) => records.delete(sourceId, type, id),
    async deleteIndexEntry(sourceId, type, id) {
      // Through the mirror store: the removal is a committed change (`purged` on the change feed).
      await mirror.purgeEntry(sourceId, type, id, (deps.now ?? (() => new Date()))().toISOString());
    },
  };
}

export interface PurgeResult {
  body: string;
  sourceId: string;
  dryRun: boolean;
  counts: PurgeCounts;
  /** Documents items removed (or to be removed) with their files. */
  documents: number;
}

/** `purge-deleted --body <slug> [--yes]` (OPT-3). */
export async function purgeDeleted(
  deps: TakedownDeps,
  slug: string,
  options: { sourceId?: string; yes: boolean; store?: PurgeStore; by?: string },
): Promise<PurgeResult> {
  const { sourceId, body } = await resolveBody(deps.clients.doc, deps.tables, slug, options.sourceId);
  const store = options.store ?? awsPurgeStore(deps);
  const plan = await planPurge(store, { sourceId, body: slug, bodyId: body.id });
  if (options.yes) {
    await executePurge(store, plan);
    await deps.clients.changes?.flush();
    const at = (deps.now ?? (() => new Date()))().toISOString();
    // The BODY# record stays (it is how the slug still resolves); it notes the purge for audit.
    await new BodyRecords({ doc: deps.clients.doc, table: deps.tables.state }).notePurge(
      sourceId,
      body.bodyKey,
      {
        at,
        by: options.by ?? 'cli',
      },
    );
  }
  return { body: slug, sourceId, dryRun: !options.yes, counts: plan.counts, documents: plan.documents };
}
