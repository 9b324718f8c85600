import { pathToFileURL } from 'node:url';
import { startAwsTestbed } from '../test/support/aws';
import { ALLRIS_DISTRICTS, startFakeRisHtml } from '../test/support/fake-ris-html';
import { scraperHarness } from '../test/support/scraper-harness';

/**
 * Scrape-cost bench (issue 8): what a council server pays for our scraper, in HTTP requests (robots.txt
 * excluded, as in the sync reports).
 *
 *   initial              the first incremental scrape of an ALLRIS 3 installation (five captured
 *                        Hamburg district meetings on one fake site, plus calendar-only rows)
 *   unchanged            an incremental scrape an hour later with nothing changed: goal = the calendar
 *                        months only (10: 60 days back … 210 days ahead)
 *   oneChangedMeeting    one meeting's calendar row changed and its agenda gained an item with a new
 *                        paper: goal = months + that meeting page + the new paper
 *   revisitNearToday     six hours later, nothing changed: the pages of meetings near today are read
 *                        once more (catches agenda changes the calendar does not show)
 *
 * The real polite fetcher runs on a fake clock with process-local slots (the 2 s scraper pace is kept in
 * virtual time; `virtualSeconds` is what it would take for real) against the fake site on loopback and
 * the local DynamoDB/S3 peers.
 */
export interface ScrapeCostResult {
  months: number;
  initial: {
    requests: number;
    virtualSeconds: number;
    objects: { new: number; modified: number; deleted: number };
  };
  unchanged: { requests: number; beyondCalendar: number; changed: boolean };
  oneChangedMeeting: { requests: number; beyondCalendar: number; paths: string[] };
  revisitNearToday: { requests: number; beyondCalendar: number };
  paceSecondsPerRequest: number;
}

const HOUR = 3_600_000;

export async function runScrapeCostBench(
  opts: { log?: (line: string) => void } = {},
): Promise<ScrapeCostResult> {
  const log = opts.log ?? (() => {});
  const [bed, site] = await Promise.all([
    startAwsTestbed(),
    startFakeRisHtml({ districts: [...ALLRIS_DISTRICTS] }),
  ]);
  const h = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'bench' });
  try {
    const t0 = h.clock.now();
    const initial = await h.scrape();
    const virtualSeconds = Math.round((h.clock.now() - t0) / 1000);
    log(`initial: ${initial.requests} requests, ${virtualSeconds} s virtual`);
    const months = initial.months.length;

    site.resetCalls();
    h.clock.advance(HOUR);
    const unchanged = await h.scrape();
    log(`unchanged: ${unchanged.requests} requests`);

    site.setCalendarChanged(true);
    site.setAgendaChanged(true);
    site.resetCalls();
    h.clock.advance(HOUR);
    const changed = await h.scrape();
    const changedPaths = site
      .pageCalls()
      .map((c) => c.path)
      .filter((p) => !p.startsWith('/bi/si010_e.asp'));
    log(`one changed meeting: ${changed.requests} requests (${changedPaths.join(', ')})`);

    site.resetCalls();
    h.clock.advance(6 * HOUR);
    const revisit = await h.scrape();
    log(`revisit near today: ${revisit.requests} requests`);

    return {
      months,
      initial: { requests: initial.requests, virtualSeconds, objects: initial.objects },
      unchanged: {
        requests: unchanged.requests,
        beyondCalendar: unchanged.requests - months,
        changed: unchanged.changed,
      },
      oneChangedMeeting: {
        requests: changed.requests,
        beyondCalendar: changed.requests - months,
        paths: changedPaths,
      },
      revisitNearToday: { requests: revisit.requests, beyondCalendar: revisit.requests - months },
      paceSecondsPerRequest: h.source.requestIntervalSeconds,
    };
  } finally {
    await h.close();
    await Promise.all([bed.stop(), site.close()]);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runScrapeCostBench({ log: (line) => console.error(line) });
  console.log(JSON.stringify(result));
}
