/**
 * The OParl sync engine (SPEC SCH-8…SCH-12, FULL-5…FULL-7 execution, OPT-2, B-1, B-4, ONB-4, DOC-7).
 * Entry: `syncSource(deps, source, run)`; pure parts in `decisions`, `windows`, `json`.
 * The object model, State store and failure classification it shares with the scraper are in `shared/engine`.
 */
export { bodyFieldsOf, bodyKeyOf } from './body-fields';
export * from './constants';
export type { ListMode, ListTask, SyncCursor } from './cursor';
export * from './decisions';
export { type SyncDeps, type SyncRunOptions, syncSource } from './engine';
export { escapeControlCharactersInStrings, parseOParlJson } from './json';
export { type PolitePortOptions, politeFetcherPort } from './polite-port';
export * from './ports';
export { OParlStateStore, runListSk } from './state';
export { createOParlSyncEngine, type OParlEngineDeps } from './sync-engine';
export * from './windows';
