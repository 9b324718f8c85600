import { IngestorError } from '../errors';

/** One field of a config item that could not be accepted, named as on-call sees it in DynamoDB. */
export interface FieldProblem {
  field: string;
  message: string;
}

export class ConfigError extends IngestorError {
  readonly problems: FieldProblem[];

  constructor(message: string, problems: FieldProblem[] = []) {
    super('CONFIG_INVALID', message);
    this.problems = problems;
  }
}

/**
 * The Upstash token could not be had from Secrets Manager: `SECRET_UNREADABLE` (the fetch failed; the
 * next invocation asks again) or `SECRET_MALFORMED` (the value is not a token, nor `{"token": …}`).
 * Messages and causes never carry any part of the secret's value.
 */
export class SecretError extends IngestorError {
  constructor(
    code: 'SECRET_UNREADABLE' | 'SECRET_MALFORMED',
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, { retryable: code === 'SECRET_UNREADABLE', ...options });
  }
}
