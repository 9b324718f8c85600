import type { FeedClients } from '../changes';
import type { MirrorIndexEntry, MirrorRecord } from '../mirror';
import { MirrorStore } from '../mirror';
import { MirrorRecords, type MirrorTablePlacement } from '../store';
import type { TakedownMark, TakedownMeta } from './types';

export interface SealDeps {
  clients: Pick<FeedClients, 'doc' | 's3' | 'changes'>;
  bucket: string;
  stateTable: string;
  /** Issue 28: where the mirror's object items are; absent = State. */
  mirrorTable?: MirrorTablePlacement;
}

/**
 * OPT-2 / OPT-5: turns one mirrored object into an operator's tombstone. Used by `tombstone` and by a
 * sync that finds it has just written an object taken down meanwhile (the race of OPT-5).
 *
 * Order: the index entry's mark first — from then on every sync's commit of this object fails its
 * condition (shared/mirror `putIndex`) and every listing skips it — then the S3 record, which a racing
 * sync may have overwritten with a live copy just before; whoever seals last writes the tombstone, and
 * every sealer checks the record, so the record always ends as a tombstone. The last live copy stays in
 * `meta.lastGood` for audit. Repeating is harmless; a run killed between the two steps is completed by
 * the next seal (`tombstone` again, or the next sync that meets the object).
 *
 * Returns whether the object was live before (false: deleted already, by the source or a takedown).
 */
export async function sealTakenDown(
  deps: SealDeps,
  entry: MirrorIndexEntry,
  mark: TakedownMark,
): Promise<boolean> {
  const wasLive = !entry.deleted;
  const mirror = new MirrorStore(deps.clients, {
    bucket: deps.bucket,
    stateTable: deps.stateTable,
    mirrorTable: deps.mirrorTable,
  });
  // Purged meanwhile, or marked already: nothing to mark; the registry item remembers the takedown.
  if (entry.takedown === undefined) await mirror.markTakenDown(entry, mark);
  const before = (await mirror.read(entry.sourceId, entry.type, entry.id)) as
    | (MirrorRecord & { meta: TakedownMeta })
    | undefined;
  if (before?.meta.deleted === true && before.meta.takedown !== undefined) return wasLive;
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
  await new MirrorRecords({ s3: deps.clients.s3, bucket: deps.bucket }).write(
    { sourceId: entry.sourceId, type: entry.type, id: entry.id },
    { object: before?.object ?? { id: entry.id }, meta },
    'takedown',
  );
  return wasLive;
}
