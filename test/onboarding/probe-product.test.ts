import { afterAll, beforeAll, expect, it } from 'vitest';
import { probeBodies } from '../../shared/onboarding';
import { corpusDescribe, risHtml } from '../support/corpora';
import { type FakeRisHtml, startFakeRisHtml } from '../support/fake-ris-html/server';
import { makeProbeKit, type ProbeKit } from '../support/probe-kit';

/** Suites on the captured RIS pages (outside the repository): skipped without that corpus. */
const withRisHtml = corpusDescribe(risHtml());

/** Issue 8 / ONB-1: a council system without OParl — the probe names the product to scrape it with. */
withRisHtml('probe recognises the council product on the start page', () => {
  let site: FakeRisHtml;
  let kit: ProbeKit;
  beforeAll(async () => {
    site = await startFakeRisHtml();
    kit = makeProbeKit();
  });
  afterAll(async () => {
    await kit.close();
    await site.close();
  });

  it('ONB-1: an ALLRIS 3 calendar page without an OParl API is reported as product allris, within 5 requests', async () => {
    const start = `${site.allrisUrl}si010_e.asp?MM=11&YY=2025`;
    const { bodies } = await probeBodies([start], { ...kit, sleep: kit.sleep });
    const [b] = bodies;
    expect(b?.product?.name).toBe('allris');
    expect(b?.product?.evidence.length).toBeGreaterThan(0);
    expect(b?.requests).toBeLessThanOrEqual(5);
  });
});
