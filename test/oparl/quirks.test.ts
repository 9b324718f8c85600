import { describe, expect, it } from 'vitest';
import { SyncStateStore } from '../../shared/engine';
import { MIRROR_TYPES } from '../../shared/mirror';
import { useAwsTestbed } from '../support/aws';
import { json, oneBodySystem, startMiniCouncil } from '../support/mini-council';
import { councilOnClock, harness, liveMirror, TestClock } from '../support/oparl-harness';

const T0 = Date.parse('2024-07-01T10:00:00+02:00');
const MIN = 60_000;

describe('vendor quirks seen in real systems', () => {
  const bed = useAwsTestbed();

  const withCouncil = councilOnClock(T0, { objectsPerList: 3, pageSize: 2 });

  it.each([
    ['`[]`', '[]'],
    ['an error body', '{"error":"Keine Datensätze gefunden"}'],
  ])(
    'SD.NET: a 404 with %s for an empty filtered page is an empty page, not a failure',
    async (_name, body) => {
      await withCouncil({}, async (fake, clock) => {
        const h = harness(bed, fake.systemUrl, clock);
        await h.sync('full');
        clock.advance(10 * MIN);
        fake.setFault(/\/paper\?.*modified_since/, { kind: 'status', status: 404, body });
        const inc = await h.sync('incremental');
        expect(inc).toMatchObject({ complete: true, failures: [] });
        expect(inc.lists.find((l) => l.list === 'paper')).toMatchObject({
          outcome: 'done',
          note: 'empty filtered page answered 404',
        });
      });
    },
  );

  it('/body answering with a single Body instead of a list', async () => {
    await withCouncil(
      { faults: [{ match: '/oparl/v1/bodies', fault: { kind: 'bodyAsSingleObject' } }] },
      async (fake, clock) => {
        const h = harness(bed, fake.systemUrl, clock);
        const full = await h.sync('full');
        expect(full.complete).toBe(true);
        const bodies = await new SyncStateStore(
          bed.clients,
          bed.env.STATE_TABLE,
          h.source.sourceId,
        ).getBodies();
        expect(bodies.map((b) => b.id)).toEqual([fake.bodyUrl(1)]);
        expect(full.lists).toHaveLength(10);
      },
    );
  });

  it('unescaped control characters in JSON (CC e-gov)', async () => {
    await withCouncil(
      { faults: [{ match: '*/paper', fault: { kind: 'controlChars' } }] },
      async (fake, clock) => {
        const h = harness(bed, fake.systemUrl, clock);
        const full = await h.sync('full');
        expect(full).toMatchObject({ complete: true, failures: [] });
        const live = await liveMirror(h, ['paper']);
        expect(live.size).toBe(3);
      },
    );
  });

  it('"N/A" placeholders are kept as received and never used as names or dates', async () => {
    await withCouncil({ faults: [{ match: '*', fault: { kind: 'placeholders' } }] }, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      const full = await h.sync('full');
      expect(full).toMatchObject({ complete: true, failures: [] });
      const [body] = await new SyncStateStore(
        bed.clients,
        bed.env.STATE_TABLE,
        h.source.sourceId,
      ).getBodies();
      expect(body?.name).not.toBe('N/A');
      expect(body?.slug).toBe('musterstadt');
      const org = [...(await liveMirror(h, ['organization'])).values()][0] as { name: string };
      expect(org.name).toBe('N/A');
    });
  });

  it('servers rejecting fractional seconds accept every filter we send', async () => {
    await withCouncil(
      { faults: [{ match: '*', fault: { kind: 'rejectFractionalSeconds' } }] },
      async (fake, clock) => {
        const h = harness(bed, fake.systemUrl, clock);
        await h.sync('full');
        clock.advance(10 * MIN + 123);
        const inc = await h.sync('incremental');
        expect(inc).toMatchObject({ complete: true, failures: [] });
        expect(inc.lists.every((l) => l.filter === 'supported')).toBe(true);
      },
    );
  });

  it('a links.next cycle ends the list instead of looping', async () => {
    await withCouncil(
      { objectsPerList: 7, faults: [{ match: '*/person', fault: { kind: 'nextCycle', toPage: 1 } }] },
      async (fake, clock) => {
        const h = harness(bed, fake.systemUrl, clock);
        const full = await h.sync('full');
        const person = full.lists.find((l) => l.list === 'person');
        expect(person?.note).toMatch(/cycle/);
        // `…/person` and `…/person?page=1` are the same page under two URLs: one extra page at most.
        expect(person?.pages).toBeLessThanOrEqual(3);
        expect(fake.requests.filter((r) => r.path.includes('/person')).length).toBe(person?.pages);
      },
    );
  });

  it('SCH-10: a server that filters but drops the filter from links.next gets it carried to every next page', async () => {
    await withCouncil(
      { faults: [{ match: '*/paper', fault: { kind: 'dropFilterFromNext' } }] },
      async (fake, clock) => {
        const h = harness(bed, fake.systemUrl, clock);
        await h.sync('full');
        clock.advance(10 * MIN);
        fake.mutate(
          [1, 2, 3].map((n) => ({
            op: 'update' as const,
            list: 'paper' as const,
            n,
            set: { name: `P${n}` },
          })),
        );
        fake.clearRequests();
        const inc = await h.sync('incremental');
        const asks = fake.requests.filter((r) => r.path.includes('/paper?')).map((r) => r.path);
        expect(asks).toHaveLength(2);
        expect(asks.every((p) => p.includes('modified_since='))).toBe(true);
        const paper = inc.lists.find((l) => l.list === 'paper');
        expect(paper).toMatchObject({ nextDropsFilter: true, filter: 'supported', changed: 3 });
      },
    );
  });

  describe('quirks scripted with a small server', () => {
    it('deleted entries without `type` become tombstones of the list type', async () => {
      let deleted = false;
      const paperUrl = (base: string) => `${base}/oparl/paper/1`;
      const mini = await startMiniCouncil(
        oneBodySystem((list, url, base) => {
          if (list !== 'paper') return undefined;
          if (deleted && url.searchParams.has('modified_since')) {
            return json({ data: [{ id: paperUrl(base), deleted: true }], links: {} });
          }
          return json({
            data: [
              {
                id: paperUrl(base),
                type: 'https://schema.oparl.org/1.0/Paper',
                name: 'Antrag',
                modified: '2024-06-30T12:00:00+02:00',
              },
            ],
            links: {},
          });
        }),
      );
      try {
        const clock = new TestClock(T0);
        const h = harness(bed, mini.systemUrl, clock);
        await h.sync('full');
        deleted = true;
        clock.advance(10 * MIN);
        const inc = await h.sync('incremental');
        expect(inc.objects.deleted).toBe(1);
        const tomb = await h.mirror.read(h.source.sourceId, 'paper', paperUrl(mini.base));
        expect(tomb?.meta.deleted).toBe(true);
        expect((tomb?.meta.lastGood as { name?: string } | undefined)?.name).toBe('Antrag');
        expect((await liveMirror(h, MIRROR_TYPES)).has(`paper ${paperUrl(mini.base)}`)).toBe(false);
      } finally {
        await mini.close();
      }
    });

    it('a single object where the schema says array (page data and embedded lists)', async () => {
      const mini = await startMiniCouncil(
        oneBodySystem((list, _url, base) => {
          if (list !== 'meeting') return undefined;
          return json({
            data: {
              id: `${base}/oparl/meeting/1`,
              type: 'https://schema.oparl.org/1.0/Meeting',
              name: 'Ratssitzung',
              start: '2024-07-02T17:00:00+02:00',
              modified: '2024-06-30T12:00:00+02:00',
              agendaItem: {
                id: `${base}/oparl/agendaitem/1`,
                type: 'https://schema.oparl.org/1.0/AgendaItem',
                name: 'Eröffnung',
                modified: '2024-06-30T12:00:00+02:00',
              },
            },
            links: {},
          });
        }),
      );
      try {
        const h = harness(bed, mini.systemUrl, new TestClock(T0));
        const full = await h.sync('full');
        expect(full.complete).toBe(true);
        const live = await liveMirror(h, ['meeting', 'agendaitem']);
        expect([...live.keys()].sort()).toEqual([
          `agendaitem ${mini.base}/oparl/agendaitem/1`,
          `meeting ${mini.base}/oparl/meeting/1`,
        ]);
        expect(full.sessionDays).toEqual(['2024-07-02']);
      } finally {
        await mini.close();
      }
    });

    it('a links.next to another host is not followed', async () => {
      const mini = await startMiniCouncil(
        oneBodySystem((list, _url, base) => {
          if (list !== 'person') return undefined;
          return json({
            data: [{ id: `${base}/oparl/person/1`, type: 'https://schema.oparl.org/1.0/Person', name: 'A' }],
            links: { next: 'https://elsewhere.example/oparl/person?page=2' },
          });
        }),
      );
      try {
        const h = harness(bed, mini.systemUrl, new TestClock(T0));
        const full = await h.sync('full');
        expect(h.fetcher.urls.some((u) => u.includes('elsewhere.example'))).toBe(false);
        const person = full.lists.find((l) => l.list === 'person');
        expect(person).toMatchObject({ outcome: 'open', pages: 1 });
        expect(person?.note).toMatch(/another host/);
        expect(full.complete).toBe(false);
      } finally {
        await mini.close();
      }
    });
  });
});
