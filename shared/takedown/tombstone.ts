import { PutObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand, type QueryCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { idHash, indexPartition, MirrorStore, mirrorKey } from '../mirror';
import { MIRROR_TYPES, type MirrorIndexEntry, type MirrorRecord } from '../mirror/types';
import { resolveBody } from '../onboarding/bodies';
import { embeddedObjects, isRecord } from '../oparl/objects';
import { sourcePartition } from '../oparl/state';
import type { AwsClients } from '../store/clients';
import { loadAllSources } from '../store/sources';
import { TAKEDOWN_TAG } from './constants';
import { TakedownError } from './errors';
import type { TakedownMark, TakedownMeta } from './types';

/**
 * OPT-2 tombstone on an operator's decision: the objects are marked deleted in the mirror — record
 * first, index entry last (the commit point, as in shared/mirror) — and so vanish at once from every
 * output that reads live objects (`listLive`, `readLive`). Nothing is removed: the last live copy stays
 * in `meta.lastGood` for audit, with who, when and why in `meta.takedown`. A body taken down is also
 * unlisted, and its documents are flagged so the document functions leave them alone. Repeating a
 * tombstone is harmless (idempotent).
 */

export interface TakedownDeps {
  clients: Pick<AwsClients, 'doc' | 's3'>;
  tables: { sources: string; state: string; documents: string };
  bucket: string;
  now?: () => Date;
}

export interface TombstoneResult {
  sourceIds: string[];
  body: string | null;
  /** Objects newly tombstoned, by type. */
  tombstoned: Record<string, number>;
  /** Objects that were tombstoned already (by the source or an earlier takedown). */
  alreadyDeleted: number;
  /** `--ids` that no mirrored object has. */
  notFound: string[];
  /** Documents items flagged (`takedownAt`, unlisted). */
  documents: number;
}

function store(deps: TakedownDeps): MirrorStore {
  return new MirrorStore(deps.clients, { bucket: deps.bucket, stateTable: deps.tables.state });
}

/** Tombstones one index entry (S3 record, then index). Returns false when it was deleted already. */
async function tombstoneEntry(
  deps: TakedownDeps,
  entry: MirrorIndexEntry,
  mark: TakedownMark,
): Promise<boolean> {
  if (entry.deleted) return false;
  const mirror = store(deps);
  const before = (await mirror.read(entry.sourceId, entry.type, entry.id)) as
    | (MirrorRecord & { meta: TakedownMeta })
    | undefined;
  const meta: TakedownMeta = {
    ...(before?.meta ?? {
      id: entry.id,
      type: entry.type,
      sourceId: entry.sourceId,
      sourceUrl: '',
      fetchedAt: entry.fetchedAt,
    }),
    deleted: true,
    deletedAt: mark.at,
    takedown: mark,
  };
  if (entry.bodyId !== undefined) meta.bodyId = entry.bodyId;
  if (before && before.meta.deleted !== true) {
    meta.lastGood = before.object;
    meta.lastGoodFetchedAt = before.meta.fetchedAt;
    meta.lastGoodSourceUrl = before.meta.sourceUrl;
  }
  const record = { object: before?.object ?? { id: entry.id }, meta };
  await deps.clients.s3.send(
    new PutObjectCommand({
      Bucket: deps.bucket,
      Key: mirrorKey(entry.sourceId, entry.type, entry.id),
      Body: JSON.stringify(record),
      ContentType: 'application/json; charset=utf-8',
      Metadata: { deleted: 'true', takedown: 'true' },
      Tagging: TAKEDOWN_TAG,
    }),
  );
  // The index entry last: from here on every listing skips the object (OPT-2).
  await deps.clients.doc.send(
    new UpdateCommand({
      TableName: deps.tables.state,
      Key: { pk: indexPartition(entry.sourceId, entry.type), sk: idHash(entry.id) },
      UpdateExpression: 'SET deleted = :d, takedown = :t',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':d': true, ':t': mark },
    }),
  );
  return true;
}

/**
 * Flags the Documents items of a source that match (`bodyId` or one of `fileIds`): unlisted (DOC-7)
 * and `takedownAt`, for the document cache, preview and deletion check to honour.
 */
async function flagDocuments(
  deps: TakedownDeps,
  sourceId: string,
  match: { bodyId?: string; fileIds?: ReadonlySet<string> },
  at: string,
): Promise<number> {
  let flagged = 0;
  let startKey: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page = await deps.clients.doc.send(
      new QueryCommand({
        TableName: deps.tables.documents,
        IndexName: 'bySource',
        KeyConditionExpression: 'sourceId = :s',
        ExpressionAttributeValues: { ':s': sourceId },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const hit =
        (match.bodyId !== undefined && item.bodyId === match.bodyId) ||
        (match.fileIds !== undefined && typeof item.fileId === 'string' && match.fileIds.has(item.fileId));
      if (!hit) continue;
      await deps.clients.doc
        .send(
          new UpdateCommand({
            TableName: deps.tables.documents,
            Key: { docId: item.docId },
            UpdateExpression: 'SET listed = :f, takedownAt = if_not_exists(takedownAt, :at)',
            ConditionExpression: 'attribute_exists(docId)',
            ExpressionAttributeValues: { ':f': false, ':at': at },
          }),
        )
        .catch((error: unknown) => {
          if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
        });
      flagged += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return flagged;
}

function markOf(deps: TakedownDeps, by: string, note: string | undefined): TakedownMark {
  const at = (deps.now ?? (() => new Date()))().toISOString();
  return { at, by, ...(note !== undefined && note.trim() !== '' ? { note: note.trim() } : {}) };
}

/** `tombstone --body <slug>`: every mirrored object of the body, the body itself included. */
export async function tombstoneBody(
  deps: TakedownDeps,
  slug: string,
  options: { sourceId?: string; by: string; note?: string },
): Promise<TombstoneResult> {
  const { sourceId, body } = await resolveBody(deps.clients.doc, deps.tables, slug, options.sourceId);
  const mark = markOf(deps, options.by, options.note);
  const result: TombstoneResult = {
    sourceIds: [sourceId],
    body: slug,
    tombstoned: {},
    alreadyDeleted: 0,
    notFound: [],
    documents: 0,
  };
  // Unlisted first: from this moment the body is in no public listing, whatever follows (ONB-4, OPT-2).
  await deps.clients.doc.send(
    new UpdateCommand({
      TableName: deps.tables.state,
      Key: { pk: sourcePartition(sourceId), sk: `BODY#${body.bodyKey}` },
      UpdateExpression: 'SET listed = :f, takedown = if_not_exists(takedown, :t)',
      ConditionExpression: 'attribute_exists(sk)',
      ExpressionAttributeValues: { ':f': false, ':t': mark },
    }),
  );
  const mirror = store(deps);
  for (const type of MIRROR_TYPES) {
    for await (const entry of mirror.listAll(sourceId, type, { bodyId: body.id })) {
      if (await tombstoneEntry(deps, entry, mark)) {
        result.tombstoned[type] = (result.tombstoned[type] ?? 0) + 1;
      } else {
        result.alreadyDeleted += 1;
      }
    }
  }
  result.documents = await flagDocuments(deps, sourceId, { bodyId: body.id }, mark.at);
  return result;
}

/**
 * `tombstone --ids <id,…>`: the objects with these OParl ids (URLs) — in every source, or in one —
 * and the objects embedded in them (a paper's files and consultations, a meeting's agenda items …),
 * which would otherwise stay visible on their own.
 */
export async function tombstoneIds(
  deps: TakedownDeps,
  ids: readonly string[],
  options: { sourceId?: string; by: string; note?: string },
): Promise<TombstoneResult> {
  const wanted = [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ''))];
  if (wanted.length === 0) throw new TakedownError('TAKEDOWN_INVALID_INPUT', 'no ids given');
  const { parsed } = await loadAllSources(deps.clients.doc, deps.tables.sources);
  const all = parsed.map((p) => (p.ok ? p.source.sourceId : p.sourceId));
  const sources = options.sourceId === undefined ? all : all.filter((s) => s === options.sourceId);
  if (options.sourceId !== undefined && sources.length === 0) {
    throw new TakedownError('TAKEDOWN_NOTHING_FOUND', `no source ${options.sourceId}`);
  }
  const mark = markOf(deps, options.by, options.note);
  const mirror = store(deps);
  const result: TombstoneResult = {
    sourceIds: [],
    body: null,
    tombstoned: {},
    alreadyDeleted: 0,
    notFound: [],
    documents: 0,
  };
  const found = new Set<string>();
  for (const sourceId of sources) {
    const entries = await mirror.lookup(
      sourceId,
      wanted.flatMap((id) => MIRROR_TYPES.map((type) => ({ type, id }))),
    );
    if (entries.size === 0) continue;
    const queue = [...entries.values()];
    const done = new Set<string>();
    const fileIds = new Set<string>();
    while (queue.length > 0) {
      const entry = queue.shift() as MirrorIndexEntry;
      const key = `${entry.type}\n${entry.id}`;
      if (done.has(key)) continue;
      done.add(key);
      found.add(entry.id);
      // Embedded objects of this one (read before its record turns into a tombstone).
      const record = await mirror.read(sourceId, entry.type, entry.id);
      const live = record && record.meta.deleted !== true ? record.object : record?.meta.lastGood;
      if (isRecord(live)) {
        const children = embeddedObjects(live).map((e) => ({ type: e.type, id: e.id }));
        if (children.length > 0) queue.push(...(await mirror.lookup(sourceId, children)).values());
      }
      if (entry.type === 'file') fileIds.add(entry.id);
      if (await tombstoneEntry(deps, entry, mark)) {
        result.tombstoned[entry.type] = (result.tombstoned[entry.type] ?? 0) + 1;
      } else {
        result.alreadyDeleted += 1;
      }
    }
    result.sourceIds.push(sourceId);
    if (fileIds.size > 0) result.documents += await flagDocuments(deps, sourceId, { fileIds }, mark.at);
  }
  result.notFound = wanted.filter((id) => !found.has(id));
  return result;
}
