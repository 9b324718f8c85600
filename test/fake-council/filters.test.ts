import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { get, getJson, type ListPage, walk } from './http';

const ms = (o: Record<string, unknown>) => Date.parse(String(o.modified));
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe('fake council: modified_since / modified_until', () => {
  let council: FakeCouncil;
  let all: Array<Record<string, unknown>>;
  let median: Record<string, unknown>;
  beforeAll(async () => {
    council = await startFakeCouncil({ objectsPerList: 20, pageSize: 4 });
    all = council.objects('meeting');
    median = [...all].sort((a, b) => ms(a) - ms(b))[10]!;
  });
  afterAll(() => council.close());

  it('SCH-8: modified_since with a percent-encoded offset returns objects modified at or after it', async () => {
    const since = String(median.modified);

    const pages = await walk(`${council.listUrl('meeting')}?${q({ modified_since: since })}`);
    const got = pages.flatMap((p) => p.data);

    expect(since).toMatch(/[+-]\d{2}:\d{2}$/);
    expect(got.map((o) => o.id).sort()).toEqual(
      all
        .filter((o) => ms(o) >= Date.parse(since))
        .map((o) => o.id)
        .sort(),
    );
    expect(got).toContainEqual(median);
  });

  it('SCH-12 / FULL-5: modified_since + modified_until select a window, in any offset', async () => {
    const sorted = [...all].sort((a, b) => ms(a) - ms(b));
    const from = new Date(ms(sorted[3]!)).toISOString().replace('.000Z', 'Z');
    const until = '2099-01-01T00:00:00+05:30';

    const pages = await walk(
      `${council.listUrl('meeting')}?${q({ modified_since: from, modified_until: until })}`,
    );

    expect(pages.flatMap((p) => p.data)).toHaveLength(17);
  });

  it('keeps both filters in links.next', async () => {
    const params = q({
      modified_since: '2020-01-01T00:00:00+01:00',
      modified_until: '2030-01-01T00:00:00+01:00',
    });

    const page = await getJson<ListPage>(`${council.listUrl('meeting')}?${params}`);
    const next = new URL(page.links.next!);

    expect(next.searchParams.get('modified_since')).toBe('2020-01-01T00:00:00+01:00');
    expect(next.searchParams.get('modified_until')).toBe('2030-01-01T00:00:00+01:00');
    expect(next.searchParams.get('page')).toBe('2');
    expect(page.links.next).toContain('%2B01%3A00');
  });

  it('an unencoded + in the offset arrives as a space and is rejected with 400', async () => {
    const res = await get(`${council.listUrl('meeting')}?modified_since=2024-01-01T00:00:00+01:00`);

    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'Bad Request' });
  });

  it.each(['yesterday', '2024-01-01', '2024-01-01T00:00:00'])(
    'rejects %s (no date-time with offset)',
    async (v) => {
      const res = await get(`${council.listUrl('meeting')}?${q({ modified_since: v })}`);
      await res.arrayBuffer();

      expect(res.status).toBe(400);
    },
  );

  it('accepts fractional seconds unless the rejectFractionalSeconds fault is set', async () => {
    const url = `${council.listUrl('meeting')}?${q({ modified_since: '2024-01-01T00:00:00.250+01:00' })}`;

    const before = await get(url);
    await before.arrayBuffer();
    council.setFault('*/meeting', { kind: 'rejectFractionalSeconds' }, { times: 1 });
    const during = await get(url);
    await during.arrayBuffer();
    const whole = await get(
      `${council.listUrl('meeting')}?${q({ modified_since: '2024-01-01T00:00:00+01:00' })}`,
    );
    await whole.arrayBuffer();

    expect([before.status, during.status, whole.status]).toEqual([200, 400, 200]);
  });

  it('SCH-9: lists configured without time of day carry midnight modified values', async () => {
    const dated = await startFakeCouncil({ midnightModifiedLists: ['paper'] });
    try {
      const papers = (await walk(dated.listUrl('paper'))).flatMap((p) => p.data);
      const meetings = (await walk(dated.listUrl('meeting'))).flatMap((p) => p.data);

      expect(papers.every((p) => String(p.modified).includes('T00:00:00'))).toBe(true);
      expect(meetings.some((m) => !String(m.modified).includes('T00:00:00'))).toBe(true);
    } finally {
      await dated.close();
    }
  });
});
