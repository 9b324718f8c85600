import { IngestorError } from '../errors';

/** Errors of onboarding (probe, add/import, body listing). Each carries a stable `code`. */
export type OnboardingErrorCode =
  | 'PROBE_INVALID_URL'
  | 'IMPORT_FILE_INVALID'
  | 'BODY_NOT_FOUND'
  | 'BODY_AMBIGUOUS'
  | 'SOURCE_NOT_FOUND'
  | 'BODY_TAKEN_DOWN';

export class OnboardingError extends IngestorError {
  constructor(code: OnboardingErrorCode, message: string) {
    super(code, message);
  }
}

/** A probe or add-source URL that is not an absolute http(s) URL without credentials. */
export class ProbeUrlError extends OnboardingError {
  constructor(url: string) {
    super('PROBE_INVALID_URL', `not an absolute http(s) URL without credentials: ${url}`);
  }
}

/** `sources import`: the file cannot be read as the documented JSON or CSV list. */
export class ImportFileError extends OnboardingError {
  constructor(message: string) {
    super('IMPORT_FILE_INVALID', message);
  }
}

export class BodyNotFoundError extends OnboardingError {
  constructor(slug: string, sourceId?: string) {
    super('BODY_NOT_FOUND', `no body "${slug}"${sourceId ? ` in source ${sourceId}` : ''}`);
  }
}

/** Slugs are unique per source; the same slug in two sources needs `--source`. */
export class BodyAmbiguousError extends OnboardingError {
  readonly sourceIds: string[];

  constructor(slug: string, sourceIds: string[]) {
    super('BODY_AMBIGUOUS', `body "${slug}" exists in ${sourceIds.join(', ')}; name one with --source`);
    this.sourceIds = sourceIds;
  }
}

export class SourceNotFoundError extends OnboardingError {
  constructor(sourceId: string) {
    super('SOURCE_NOT_FOUND', `no source ${sourceId}`);
  }
}

/** OPT-2: a body taken down by an operator is not listed again without `--force`. */
export class BodyTakenDownError extends OnboardingError {
  constructor(slug: string, at: string) {
    super('BODY_TAKEN_DOWN', `body "${slug}" was taken down on ${at}; list it again only with --force`);
  }
}
