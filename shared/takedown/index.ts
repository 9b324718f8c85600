/** Opt-out and takedown (SPEC OPT-2, OPT-3): operator tombstones and the physical purge. */
export * from './constants';
export * from './errors';
export * from './purge';
export * from './tombstone';
export * from './types';
