import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { toBerlin } from '../../shared/schedule';
import { BERLIN_ZONE, toIso, toIsoAfterMinutes } from '../../shared/schedule/time';

/**
 * Issue 18: stored instants are read through the millisecond clock instead of luxon's ISO parser. The
 * result must be the very DateTime luxon's parser gives — instant, zone, offset and text — also around
 * both DST changes, and what luxon refuses (or how it reads an odd form) must not change.
 */
describe('toBerlin reads stored instants as luxon does', () => {
  const luxon = (text: string) => DateTime.fromISO(text, { zone: BERLIN_ZONE });

  it.each([
    '2026-11-30T03:00:00+01:00',
    '2026-11-30T03:00:00.000+01:00',
    '2026-03-29T00:59:59Z',
    '2026-03-29T01:00:00Z',
    '2026-03-29T03:30:00+02:00',
    '2026-10-25T00:30:00Z',
    '2026-10-25T02:30:00+01:00',
    '2026-10-25T02:30:00.5+02:00',
    '2024-02-29T12:00:00Z',
    '2026-06-01T00:00:00-05:30',
    '2026-11-30T09:00:00.123Z',
  ])('%s', (text) => {
    const ours = toBerlin(text);
    const theirs = luxon(text);
    expect(ours.toMillis()).toBe(theirs.toMillis());
    expect(ours.toISO()).toBe(theirs.toISO());
    expect(ours.offset).toBe(theirs.offset);
    expect(ours.zoneName).toBe(theirs.zoneName);
  });

  it('every hour of a year, in the stored forms (UTC and with the Berlin offset)', () => {
    const start = Date.UTC(2026, 0, 1);
    for (let ms = start; ms < start + 366 * 86_400_000; ms += 3_600_000 + 1_234) {
      for (const text of [
        new Date(ms).toISOString(),
        DateTime.fromMillis(ms, { zone: BERLIN_ZONE }).toISO({ suppressMilliseconds: true }) as string,
      ]) {
        expect(toBerlin(text).toISO()).toBe(luxon(text).toISO());
      }
    }
  });

  it('a day that does not exist is refused as before, not rolled over into March', () => {
    expect(luxon('2026-02-30T00:00:00Z').isValid).toBe(false);
    expect(() => toBerlin('2026-02-30T00:00:00Z')).toThrow(/not a valid ISO time/);
    expect(() => toBerlin('2026-13-01T00:00:00Z')).toThrow(/not a valid ISO time/);
  });

  it('forms outside the fast path keep luxon’s reading (24:00, local time without offset)', () => {
    for (const text of ['2026-11-30T24:00:00Z', '2026-11-30T07:00', '2026-11-30']) {
      expect(toBerlin(text).toISO()).toBe(luxon(text).toISO());
    }
  });
});

describe('toIsoAfterMinutes gives what luxon’s plus({ minutes }) gives (issue 18)', () => {
  it('every half hour around both DST changes of a year, for lease lengths up to a day', () => {
    const starts = [Date.UTC(2026, 2, 28, 22), Date.UTC(2026, 9, 24, 22), Date.UTC(2026, 5, 1, 9)];
    let compared = 0;
    for (const start of starts) {
      for (let step = 0; step < 8 * 48; step += 1) {
        const at = DateTime.fromMillis(start + step * 1_800_000 + 17_000, { zone: BERLIN_ZONE });
        for (const minutes of [0, 1, 15, 30, 45, 90, 0.5, 1440]) {
          expect(toIsoAfterMinutes(at, minutes)).toBe(toIso(at.plus({ minutes })));
          compared += 1;
        }
      }
    }
    expect(compared).toBe(3 * 8 * 48 * 8);
  });
});
