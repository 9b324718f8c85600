import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestResolver } from '../../shared/net';
import type { SyncRuntime } from '../../shared/sync/compose';
import { corpusDescribe, risHtml } from '../support/corpora';
import { useRisSiteBed } from '../support/ris-site-bed';
import { scraperSource, uniqueScraperId } from '../support/scraper-harness';
import { startSyncRuntime } from '../support/sync-runtime';

/** Suites on the captured RIS pages (outside the repository): skipped without that corpus. */
const withRisHtml = corpusDescribe(risHtml());

/**
 * The sync function's composition root dispatches `kind: 'scraper'` sources to the scraper engine
 * (issue 8), over the same polite fetcher with the REAL clock and process-local slots. To keep the real
 * pace cheap, the site shows a gate page: robots.txt and one page, 1 s apart (interval set to 1 s, the
 * RATE-3 floor), and the run ends as ERR-5 "UA blocked".
 */
withRisHtml('sync runtime: scraper sources go to the scraper engine', () => {
  const ris = useRisSiteBed({ districts: ['harburg'] });
  let runtime: SyncRuntime;

  beforeAll(async () => {
    runtime = await startSyncRuntime(ris.bed, { resolver: createTestResolver() });
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
  });

  it('ISSUE-8 / ERR-5: a scraper source runs the scraper engine and reports a gate page as ua-blocked', async () => {
    const { site } = ris;
    site.setGate('anubis');
    const source = scraperSource(uniqueScraperId('rt'), site.allrisUrl, 'allris', {
      requestIntervalSeconds: 1,
    });
    const now = new Date();
    const report = await runtime.runDeps.engine(
      source,
      { runId: `${source.sourceId}-1`, kind: 'incremental' },
      { deadlineMs: Date.now() + 60_000, runStartedAt: now },
    );
    expect(report).toMatchObject({
      kind: 'incremental',
      complete: false,
      continued: false,
      failures: ['ua-blocked'],
    });
    expect(report.requests).toBe(1);
    const pages = site.pageCalls();
    expect(pages).toHaveLength(1);
    expect(pages[0]?.path).toMatch(/^\/bi\/si010_e\.asp\?MM=\d{1,2}&YY=\d{4}$/);
    expect(report.failureDetails?.[0]).toMatch(/proof-of-work/);
  });
});
