import { describe, expect, it } from 'vitest';
import type { MirrorRecord } from '../../shared/mirror';
import { useRisSiteBed } from '../support/ris-site-bed';
import { liveIds, SCRAPE_START_MS, type ScraperHarness, scraperHarness } from '../support/scraper-harness';

/**
 * A SessionNet 5.5.4 "Layout 6" installation replayed end to end (issue 26 point 4): the pages of
 * test/fixtures/sessionnet-layout6 (real markup, placeholder content; see its SOURCE.md) served by the
 * fake RIS website on loopback at `layout6.test` — `.asp` (KP4) under /bi/, `.php` under /buergerinfo/ —
 * scraped by the real engine with the real polite fetcher (robots.txt, slots, User-Agent) on a fake clock,
 * into the real local DynamoDB/S3 peers. In the repository, so it runs in every clone.
 */

/** Calendar months of an incremental scrape from SCRAPE_START_MS: 2025-08 … 2026-05. */
const MONTHS = 10;

async function read(h: ScraperHarness, type: string, id: string): Promise<Record<string, unknown>> {
  const record: MirrorRecord | undefined = await h.mirror.read(h.source.sourceId, type, id);
  if (!record) throw new Error(`${type} ${id} not mirrored`);
  return record.object as Record<string, unknown>;
}

describe('scraper engine: SessionNet 5.5.4 Layout 6 on loopback', () => {
  const ris = useRisSiteBed();

  it('ISSUE-26: .asp — every meeting of the month with date, time, name, cancelled flag, agenda, item documents and papers', async () => {
    const { bed, site } = ris;
    const base = site.layout6Urls.asp;
    const h = scraperHarness(bed, base, 'sessionnet', { prefix: 'sn-l6-asp' });
    try {
      site.resetCalls();
      const report = await h.scrape();
      expect(report).toMatchObject({ complete: true, failures: [] });
      expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toEqual(
        [2101, 2102, 2103, 2104].map((k) => `${base}si0057.asp?__ksinr=${k}`),
      );
      const council = await read(h, 'meeting', `${base}si0057.asp?__ksinr=2103`);
      expect(council).toMatchObject({
        name: 'Rat/07/2025',
        start: '2025-11-13T17:00:00+01:00',
        end: '2025-11-13T20:15:00+01:00',
        'mandari:organizationName': 'Rat der Stadt Musterstadt',
        location: { room: 'Rathaus, im Ratssaal' },
        invitation: { id: `${base}getfile.asp?id=9102&type=do` },
        resultsProtocol: { id: `${base}getfile.asp?id=9103&type=do` },
      });
      expect(council.cancelled).toBeUndefined();
      // The meeting's own three documents only; the items' documents stay with the items.
      expect((council.auxiliaryFile as { id: string }[]).map((f) => f.id)).toEqual([
        `${base}getfile.asp?id=9104&type=do`,
      ]);
      const items = council.agendaItem as Record<string, unknown>[];
      expect(items.map((i) => [i.number, i.name, i.result, i['mandari:paperReference']])).toEqual([
        ['Ö 1', 'Einwohnerfragestunde', undefined, undefined],
        [
          'Ö 2',
          'Bebauungsplan Nr. 12 „Am Mühlenbach“ hier: Satzungsbeschluss',
          'Mit Stimmenmehrheit zugestimmt',
          '112/2025',
        ],
        ['Ö 2.1', 'Änderungsantrag der Fraktion Partei A zu TOP Ö 2', 'Abgelehnt', undefined],
        ['Ö 3', 'Haushaltssatzung 2026', 'Einstimmig beschlossen', '120/2025'],
        ['N 4', 'Grundstücksangelegenheiten', undefined, undefined],
      ]);
      const item = await read(h, 'agendaitem', `${base}si0057.asp?__ksinr=2103#top-Oe2`);
      expect((item.auxiliaryFile as { id: string }[]).map((f) => f.id)).toEqual([
        `${base}getfile.asp?id=9201&type=do`,
        `${base}getfile.asp?id=9202&type=do`,
      ]);
      expect(await read(h, 'meeting', `${base}si0057.asp?__ksinr=2104`)).toMatchObject({
        cancelled: true,
        start: '2025-11-20T17:00:00+01:00',
      });
      expect(await read(h, 'paper', `${base}vo0050.asp?__kvonr=3201`)).toMatchObject({
        name: 'Bebauungsplan Nr. 12 „Am Mühlenbach“ - Satzungsbeschluss',
        reference: '112/2025',
        paperType: 'Beschlussvorlage',
        date: '2025-10-14',
        mainFile: { id: `${base}getfile.asp?id=9201&type=do` },
      });

      // RATE-3 / ID-1 / ROB-1: robots.txt first, one request at a time, ≥ 2 s apart, our User-Agent.
      const calls = site.calls.filter((c) => c.host === 'layout6.test');
      expect(calls[0]?.path).toBe('/robots.txt');
      expect(site.maxInFlight).toBe(1);
      expect(h.clock.now() - SCRAPE_START_MS).toBeGreaterThanOrEqual(2_000 * (calls.length - 1));
      for (const call of calls) expect(call.userAgent).toMatch(/^mandari-ingestor\//);

      // SCH-3: unchanged, the next incremental scrape reads the calendar months only and changes nothing.
      site.resetCalls();
      h.clock.advance(3_600_000);
      const again = await h.scrape();
      expect(again).toMatchObject({ complete: true, changed: false, requests: MONTHS });
    } finally {
      await h.close();
    }
  }, 120_000);

  it('ISSUE-26: .php — meetings, the linked committee with its members (those without a person page kept), papers', async () => {
    const { bed, site } = ris;
    const base = site.layout6Urls.php;
    const h = scraperHarness(bed, `${base}info.php`, 'sessionnet', { prefix: 'sn-l6-php' });
    try {
      site.resetCalls();
      const report = await h.scrape();
      expect(report).toMatchObject({ complete: true, failures: [] });
      expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toEqual(
        [4101, 4102].map((k) => `${base}si0057.php?__ksinr=${k}`),
      );
      expect(await read(h, 'meeting', `${base}si0057.php?__ksinr=4101`)).toMatchObject({
        name: 'SchA/06/2025',
        start: '2025-11-11T18:00:00+01:00',
        end: '2025-11-11T19:40:00+01:00',
        organization: [`${base}kp0040.php?__kgrnr=107`],
      });
      expect(await read(h, 'meeting', `${base}si0057.php?__ksinr=4102`)).toMatchObject({ cancelled: true });
      expect(await read(h, 'paper', `${base}vo0050.php?__kvonr=6202`)).toMatchObject({
        reference: 'M/2025/014',
        paperType: 'Mitteilungsvorlage',
      });
      const committee = `${base}kp0040.php?__kgrnr=107`;
      expect(await read(h, 'organization', committee)).toMatchObject({
        name: 'Ausschuss für Schule und Sport',
      });
      const memberships = (await liveIds(h.mirror, h.source.sourceId, 'membership')).filter((id) =>
        id.startsWith(committee),
      );
      expect(memberships).toHaveLength(5);
      expect(await read(h, 'membership', `${committee}#member-name-ute-unbekannt`)).toMatchObject({
        person: `${committee}#person-ute-unbekannt`,
        role: 'Ausschussmitglieder mit beratender Stimme',
        votingRight: false,
        'mandari:onBehalfOfName': 'Stadtschulpflegschaft',
        'mandari:membershipKind': 'Beratendes Mitglied',
      });
      expect(await read(h, 'person', `${committee}#person-ute-unbekannt`)).toMatchObject({
        name: 'Ute Unbekannt',
      });
      const calls = site.calls.filter((c) => c.host === 'layout6.test');
      expect(calls[0]?.path).toBe('/robots.txt');
      expect(h.clock.now() - SCRAPE_START_MS).toBeGreaterThanOrEqual(2_000 * (calls.length - 1));
      for (const call of calls) expect(call.userAgent).toMatch(/^mandari-ingestor\//);
    } finally {
      await h.close();
    }
  }, 120_000);

  it('ISSUE-26: a month page whose meeting rows cannot be read is a recorded failure, the run incomplete, nothing removed', async () => {
    const { bed, site } = ris;
    const base = site.layout6Urls.asp;
    const h = scraperHarness(bed, base, 'sessionnet', { prefix: 'sn-l6-broken' });
    try {
      const meetings = [2101, 2102, 2103, 2104].map((k) => `${base}si0057.asp?__ksinr=${k}`);
      expect(await h.scrape()).toMatchObject({ complete: true, failures: [] });
      site.setLayout6DaysRemoved(true);
      h.clock.advance(3_600_000);
      const report = await h.scrape();
      expect(report.complete).toBe(false);
      expect(report.failures).toEqual([
        expect.objectContaining({
          kind: 'other',
          url: `${base}si0040.asp?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0`,
          list: 'calendar',
        }),
      ]);
      expect(String(report.failures[0]?.detail)).toMatch(/4 of 4 linked meeting/);
      // Read as an empty month, its meetings would count as gone from it; as a failure, month and meetings stay.
      expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toEqual(meetings);
    } finally {
      site.setLayout6DaysRemoved(false);
      await h.close();
    }
  }, 120_000);
  it('ISSUE-26 / OPT-2: a meeting without a page of its own is mirrored from its row; when the row goes, it is tombstoned without asking its id', async () => {
    const { bed, site } = ris;
    const base = site.layout6Urls.php;
    const h = scraperHarness(bed, `${base}info.php`, 'sessionnet', { prefix: 'sn-l6-kp1' });
    const linked = [4101, 4102].map((k) => `${base}si0057.php?__ksinr=${k}`);
    const rowOnly = `${base}si0040.php?__cjahr=2025&__cmonat=11#2025-11-13%20Seniorenbeirat`;
    try {
      site.setLayout6November('si0040_2025-11_kp1');
      expect(await h.scrape()).toMatchObject({ complete: true, failures: [] });
      expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toEqual([...linked, rowOnly].sort());
      expect(await read(h, 'meeting', rowOnly)).toMatchObject({
        name: 'Seniorenbeirat',
        start: '2025-11-13T10:00:00+01:00',
        'mandari:organizationName': 'Seniorenbeirat',
        location: { room: 'Rathaus, Sitzungssaal 3' },
      });
      // The cancelled appointment ("Die Sitzung des Umweltausschusses fällt aus.") made no meeting.
      expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toHaveLength(3);

      // The row leaves the calendar (its meeting got a page, or was dropped): the row was its only source.
      site.setLayout6November(null);
      site.resetCalls();
      h.clock.advance(3_600_000);
      expect(await h.scrape()).toMatchObject({ complete: true, failures: [] });
      expect(await liveIds(h.mirror, h.source.sourceId, 'meeting')).toEqual(linked);
      const asked = site.pageCalls('layout6.test').filter((c) => c.path.includes('__cmonat=11'));
      expect(asked.map((c) => c.path)).toEqual([
        '/buergerinfo/si0040.php?__cjahr=2025&__cmonat=11&__canz=1&__cselect=0',
      ]);
    } finally {
      site.setLayout6November(null);
      await h.close();
    }
  }, 120_000);
  it("ISSUE-26: two bodies of one installation (__cpanr) — each source mirrors its own body's meetings only", async () => {
    const { bed, site } = ris;
    const base = site.layout6Urls.php;
    const main = scraperHarness(bed, `${base}info.php`, 'sessionnet', { prefix: 'sn-l6-body1' });
    const member = scraperHarness(bed, `${base}si0040.php?__cpanr=2`, 'sessionnet', {
      prefix: 'sn-l6-body2',
    });
    try {
      expect(await main.scrape()).toMatchObject({ complete: true, failures: [] });
      site.resetCalls();
      expect(await member.scrape()).toMatchObject({ complete: true, failures: [] });
      expect(await liveIds(main.mirror, main.source.sourceId, 'meeting')).toEqual(
        [4101, 4102].map((k) => `${base}si0057.php?__ksinr=${k}`),
      );
      expect(await liveIds(member.mirror, member.source.sourceId, 'meeting')).toEqual([
        `${base}si0040.php?__cjahr=2025&__cmonat=11&__cpanr=2#2025-11-13%20Seniorenbeirat`,
      ]);
      // Every calendar month the member body's source asked named its body.
      const months = site.pageCalls('layout6.test').filter((c) => c.path.includes('si0040.php'));
      expect(months.length).toBeGreaterThan(0);
      for (const c of months) expect(c.path).toContain('__cpanr=2');
    } finally {
      await main.close();
      await member.close();
    }
  }, 180_000);
});
