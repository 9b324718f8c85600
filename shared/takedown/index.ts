/** Opt-out and takedown (SPEC OPT-2, OPT-3, OPT-5): operator tombstones, the registry, lift and purge. */
export * from './complete';
export * from './constants';
export * from './embedders';
export * from './errors';
export * from './guard';
export * from './invalidation';
export * from './lift';
export * from './purge';
export * from './registry';
export * from './seal';
export * from './tombstone';
export * from './types';
