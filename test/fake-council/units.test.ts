import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { buildPdf } from '../../demo';
import { berlinIso, berlinLocalMs, parseFilterValue } from '../../demo/time';

describe('fake council: time helpers', () => {
  it('berlinIso agrees with luxon across DST changes', () => {
    // Around every change (last Sunday of March / October, 01:00 UTC) and in mid-season.
    const samples: number[] = [];
    for (let year = 1994; year <= 2030; year++) {
      for (const month of [2, 9]) {
        const lastDay = new Date(Date.UTC(year, month + 1, 0, 1));
        const change = lastDay.getTime() - lastDay.getUTCDay() * 86_400_000;
        for (const delta of [-3_600_000, -1000, -1, 0, 999, 1000, 3_600_000]) samples.push(change + delta);
      }
      samples.push(Date.UTC(year, 0, 15, 12, 34, 56), Date.UTC(year, 6, 15, 23, 59, 59));
    }
    const wrong = samples.filter(
      (ms) =>
        berlinIso(ms) !==
        DateTime.fromMillis(Math.floor(ms / 1000) * 1000, { zone: 'Europe/Berlin' }).toISO({
          suppressMilliseconds: true,
        }),
    );

    expect(wrong).toEqual([]);
  });

  it('berlinLocalMs gives the wall-clock hour on both sides of a change', () => {
    expect(berlinIso(berlinLocalMs('2024-03-31', 17))).toBe('2024-03-31T17:00:00+02:00');
    expect(berlinIso(berlinLocalMs('2024-10-27', 0))).toBe('2024-10-27T00:00:00+02:00');
    expect(berlinIso(berlinLocalMs('2024-10-27', 17))).toBe('2024-10-27T17:00:00+01:00');
  });

  it.each([
    ['2024-01-01T00:00:00+01:00', Date.parse('2023-12-31T23:00:00Z'), false],
    ['2024-01-01T00:00:00Z', Date.parse('2024-01-01T00:00:00Z'), false],
    ['2024-01-01T00:00:00.5-0130', Date.parse('2024-01-01T01:30:00.500Z'), true],
  ])('parseFilterValue(%s)', (value, ms, fractional) => {
    expect(parseFilterValue(value)).toEqual({ ok: true, ms, fractional });
  });

  it.each(['2024-01-01T00:00:00 01:00', '2024-01-01', '2024-13-45T00:00:00Z', ''])('rejects %j', (value) => {
    expect(parseFilterValue(value)).toEqual({ ok: false });
  });
});

describe('fake council: buildPdf', () => {
  it('encodes German text in WinAnsi with escaped parentheses', () => {
    const text = buildPdf(['Grünfläche (Süd) – 5 €']).toString('latin1');

    expect(text).toContain('(Gr\\374nfl\\344che \\(S\\374d\\) \\226 5 \\200) Tj');
    expect(text.endsWith('%%EOF\n')).toBe(true);
  });
});
