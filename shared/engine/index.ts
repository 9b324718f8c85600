/**
 * The engine core every source kind shares (OParl API, scraped ALLRIS/SessionNet HTML): the object model,
 * the State table store, the Documents write path, failure classification (ERR-5, ROB-8) and the
 * checkpointed run frame (resume / continue / new, checkpoint, budget, stop, planner report). The kinds
 * (`shared/oparl`, `shared/scraper`) hold only what is specific to them and import this front door.
 */
export {
  LIST_CATALOGUE,
  type ListEntry,
  type ListName,
  MANDATORY_LISTS,
  PLACEHOLDER_VALUES,
  WRITE_CONCURRENCY,
  ZONE,
} from './constants';
export { type DocumentFields, documentId, fileUrl, recordDocument } from './documents';
export {
  classifyFetchFailure,
  type FetchFailure,
  type FetchFailureCode,
  robotsForbadeAll,
  runEndingKind,
} from './failure';
export {
  bodySlugBase,
  carriesTimeOfDay,
  contentHash,
  type EmbeddedObject,
  embeddedObjects,
  isDeleted,
  isRecord,
  modifiedMs,
  type OParlObject,
  objectId,
  pageGoesBack,
  pageItems,
  pageNext,
  parseOParlTime,
  sha256Hex,
  slugify,
  stableStringify,
  textValue,
  typeName,
} from './objects';
export {
  berlinDate,
  CHECKPOINT_MAX_UNSAVED_REQUESTS,
  engineReportOf,
  MAX_FAILURES_KEPT,
  type PlannerReportParts,
  type RunBudget,
  type RunCursor,
  RunFrame,
  type RunFrameDeps,
  type RunStart,
  runEndOf,
  runStart,
  type StopReason,
  StopRun,
  type SyncTables,
  syncTablesFromEnv,
} from './run';
export {
  bodySk,
  CursorConflictError,
  cursorSk,
  listSk,
  MARK_REFRESH_MS,
  putLockedCursor,
  refreshDue,
  runListSk,
  SK_SYSTEM,
  SourcePartitionItems,
  type StoredCursor,
  SyncStateStore,
  sessionSk,
  slugSk,
  sourcePartition,
  strip,
} from './state';
export type {
  BodyRecord,
  FailureKind,
  FilterFinding,
  ListReport,
  ListState,
  PageValidator,
  SyncFailure,
  SyncKind,
  SyncReport,
  SystemRecord,
} from './types';
