import { afterAll, beforeAll } from 'vitest';
import { type AwsTestbed, startAwsTestbed } from './aws';
import { type FakeRisHtml, type FakeRisHtmlOptions, startFakeRisHtml } from './fake-ris-html';

/** The local AWS peers and the fake RIS website of one suite (what every scraper suite starts). */
export interface RisSiteBed {
  readonly bed: AwsTestbed;
  readonly site: FakeRisHtml;
}

/**
 * Starts both in `beforeAll` and stops them in `afterAll` of the calling suite; read `bed` and `site`
 * inside hooks and tests. Hooks the suite registers after this call run after the start and (vitest's
 * stacked hooks) before the stop.
 */
export function useRisSiteBed(options: FakeRisHtmlOptions = {}): RisSiteBed {
  let bed: AwsTestbed | undefined;
  let site: FakeRisHtml | undefined;
  beforeAll(async () => {
    [bed, site] = await Promise.all([startAwsTestbed(), startFakeRisHtml(options)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([bed?.stop(), site?.close()]);
  });
  return {
    get bed() {
      if (!bed) throw new Error('useRisSiteBed: the testbed is started in beforeAll');
      return bed;
    },
    get site() {
      if (!site) throw new Error('useRisSiteBed: the fake RIS site is started in beforeAll');
      return site;
    },
  };
}
