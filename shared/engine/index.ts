/**
 * The engine core every source kind shares (OParl API, scraped ALLRIS/SessionNet HTML): the object model,
 * the State table store, the mirror write path (`MirrorWriter`), the Documents write path, failure
 * classification (ERR-5, ROB-8) and the checkpointed run frame (resume / continue / new, checkpoint,
 * budget, stop, planner report). The kinds (`shared/oparl`, `shared/scraper`) hold only what is specific
 * to them and import this front door.
 */
export {
  LIST_CATALOGUE,
  type ListEntry,
  type ListName,
  MANDATORY_LISTS,
  REFERENCES,
  ZONE,
} from './constants';
export type { EngineBudget, EngineMessage, EngineReport, SyncEngine } from './contract';
export { documentId, fileUrl, recordDocument } from './documents';
export { classifyFetchFailure, type FetchFailureCode, runEndingKind } from './failure';
export {
  bodySlugBase,
  carriesTimeOfDay,
  contentHash,
  embeddedObjects,
  isDeleted,
  isRecord,
  modifiedMs,
  type OParlObject,
  objectId,
  oparlTimeMs,
  pageGoesBack,
  pageIdentity,
  pageItems,
  pageNext,
  parseOParlTime,
  sha256Hex,
  slugify,
  stableStringify,
  textValue,
  typeName,
  withoutEmbedded,
} from './objects';
export {
  berlinDate,
  CHECKPOINT_MAX_UNSAVED_REQUESTS,
  engineReportOf,
  MAX_FAILURES_KEPT,
  type RunCursor,
  RunFrame,
  runEndOf,
  runStart,
  StopRun,
  type SyncTables,
  syncTablesFromEnv,
} from './run';
export {
  bodyCompleteDue,
  bodySk,
  CursorConflictError,
  MARK_REFRESH_MS,
  refreshDue,
  type StoredCursor,
  SyncStateStore,
  sourcePartition,
  strip,
} from './state';
export type {
  BodyRecord,
  FilterFinding,
  ListReport,
  ListState,
  PageValidator,
  SyncFailure,
  SyncReport,
  SystemRecord,
} from './types';
export {
  asPublished,
  embeddingTakenDown,
  type MirrorTotals,
  MirrorWriter,
  type PageObject,
  PageTakedowns,
  type SourceTakedowns,
  stampedWhenSeen,
  storedVersion,
  type TakedownGuardFactory,
} from './write';
