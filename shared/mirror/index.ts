export * from './backfill';
export * from './digest';
export * from './keys';
export * from './move';
export * from './rebuild';
export * from './store';
export * from './types';
