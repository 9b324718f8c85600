import { IngestorError } from '../errors';

/** A request the API cannot answer as asked (bad filter, page size or cursor): HTTP 400 with the reason. */
export class MirrorApiRequestError extends IngestorError {
  constructor(message: string) {
    super('MIRROR_API_BAD_REQUEST', message);
  }
}

/**
 * The State table lacks the API's list index (a local `.data/` created before it, or a stack not yet
 * deployed with it): HTTP 503 with what to do, instead of an opaque 500.
 */
export class MirrorApiIndexMissingError extends IngestorError {
  constructor(index: string, cause: unknown) {
    super(
      'MIRROR_API_INDEX_MISSING',
      `the State table has no ${index} index: deploy the stack, or locally start on a fresh --data directory`,
      { cause },
    );
  }
}
