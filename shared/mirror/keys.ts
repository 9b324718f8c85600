import { createHash } from 'node:crypto';

/**
 * Deterministic S3 keys of the mirror (STYLE 4: idempotent by construction): the same object of the same
 * source always lands on the same key, so a repeated or resumed sync overwrites instead of duplicating.
 */
export const MIRROR_PREFIX = 'mirror';

/** Every path of the OParl API over the mirror begins with this (shared/mirror-api). */
export const API_PREFIX = '/oparl/v1';

/**
 * An object's path in the OParl API over the mirror: `/oparl/v1/<source>/<type>/<id hash>` — the id a
 * client knows it by (the change feed's `apiId`; the API prefixes its base URL).
 */
export function apiObjectPath(sourceId: string, type: string, id: string): string {
  return `${API_PREFIX}/${sourceId}/${type}/${idHash(id)}`;
}

/** First 40 hex characters of SHA-256(id): 160 bits, collision-free for any council's object count. */
export function idHash(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 40);
}

/** `mirror/<sourceId>/<type>/<sha256(id) first 40 hex>.json`, type = lower-case OParl type name. */
export function mirrorKey(sourceId: string, type: string, id: string): string {
  return mirrorKeyOfHash(sourceId, type, idHash(id));
}

/** The same key from the id hash alone (the index's sort key): what the API reads by. */
export function mirrorKeyOfHash(sourceId: string, type: string, hash: string): string {
  return `${MIRROR_PREFIX}/${sourceId}/${type}/${hash}.json`;
}

export function mirrorTypePrefix(sourceId: string, type: string): string {
  return `${MIRROR_PREFIX}/${sourceId}/${type}/`;
}

/** State table partition of the mirror index of one source and type (see `store.ts`). */
export function indexPartition(sourceId: string, type: string): string {
  return `MIRROR#${sourceId}#${type}`;
}

/**
 * The API's list index (State table GSI `byBodyList`, shared/mirror-api): partition = one body's objects
 * of one type, sort = commit time then id hash — so a list page with `modified_since`/`modified_until`
 * is one Query, in a stable order. Only objects of a body carry it (the index is sparse).
 */
export function bodyListPartition(sourceId: string, bodyId: string, type: string): string {
  return `${sourceId}#${idHash(bodyId)}#${type}`;
}

/** `<commit time ISO>#<id hash>`: ISO 8601 UTC strings of one width sort like the instants they name. */
export function bodyListSort(committedAt: string, id: string): string {
  return `${committedAt}#${idHash(id)}`;
}

/**
 * Small objects ride inline in their index item (attribute `o`, the object's JSON as received), which
 * `byBodyList` projects: a list page is then one Query and no S3 read at all. Only while the whole item
 * stays within one write unit (1 KB): the sync's index write, the index's copy and the sync's BatchGet
 * (≤ 4 KB per item is one read either way) cost what they cost without it. Larger objects are read from
 * S3 as before.
 */
export const INLINE_ATTRIBUTE = 'o';
export const INLINE_ITEM_MAX_BYTES = 1024;

/** Upper bound of an item's DynamoDB size (names + values): its JSON, which only adds punctuation. */
export function itemSizeBound(item: Record<string, unknown>): number {
  return Buffer.byteLength(JSON.stringify(item), 'utf8');
}

/**
 * The counts of one API list (`apiList` = `bodyListPartition`), one small State table item each, in one
 * partition per source so that `backfill-index` finds every counter of a source with one Query. Not in
 * the source's `SOURCE#` partition, which the planner reads, nor in an index partition (`listAll`).
 */
export const LIST_COUNT_PREFIX = 'APILISTCOUNT';

export function listCountKey(sourceId: string, apiList: string): { pk: string; sk: string } {
  return { pk: `${LIST_COUNT_PREFIX}#${sourceId}`, sk: `${LIST_COUNT_PREFIX}#${apiList}` };
}
