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

/**
 * No slot for the host within the caller's wait budget (e.g. the preview's 5 s, PRV-1). Nothing was
 * reserved. `retryAtMs` (local clock) is when a slot is expected to be free, when known.
 */
export class HostSlotTimeoutError extends IngestorError {
  readonly host: string;
  readonly retryAtMs: number | undefined;

  constructor(host: string, maxWaitMs: number, retryAtMs: number | undefined) {
    super('HOST_SLOT_TIMEOUT', `no slot for ${host} within ${maxWaitMs} ms`, { retryable: true });
    this.host = host;
    this.retryAtMs = retryAtMs;
  }
}
