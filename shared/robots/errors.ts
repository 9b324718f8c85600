import { IngestorError } from '../errors';

/**
 * ROB-8 / DOC-5: robots.txt forbids the request. Not retryable by repetition: only a changed
 * robots.txt (seen after the next refresh, ROB-5) or an approved exception (ROB-9) changes it.
 */
export class RobotsDisallowedError extends IngestorError {
  readonly url: string;
  /** Token of the group that decided, or `*`. */
  readonly group: string | null;
  /** The deciding rule as written, e.g. `Disallow: /private`. */
  readonly rule: string | null;

  constructor(url: string, group: string | null, rule: string | null, reason: string) {
    super('ROBOTS_DISALLOWED', `robots.txt forbids ${url}: ${reason}`, { retryable: false });
    this.url = url;
    this.group = group;
    this.rule = rule;
  }
}

/**
 * ROB-7: robots.txt could not be read and no previous copy is in force, so the request is
 * deferred. Retryable, but no earlier than `retryAt` (epoch ms).
 */
export class RobotsUnreachableError extends IngestorError {
  readonly url: string;
  readonly retryAt: number;

  constructor(url: string, retryAt: number, reason: string) {
    super('ROBOTS_UNREACHABLE', `request to ${url} deferred: ${reason}`, { retryable: true });
    this.url = url;
    this.retryAt = retryAt;
  }
}

/** Invalid input at the module boundary (a URL that is not absolute http(s), a bad status code). */
export class RobotsInputError extends IngestorError {
  constructor(message: string) {
    super('ROBOTS_INVALID_INPUT', message, { retryable: false });
  }
}
