export * from './backfill';
export * from './digest';
export * from './keys';
export * from './store';
export * from './types';
