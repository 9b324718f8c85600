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
  constructor(message: string, cause?: unknown, code = 'SLOT_STORE_UNAVAILABLE') {
    super(code, message, { retryable: true, cause });
  }
}

/**
 * A store call got no answer within its timeout. Ambiguous, unlike an error: Redis may have run it
 * (a slot reserved, a lease held) and its answer may still come. `lateAnswer` settles once that is
 * known: `true` when the answer arrived after all, `false` when it failed late or did not come within
 * SHARED_STORE_ANSWER_PATIENCE_MS (RATE-7, see failover.ts).
 */
export class SlotStoreNoAnswerError extends SlotStoreUnavailableError {
  constructor(
    message: string,
    readonly lateAnswer: Promise<boolean>,
  ) {
    super(message, undefined, 'SLOT_STORE_NO_ANSWER');
  }
}
