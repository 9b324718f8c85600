/**
 * Index shards and photo marks of the document functions. The S3 keys of the copies (`fileKey`,
 * `textKey`, `photoKey`, `incomingKey`) have one home, shared/store keys.ts (issue 29 item 1).
 */

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

/** State table partition of the photo marks of one body (PHO-2): its home is shared/store keys.ts. */
export { photoPartition } from '../store';
