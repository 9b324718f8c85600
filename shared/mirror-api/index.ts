/** The OParl 1.1 API over the mirror (docs/mirror-api.md): URL scheme, rewriting, paging, reads, core. */
export { composeMirrorApi } from './compose';
export * from './constants';
export * from './errors';
export {
  type ApiRequest,
  type ApiResponse,
  conditional,
  createMirrorApiHandler,
  etagOf,
  type MirrorApiDeps,
  type MirrorApiHandler,
  servedLists,
} from './handler';
export { createMirrorApiLambda, type FunctionUrlRequest, type MirrorApiLambda } from './lambda';
export { createMirrorApiListener, isApiPath } from './node-http';
export * from './paging';
export { isServed, MirrorReader, type MirrorReaderConfig, type SourceBody } from './reader';
export { deletedStub, type RewriteContext, rewriteObject, takenDownStub } from './rewrite';
export * from './urls';
