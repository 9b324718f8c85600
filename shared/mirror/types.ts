/** The mirror's records: what S3 holds per object and what the index holds to decide without reading S3. */

/** The lower-case OParl type names we mirror (embedded objects included). */
export const MIRROR_TYPES = [
  'system',
  'body',
  'organization',
  'person',
  'meeting',
  'paper',
  'legislativeterm',
  'membership',
  'agendaitem',
  'consultation',
  'file',
  'location',
] as const;

/** B-4 attribution and OPT-2 tombstone marks, stored beside the object as received. */
export interface MirrorMeta {
  id: string;
  type: string;
  sourceId: string;
  /** The page (list page or object URL) the object came from. */
  sourceUrl: string;
  /** When that page was fetched (ISO 8601, UTC). */
  fetchedAt: string;
  bodyId?: string;
  /** Set for objects embedded in another object (the parent's id). */
  embeddedIn?: string;
  /** OPT-2: the source marked the object deleted. It is kept for audit and excluded from every output. */
  deleted?: true;
  deletedAt?: string;
  /** The last live copy before the deletion — a tombstone never silently replaces good data. */
  lastGood?: unknown;
  lastGoodFetchedAt?: string;
  lastGoodSourceUrl?: string;
}

export interface MirrorRecord {
  object: unknown;
  meta: MirrorMeta;
}

/**
 * One index item per mirrored object (State table, pk `MIRROR#<sourceId>#<type>`, sk = id hash): the
 * sync compares `modified`/`hash` here instead of reading the S3 object (one BatchGet per page).
 */
export interface MirrorIndexEntry {
  sourceId: string;
  type: string;
  id: string;
  /** S3 key of the record. */
  key: string;
  /** Content hash of the object as received (stable key order). */
  hash: string;
  /** `modified` as received (may be absent). */
  modified?: string;
  deleted: boolean;
  bodyId?: string;
  fetchedAt: string;
  /** OPT-2: tombstoned by an operator (shared/takedown); the sync never writes this object again. */
  takedown?: unknown;
  /**
   * A small live object's JSON as received, inline (`INLINE_ATTRIBUTE`, see keys.ts): packed (binary),
   * or a plain string written before issue 28 (shared/store inline-copy.ts `unpackInline` reads both).
   */
  o?: Uint8Array | string;
}

export type ChangeKind = 'new' | 'modified' | 'deleted' | 'unchanged';
