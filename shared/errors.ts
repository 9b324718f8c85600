/**
 * Base of every error this project throws on purpose. `code` is stable (logs, metrics, branching);
 * `message` is for humans. Subclasses live in the folder of their concern (`robots/errors.ts`, …).
 */
export class IngestorError extends Error {
  readonly code: string;
  /** Whether repeating the same operation later may succeed (transient). */
  readonly retryable: boolean;

  constructor(code: string, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

export function isIngestorError(value: unknown, code?: string): value is IngestorError {
  return value instanceof IngestorError && (code === undefined || value.code === code);
}
