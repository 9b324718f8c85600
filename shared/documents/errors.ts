import { IngestorError } from '../errors';

/** Errors of the document functions. Fetch failures keep the fetcher's own types and codes. */
export const DOCUMENT_ERROR_CODES = [
  'DOCUMENT_NOT_FOUND',
  'DOCUMENT_NOT_BLOCKED',
  'DOCUMENT_CONFLICT',
  'TEXT_EXTRACTION_FAILED',
  'TEXT_UNSUPPORTED_TYPE',
  'TEXT_TOO_MANY_PAGES',
  'TEXT_TIMEOUT',
  'TEXT_MEMORY',
  'TEXT_INTERRUPTED',
  'DELETION_SHARD_INVALID',
] as const;
export type DocumentErrorCode = (typeof DOCUMENT_ERROR_CODES)[number];

export class DocumentsError extends IngestorError {
  constructor(code: DocumentErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { retryable: false, ...options });
  }
}

/** DOC-2: the file could not be read as a PDF (corrupt, encrypted) — not retried. */
export class TextExtractionError extends IngestorError {
  constructor(message: string, cause?: unknown) {
    super('TEXT_EXTRACTION_FAILED', message, { retryable: false, cause });
  }
}

/** DOC-2: text is extracted from PDF files only; other types are marked and skipped. */
export class UnsupportedTextTypeError extends IngestorError {
  constructor(contentType: string | undefined) {
    super('TEXT_UNSUPPORTED_TYPE', `no text extraction for ${contentType ?? 'unknown type'} (PDF only)`, {
      retryable: false,
    });
  }
}

/** DOC-2: more pages than the page bound (TEXT_MAX_PAGES) — a property of the file, not retried. */
export class TooManyPagesError extends IngestorError {
  constructor(
    readonly pages: number,
    readonly maxPages: number,
  ) {
    super('TEXT_TOO_MANY_PAGES', `the PDF has ${pages} pages, more than the ${maxPages} read for text`, {
      retryable: false,
    });
  }
}

/**
 * DOC-2: the text worker was stopped for breaching a bound — its time (TEXT_TIMEOUT) or the memory
 * it may add (TEXT_MEMORY). Retried on the text ladder (TEXT_RETRY_LADDER_MS): a busy instance may
 * have been the cause.
 */
export class TextBoundError extends IngestorError {
  constructor(code: 'TEXT_TIMEOUT' | 'TEXT_MEMORY', message: string, cause?: unknown) {
    super(code, message, { retryable: true, cause });
  }
}
