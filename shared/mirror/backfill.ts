import {
  type AwsClients,
  BucketObjects,
  isMissingObject,
  MirrorIndex,
  packInline,
  packInlineText,
} from '../store';
import {
  apiIdHash,
  committedAtOfListSort,
  INLINE_ATTRIBUTE,
  LEGACY_LIST_ATTRIBUTES,
  LIST_PARTITION_ATTRIBUTE,
  LIST_SORT_ATTRIBUTE,
  legacyMirrorKey,
  listPartition,
  listSort,
  listSortOfHash,
  mirrorKey,
} from './keys';
import { fitsInline, MirrorStore, type MirrorStoreConfig } from './store';
import { MIRROR_TYPES, type MirrorIndexEntry } from './types';

/**
 * Maintenance (issue 16): index items written before the OParl API existed carry no `byList` keys
 * (`lp`, `ls`) and no inline copy (`o`), so the API does not list them until the sync writes them
 * again; items written for the first list index carry its long keys (`apiList`, `apiListSort`) instead.
 * The backfill gives them the keys, as the sync would have: sort = commit time (a takedown's time for a
 * taken-down object, see `MirrorStore.markTakenDown`), inline only for a live object whose item stays
 * within INLINE_ITEM_MAX_BYTES — and removes the long keys in the same update, which empties the first
 * index (`byBodyList`, shared/store tables.ts) so that the next release can drop it. An inline copy
 * written before issue 28's packing (a plain JSON string) is packed as the sync packs it (from the copy
 * itself, no S3 read): the Mirror table's bytes, and what every later read of the item costs, shrink.
 *
 * - Idempotent: an item that has its keys (and its inline copy, or is too large for one) and no long
 *   keys is left alone; running it twice writes nothing the second time.
 * - Never over a newer write: each update is conditional on the item's commit time being the one read
 *   (`fetchedAt`), so a sync that rewrote the object meanwhile wins (counted as `raced`).
 * - Paced: at most `ratePerSecond` updates per second (each is one write unit plus the index's copy),
 *   so a backfill of a large mirror never crowds out the syncs' writes.
 * - Then the API list counters (shared/mirror `count`) of each source are recounted: one Query COUNT of
 *   the list's `byList` partition per list (every page of it one paced step), the counter rewritten
 *   only where it is off — a crash between a commit and its counter, or items that just got their list
 *   keys here. The rewrite is conditional on the counter read before the count, so a sync's `ADD`
 *   meanwhile is never lost (the list is counted again). Counters of the first index's lists (keyed by
 *   its long partition values) are deleted: nothing counts into them any more.
 * - First of all, items written before the keyed ids (issue 25 point 5: sort key and S3 key the bare
 *   SHA-256 of the origin id) move to the keyed id (`apiIdHash`): the record is copied to its new S3
 *   key, the item put under its new sort key (list tie-break re-derived, commit time kept) only if no
 *   newer write got there first, then the old item (only as read) and the old record are deleted. A
 *   crash in between leaves both, and the next run finishes the move; counters need no move (a list's
 *   key names source, body and type, not an object), and the recount below repairs what a sync counted
 *   twice while both items existed. Old API ids then answer 404, like ids that never existed: no
 *   redirect, which would need a table from the guessable hash to the new id and give the old one away.
 */
export interface BackfillOptions {
  sourceIds: readonly string[];
  /** Updates per second at most. */
  ratePerSecond: number;
  /** Count only, write nothing. */
  dryRun?: boolean;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface BackfillReport {
  /** Index items read. */
  scanned: number;
  /** Items given list keys and/or an inline copy (or that would be, in a dry run). */
  updated: number;
  /** Of those, items whose long keys of the first list index were replaced. */
  moved: number;
  /** Of those, items that got an inline copy. */
  inlined: number;
  /** Items a sync rewrote between our read and our write (it wins). */
  raced: number;
  /** API lists whose counter was checked. */
  lists: number;
  /** Of those, counters set to the recount (or that would be, in a dry run). */
  recounted: number;
  /** Counters of the first index's lists deleted (or that would be, in a dry run). */
  legacyCounters: number;
  /** Items moved from the unkeyed id hash to the keyed one (or that would be, in a dry run). */
  rekeyed: number;
  /** Items under the unkeyed hash a sync had written anew under the keyed one: the old one deleted. */
  superseded: number;
}

/** Recount attempts of one list while syncs keep moving its counter; then it is left for the next run. */
const RECOUNT_ATTEMPTS = 3;

/** Pure: when the n-th write (from 0) may start, for a pace of `ratePerSecond` from `startMs`. */
export function paceSlot(startMs: number, n: number, ratePerSecond: number): number {
  return startMs + Math.floor((n * 1000) / ratePerSecond);
}

/**
 * The bulk commands' pace (`backfill-index`, the move's copy, `mirror rebuild`): each call waits for
 * its write's slot (`paceSlot`), counted from the pacer's creation — a pace syncs never notice.
 */
export function writePacer(options: {
  ratePerSecond: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}): () => Promise<void> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const start = now();
  let writes = 0;
  return async () => {
    const wait = paceSlot(start, writes, options.ratePerSecond) - now();
    writes += 1;
    if (wait > 0) await sleep(wait);
  };
}

/** An index item as the backfill reads it: the entry, its list keys (new or long) and inline copy. */
export type BackfillItem = MirrorIndexEntry & {
  lp?: string;
  apiList?: string;
  apiListSort?: string;
  o?: unknown;
};

/** Pure: what the backfill does with one index item — nothing, or which attributes it sets or removes. */
export function backfillNeed(
  item: BackfillItem,
): { listKeys: boolean; inline: boolean; legacy: boolean } | undefined {
  const legacy = LEGACY_LIST_ATTRIBUTES.some((name) => item[name] !== undefined);
  if (item.bodyId === undefined || item.type === 'body')
    return legacy ? { listKeys: false, inline: false, legacy } : undefined;
  const listKeys = item[LIST_PARTITION_ATTRIBUTE] === undefined;
  // No copy yet, or a plain one from before the packing (issue 28).
  const inline =
    !item.deleted && item.takedown === undefined && (item.o === undefined || typeof item.o === 'string');
  return listKeys || inline || legacy ? { listKeys, inline, legacy } : undefined;
}

/** Pure: whether an index item still sits under the unkeyed hash of its id (written before issue 25). */
export function needsRekey(item: Pick<MirrorIndexEntry, 'id'> & { sk?: unknown }): boolean {
  return item.sk !== apiIdHash(item.id);
}

/** A counter key's list part is a `listPartition` (16 hex); the first index's were `<source>#<hash>#<type>`. */
const LIST_PARTITION_FORM = /^[0-9a-f]{16}$/;

export async function backfillListIndex(
  clients: Pick<AwsClients, 'doc' | 's3'>,
  config: MirrorStoreConfig,
  options: BackfillOptions,
): Promise<BackfillReport> {
  if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
  const run: BackfillRun = {
    // Not `changes`: a backfill commits no change of any object (nothing to publish).
    mirror: new MirrorStore({ doc: clients.doc, s3: clients.s3 }, config),
    index: new MirrorIndex({ doc: clients.doc, table: config.stateTable }, config.mirrorTable),
    objects: new BucketObjects({ s3: clients.s3, bucket: config.bucket }),
    paced: writePacer(options),
    dryRun: options.dryRun === true,
    report: {
      scanned: 0,
      updated: 0,
      moved: 0,
      inlined: 0,
      raced: 0,
      lists: 0,
      recounted: 0,
      legacyCounters: 0,
      rekeyed: 0,
      superseded: 0,
    },
  };
  for (const sourceId of options.sourceIds) await backfillSource(run, sourceId);
  return run.report;
}

/** What every step of one backfill shares: the stores, the pace, dry or not, and the report it fills. */
interface BackfillRun {
  mirror: MirrorStore;
  index: MirrorIndex;
  objects: BucketObjects;
  /** Waits for the next write's place in the pace (`ratePerSecond`). */
  paced: () => Promise<void>;
  dryRun: boolean;
  report: BackfillReport;
}

/** Where an index item lives: its source and its object type. */
interface ItemPlace {
  sourceId: string;
  type: string;
}

/** One source: every index item (rekeyed, given list keys and inline copies), then its list counters. */
async function backfillSource(run: BackfillRun, sourceId: string): Promise<void> {
  const lists = new Set<string>();
  for (const type of MIRROR_TYPES) {
    for await (const read of run.index.query(sourceId, type)) {
      run.report.scanned += 1;
      const list = await backfillItem(run, { sourceId, type }, read);
      for (const l of list) lists.add(l);
    }
  }
  // Lists with a counter but no entries left (all purged) are recounted too: to zero.
  for (const list of await run.index.counterLists(sourceId)) {
    if (LIST_PARTITION_FORM.test(list)) {
      lists.add(list);
      continue;
    }
    run.report.legacyCounters += 1;
    if (run.dryRun) continue;
    await run.paced();
    await run.index.deleteListCount(sourceId, list);
  }
  for (const list of [...lists].sort()) {
    run.report.lists += 1;
    if (await recountList(run, sourceId, list)) run.report.recounted += 1;
  }
}

/** One index item: moved to its keyed id, then given what it lacks; returns the lists it is in. */
async function backfillItem(
  run: BackfillRun,
  place: ItemPlace,
  read: Record<string, unknown>,
): Promise<string[]> {
  const { report } = run;
  const lists: string[] = [];
  let raw = read;
  if (needsRekey(raw as unknown as BackfillItem)) {
    const moved = await rekey(run, place, raw);
    if (moved === 'superseded') {
      report.superseded += 1;
      return lists;
    }
    report.rekeyed += 1;
    if (run.dryRun) return lists;
    raw = moved;
  }
  const item = raw as unknown as BackfillItem;
  if (item.lp !== undefined) lists.push(item.lp);
  const need = backfillNeed(item);
  if (!need) return lists;
  const set: Record<string, unknown> = {};
  if (need.listKeys) {
    const at = (item.takedown as { at?: string } | undefined)?.at ?? item.fetchedAt;
    const list = listPartition(place.sourceId, item.bodyId as string, place.type);
    set[LIST_PARTITION_ATTRIBUTE] = list;
    set[LIST_SORT_ATTRIBUTE] = listSort(at, item.id);
    lists.push(list);
  }
  if (need.inline) {
    let copy: Uint8Array | undefined;
    if (typeof item.o === 'string') copy = packInlineText(item.o);
    else {
      const record = await run.mirror.readKey(mirrorKey(place.sourceId, place.type, item.id));
      copy = record && record.meta.deleted !== true ? packInline(record.object) : undefined;
    }
    const { [INLINE_ATTRIBUTE]: _plain, ...without } = { ...raw, ...set };
    if (copy !== undefined && fitsInline(without, copy)) set[INLINE_ATTRIBUTE] = copy;
  }
  const remove = need.legacy ? LEGACY_LIST_ATTRIBUTES.filter((name) => item[name] !== undefined) : [];
  if (Object.keys(set).length === 0 && remove.length === 0) return lists;
  report.updated += 1;
  if (remove.length > 0) report.moved += 1;
  if (set.o !== undefined) report.inlined += 1;
  if (run.dryRun) return lists;
  await run.paced();
  // Only over the version read: a sync's newer write (or a takedown's mark) wins.
  const updated = await run.index.updateAsRead(
    { sourceId: place.sourceId, type: place.type, id: item.id },
    { set, remove },
    { fetchedAt: item.fetchedAt, deleted: item.deleted, takenDown: item.takedown !== undefined },
  );
  if (!updated) {
    report.updated -= 1;
    if (remove.length > 0) report.moved -= 1;
    if (set.o !== undefined) report.inlined -= 1;
    report.raced += 1;
  }
  return lists;
}

/**
 * Moves one index item (and its S3 record) from the unkeyed hash of its id to the keyed one; returns
 * the item as now stored, or `superseded` when a sync had already written the object under its new key.
 */
async function rekey(
  { index, objects, paced, dryRun }: BackfillRun,
  { sourceId, type }: ItemPlace,
  raw: Record<string, unknown>,
): Promise<Record<string, unknown> | 'superseded'> {
  const id = String(raw.id);
  const hash = apiIdHash(id);
  const moved: Record<string, unknown> = { ...raw, sk: hash };
  if (typeof raw[LIST_SORT_ATTRIBUTE] === 'string')
    moved[LIST_SORT_ATTRIBUTE] = listSortOfHash(committedAtOfListSort(raw[LIST_SORT_ATTRIBUTE]), hash);
  if (dryRun) return moved;
  const oldKey = legacyMirrorKey(sourceId, type, id);
  // A sync that wrote the object under its new key meanwhile holds the newer record: never copy over it.
  let superseded = await index.holds(raw, hash);
  if (!superseded) await copyRecord();
  if (!superseded) {
    await paced();
    superseded = !(await index.putMoved(moved));
  }
  await paced();
  // Only as read: anything that changed it meanwhile is left for the next run to look at.
  await index.deleteAsRead(raw);
  await paced();
  await objects.delete(oldKey);
  return superseded ? 'superseded' : moved;

  async function copyRecord(): Promise<void> {
    await paced();
    try {
      await objects.copy(oldKey, mirrorKey(sourceId, type, id));
    } catch (error) {
      // No record (a taken-down object's was purged): only the index item moves.
      if (!isMissingObject(error)) throw error;
    }
  }
}

/**
 * Sets one list's counter to what its `byList` partition holds (shared/store `MirrorIndex.countList`).
 * Returns whether the counter was off.
 */
async function recountList(
  { index, paced, dryRun }: BackfillRun,
  sourceId: string,
  list: string,
): Promise<boolean> {
  for (let attempt = 0; attempt < RECOUNT_ATTEMPTS; attempt++) {
    const held = await index.listCount(sourceId, list);
    const { entries, live } = await index.countList(list, paced);
    if (held?.entries === entries && held?.live === live) return false;
    if (dryRun) return true;
    await paced();
    // Only over the counter we read: an ADD of a sync meanwhile means counting again.
    if (await index.putListCount(sourceId, list, { entries, live }, held)) return true;
  }
  return false;
}
