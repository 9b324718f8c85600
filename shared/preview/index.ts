/** Document preview (SPEC PRV-1 … PRV-4): the endpoint's pure decision, limits, core and adapters. */
export {
  createPreviewHostBudget,
  hostStatesReader,
  type PreviewHostBudget,
  type PreviewHostBudgetDeps,
} from './admission';
export { composePreview, type PreviewRuntime, type PreviewRuntimeOptions } from './compose';
export * from './constants';
export { isHttpUrl, type PreviewFacts, previewDecision } from './decide';
export { deliveryAsked, originalUrlFor } from './delivery';
export * from './errors';
export { previewRequestOf } from './function-url';
export { createPreviewHandler, type PreviewDeps, type PreviewHandler } from './handler';
export {
  createLocalPreviewLimits,
  createRedisPreviewLimits,
  LocalPlaces,
  type PreviewLimits,
  type VisitorVerdict,
  visitorHash,
  visitorOf,
} from './limits';
export { createPreviewListener, writeResponse } from './node-http';
export { badRequest, fileHeaders, retryAfterSeconds, safeFileName } from './respond';
export { headStoredObject, presignStoredObject } from './stored-url';
export type * from './types';
export { visitorAddressOf } from './visitor-address';
