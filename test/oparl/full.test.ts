import { describe, expect, it } from 'vitest';
import type { FakeCouncil } from '../../demo';
import { SyncStateStore } from '../../shared/engine';
import { MIRROR_TYPES } from '../../shared/mirror';
import { timeSlices } from '../../shared/oparl/windows';
import { useAwsTestbed } from '../support/aws';
import { councilOnClock, harness, liveMirror, TestClock } from '../support/oparl-harness';

// Data from mid-2009 to February 2011; "now" in March 2011 keeps the slice count small (16).
const NOW = Date.parse('2011-03-01T04:00:00+01:00');
const SLICES = timeSlices(NOW).length;
const LISTS = 10;

describe('FULL-4 … FULL-7: full and sliced full syncs', () => {
  const bed = useAwsTestbed();

  const withCouncil = councilOnClock(NOW, {
    objectsPerList: 3,
    pageSize: 50,
    latestModified: '2011-02-15T12:00:00+01:00',
  });

  const listAsks = (fake: FakeCouncil) =>
    fake.requests.filter((r) => /\/bodies\/\d+\/\w+/.test(r.path)).map((r) => r.path);

  it('FULL-5: every list in time slices, old → new, filter on every request, ≥ 1 request per slice — the same mirror as a plain full sync', async () => {
    expect(SLICES).toBe(16);
    await withCouncil({}, async (fake, clock) => {
      const plain = harness(bed, fake.systemUrl, clock, 'plain');
      await plain.sync('full');
      fake.clearRequests();
      const h = harness(bed, fake.systemUrl, clock, 'sliced');
      const sliced = await h.sync('sliced', { windowEndMs: clock.ms + 5 * 3_600_000 });
      expect(sliced).toMatchObject({ kind: 'sliced', complete: true, failures: [] });
      const asks = listAsks(fake);
      expect(asks).toHaveLength(LISTS * SLICES);
      expect(asks.every((p) => p.includes('modified_until='))).toBe(true);
      const meeting = asks.filter((p) => p.includes('/meeting?'));
      expect(meeting[0]).not.toContain('modified_since');
      expect(meeting[0]).toContain('modified_until=2010-01-01T00%3A00%3A00%2B01%3A00');
      expect(meeting.slice(1).every((p) => p.includes('modified_since='))).toBe(true);
      expect(sliced.lists.every((l) => l.slices?.done === SLICES && l.slices.total === SLICES)).toBe(true);
      const a = [...(await liveMirror(plain, MIRROR_TYPES)).values()];
      const b = [...(await liveMirror(h, MIRROR_TYPES)).values()];
      expect(b).toHaveLength(a.length);
      expect(new Set(b.map((o) => JSON.stringify(o)))).toEqual(new Set(a.map((o) => JSON.stringify(o))));
    });
  });

  it('FULL-4 / FULL-6: no page after the window ends; the next sliced run resumes at the last complete slice', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      h.fetcher.onRequest = () => clock.advance(1000);
      const first = await h.sync('sliced', { windowEndMs: NOW + 40_000 });
      expect(first).toMatchObject({ stopReason: 'window', continued: false, complete: false });
      expect(clock.ms).toBeLessThanOrEqual(NOW + 40_000);
      const firstAsks = listAsks(fake);
      expect(first.lists.at(-1)?.outcome).toBe('open');

      fake.clearRequests();
      const second = await h.sync('sliced', { windowEndMs: clock.ms + 3_600_000 });
      expect(second).toMatchObject({ stopReason: 'end', complete: true });
      const secondAsks = listAsks(fake);
      // Not one slice asked twice: the second run starts where the first left off.
      expect(firstAsks.length + secondAsks.length).toBe(LISTS * SLICES);
      expect(new Set([...firstAsks, ...secondAsks]).size).toBe(LISTS * SLICES);
    });
  });

  it('FULL-5: a server rejecting the filter leaves the list open — it is never asked without filter', async () => {
    await withCouncil(
      { faults: [{ match: '*/paper', fault: { kind: 'rejectFilters' } }] },
      async (fake, clock) => {
        const h = harness(bed, fake.systemUrl, clock);
        const sliced = await h.sync('sliced', { windowEndMs: clock.ms + 5 * 3_600_000 });
        expect(sliced.complete).toBe(false);
        expect(sliced.lists.find((l) => l.list === 'paper')).toMatchObject({
          outcome: 'open',
          filter: 'rejected',
        });
        const paper = listAsks(fake).filter((p) => p.includes('/paper'));
        expect(paper).toHaveLength(1);
        expect(paper.every((p) => p.includes('modified_until'))).toBe(true);
        expect(sliced.lists.filter((l) => l.outcome === 'done')).toHaveLength(LISTS - 1);
      },
    );
  });

  it('FULL-6: called without a window (command line), a sliced sync runs as an incremental one', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      const report = await h.sync('sliced');
      expect(report.kind).toBe('incremental');
      expect(listAsks(fake).every((p) => !p.includes('modified_until'))).toBe(true);
    });
  });

  it('FULL-7: a slice returning objects far outside its range takes nothing from that page and aborts', async () => {
    await withCouncil({ faults: [{ match: '*', fault: { kind: 'ignoreFilters' } }] }, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      const sliced = await h.sync('sliced', { windowEndMs: clock.ms + 5 * 3_600_000 });
      expect(sliced).toMatchObject({
        filterNotHonoured: true,
        stopReason: 'filter-not-honoured',
        complete: false,
        continued: false,
      });
      expect(listAsks(fake)).toHaveLength(1);
      expect(sliced.lists).toHaveLength(1);
      expect(sliced.lists[0]?.note).toMatch(/FULL-7/);
      // Nothing of the page was taken (only System and Body are mirrored).
      const live = await liveMirror(h, ['organization', 'membership', 'location']);
      expect(live.size).toBe(0);
    });
  });

  it('FULL-4: a full sync in an own window stops at its end; the next full sync reads only the lists left open', async () => {
    await withCouncil({ pageSize: 2 }, async (fake, clock) => {
      const reference = harness(bed, fake.systemUrl, new TestClock(NOW), 'ref');
      await reference.sync('full');
      const wholeAsks = listAsks(fake).length;
      fake.clearRequests();

      const h = harness(bed, fake.systemUrl, clock);
      h.fetcher.onRequest = () => clock.advance(1000);
      const first = await h.sync('full', { windowEndMs: NOW + 9_000 });
      expect(first).toMatchObject({ stopReason: 'window', complete: false, continued: false });
      const done = first.lists.filter((l) => l.outcome === 'done').map((l) => l.list);
      expect(done.length).toBeGreaterThan(0);
      const firstAsks = listAsks(fake).length;

      fake.clearRequests();
      const second = await h.sync('full');
      expect(second).toMatchObject({ complete: true, stopReason: 'end' });
      expect(second.lists.map((l) => l.list).filter((l) => done.includes(l))).toEqual([]);
      // The list in flight at the window's end is read again from its start; nothing else twice.
      expect(firstAsks + listAsks(fake).length).toBeLessThanOrEqual(wholeAsks + 2);
      const [body] = await new SyncStateStore(
        bed.clients,
        bed.env.STATE_TABLE,
        h.source.sourceId,
      ).getBodies();
      expect(body?.lastCompleteFullSyncStart).toBe(new Date(NOW).toISOString());
    });
  });
});
