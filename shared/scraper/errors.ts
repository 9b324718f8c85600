import { IngestorError } from '../errors';

/**
 * Errors of the scraper (issue 8). Each carries a stable `code`. A parser never throws for a page it
 * merely finds thin; it throws `PageLayoutError` only when the page is not the page type it was given —
 * a layout change at the vendor, which on-call must see (reported as a failure, never guessed around).
 */
export const SCRAPER_ERROR_CODES = [
  'SCRAPER_PAGE_LAYOUT',
  'SCRAPER_GATE_PAGE',
  'SCRAPER_NOT_PUBLIC',
  'SCRAPER_CONFIG',
] as const;
export type ScraperErrorCode = (typeof SCRAPER_ERROR_CODES)[number];

export class ScraperError extends IngestorError {
  constructor(
    code: ScraperErrorCode,
    message: string,
    options: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}

/** The page does not look like the page type asked for (layout change, error page, wrong product). */
export class PageLayoutError extends ScraperError {
  readonly pageType: string;
  readonly url: string;

  constructor(pageType: string, url: string, detail: string) {
    super('SCRAPER_PAGE_LAYOUT', `${pageType} page at ${url} not recognised: ${detail}`);
    this.pageType = pageType;
    this.url = url;
  }
}

/** ERR-5 / B-3: a bot wall, challenge, login or "access denied" page. Never bypassed, never retried. */
export class GatePageError extends ScraperError {
  readonly url: string;
  readonly gate: string;

  constructor(url: string, gate: string, evidence: string) {
    super('SCRAPER_GATE_PAGE', `gate page (${gate}) at ${url}: ${evidence}`);
    this.url = url;
    this.gate = gate;
  }
}

/** A source config the scraper cannot run with (unknown adapter, unusable start URL). */
export class ScraperConfigError extends ScraperError {
  constructor(message: string) {
    super('SCRAPER_CONFIG', message);
  }
}
