import { describe, expect, it } from 'vitest';
import {
  carriesFilter,
  catchUpChunks,
  changeWindow,
  formatFilterTime,
  timeSlices,
  withModifiedFilter,
} from '../../shared/oparl/windows';

const at = (iso: string) => Date.parse(iso);
const H = 60 * 60 * 1000;
const D = 24 * H;

describe('SCH-9: change windows (pure, fake now)', () => {
  const now = at('2026-10-16T14:30:00+02:00');
  describe.each([
    {
      name: 'precise: last complete start − 2 h',
      last: at('2026-10-16T14:00:00+02:00'),
      timeOfDay: true,
      changeSeen: true,
      newList: false,
      since: '2026-10-16T12:00:00+02:00',
      rule: 'precise',
    },
    {
      name: 'precise but capped at 7 days',
      last: at('2026-10-01T09:00:00+02:00'),
      timeOfDay: true,
      changeSeen: true,
      newList: false,
      since: '2026-10-09T14:30:00+02:00',
      rule: 'precise',
    },
    {
      name: 'never complete: 7 days',
      last: undefined,
      timeOfDay: true,
      changeSeen: true,
      newList: false,
      since: '2026-10-09T14:30:00+02:00',
      rule: 'precise',
    },
    {
      name: 'no time of day: start of that day',
      last: at('2026-10-16T14:00:00+02:00'),
      timeOfDay: false,
      changeSeen: true,
      newList: false,
      since: '2026-10-16T00:00:00+02:00',
      rule: 'day-start',
    },
    {
      name: 'window crossing midnight, no time of day: start of the earlier day',
      last: at('2026-10-16T01:00:00+02:00'),
      timeOfDay: false,
      changeSeen: true,
      newList: false,
      since: '2026-10-15T00:00:00+02:00',
      rule: 'day-start',
    },
    {
      name: 'new list: start of day',
      last: at('2026-10-16T14:00:00+02:00'),
      timeOfDay: true,
      changeSeen: true,
      newList: true,
      since: '2026-10-16T00:00:00+02:00',
      rule: 'day-start',
    },
    {
      name: 'no change seen yet: start of day',
      last: at('2026-10-16T14:00:00+02:00'),
      timeOfDay: true,
      changeSeen: false,
      newList: false,
      since: '2026-10-16T00:00:00+02:00',
      rule: 'day-start',
    },
    {
      name: 'capped and day start (never ≥ 7 days short)',
      last: undefined,
      timeOfDay: false,
      changeSeen: false,
      newList: true,
      since: '2026-10-09T00:00:00+02:00',
      rule: 'day-start',
    },
  ])('$name', ({ last, timeOfDay, changeSeen, newList, since, rule }) => {
    it(`asks since ${since}`, () => {
      const w = changeWindow({ nowMs: now, lastCompleteStartMs: last, timeOfDay, changeSeen, newList });
      expect(formatFilterTime(w.sinceMs)).toBe(since);
      expect(w.rule).toBe(rule);
      expect(now - w.sinceMs).toBeLessThan(8 * D);
    });
  });

  it('SCH-9: across the DST change the day start keeps its own offset', () => {
    const w = changeWindow({
      nowMs: at('2026-10-25T12:00:00+01:00'),
      lastCompleteStartMs: at('2026-10-25T02:30:00+01:00'),
      timeOfDay: false,
      changeSeen: true,
      newList: false,
    });
    expect(formatFilterTime(w.sinceMs)).toBe('2026-10-25T00:00:00+02:00');
  });
});

describe('SCH-9: date-times servers accept', () => {
  it('no fractional seconds, offset included, URL-encoded', () => {
    const ms = at('2026-01-15T08:09:10.987Z');
    expect(formatFilterTime(ms)).toBe('2026-01-15T09:09:10+01:00');
    // Issue 28: kept per second — the same second again, and its neighbours, each as its own text.
    expect(formatFilterTime(ms - 900)).toBe('2026-01-15T09:09:10+01:00');
    expect(formatFilterTime(ms + 100)).toBe('2026-01-15T09:09:11+01:00');
    expect(formatFilterTime(at('2026-07-15T08:09:10Z'))).toBe('2026-07-15T10:09:10+02:00');
    const url = withModifiedFilter('https://ris.example.de/oparl/papers?body=3', ms, undefined);
    expect(url).toBe(
      'https://ris.example.de/oparl/papers?body=3&modified_since=2026-01-15T09%3A09%3A10%2B01%3A00',
    );
    expect(carriesFilter(url, ms, undefined)).toBe(true);
    expect(carriesFilter('https://ris.example.de/oparl/papers?body=3&page=2', ms, undefined)).toBe(false);
  });
  it('replaces a filter the URL already carries', () => {
    const url = withModifiedFilter(
      'https://x.test/l?modified_since=2000-01-01T00%3A00%3A00%2B01%3A00',
      at('2026-01-01T00:00:00+01:00'),
      at('2026-01-02T00:00:00+01:00'),
    );
    expect(new URL(url).searchParams.getAll('modified_since')).toEqual(['2026-01-01T00:00:00+01:00']);
    expect(new URL(url).searchParams.get('modified_until')).toBe('2026-01-02T00:00:00+01:00');
  });
});

describe('FULL-5: time slices', () => {
  it('206 slices per list on 2026-10-16', () => {
    expect(timeSlices(at('2026-10-16T12:00:00+02:00'))).toHaveLength(206);
  });
  it('first slice: everything before 2010-01-01 with modified_until only; then 30-day slices, contiguous, old → new', () => {
    const slices = timeSlices(at('2026-10-16T12:00:00+02:00'));
    expect(slices[0]?.sinceMs).toBeUndefined();
    expect(formatFilterTime(slices[0]?.untilMs ?? 0)).toBe('2010-01-01T00:00:00+01:00');
    expect(formatFilterTime(slices[1]?.sinceMs ?? 0)).toBe('2010-01-01T00:00:00+01:00');
    expect(formatFilterTime(slices[1]?.untilMs ?? 0)).toBe('2010-01-31T00:00:00+01:00');
    for (let i = 2; i < slices.length; i++) expect(slices[i]?.sinceMs).toBe(slices[i - 1]?.untilMs);
    const last = slices[slices.length - 1];
    expect(last?.sinceMs).toBeLessThanOrEqual(at('2026-10-16T12:00:00+02:00'));
    expect(last?.untilMs).toBeGreaterThan(at('2026-10-16T12:00:00+02:00'));
  });
  it('a slice boundary at midnight stays at Berlin midnight across DST', () => {
    for (const s of timeSlices(at('2026-10-16T12:00:00+02:00')).slice(1)) {
      expect(formatFilterTime(s.sinceMs ?? 0)).toMatch(/T00:00:00\+0[12]:00$/);
    }
  });
});

describe('SCH-12: catch-up chunks', () => {
  it('one-day chunks from the catch-up point to now', () => {
    const chunks = catchUpChunks(at('2026-10-14T12:00:00+02:00'), at('2026-10-16T13:00:00+02:00'));
    expect(chunks).toHaveLength(3);
    expect(chunks.map((c) => formatFilterTime(c.sinceMs))).toEqual([
      '2026-10-14T12:00:00+02:00',
      '2026-10-15T12:00:00+02:00',
      '2026-10-16T12:00:00+02:00',
    ]);
    for (const c of chunks) expect(c.untilMs - c.sinceMs).toBe(D);
  });
});
