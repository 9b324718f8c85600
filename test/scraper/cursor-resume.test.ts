import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { dynamoItemBytes } from '../../bench/cost/item-size';
import type { ScrapeReport } from '../../shared/scraper';
import { ScrapeStateStore } from '../../shared/scraper/state';
import { corpusDescribe, risHtml } from '../support/corpora';
import { useRisSiteBed } from '../support/ris-site-bed';
import { liveIds, scraperHarness } from '../support/scraper-harness';

const withRisHtml = corpusDescribe(risHtml());

/** RATE-3: the scraper's pace in the harness (virtual clock), one request per 2 s. */
const PACE_MS = 2_000;

/**
 * Issue 28: the scraper's cursor is stored packed (shared/store packed-item.ts) and rewritten after
 * every page. A run stopped after N pages — its invocation's time budget ends, as a Lambda's does — is
 * resumed by the next invocation from the packed cursor alone: together they fetch exactly the pages one
 * uninterrupted run fetches, none twice. The fake ALLRIS site on loopback, the real DynamoDB/S3 peers.
 */
withRisHtml('scraper cursor: packed, and a stopped run resumes exactly (issue 28)', () => {
  const ris = useRisSiteBed();

  const pagePaths = (from: number) =>
    ris.site
      .pageCalls('allris.test')
      .slice(from)
      .map((call) => call.path);

  it('ISSUE-8 / RATE-3: stopped after every page and every 4 pages, the run resumes to the pages of one uninterrupted run — none twice — and the same mirror', async () => {
    const { bed, site } = ris;
    const whole = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'whole' });
    const wholeFrom = site.pageCalls('allris.test').length;
    await whole.scrape('incremental');
    const wholePages = pagePaths(wholeFrom);
    expect(wholePages.length).toBeGreaterThan(10);
    expect(new Set(wholePages).size).toBe(wholePages.length);
    const wholeAgenda = await liveIds(whole.mirror, whole.source.sourceId, 'agendaitem');
    await whole.close();

    for (const pages of [1, 4]) {
      const h = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: `stopped-${pages}` });
      try {
        const runId = `${h.source.sourceId}-run`;
        const from = site.pageCalls('allris.test').length;
        let report: ScrapeReport | undefined;
        let invocations = 0;
        const cursorBytes: number[] = [];
        const plainBytes: number[] = [];
        do {
          invocations += 1;
          report = await h.scrape('incremental', { runId, deadlineMs: h.clock.now() + pages * PACE_MS });
          const raw = await bed.clients.dynamo.send(
            new GetItemCommand({
              TableName: bed.env.STATE_TABLE,
              Key: { pk: { S: `SOURCE#${h.source.sourceId}` }, sk: { S: 'SCRAPE#CURSOR#incremental' } },
              ConsistentRead: true,
            }),
          );
          expect(raw.Item?.z?.B).toBeDefined(); // packed
          expect(raw.Item?.seq?.N).toBeDefined(); // the lock stays plain
          const plain = await new ScrapeStateStore(
            bed.clients,
            bed.env.STATE_TABLE,
            h.source.sourceId,
          ).getCursor('incremental');
          cursorBytes.push(dynamoItemBytes(raw.Item ?? {}));
          plainBytes.push(Buffer.byteLength(JSON.stringify(plain)));
        } while (report.continued && invocations < 100);
        expect(report).toMatchObject({ continued: false, complete: true });
        expect(invocations).toBeGreaterThan(2);
        const fetched = pagePaths(from);
        expect(fetched.length, `stopped every ${pages} pages`).toBe(wholePages.length);
        expect(new Set(fetched).size).toBe(fetched.length);
        expect([...fetched].sort()).toEqual([...wholePages].sort());
        expect(await liveIds(h.mirror, h.source.sourceId, 'agendaitem')).toEqual(wholeAgenda.map((id) => id));
        // A first scrape’s stack is its largest (every meeting of a month, new): packed, a third or less.
        expect(Math.max(...plainBytes)).toBeGreaterThan(3_000);
        expect(Math.max(...cursorBytes)).toBeLessThan(Math.max(...plainBytes) / 3);
      } finally {
        await h.close();
      }
    }
  }, 120_000);
});
