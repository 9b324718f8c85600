import { describe, expect, it } from 'vitest';
import { contentHash } from '../../shared/engine';
import { parseAllrisMeeting } from '../../shared/scraper/allris/meeting';
import { parseAllrisPaper } from '../../shared/scraper/allris/paper';
import { parseAllrisRoster } from '../../shared/scraper/allris/roster';
import { revisitDue, SCRAPE_POLICY, scrapeMonths } from '../../shared/scraper/constants';
import { decodeHtml } from '../../shared/scraper/decode';
import { shapeMeeting, shapeOrganization, shapePaper } from '../../shared/scraper/oparl-shape';
import { corpusDescribe, risHtml } from '../support/corpora';
import { allrisManifest, allrisPage } from '../support/fake-ris-html';

/** Suites on the captured RIS pages (outside the repository): skipped without that corpus. */
const withRisHtml = corpusDescribe(risHtml());

/** The scrape policy (which months, when a page is read again) and the OParl shape of scraped records. */

const DAY = 86_400_000;
const NOW = Date.parse('2025-10-20T08:00:00Z');

describe('scrape policy (pure)', () => {
  it('ISSUE-8: an incremental scrape reads the months from 60 days back to 210 days ahead', () => {
    expect(scrapeMonths('incremental', NOW)).toEqual([
      '2025-08',
      '2025-09',
      '2025-10',
      '2025-11',
      '2025-12',
      '2026-01',
      '2026-02',
      '2026-03',
      '2026-04',
      '2026-05',
    ]);
    expect(SCRAPE_POLICY).toMatchObject({ monthsBackDays: 60, monthsAheadDays: 210 });
  });

  it('ISSUE-8: a full scrape walks the months of the legislative term (5 years back by default)', () => {
    const months = scrapeMonths('full', NOW);
    expect(months[0]).toBe('2020-10');
    expect(months.at(-1)).toBe('2026-05');
    expect(months).toHaveLength(68);
  });

  it.each<{ kind: 'incremental' | 'full'; meetingDate: string; lastRead: number; due: boolean; why: string }>(
    [
      {
        kind: 'incremental',
        meetingDate: '2025-11-03',
        lastRead: NOW - 7 * 3_600_000,
        due: true,
        why: 'near today, read 7 h ago',
      },
      {
        kind: 'incremental',
        meetingDate: '2025-11-03',
        lastRead: NOW - 5 * 3_600_000,
        due: false,
        why: 'near today, read 5 h ago',
      },
      {
        kind: 'incremental',
        meetingDate: '2026-03-01',
        lastRead: NOW - 30 * DAY,
        due: false,
        why: 'far ahead: a row change brings it',
      },
      {
        kind: 'incremental',
        meetingDate: '2025-09-01',
        lastRead: NOW - 30 * DAY,
        due: false,
        why: 'long past',
      },
      {
        kind: 'full',
        meetingDate: '2024-03-01',
        lastRead: NOW - 31 * DAY,
        due: true,
        why: 'read more than 30 days ago',
      },
      {
        kind: 'full',
        meetingDate: '2024-03-01',
        lastRead: NOW - 2 * DAY,
        due: false,
        why: 'read 2 days ago',
      },
    ],
  )(
    'ISSUE-8: $kind scrape, meeting on $meetingDate, $why → revisit $due',
    ({ kind, meetingDate, lastRead, due }) => {
      expect(
        revisitDue({ kind, meetingDate, lastReadIso: new Date(lastRead).toISOString(), nowMs: NOW }),
      ).toBe(due);
    },
  );
});

withRisHtml('OParl shape of scraped records', () => {
  const m = allrisManifest().altona;
  const base = `${m?.base_url}/bi/`;
  const ctx = { bodyId: base };
  const html = (p: 'to010' | 'vo020' | 'au020') => decodeHtml(allrisPage('altona', p)).text;

  it('ISSUE-8: a meeting becomes Meeting + Location + Files + AgendaItems (+ a committee stub), no `modified` yet', () => {
    const detail = parseAllrisMeeting(html('to010'), `${base}to010.asp?SILFDNR=${m?.meeting_id}`);
    const shaped = shapeMeeting(undefined, detail, ctx);
    const meeting = shaped[0];
    expect(meeting).toMatchObject({ type: 'meeting', mode: 'owner' });
    expect(meeting?.object).toMatchObject({
      id: `${base}to010.asp?SILFDNR=1004086`,
      type: 'https://schema.oparl.org/1.1/Meeting',
      start: '2025-11-03T18:00:00+01:00',
      end: '2025-11-03T19:45:00+01:00',
      invitation: { name: 'Nachtragstagesordnung', accessUrl: `${base}do027.asp?DOLFDNR=1511776` },
      resultsProtocol: { name: 'Niederschrift öffent. Teil' },
    });
    expect(meeting?.object.modified).toBeUndefined();
    const types = shaped.map((o) => o.type);
    expect(types.filter((t) => t === 'agendaitem')).toHaveLength(20);
    expect(shaped.find((o) => o.type === 'organization')).toMatchObject({
      mode: 'stub',
      id: `${base}au020.asp?AULFDNR=235`,
    });
    const item = shaped.find((o) => o.id === `${base}to020.asp?TOLFDNR=1052638`)?.object;
    expect(item).toMatchObject({
      type: 'https://schema.oparl.org/1.1/AgendaItem',
      meeting: `${base}to010.asp?SILFDNR=1004086`,
      consultation: `${base}vo020.asp?VOLFDNR=1017291#consultation-1004086`,
      'mandari:paper': `${base}vo020.asp?VOLFDNR=1017291`,
    });
    // Shaping twice gives the same content hash: what decides "changed" is the page, not the run.
    expect(contentHash(shapeMeeting(undefined, detail, ctx)[0]?.object ?? {})).toBe(
      contentHash(meeting?.object ?? {}),
    );
  });

  it('ISSUE-8: a paper links its consultations by meeting, and its attachment carries no session link', () => {
    const paper = parseAllrisPaper(html('vo020'), `${base}vo020.asp?VOLFDNR=${m?.document_id}`);
    const shaped = shapePaper(paper, ctx);
    const object = shaped[0]?.object ?? {};
    expect(object).toMatchObject({
      type: 'https://schema.oparl.org/1.1/Paper',
      body: base,
      reference: '22-2362',
      paperType: 'Beschlussempfehlung öffentlich',
      mainFile: { id: `${base}do027.asp?DOLFDNR=1543908` },
    });
    expect((object.consultation as { id: string }[])[0]?.id).toBe(
      `${base}vo020.asp?VOLFDNR=1018473#consultation-1004364`,
    );
    const attachment = shaped.find((o) => o.id.endsWith('#anlage-1'))?.object ?? {};
    expect(attachment.accessUrl).toBeUndefined();
    expect(JSON.stringify(attachment)).not.toContain('___tmp');
    expect(attachment['mandari:accessNote']).toMatch(/session/);
  });

  it('ISSUE-8: a roster becomes Organization + Memberships (owned) + Person stubs with readable names', () => {
    const org = parseAllrisRoster(html('au020'), `${base}au020.asp?AULFDNR=235`, 'committee');
    const shaped = shapeOrganization(org, ctx);
    expect(shaped[0]?.object).toMatchObject({ organizationType: 'Gremium', name: 'Mobilitätsausschuss' });
    expect(shaped.find((o) => o.type === 'membership')?.object).toMatchObject({
      id: `${base}au020.asp?AULFDNR=235#member-307`,
      person: `${base}kp020.asp?KPLFDNR=307`,
      role: 'Vorsitzendes Mitglied',
      'mandari:onBehalfOfName': 'SPD-Fraktion',
    });
    expect(shaped.find((o) => o.id === `${base}kp020.asp?KPLFDNR=307`)).toMatchObject({
      mode: 'stub',
      object: { name: 'Henrik Strate', familyName: 'Strate', givenName: 'Henrik' },
    });
  });
});
