export * from './backfill';
export * from './keys';
export * from './store';
export * from './types';
