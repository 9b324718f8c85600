import { IngestorError } from '../errors';

export const PREVIEW_ERROR_CODES = ['PREVIEW_NO_PLACE'] as const;
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
