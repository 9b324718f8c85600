import { idHash } from '../mirror';

/**
 * Deterministic S3 keys and index shards of the document functions (STYLE 4: idempotent by
 * construction). The key of a document's copy follows from its `docId` alone, so the table always
 * knows where an object of a document would be — an upload interrupted before its record is
 * overwritten or deleted by the next run, never orphaned.
 */
export const FILES_PREFIX = 'files/';
export const TEXT_PREFIX = 'text/';

/** `files/<sourceId>/<docId>`: the stored copy of a document (DOC-3). */
export function fileKey(sourceId: string, docId: string): string {
  return `${FILES_PREFIX}${sourceId}/${docId}`;
}

/**
 * `files/_incoming/…`: where a fetched file lands until it is known to be a valid file (DOC-5: an
 * empty or HTML answer never replaces a copy we hold). Under `files/` so every grant on the copies
 * covers it; `_` cannot begin a source id, so it never meets a copy's key. A run that dies before
 * promoting leaves an object here that the next fetch of that document overwrites, and the bucket's
 * lifecycle rule on this prefix removes what no run comes back for.
 */
export const INCOMING_PREFIX = `${FILES_PREFIX}_incoming/`;

/** The incoming key of a copy's key (`files/<sourceId>/<docId>` → `files/_incoming/<sourceId>/<docId>`). */
export function incomingKey(key: string): string {
  if (!key.startsWith(FILES_PREFIX) || key.startsWith(INCOMING_PREFIX)) {
    throw new Error(`not a copy's key: ${key}`);
  }
  return `${INCOMING_PREFIX}${key.slice(FILES_PREFIX.length)}`;
}

/** `text/<sourceId>/<docId>.txt`: the extracted text (DOC-2). */
export function textKey(sourceId: string, docId: string): string {
  return `${TEXT_PREFIX}${sourceId}/${docId}.txt`;
}

/** `files/<sourceId>/photos/<hash of the person id>`: a person photo (PHO-1). */
export function photoKey(sourceId: string, personId: string): string {
  return `${FILES_PREFIX}${sourceId}/photos/${idHash(personId)}`;
}

export { bodyKeyOf } from '../oparl';

/**
 * Shards of the `byNextAttempt` index: one queue per function and source (per body where a rule
 * counts per body), so a resting or busy source never blocks another's work, and a query reads only
 * what it will do.
 *
 * - `due`                              intake: the sync puts new and changed documents here
 * - `cache#<src>`                      the document cache (pending, retrying, gone-provisional)
 * - `text#<src>`                       text extraction (DOC-2)
 * - `refetch#<src>`                    DEL-1 conditional re-fetch of a changed document
 * - `sample#<src>#<bodyKey>`           DEL-2 HEAD samples, per body (only listed bodies are read)
 * - `recheck#<src>#<bodyKey>`          DEL-3 re-checks of gone documents, per body (listed bodies)
 * - `parked#<src>#disabled`            waits for file fetching / the source to be switched on again
 * - `parked#<src>#unlisted#<bodyKey>`  waits for its body to be listed (DOC-7)
 */
export const INTAKE_SHARD = 'due';
export const shards = {
  cache: (sourceId: string) => `cache#${sourceId}`,
  text: (sourceId: string) => `text#${sourceId}`,
  refetch: (sourceId: string) => `refetch#${sourceId}`,
  sample: (sourceId: string, bodyKey: string) => `sample#${sourceId}#${bodyKey}`,
  recheck: (sourceId: string, bodyKey: string) => `recheck#${sourceId}#${bodyKey}`,
  disabled: (sourceId: string) => `parked#${sourceId}#disabled`,
  unlisted: (sourceId: string, bodyKey: string) => `parked#${sourceId}#unlisted#${bodyKey}`,
} as const;

/** State table partition of the photo marks of one body (PHO-2); sort key = hash of the person id. */
export function photoPartition(sourceId: string, bodyKey: string): string {
  return `PHOTO#${sourceId}#${bodyKey}`;
}
