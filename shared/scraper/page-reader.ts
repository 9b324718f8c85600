import { type RunFrame, runEndingKind, StopRun } from '../engine';
import { PageLayoutError } from './errors';
import type { PageOutcome, ScraperPageFetcher } from './fetch';
import type { ScrapeCursor } from './state';

export type PageFailure = Extract<PageOutcome, { kind: 'failure' }>;

/** A page the server says is gone (404/410): its content is over, not failed. Pure. */
export function pageGone(outcome: PageFailure): boolean {
  return outcome.failure === 'HTTP_STATUS' && (outcome.status === 404 || outcome.status === 410);
}

/**
 * The run's reading of pages: one at a time, each counted in the cursor, run-ending outcomes (a gate
 * page, ERR-5 kinds, the deadline) turned into `StopRun`, the rest noted as failures of the run.
 */
export class PageReader {
  constructor(
    private readonly frame: RunFrame<ScrapeCursor>,
    private readonly pages: ScraperPageFetcher,
    private readonly log: (event: string, fields?: Record<string, unknown>) => void,
  ) {}

  /** One page, strictly after the previous one (RATE-3). Run-ending outcomes throw `StopRun`. */
  async read(url: string, what: string): Promise<PageOutcome> {
    this.frame.checkStop();
    const outcome = await this.pages.page(url);
    const cursor = this.frame.cursor;
    cursor.totals.requests += outcome.requests;
    if (outcome.kind === 'page' || outcome.kind === 'not-public' || outcome.kind === 'gate') {
      cursor.flags.answered += 1;
      cursor.totals.pages += 1;
    }
    this.log('page', { url, what, outcome: outcome.kind });
    if (outcome.kind === 'gate') {
      // ERR-5 / B-3: a wall is a block of our client; never bypassed, never retried in this run.
      this.frame.failure({
        kind: 'ua-blocked',
        url,
        list: what,
        status: outcome.status,
        detail: `gate page (${outcome.gate.kind}${outcome.gate.vendor ? `, ${outcome.gate.vendor}` : ''}): ${outcome.gate.evidence}`,
      });
      throw new StopRun('failure');
    }
    if (outcome.kind === 'failure') {
      // The run's time ran out under this page: checkpoint with the page still to do.
      if (outcome.failure === 'RUN_DEADLINE') throw new StopRun('deadline');
      if (outcome.failure === 'HTTP_STATUS') cursor.flags.answered += 1;
      if (outcome.failure === 'ROBOTS_DISALLOWED') cursor.flags.disallowed += 1;
      const fatal = runEndingKind(outcome.failure);
      if (fatal) {
        this.frame.failure({
          kind: fatal,
          url,
          list: what,
          detail: outcome.message,
          ...(outcome.status !== undefined ? { status: outcome.status } : {}),
        });
        throw new StopRun('failure');
      }
    }
    return outcome;
  }

  /** A non-fatal failure of a page: noted (the run is not complete), the page is asked again next run. */
  failed(outcome: PageFailure, what: string): void {
    if (outcome.failure === 'ROBOTS_DISALLOWED') {
      this.log('robots-disallowed', { url: outcome.url, what });
      return;
    }
    this.frame.failure({
      kind: 'other',
      url: outcome.url,
      list: what,
      detail: outcome.message,
      ...(outcome.status !== undefined ? { status: outcome.status } : {}),
    });
  }

  /** A page that does not read as its layout (`PageLayoutError`); anything else is rethrown. */
  unreadable(err: unknown, url: string, what: string): void {
    if (!(err instanceof PageLayoutError)) throw err;
    // A page we cannot read is a layout change at the vendor: on-call must see it, nothing is guessed.
    this.failedWith(url, what, err.message);
  }

  /** A page that answered but cannot serve its purpose: noted, the run is not complete. */
  failedWith(url: string, what: string, detail: string): void {
    this.frame.failure({ kind: 'other', url, list: what, detail });
  }
}
