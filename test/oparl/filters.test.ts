import { describe, expect, it } from 'vitest';
import { type FakeCouncil, LIST_KEYS, type ListKey } from '../../demo';
import { SyncStateStore } from '../../shared/engine';
import { OParlFetchError } from '../../shared/oparl/ports';
import { useAwsTestbed } from '../support/aws';
import { councilOnClock, harness } from '../support/oparl-harness';

const T0 = Date.parse('2024-07-01T10:00:00+02:00');
const MIN = 60_000;
const H = 60 * MIN;
/** Three objects per list except where said (the fake council's default is 12). */
const few = (counts: Partial<Record<ListKey, number>>) =>
  Object.fromEntries(LIST_KEYS.map((k) => [k, counts[k] ?? 3])) as Record<ListKey, number>;

describe('SCH-10 … SCH-12: filter support, missing and slow lists', () => {
  const bed = useAwsTestbed();

  const withCouncil = councilOnClock(T0, { objectsPerList: 3, pageSize: 2 });

  const paths = (fake: FakeCouncil, part: string) =>
    fake.requests.filter((r) => r.path.includes(part)).map((r) => r.path);

  it('SCH-10: the check after a full sync finds an ignored filter; lists are then read from the start and stop after 5 unchanged pages', async () => {
    await withCouncil(
      { objectsPerList: few({ paper: 16 }), faults: [{ match: '*', fault: { kind: 'ignoreFilters' } }] },
      async (fake, clock) => {
        const h = harness(bed, fake.systemUrl, clock);
        const full = await h.sync('full');
        expect(full.complete).toBe(true);
        const system = await new SyncStateStore(
          bed.clients,
          bed.env.STATE_TABLE,
          h.source.sourceId,
        ).getSystem();
        expect(system?.filterCheck?.finding).toBe('ignored');

        clock.advance(10 * MIN);
        fake.clearRequests();
        const inc = await h.sync('incremental');
        const paper = inc.lists.find((l) => l.list === 'paper');
        expect(paper).toMatchObject({
          mode: 'unfiltered',
          filter: 'ignored',
          pages: 5,
          changed: 0,
          outcome: 'done',
        });
        expect(paths(fake, '/paper').every((p) => !p.includes('modified_since'))).toBe(true);
        expect(paths(fake, '/paper')).toHaveLength(5);
        expect(inc.lists.find((l) => l.list === 'person')?.pages).toBe(2);
      },
    );
  });

  it('SCH-10: a filter ignored during an incremental sync is noticed on the page and the list is compared from there', async () => {
    await withCouncil({ objectsPerList: few({ paper: 16 }) }, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      await h.sync('full');
      clock.advance(10 * MIN);
      fake.setFault('*/paper', { kind: 'ignoreFilters' });
      const inc = await h.sync('incremental');
      const paper = inc.lists.find((l) => l.list === 'paper');
      expect(paper).toMatchObject({ filter: 'ignored', mode: 'unfiltered', outcome: 'done', changed: 0 });
      // Page 1 (filtered, ignored) + the next pages until 5 in a row without change.
      expect(paper?.pages).toBe(5);
      expect(inc.lists.find((l) => l.list === 'meeting')?.filter).toBe('supported');
    });
  });

  it('SCH-10: a rejected filter (400) is read again unfiltered in the same run and remembered', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      await h.sync('full');
      clock.advance(10 * MIN);
      fake.setFault('*/meeting', { kind: 'rejectFilters' });
      fake.clearRequests();
      const inc = await h.sync('incremental');
      expect(inc).toMatchObject({ complete: true, failures: [] });
      expect(inc.lists.find((l) => l.list === 'meeting')).toMatchObject({
        filter: 'rejected',
        mode: 'unfiltered',
        outcome: 'done',
      });
      const asks = paths(fake, '/meeting');
      expect(asks[0]).toContain('modified_since');
      expect(asks.slice(1).every((p) => !p.includes('modified_since'))).toBe(true);

      clock.advance(10 * MIN);
      fake.clearRequests();
      await h.sync('incremental');
      expect(paths(fake, '/meeting').every((p) => !p.includes('modified_since'))).toBe(true);
    });
  });

  it('SCH-10: an inconclusive check (5xx) keeps the previous finding and is repeated once after 60 s', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      fake.setFault(/modified_since/, { kind: 'status', status: 503 }, { times: 1 });
      const started = clock.ms;
      const full = await h.sync('full');
      expect(full.complete).toBe(true);
      const checks = fake.requests.filter((r) => r.path.includes('modified_since'));
      expect(checks.map((r) => r.status)).toEqual([503, 200]);
      expect(clock.ms - started).toBeGreaterThanOrEqual(60_000);
      const system = await new SyncStateStore(
        bed.clients,
        bed.env.STATE_TABLE,
        h.source.sourceId,
      ).getSystem();
      expect(system?.filterCheck?.finding).toBe('supported');
    });
  });

  it('SCH-11: a missing optional list is noted; incremental asks again once a day, full every time, sliced never', async () => {
    await withCouncil(
      { missingLists: ['membership'], latestModified: '2011-02-15T12:00:00+01:00' },
      async (fake, clock) => {
        clock.ms = Date.parse('2011-03-01T10:00:00+01:00');
        const h = harness(bed, fake.systemUrl, clock);
        const full = await h.sync('full');
        expect(full.complete).toBe(true);
        expect(full.lists.find((l) => l.list === 'membership')).toMatchObject({ outcome: 'missing' });

        clock.advance(10 * MIN);
        fake.clearRequests();
        const inc = await h.sync('incremental');
        expect(inc.lists.find((l) => l.list === 'membership')?.outcome).toBe('skipped-missing');
        expect(paths(fake, '/membership')).toHaveLength(0);
        expect(inc.complete).toBe(true);

        clock.advance(24 * H);
        fake.clearRequests();
        const nextDay = await h.sync('incremental');
        expect(paths(fake, '/membership')).toHaveLength(1);
        expect(nextDay.lists.find((l) => l.list === 'membership')?.outcome).toBe('missing');

        fake.clearRequests();
        await h.sync('full');
        expect(paths(fake, '/membership')).toHaveLength(1);

        fake.clearRequests();
        const sliced = await h.sync('sliced', { windowEndMs: clock.ms + 5 * 3_600_000 });
        expect(paths(fake, '/membership')).toHaveLength(0);
        expect(sliced.lists.find((l) => l.list === 'membership')?.outcome).toBe('skipped-missing');
      },
    );
  });

  it('SCH-12: 504 on an optional list skips it for 1 h, then doubles; afterwards its changes are caught up in one-day chunks', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      await h.sync('full');
      clock.advance(3 * 24 * H);
      fake.setFault('*/agendaItem', { kind: 'status', status: 504 }, { times: 1 });
      const slow = await h.sync('incremental');
      const mark = slow.lists.find((l) => l.list === 'agendaItem');
      expect(mark).toMatchObject({ outcome: 'slow' });
      expect(Date.parse(mark?.slowUntil ?? '')).toBe(clock.ms + H);
      expect(slow.complete).toBe(false);

      clock.advance(30 * MIN);
      fake.clearRequests();
      const skipped = await h.sync('incremental');
      expect(skipped.lists.find((l) => l.list === 'agendaItem')?.outcome).toBe('skipped-slow');
      expect(paths(fake, '/agendaItem')).toHaveLength(0);
      // The full sync skips it too and is then not complete.
      const full = await h.sync('full', { runId: 'full-while-slow' });
      expect(full.complete).toBe(false);
      expect(full.lists.find((l) => l.list === 'agendaItem')?.outcome).toBe('skipped-slow');

      clock.advance(H);
      fake.clearRequests();
      const caught = await h.sync('incremental');
      const asks = paths(fake, '/agendaItem');
      // Catch-up from the window of the slow run (T0 − 2 h) to now, one day per request.
      expect(asks.length).toBe(4);
      expect(asks.every((p) => p.includes('modified_since') && p.includes('modified_until'))).toBe(true);
      expect(caught.lists.find((l) => l.list === 'agendaItem')).toMatchObject({
        mode: 'catchup',
        outcome: 'done',
      });

      clock.advance(10 * MIN);
      fake.clearRequests();
      await h.sync('incremental');
      expect(paths(fake, '/agendaItem')).toHaveLength(1);
    });
  });

  it('SCH-12: a timeout in a row doubles the skip (1 h, then 2 h); mandatory lists are never skipped', async () => {
    await withCouncil({}, async (fake, clock) => {
      const h = harness(bed, fake.systemUrl, clock);
      await h.sync('full');
      const inner = h.deps.fetcher;
      let timeouts = 0;
      h.deps.fetcher = {
        get: (url, opts) => {
          if (url.includes('/consultation') && timeouts < 2) {
            timeouts += 1;
            return Promise.reject(new OParlFetchError('TIMEOUT', url, 'no answer within 60 s'));
          }
          return inner.get(url, opts);
        },
      };
      clock.advance(10 * MIN);
      const first = await h.sync('incremental');
      expect(Date.parse(first.lists.find((l) => l.list === 'consultation')?.slowUntil ?? '')).toBe(
        clock.ms + H,
      );
      clock.advance(H);
      const second = await h.sync('incremental');
      expect(Date.parse(second.lists.find((l) => l.list === 'consultation')?.slowUntil ?? '')).toBe(
        clock.ms + 2 * H,
      );

      fake.setFault('*/meeting', { kind: 'status', status: 504 }, { times: 1 });
      clock.advance(3 * H);
      const mandatory = await h.sync('incremental');
      expect(mandatory.lists.find((l) => l.list === 'meeting')).toMatchObject({ outcome: 'failed' });
      expect(mandatory.failures.some((f) => f.list === 'meeting')).toBe(true);
      fake.clearRequests();
      clock.advance(10 * MIN);
      const after = await h.sync('incremental');
      expect(after.lists.find((l) => l.list === 'meeting')?.outcome).toBe('done');
      expect(paths(fake, '/meeting')).toHaveLength(1);
    });
  });
});
