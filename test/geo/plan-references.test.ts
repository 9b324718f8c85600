import { describe, expect, it } from 'vitest';
import { planReferencesIn, referenceMatches } from '../../shared/geo/paper-refs';
import { parsePlanNumber, planIdOf } from '../../shared/geo/plan-number';

describe('OTH-4: plan references in paper titles (real-world title shapes)', () => {
  it.each([
    ['1. Änderung des Bebauungsplans Nr. 579', [{ key: '579', change: '1' }]],
    ['Bebauungspläne Nr. 12 und 13 – Aufhebung', [{ key: '12' }, { key: '13' }]],
    ['Vorhabenbezogener Bebauungsplan Nr. 612 "Wohnen am Hafen" – Satzungsbeschluss', [{ key: '612' }]],
    ['Bebauungsplan Nr. 45 a "Am Markt" - Aufstellungsbeschluss', [{ key: '45a' }]],
    ['Bebauungsplan Nr. 45a, Offenlage', [{ key: '45a' }]],
    ['B-Plan Nr. 579, 2. Änderung', [{ key: '579', change: '2' }]],
    ['Bebauungsplan 301 - Billigung des Entwurfs', [{ key: '301' }]],
    ['Aufstellung des Bebauungsplanes Nr. 101/1 "Gewerbegebiet Nord"', [{ key: '101/1' }]],
    [
      'Bebauungsplan Nr. 12, 13 und 14 - frühzeitige Beteiligung',
      [{ key: '12' }, { key: '13' }, { key: '14' }],
    ],
    ['Änderung der Bebauungspläne Nr. 7 und Nr. 8', [{ key: '7' }, { key: '8' }]],
    ['vBP Nr. 33 Einzelhandel Bahnhofstraße', [{ key: '33' }]],
    ['42. Flächennutzungsplanänderung parallel zum Bebauungsplan Nr. 600', [{ key: '600' }]],
    ['Bebauungsplan Nr. 579 (1. Änderung) – Abwägung', [{ key: '579', change: '1' }]],
    // Must not match:
    ['42. Änderung des Flächennutzungsplans', []],
    ['Haushaltssatzung 2024 und Haushaltsplan 2024', []],
    ['Bebauungsplan "Am Bach" - Aufstellungsbeschluss', []],
    ['Änderung der Satzung Nr. 5 über die Erhebung von Gebühren', []],
    ['Bebauungsplanverfahren: Bericht der Verwaltung', []],
  ])('%s', (title, expected) => {
    expect(planReferencesIn(title)).toEqual(expected);
  });

  it('a reference without a change names the plan and its changes; one with a change only that change', () => {
    expect(referenceMatches({ key: '579' }, { key: '579', change: '1' })).toBe(true);
    expect(referenceMatches({ key: '579', change: '1' }, { key: '579' })).toBe(false);
    expect(referenceMatches({ key: '579', change: '1' }, { key: '579', change: '1' })).toBe(true);
    expect(referenceMatches({ key: '57' }, { key: '579' })).toBe(false);
  });
});

describe('OTH-4: plan numbers', () => {
  it.each([
    ['579', { label: '579', key: '579' }],
    [579, { label: '579', key: '579' }],
    ['45 a', { label: '45 a', key: '45a' }],
    ['Nr. 45 a', { label: '45 a', key: '45a' }],
    ['579, 1. Änderung', { label: '579', key: '579', change: '1' }],
    ['579 Ä1', { label: '579', key: '579', change: '1' }],
    ['DE_05515000__579__1', { label: '579', key: '579', change: '1' }],
    ['DE_05515000__45a', { label: '45a', key: '45a' }],
    ['101/1', { label: '101/1', key: '101/1' }],
  ])('%s', (raw, expected) => {
    expect(parsePlanNumber(raw)).toEqual(expected);
  });

  it.each([[''], ['Am Bach'], [null], [{}], [-3], ['<script>1</script>']])('no number: %j', (raw) => {
    expect(parsePlanNumber(raw)).toBeUndefined();
  });

  it('INSPIRE-style ids from the AGS, else from the geo source', () => {
    expect(planIdOf({ key: '579', change: '1' }, { ags: '05515000', sourceId: 'geo:ms' })).toBe(
      'DE_05515000__579__1',
    );
    expect(planIdOf({ key: '45a' }, { sourceId: 'geo:ms' })).toBe('geo:ms__45a');
    expect(planIdOf({ key: '101/1' }, { ags: '05515000', sourceId: 'geo:ms' })).toBe('DE_05515000__101-1');
  });
});

describe('OTH-4: plan numbers in the NRW form <Ortsteil>_<Nummer>_<Teil>_<Änderung> and its INSPIRE id DE_<AGS>_…', () => {
  it.each([
    // The state's form: four fields, empty ones kept.
    ['_579__1', { label: '579', key: '579', change: '1' }],
    ['Albachten_7_A_', { label: 'Albachten 7 A', key: 'albachten7a' }],
    ['_579__', { label: '579', key: '579' }],
    ['_579_A_2', { label: '579 A', key: '579a', change: '2' }],
    ['Roxel-Süd_12_b_3', { label: 'Roxel-Süd 12 b', key: 'roxel-süd12b', change: '3' }],
    ['Häger_3__', { label: 'Häger 3', key: 'häger3' }],
    [' _101/1__01 ', { label: '101/1', key: '101/1', change: '1' }],
    // The INSPIRE id: DE_<AGS>_ in front (shapes of Münster's real plan ids).
    ['DE_05515000__579__1', { label: '579', key: '579', change: '1' }],
    ['DE_05515000_Albachten_7_A_', { label: 'Albachten 7 A', key: 'albachten7a' }],
    ['DE_05515000_Albachten_7_B_', { label: 'Albachten 7 B', key: 'albachten7b' }],
    ['DE_05515000_St. Mauritz_8__2', { label: 'St. Mauritz 8', key: 'st.mauritz8', change: '2' }],
    // An id may leave out trailing empty fields, or carry a plain number.
    ['DE_05515000__45a', { label: '45a', key: '45a' }],
    ['DE_05515000__579_A', { label: '579 A', key: '579a' }],
    ['DE_05515000_579', { label: '579', key: '579' }],
  ])('%j', (raw, expected) => {
    expect(parsePlanNumber(raw)).toEqual(expected);
  });

  it.each([
    ['___', 'no number field'],
    ['_abc__1', 'number without a digit'],
    ['_579__x', 'change is not a number'],
    ['_579___1', 'five fields: which one is the part cannot be told'],
    ['Albachten__7_A_', 'five fields'],
    ['579_1', 'the bare form needs all four fields'],
    ['Albachten_7_A', 'the bare form needs all four fields'],
    ['DE_05515000_', 'nothing after the AGS'],
    ['DE_0551500__579__1', 'an AGS has eight digits'],
    ['_579_ABCDEFG_', 'a part is a short code'],
    ['<b>_1__', 'markup is not a place name'],
    [`${'Ortsteil'.repeat(10)}_1__`, 'longer than any label'],
  ])('no number: %j (%s)', (raw) => {
    expect(parsePlanNumber(raw)).toBeUndefined();
  });

  it('plans of the state form get stable ids of their own (Ortsteil, part and change kept apart)', () => {
    const scope = { ags: '05515000', sourceId: 'geo:ms' };
    const ids = [
      'DE_05515000_Albachten_7_A_',
      'DE_05515000_Albachten_7_B_',
      '_7__',
      '_579__1',
      '_579__2',
    ].map((raw) => planIdOf(parsePlanNumber(raw) ?? { key: 'none' }, scope));
    expect(ids).toEqual([
      'DE_05515000__albachten7a',
      'DE_05515000__albachten7b',
      'DE_05515000__7',
      'DE_05515000__579__1',
      'DE_05515000__579__2',
    ]);
  });
});
