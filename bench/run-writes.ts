import { destroyAwsClients } from '../shared/store';
import { ALLRIS_DISTRICTS, startFakeRisHtml } from '../test/support/fake-ris-html';
import { scraperHarness } from '../test/support/scraper-harness';
import { startDemoCouncil, startMeteredTestbed } from './cost';

/**
 * `npm run bench -- run-writes` (issue 28): every DynamoDB write the engines make in one run, by kind of
 * run, with its write units as DynamoDB bills them (the cost bench's meter: the larger of the item before
 * and after, and each global index copy). The runs are those of `bench cost` — the demo council with a
 * real list's pages and a real body's terms, the fake ALLRIS site — through the real engines against
 * DynamoDB local. Only the engines' own writes: a run's lease, claim and outcome are `bench state-writes`.
 */
export interface RunWrites {
  /** Write units of the run, all families. */
  writeUnits: number;
  /** Write units by `<command> <family>[ → <index>]`. */
  writesBy: Record<string, number>;
  /** Writes (table items and index copies) by the same labels. */
  writeCallsBy: Record<string, number>;
  /** Issue 28: read units of the run and by `<command> <family>` (an unchanged scrape's reads). */
  readUnits: number;
  readsBy: Record<string, number>;
}

const round = (x: number) => Math.round(x * 100) / 100;

export async function runRunWritesBench(opts: { log?: (line: string) => void } = {}) {
  const log = opts.log ?? (() => {});
  const { bed, peekClients, meter } = await startMeteredTestbed();
  const measure = async (name: string, run: () => Promise<unknown>): Promise<RunWrites> => {
    meter.reset();
    await run();
    const m = meter.read();
    const out = {
      writeUnits: round(m.writeUnits),
      writesBy: Object.fromEntries(Object.entries(m.writesBy).map(([k, v]) => [k, round(v)])),
      writeCallsBy: m.writeCallsBy,
      readUnits: round(m.readUnits),
      readsBy: Object.fromEntries(Object.entries(m.readsBy).map(([k, v]) => [k, round(v)])),
    };
    log(
      `${name}: ${out.writeUnits} WRU ${JSON.stringify(out.writesBy)}; ${out.readUnits} RRU ${JSON.stringify(out.readsBy)}`,
    );
    return out;
  };
  const oparl: Record<string, RunWrites> = {};
  const scraper: Record<string, RunWrites> = {};
  try {
    const { clock, fake, h, changePapers } = await startDemoCouncil(bed, 'run-writes');
    try {
      oparl.firstFull = await measure('oparl first full', () => h.sync('full'));
      clock.advance(10 * 60_000);
      oparl.unchanged = await measure('oparl unchanged incremental', () => h.sync('incremental'));
      clock.advance(10 * 60_000);
      oparl.unchangedAgain = await measure('oparl unchanged incremental (again)', () =>
        h.sync('incremental'),
      );
      clock.advance(10 * 60_000);
      changePapers('Run writes');
      clock.advance(60_000);
      oparl.changed = await measure('oparl changed incremental', () => h.sync('incremental'));
      clock.advance(12 * 3_600_000);
      oparl.nightlyFull = await measure('oparl nightly full', () => h.sync('full'));
    } finally {
      await fake.close();
    }
    const site = await startFakeRisHtml({ districts: [...ALLRIS_DISTRICTS] });
    const s = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'run-writes' });
    try {
      scraper.firstFull = await measure('scraper first full', () => s.scrape('full'));
      s.clock.advance(3_600_000);
      scraper.unchanged = await measure('scraper unchanged', () => s.scrape());
      s.clock.advance(3_600_000);
      scraper.unchangedAgain = await measure('scraper unchanged (again)', () => s.scrape());
      site.setCalendarChanged(true);
      site.setAgendaChanged(true);
      s.clock.advance(3_600_000);
      scraper.changed = await measure('scraper changed', () => s.scrape());
      s.clock.advance(12 * 3_600_000);
      scraper.nightlyFull = await measure('scraper nightly full', () => s.scrape('full'));
    } finally {
      await s.close();
      await site.close();
    }
  } finally {
    destroyAwsClients(peekClients);
    await bed.stop();
  }
  return { oparl, scraper };
}
