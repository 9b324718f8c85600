import { IngestorError } from '../errors';

/** Errors of the document functions. Fetch failures keep the fetcher's own types and codes. */
export const DOCUMENT_ERROR_CODES = [
  'DOCUMENT_NOT_FOUND',
  'DOCUMENT_NOT_BLOCKED',
  'DOCUMENT_CONFLICT',
  'TEXT_EXTRACTION_FAILED',
  'TEXT_UNSUPPORTED_TYPE',
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
