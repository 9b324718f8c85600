import { IngestorError } from '../errors';

/** A request the API cannot answer as asked (bad filter, page size or cursor): HTTP 400 with the reason. */
export class MirrorApiRequestError extends IngestorError {
  constructor(message: string) {
    super('MIRROR_API_BAD_REQUEST', message);
  }
}
