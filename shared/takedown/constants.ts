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
