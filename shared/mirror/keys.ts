import { createHash } from 'node:crypto';

/**
 * Deterministic S3 keys of the mirror (STYLE 4: idempotent by construction): the same object of the same
 * source always lands on the same key, so a repeated or resumed sync overwrites instead of duplicating.
 */
export const MIRROR_PREFIX = 'mirror';

/** First 40 hex characters of SHA-256(id): 160 bits, collision-free for any council's object count. */
export function idHash(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 40);
}

/** `mirror/<sourceId>/<type>/<sha256(id) first 40 hex>.json`, type = lower-case OParl type name. */
export function mirrorKey(sourceId: string, type: string, id: string): string {
  return `${MIRROR_PREFIX}/${sourceId}/${type}/${idHash(id)}.json`;
}

export function mirrorTypePrefix(sourceId: string, type: string): string {
  return `${MIRROR_PREFIX}/${sourceId}/${type}/`;
}

/** State table partition of the mirror index of one source and type (see `store.ts`). */
export function indexPartition(sourceId: string, type: string): string {
  return `MIRROR#${sourceId}#${type}`;
}
