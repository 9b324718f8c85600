import { IngestorError } from '../errors';

/** Options given to the slot API are wrong (a programming error, never retried). */
export class SlotOptionsError extends IngestorError {
  constructor(message: string) {
    super('SLOT_OPTIONS_INVALID', message);
  }
}

/**
 * The shared slot store (Redis) failed or did not answer in time. The failover layer catches it and
 * throttles in-process (RATE-7); callers only see it from a bare store.
 */
export class SlotStoreUnavailableError extends IngestorError {
  constructor(message: string, cause?: unknown) {
    super('SLOT_STORE_UNAVAILABLE', message, { retryable: true, cause });
  }
}
