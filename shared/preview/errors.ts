import { IngestorError } from '../errors';
import { PREVIEW_DEFAULT_RETRY_AFTER_S } from './constants';

export const PREVIEW_ERROR_CODES = [
  'PREVIEW_NO_PLACE',
  'PREVIEW_LIMITS_UNAVAILABLE',
  'PREVIEW_BAD_REQUEST',
  'PREVIEW_HOST_BUSY',
] as const;
export type PreviewErrorCode = (typeof PREVIEW_ERROR_CODES)[number];

/** Errors of the preview's own machinery; fetch failures keep the fetcher's types and codes. */
export class PreviewError extends IngestorError {
  constructor(
    code: PreviewErrorCode,
    message: string,
    options: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}

/** PRV-1 / PRV-2: no on-demand fetch place (this instance's four, or the global cap) within the budget. */
export class PreviewNoPlaceError extends PreviewError {
  readonly retryAt: number;

  constructor(retryAt: number) {
    super('PREVIEW_NO_PLACE', 'no on-demand fetch place within the wait budget', { retryable: true });
    this.retryAt = retryAt;
  }
}

/**
 * PRV-1 / PRV-2: the shared limits (Redis) failed or did not answer within PREVIEW_LIMITS_CALL_MS. The
 * message names no address, key or token; the cause is kept for debugging, not for logs.
 */
export class PreviewLimitsUnavailableError extends PreviewError {
  readonly retryAt: number;

  constructor(retryAt = Date.now() + PREVIEW_DEFAULT_RETRY_AFTER_S * 1000, cause?: unknown) {
    super('PREVIEW_LIMITS_UNAVAILABLE', 'the preview limits (Redis) are unreachable', {
      retryable: true,
      ...(cause === undefined ? {} : { cause }),
    });
    this.retryAt = retryAt;
  }
}

/** A query the document endpoint does not answer as asked (a `download` value other than 1): HTTP 400. */
export class PreviewBadRequestError extends PreviewError {
  constructor(message: string) {
    super('PREVIEW_BAD_REQUEST', message);
  }
}

/**
 * RATE-9 / RATE-1 (issue 27 item 5): the document's host has no budget left for another fetch now — its
 * syncs fill the pace and other fetches use their share, or it is paused (RATE-8). Nothing was requested;
 * PRV-1 answers 503 with Retry-After rather than add to the host's load. `reason` is for the log only.
 */
export class PreviewHostBusyError extends PreviewError {
  readonly retryAt: number;

  constructor(
    readonly reason: string,
    retryAt: number,
  ) {
    super('PREVIEW_HOST_BUSY', 'the host has no budget left for a preview fetch now', { retryable: true });
    this.retryAt = retryAt;
  }
}
