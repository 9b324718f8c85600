/**
 * The polite fetcher (SPEC ID, ROB, RATE, RED, ERR-1…3): every outbound request of the ingestor
 * goes through `createPoliteFetcher(...).fetch()` / `.stream()`.
 */

export { looksLikeHtml } from './answer';
export * from './body';
export * from './constants';
export * from './errors';
export { createPoliteFetcher } from './fetcher';
export { createPoliteFetcherFromEnv, type FetcherFromEnvOptions } from './from-env';
export { effectiveHostIntervalMs } from './host-slot';
export * from './ports';
export { parseRetryAfter } from './retry-after';
export { createRobotsGate, type RobotsGate, type RobotsLoadContext, robotsAgentKey } from './robots-gate';
export * from './robots-store';
export * from './run-context';
export { fetchSourceOf } from './source';
export * from './types';
export * from './user-agent';
export { PACKAGE_VERSION } from './version';
