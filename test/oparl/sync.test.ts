import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { SyncStateStore } from '../../shared/engine';
import { MIRROR_TYPES } from '../../shared/mirror';
import { useAwsTestbed } from '../support/aws';
import { harness, liveMirror, TestClock } from '../support/oparl-harness';

const T0 = Date.parse('2024-07-01T10:00:00+02:00');
const MIN = 60_000;

describe('OParl sync against the fake council (local peers)', () => {
  const bed = useAwsTestbed();

  async function council(
    clock: TestClock,
    extra: Parameters<typeof startFakeCouncil>[0] = {},
  ): Promise<FakeCouncil> {
    return startFakeCouncil({ now: clock.now, objectsPerList: 4, pageSize: 2, ...extra });
  }

  it('SCH-8: an unchanged source costs one request per list (body list included) on the second run', async () => {
    const clock = new TestClock(T0);
    const fake = await council(clock);
    try {
      const h = harness(bed, fake.systemUrl, clock);
      const full = await h.sync('full');
      expect(full).toMatchObject({
        kind: 'full',
        complete: true,
        changed: true,
        continued: false,
        failures: [],
      });
      clock.advance(10 * MIN);
      fake.clearRequests();
      const inc = await h.sync('incremental');
      // 10 per-body lists (OParl 1.1) + the body list; the System is not asked again.
      expect(inc).toMatchObject({ kind: 'incremental', requests: 11, changed: false, complete: true });
      expect(fake.requests).toHaveLength(11);
      expect(inc.lists.every((l) => l.pages === 1 && l.outcome === 'done' && l.filter === 'supported')).toBe(
        true,
      );
      // SCH-9: precise window = last complete start − 2 h, formatted without fractions, offset encoded.
      const meetingAsk = fake.requests.find((r) => r.path.includes('/meeting?'))?.path ?? '';
      expect(meetingAsk).toContain('modified_since=2024-07-01T08%3A00%3A00%2B02%3A00');
    } finally {
      await fake.close();
    }
  });

  it('OParl 1.0: the four mandatory lists; legislative terms embedded in the Body are mirrored as objects', async () => {
    const clock = new TestClock(T0);
    const fake = await council(clock, { oparlVersion: '1.0' });
    try {
      const h = harness(bed, fake.systemUrl, clock);
      const full = await h.sync('full');
      expect(full.complete).toBe(true);
      expect(full.lists.map((l) => l.list)).toEqual(['organization', 'person', 'meeting', 'paper']);
      const terms = await liveMirror(h, ['legislativeterm', 'membership', 'agendaitem', 'file']);
      const types = new Set([...terms.keys()].map((k) => k.split(' ')[0]));
      expect(types).toEqual(new Set(['legislativeterm', 'membership', 'agendaitem', 'file']));
      clock.advance(10 * MIN);
      const inc = await h.sync('incremental');
      expect(inc.requests).toBe(5);
    } finally {
      await fake.close();
    }
  });

  it('changed, new and deleted objects are picked up; deleted ones become tombstones excluded from listings (OPT-2)', async () => {
    const clock = new TestClock(T0);
    const fake = await council(clock);
    try {
      const h = harness(bed, fake.systemUrl, clock);
      await h.sync('full');
      const before = await liveMirror(h, MIRROR_TYPES);
      clock.advance(15 * MIN);
      const [changedPaper] = fake.mutate({ op: 'update', list: 'paper', n: 1, set: { name: 'Neuer Titel' } });
      const [added] = fake.mutate({
        op: 'add',
        list: 'organization',
        set: { name: 'Beirat für Radverkehr' },
      });
      const [gone] = fake.mutate({ op: 'delete', list: 'person', n: 2 });
      clock.advance(1 * MIN);
      const inc = await h.sync('incremental');
      expect(inc.objects).toEqual({ new: 1, modified: 1, deleted: 1 });
      expect(inc.changed).toBe(true);

      const after = await liveMirror(h, MIRROR_TYPES);
      expect((after.get(`paper ${changedPaper}`) as { name: string }).name).toBe('Neuer Titel');
      expect(after.has(`organization ${added}`)).toBe(true);
      expect(before.has(`person ${gone}`)).toBe(true);
      expect(after.has(`person ${gone}`)).toBe(false);
      const tomb = await h.mirror.read(h.source.sourceId, 'person', gone as string);
      expect(tomb?.meta.deleted).toBe(true);
      expect((tomb?.meta.lastGood as { id?: string } | undefined)?.id).toBe(gone);
      expect(tomb?.meta.sourceUrl).toContain('/person?');

      // Nothing changed since: the next run sees the same window's objects as unchanged.
      clock.advance(10 * MIN);
      const again = await h.sync('incremental');
      expect(again.objects).toEqual({ new: 0, modified: 0, deleted: 0 });
    } finally {
      await fake.close();
    }
  });

  it('SCH-2: session days are upcoming meeting dates; cancelled and deleted meetings do not count', async () => {
    const clock = new TestClock(T0);
    const fake = await council(clock);
    try {
      const h = harness(bed, fake.systemUrl, clock);
      const full = await h.sync('full');
      expect(full.sessionDays).toEqual(['2024-07-03', '2024-07-12']);
      clock.advance(10 * MIN);
      fake.mutate({ op: 'update', list: 'meeting', n: 4, set: { cancelled: true } });
      fake.mutate({ op: 'delete', list: 'meeting', n: 3 });
      clock.advance(MIN);
      const inc = await h.sync('incremental');
      expect(inc.sessionDays).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it('ONB-4 / DOC-7: new bodies are unlisted with unique slugs; their files are recorded as unlisted documents', async () => {
    const clock = new TestClock(T0);
    const fake = await council(clock, {
      bodies: [{ name: 'Stadt Köln-Süd' }, { name: 'Gemeinde Köln-Süd' }],
    });
    try {
      const h = harness(bed, fake.systemUrl, clock);
      const full = await h.sync('full');
      expect(full.complete).toBe(true);
      const bodies = await new SyncStateStore(
        bed.clients,
        bed.env.STATE_TABLE,
        h.source.sourceId,
      ).getBodies();
      expect(bodies.map((b) => b.slug).sort()).toEqual(['koeln-sued', 'koeln-sued-2']);
      expect(bodies.every((b) => b.listed === false)).toBe(true);
      expect(Object.keys(bodies[0]?.lists ?? {}).sort()).toEqual(
        [
          'agendaItem',
          'consultation',
          'file',
          'legislativeTerm',
          'location',
          'meeting',
          'membership',
          'organization',
          'paper',
          'person',
        ].sort(),
      );

      const docs = await bed.clients.doc.send(
        new QueryCommand({
          TableName: bed.env.DOCUMENTS_TABLE,
          IndexName: 'bySource',
          KeyConditionExpression: 'sourceId = :s',
          ExpressionAttributeValues: { ':s': h.source.sourceId },
        }),
      );
      const items = docs.Items ?? [];
      expect(items).toHaveLength(8);
      expect(full.documents).toBe(8);
      expect(
        items.every((d) => d.state === 'pending' && d.listed === false && d.attemptShard === 'due'),
      ).toBe(true);
      expect(
        items.every((d) => /^[0-9a-f]{64}$/.test(String(d.docId)) && String(d.url).includes('/files/')),
      ).toBe(true);

      // A changed file is noted on its document without resetting it.
      clock.advance(10 * MIN);
      fake.mutate({ op: 'update', list: 'file', n: 1, set: { name: 'Einladung (neu)' } });
      const inc = await h.sync('incremental');
      expect(inc.documents).toBe(1);
      const after = await bed.clients.doc.send(
        new QueryCommand({
          TableName: bed.env.DOCUMENTS_TABLE,
          IndexName: 'bySource',
          KeyConditionExpression: 'sourceId = :s',
          ExpressionAttributeValues: { ':s': h.source.sourceId },
        }),
      );
      const changed = (after.Items ?? []).filter((d) => d.sourceChangedAt !== undefined);
      expect(changed).toHaveLength(1);
      expect(changed[0]?.state).toBe('pending');
      expect(changed[0]?.firstSeenAt).toBe(new Date(T0).toISOString());
    } finally {
      await fake.close();
    }
  });

  it('B-1: list pages with validators are asked conditionally; a 304 costs no processing', async () => {
    const clock = new TestClock(T0);
    const fake = await council(clock, { apiEtags: true, midnightModifiedLists: ['paper'] });
    try {
      const h = harness(bed, fake.systemUrl, clock);
      await h.sync('full');
      clock.advance(10 * MIN);
      await h.sync('incremental');
      clock.advance(10 * MIN);
      fake.clearRequests();
      const third = await h.sync('incremental');
      expect(third.changed).toBe(false);
      const bodyList = fake.requests.find(
        (r) => r.path.startsWith('/oparl/v1/bodies?') || r.path === '/oparl/v1/bodies',
      );
      expect(bodyList?.conditional).toBe(true);
      expect(bodyList?.status).toBe(304);
      // SCH-9: a list without time of day asks from the day start — the same URL all day, so 304.
      const paper = fake.requests.find((r) => r.path.includes('/paper?'));
      expect(paper?.path).toContain('modified_since=2024-07-01T00%3A00%3A00%2B02%3A00');
      expect(paper?.status).toBe(304);
      expect(third.lists.find((l) => l.list === 'paper')?.timeOfDay).toBe(false);
    } finally {
      await fake.close();
    }
  });

  it('a redelivered message of a finished run answers with the same report and fetches nothing', async () => {
    const clock = new TestClock(T0);
    const fake = await council(clock);
    try {
      const h = harness(bed, fake.systemUrl, clock);
      const first = await h.sync('full', { runId: 'dup-run' });
      const count = h.fetcher.count;
      const second = await h.sync('full', { runId: 'dup-run' });
      expect(second).toEqual(first);
      expect(h.fetcher.count).toBe(count);
    } finally {
      await fake.close();
    }
  });
});
