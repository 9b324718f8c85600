import { afterAll, beforeAll, expect, it } from 'vitest';
import { listBodies } from '../../shared/onboarding';
import { putSourceItem } from '../../shared/store/sources';
import { purgeDeleted, tombstoneBody, tombstoneIds } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { corpusDescribe, risHtml } from '../support/corpora';
import { type FakeRisHtml, startFakeRisHtml } from '../support/fake-ris-html';
import { liveIds, type ScraperHarness, scraperHarness } from '../support/scraper-harness';
import { takedownDepsOf } from '../support/takedown';

/**
 * OPT-5 for a scraped source (no OParl API): the real scraper engine and polite fetcher (virtual
 * time) against the captured ALLRIS site on loopback, the real local DynamoDB/S3 peers.
 */
/** The fake ALLRIS site serves captured pages (outside the repository): skipped without that corpus. */
const withRisHtml = corpusDescribe(risHtml());

withRisHtml('OPT-5: a takedown survives a purge for a scraped (ALLRIS) source', () => {
  let bed: AwsTestbed;
  let site: FakeRisHtml;
  const harnesses: ScraperHarness[] = [];
  beforeAll(async () => {
    [bed, site] = await Promise.all([startAwsTestbed(), startFakeRisHtml()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.close()));
    await site.close();
    await bed.stop();
  });

  async function scraped(prefix: string) {
    const h = scraperHarness(bed, site.allrisUrl, 'allris', { prefix });
    harnesses.push(h);
    await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
      sourceId: h.source.sourceId,
      systemUrl: site.allrisUrl,
      kind: 'scraper',
      adapter: 'allris',
      active: true,
    });
    await h.scrape();
    const deps = takedownDepsOf(bed);
    const [body] = await listBodies(bed.clients.doc, deps.tables, h.source.sourceId);
    if (!body) throw new Error('no body');
    return { h, deps, slug: body.slug, bodyId: body.id };
  }

  it('OPT-5: tombstone --ids on scraped committees and a paper, purge, then a scrape: none comes back', async () => {
    const { h, deps, slug } = await scraped('perm-scr-ids');
    // Committees are also created as stubs from every meeting page that names them (the way back in).
    const organizations = await liveIds(h.mirror, h.source.sourceId, 'organization');
    const papers = await liveIds(h.mirror, h.source.sourceId, 'paper');
    const [paper] = papers;
    if (!paper || organizations.length === 0) throw new Error('nothing scraped');
    await tombstoneIds(deps, [...organizations, paper], { by: 'test', sourceId: h.source.sourceId });
    await purgeDeleted(deps, slug, { sourceId: h.source.sourceId, yes: true });
    expect(await h.mirror.read(h.source.sourceId, 'paper', paper)).toBeUndefined();

    // Calendar and agenda changed: the meeting page is read again (and names its committee).
    site.resetCalls();
    site.setAgendaChanged(true);
    site.setCalendarChanged(true);
    await h.scrape();
    site.setAgendaChanged(false);
    site.setCalendarChanged(false);

    expect(site.pageCalls().some((c) => c.path.includes('to010.asp'))).toBe(true);
    expect(await liveIds(h.mirror, h.source.sourceId, 'organization')).toEqual([]);
    const livePapers = await liveIds(h.mirror, h.source.sourceId, 'paper');
    expect(livePapers).not.toContain(paper);
    // The rest goes on as usual: the other papers stay, the added one (Nachtrag) arrives.
    expect(livePapers.length).toBe(papers.length);
  }, 120_000);

  it('OPT-5: tombstone --body of the scraped source’s body, purge, then a scrape: nothing fetched, nothing back', async () => {
    const { h, deps, slug, bodyId } = await scraped('perm-scr-body');
    await tombstoneBody(deps, slug, { by: 'test', sourceId: h.source.sourceId });
    await purgeDeleted(deps, slug, { sourceId: h.source.sourceId, yes: true });
    site.resetCalls();

    const report = await h.scrape();

    expect(report.requests).toBe(0);
    expect(site.pageCalls()).toEqual([]);
    for (const type of ['body', 'meeting', 'paper', 'person', 'file']) {
      expect(await liveIds(h.mirror, h.source.sourceId, type)).toEqual([]);
    }
    expect(await h.mirror.readLive(h.source.sourceId, 'body', bodyId)).toBeUndefined();
  }, 120_000);
});
