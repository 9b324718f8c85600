import type { MIRROR_TYPES } from '../mirror';

/**
 * OPT-3: the order in which `purge-deleted --body` deletes a body's objects — children before their
 * parents, the body itself last. An interrupted purge therefore never leaves an orphan that the body
 * no longer leads to: the body (and its `BODY#` record, which is kept) is what finds the rest again.
 */
export const PURGE_ORDER: readonly (typeof MIRROR_TYPES)[number][] = [
  'file',
  'agendaitem',
  'consultation',
  'membership',
  'location',
  'paper',
  'meeting',
  'person',
  'organization',
  'legislativeterm',
  'body',
];

/** S3 tag of an operator tombstone (shared/store keys.ts says why it is not the sync's). */
export { TAKEDOWN_TAG } from '../store';

/**
 * OPT-5: how often a takedown records its registry items again when a `takedown lift` removed them
 * while it ran (the lift read them before their marks landed). One round suffices unless operators
 * keep lifting it; past this the command records the items once more (in force: never lost) and fails
 * loudly (TAKEDOWN_LIFTED_WHILE_RECORDED) without repeating its mirror steps — the state of a takedown
 * killed after its registry item, which the same command again or `backfill-index` completes.
 */
export const RECORD_AGAIN_ROUNDS = 2;
