export * from './address';
export * from './dispatcher';
export * from './errors';
export * from './resolver';
export { request } from './undici';
