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
 * - `sample#<src>#<bodyKey>`           DEL-2 HEAD samples, per body (only listed bodies are read): a
 *                                      stored document waits there by time (ISO `nextAttemptAt`) for
 *                                      its first sample and after a failed one; after that at its fixed
 *                                      place in the body's weekly walk (`sampleWalkKey`, sorting after
 *                                      every time), which an unchanged sample does not move
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

/**
 * DEL-2's sample walk: a document's place in its body's weekly round is the time of week it was last
 * sampled at (ms into the interval, zero-padded so the keys sort as numbers) and its id (ties). Every
 * `walk#…` key sorts after every ISO time, so the time-keyed part of the shard stays a plain queue.
 */
export const WALK_KEY_PREFIX = 'walk#';
const PHASE_DIGITS = 10;
export function sampleWalkKey(phaseMs: number, docId: string): string {
  return `${WALK_KEY_PREFIX}${String(phaseMs).padStart(PHASE_DIGITS, '0')}#${docId}`;
}
/** The last key of a phase: every document placed at `phaseMs` sorts at or before it. */
export function sampleWalkBound(phaseMs: number): string {
  return `${WALK_KEY_PREFIX}${String(phaseMs).padStart(PHASE_DIGITS, '0')}#~`;
}
/** The first and last possible walk keys (a round wraps from the end to the start). */
export const WALK_START = WALK_KEY_PREFIX;
export const WALK_END = `${WALK_KEY_PREFIX}~`;
/** The Documents item holding a body's walk cursor (shared/store `SampleWalks`; in no index). */
export function walkCursorId(sourceId: string, bodyKey: string): string {
  return `${WALK_KEY_PREFIX}${sourceId}#${bodyKey}`;
}

/** State table partition of the photo marks of one body (PHO-2): its home is shared/store keys.ts. */
export { photoPartition } from '../store';
