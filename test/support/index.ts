/**
 * The front door of the tests' shared support: every helper more than one test folder uses lives in
 * test/support/, and a test imports it from here (`'../support'`) or from its module
 * (`'../support/aws'`) — never from another test folder (test/repo/test-support.test.ts). Helpers only
 * one folder uses stay in that folder (`test/geo/support.ts`).
 *
 * Peers (real protocols on loopback, no mocks):
 * - aws: the local AWS peers (dynalite, s3rver, fauxqs) with tables, bucket and queues provisioned.
 * - aws-faults, write-counter: SDK middlewares that fail chosen calls / count written items.
 * - redis, upstash-adapter: a throwaway redis-server behind the Upstash REST protocol.
 * - tcp-proxy, stall-proxy: break one path to a peer.
 * - store-snapshot: all a testbed's peers hold, taken after a seed and put back before a test.
 * - cloudformation, cloudfront, eventbridge, secrets-manager: one-operation AWS protocol servers.
 * Kits and harnesses (a domain's usual setup in one call):
 * - fetch-kit: the polite fetcher on an instant clock, loopback test servers, recording slots.
 * - probe-kit: the onboarding probe's fetcher and meter.
 * - mini-council, oparl-harness: a small OParl server; the real OParl engine against the peers.
 * - scraper-harness: the real scraper engine against the peers.
 * - slot-instances: host slots as separate function instances would hold them, on a Redis peer.
 * - sync-bed: sources, planner ticks and queue deliveries for the sync function.
 * - sync-runtime: the sync function's composition root on a testbed.
 * - takedown, mirror-api: a synced mirror to take down; the mirror API served on loopback.
 * - documents-bed: the document functions' runtime on an instant clock, a file server.
 * - preview-bed: the preview function's peers (AWS, Redis) and a loopback council.
 * - schedule-factories: sources, settings and decisions for the schedule's pure functions.
 * - cli-in-process, cli-process: the operator CLI in this process / as its own process.
 * - source-files: the repository's source files (for the import-graph tests).
 *
 * documents-bed and preview-bed share helper names (putSource, recordFile …): they come as the
 * namespaces `documentsBed` and `previewBed`.
 *
 * Imported by path only, not re-exported here (importing this file must stay cheap and corpus-free):
 * - cdk: loads aws-cdk-lib (seconds) and belongs to the CDK project.
 * - corpora, corpus-dirs, fake-ris-html/, oparl-validator, ris-site-bed: reach the third-party corpora;
 *   `.ci/run` finds the corpus-aware tests by these paths in their imports.
 * - api-id-key, process-state (setup files), corpus-reporter (reporter), trace-loads.cjs (preload): vitest
 *   and node load them.
 */
export * from './aws';
export * from './aws-faults';
export * from './cli-in-process';
export * from './cli-process';
export * from './cloudformation';
export * from './cloudfront';
export * as documentsBed from './documents-bed';
export * from './eventbridge';
export * from './fetch-kit';
export * from './mini-council';
export * from './mirror-api';
// takedown and mirror-api both start their clocks at T0, the same instant.
export { T0 } from './mirror-api';
export * from './oparl-harness';
export * as previewBed from './preview-bed';
export * from './probe-kit';
export * from './redis';
export * from './schedule-factories';
export * from './scraper-harness';
export * from './secrets-manager';
export * from './slot-instances';
export * from './source-files';
export * from './stall-proxy';
export * from './store-snapshot';
export * from './sync-bed';
export * from './sync-runtime';
export * from './takedown';
export * from './tcp-proxy';
export * from './upstash-adapter';
export * from './write-counter';
