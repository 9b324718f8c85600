/**
 * Documents (SPEC DOC-1 … DOC-7, DEL-1 … DEL-5, PHO-1 … PHO-3, ERR-6, RATE-6, B-1): the document
 * cache with text extraction, the deletion check and person photos, over the Documents table's
 * `byNextAttempt` queues (keys.ts) and the polite fetcher.
 */
export {
  ADMIT_ALL,
  type BusyHost,
  HostBudget,
  type HostBudgetDeps,
  PassAdmission,
  passAdmission,
} from './admission';
export { type FilesPassOptions, type FilesPassReport, roundRobin, runFilesPass } from './cache';
export {
  composeDocuments,
  type DocumentsPassHandlerSpec,
  type DocumentsRuntime,
  type DocumentsRuntimeOptions,
  documentsPassHandler,
} from './compose';
export * from './constants';
export {
  type DocumentsDeps,
  type LoadedContexts,
  loadSourceContexts,
  type PassOptions,
  type PassProgress,
  type SourceContext,
} from './context';
export * from './decide';
export { type DeletionOptions, type DeletionReport, runDeletionCheck } from './deletion';
export {
  type DeletionFit,
  type DeletionFitInput,
  type DeletionRunFit,
  type DeletionRunMeasure,
  deletionSampleFit,
  measuredSampleFit,
  sampleIntervalOfLoad,
} from './deletion-fit';
export { type DeletionShard, deletionShardsFor, hostShard, shardOfEvent } from './deletion-shards';
export * from './errors';
export * from './keys';
export {
  type BucketAccess,
  deleteObjects,
  fetchFileToS3,
  fetchSourceOf,
  storedOutcome,
  storeVerifiedCopy,
  type VerifiedCopy,
} from './objects';
export { type ExtractedText, extractPdfText, looksLikePdf } from './pdf-text';
export { loadMarks, type PhotoCheck, type PhotosReport, photoMarkAfter, runPhotosPass } from './photos';
export { routeIntake, unparkDocuments } from './route';
export { afterChange, DocumentsStore } from './store';
export {
  RETRIED_TEXT_ERRORS,
  type TextState,
  textAttemptChange,
  textAttemptsFor,
  textDoneChange,
  textDownloadFailedChange,
  textFailedChange,
  textRetryDelayMs,
  textState,
} from './text';
export {
  DEFAULT_TEXT_BOUNDS,
  TEXT_WORKER,
  type TextBounds,
  TextExtractor,
  textWorkerEntry,
} from './text-extractor';
export type * from './types';
