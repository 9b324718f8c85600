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

/** Key prefixes of our copies (infra/stack.ts MIRROR_PREFIXES): document files and extracted texts. */
export const FILE_COPY_PREFIX = 'files/';
export const TEXT_COPY_PREFIX = 'text/';

/**
 * S3 tag of an operator tombstone. Distinct from the sync's `mirror=tombstone` on purpose: a lifecycle
 * rule that ages out source tombstones must not silently drop the audit copy of a takedown (OPT-2).
 */
export const TAKEDOWN_TAG = 'mirror=takedown';
