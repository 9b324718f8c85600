import { IngestorError } from '../errors';

/** Errors of takedown (tombstone, purge). Each carries a stable `code`. */
export class TakedownError extends IngestorError {
  constructor(
    code:
      | 'TAKEDOWN_NOTHING_FOUND'
      | 'TAKEDOWN_INVALID_INPUT'
      | 'TAKEDOWN_OWNER_UNKNOWN'
      | 'TAKEDOWN_LIFTED_WHILE_RECORDED',
    message: string,
  ) {
    super(code, message);
  }
}
