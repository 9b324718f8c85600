import { describe, expect, it } from 'vitest';
import {
  bodySlugBase,
  carriesTimeOfDay,
  embeddedObjects,
  isDeleted,
  modifiedMs,
  type OParlObject,
  oparlTimeMs,
  pageGoesBack,
  pageItems,
  pageNext,
  parseOParlTime,
  slugify,
  textValue,
  typeName,
} from '../../shared/engine';
import { escapeControlCharactersInStrings, parseOParlJson } from '../../shared/oparl/json';
import { CORPUS_OPTIONS, oparlExamples, readOparlExample } from '../support/corpora';

const fixture = (p: string) => readOparlExample(p) as OParlObject;

describe('OParl objects as vendors send them', () => {
  it('type names are the lower-case last segment of the type URI (1.0 and 1.1)', () => {
    expect(typeName({ type: 'https://schema.oparl.org/1.1/AgendaItem' })).toBe('agendaitem');
    expect(typeName({ type: 'https://schema.oparl.org/1.0/Meeting' })).toBe('meeting');
    expect(typeName({ type: 'Feature' })).toBeUndefined();
  });

  it('quirk: deleted entries without `type` take the list type', () => {
    const tomb = { id: 'https://ris.test/paper/7', deleted: true };
    expect(typeName(tomb, 'paper')).toBe('paper');
    expect(isDeleted(tomb)).toBe(true);
  });

  it('quirk: "N/A" and empty strings are placeholders, read as absent (CC e-gov)', () => {
    expect(textValue('N/A')).toBeUndefined();
    expect(textValue('')).toBeUndefined();
    expect(textValue(' Stadt Leipzig ')).toBe('Stadt Leipzig');
    expect(modifiedMs({ modified: 'N/A' })).toBeUndefined();
  });

  it('SCH-9, SCH-10, FULL-7: a `modified` reads as the same instant, and the same time of day, on the fast path as through luxon (issue 28)', () => {
    // The shapes a vendor sends, the fast path's edges (fractions, offsets, day 28/29, leap years) and
    // those it leaves to luxon (no offset, compact offset, 30 February, 24:00).
    const fixed = [
      '2024-07-01T10:00:00+02:00',
      '2024-01-15T09:30:00Z',
      '2024-02-28T23:59:59.9-05:30',
      '2024-02-29T12:00:00+01:00',
      '2023-02-29T12:00:00+01:00',
      '2024-02-30T12:00:00+01:00',
      '2024-10-27T02:30:00',
      '2024-10-27T02:30:00.123',
      '2024-03-31',
      '2024-07-01T10:00:00+0200',
      '2024-07-01T24:00:00Z',
      '2024-07-01T10:00:00.1234Z',
      '2024-07-01T10:00:00.05+14:00',
    ];
    // A seeded walk over years, days, times, fractions and offsets (deterministic: no Math.random).
    let seed = 28;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const two = (n: number) => String(n).padStart(2, '0');
    const offsets = ['Z', '+00:00', '+01:00', '+02:00', '-05:30', '+14:00', '-12:00', ''];
    const walked = Array.from({ length: 3_000 }, () => {
      const digits = next(4);
      const fraction = digits === 0 ? '' : `.${String(next(10 ** digits)).padStart(digits, '0')}`;
      return `${1990 + next(60)}-${two(1 + next(12))}-${two(1 + next(31))}T${two(next(24))}:${two(next(60))}:${two(next(60))}${fraction}${offsets[next(offsets.length)]}`;
    });
    // SCH-9's time-of-day evidence as luxon reads it in Berlin (the shortcut must agree).
    const timeOfDay = (text: string) => {
      const t = text.includes('T') ? parseOParlTime(text) : undefined;
      return t !== undefined && (t.hour !== 0 || t.minute !== 0 || t.second !== 0);
    };
    fixed.push(
      '1850-06-01T12:30:00+01:00',
      '2024-01-31T23:00:00Z',
      '2024-04-31T10:15:00+02:00',
      '2024-06-30T22:00:00Z',
    );
    for (const text of [...fixed, ...walked]) {
      expect(carriesTimeOfDay(text), text).toBe(timeOfDay(text));
      expect(oparlTimeMs(text), text).toBe(parseOParlTime(text)?.toMillis());
      expect(modifiedMs({ modified: text }), text).toBe(parseOParlTime(text)?.toMillis());
    }
    expect(oparlTimeMs(' N/A ')).toBeUndefined();
    expect(oparlTimeMs(42)).toBeUndefined();
  });

  it('SCH-9: a time of day is only demonstrated by a non-midnight local time', () => {
    expect(carriesTimeOfDay('2024-01-15T09:30:00+01:00')).toBe(true);
    expect(carriesTimeOfDay('2024-01-15T00:00:00+01:00')).toBe(false);
    expect(carriesTimeOfDay('2024-01-14T23:00:00Z')).toBe(false);
    expect(carriesTimeOfDay('2024-01-15')).toBe(false);
    expect(carriesTimeOfDay('2014-01-08T14:28:31+0100')).toBe(true);
  });

  describe('list pages', () => {
    it('reads `data` arrays and resolves links.next against the page', () => {
      const page = { data: [{ id: 'a' }, { id: 'b' }], links: { next: '/l?page=2' } };
      expect(pageItems(page)).toHaveLength(2);
      expect(pageNext(page, 'https://ris.test/l?page=1')).toBe('https://ris.test/l?page=2');
    });
    it('quirk: links.next going back to an earlier page is a cycle, whatever the URL spelling', () => {
      expect(pageGoesBack('https://ris.test/l?page=2&body=1', 'https://ris.test/l?body=1&page=1')).toBe(true);
      expect(pageGoesBack('https://ris.test/l', 'https://ris.test/l?page=1')).toBe(true);
      expect(pageGoesBack('https://ris.test/l?page=2', 'https://ris.test/l?page=3')).toBe(false);
      expect(pageGoesBack('https://ris.test/l?page=2&modified_since=x', 'https://ris.test/l?page=1')).toBe(
        false,
      );
    });
    it('quirk: a single object where an array is expected', () => {
      expect(pageItems({ data: { id: 'a', type: 'https://schema.oparl.org/1.0/Paper' } })).toHaveLength(1);
    });
    it('quirk: /body answering with a single Body instead of a list', () => {
      const body = {
        id: 'https://ris.example.test/oparl/body/1',
        type: 'https://schema.oparl.org/1.1/Body',
        name: 'Stadt Musterstadt',
      };
      expect(pageItems(body)).toEqual([body]);
    });
    it('quirk: a bare array, SD.NET `[]` for an empty filtered page', () => {
      expect(pageItems([])).toEqual([]);
      expect(pageItems([{ id: 'x' }])).toHaveLength(1);
    });
  });

  // The project's own small objects, so a clone without the corpus still tests the mirroring of
  // embedded objects; the corpus suite below runs the same checks on the published examples.
  describe('embedded objects are mirrored as their own type (own cases)', () => {
    const ex = 'https://ris.example.test/oparl';
    it('Meeting: location, files and agenda items, each with the meeting as parent', () => {
      const meeting = {
        id: `${ex}/meeting/1`,
        type: 'https://schema.oparl.org/1.1/Meeting',
        location: { id: `${ex}/location/1`, type: 'https://schema.oparl.org/1.1/Location' },
        invitation: { id: `${ex}/file/1`, type: 'https://schema.oparl.org/1.1/File' },
        auxiliaryFile: [{ id: `${ex}/file/2`, type: 'https://schema.oparl.org/1.1/File' }],
        agendaItem: [{ id: `${ex}/agendaitem/1`, type: 'https://schema.oparl.org/1.1/AgendaItem' }],
      };
      const found = embeddedObjects(meeting);
      expect(found.map((e) => e.type).sort()).toEqual(['agendaitem', 'file', 'file', 'location']);
      expect(found.every((e) => e.parentId === `${ex}/meeting/1`)).toBe(true);
    });
    it('Person: memberships; OParl 1.0 type URIs count alike', () => {
      const person = {
        id: `${ex}/person/1`,
        type: 'https://schema.oparl.org/1.0/Person',
        membership: [
          { id: `${ex}/membership/1`, type: 'https://schema.oparl.org/1.0/Membership' },
          { id: `${ex}/membership/2`, type: 'https://schema.oparl.org/1.0/Membership' },
        ],
      };
      expect(embeddedObjects(person).map((e) => e.type)).toEqual(['membership', 'membership']);
    });
    it('an embedded object without a valid id is left alone; GeoJSON features are not OParl objects', () => {
      const body = {
        id: `${ex}/body/1`,
        type: 'https://schema.oparl.org/1.0/Body',
        legislativeTerm: [{ id: `${ex}/term/1`, type: 'https://schema.oparl.org/1.0/LegislativeTerm' }],
        location: { 'id:': `${ex}/location/9`, type: 'https://schema.oparl.org/1.0/Location' },
      };
      expect(embeddedObjects(body).map((e) => e.type)).toEqual(['legislativeterm']);
      const location = {
        id: `${ex}/location/2`,
        type: 'https://schema.oparl.org/1.1/Location',
        geojson: { type: 'Feature', geometry: { type: 'Point', coordinates: [6.9, 50.9] } },
      };
      expect(embeddedObjects(location).every((e) => e.type !== 'feature')).toBe(true);
    });
  });

  describe.skipIf(!oparlExamples().present)(
    'embedded objects are mirrored as their own type (OParl examples corpus)',
    CORPUS_OPTIONS,
    () => {
      it('Meeting 1.1: location, files, agenda items', () => {
        const types = embeddedObjects(fixture('oparl-spec-master/Meeting-01.json')).map((e) => e.type);
        expect(types).toEqual(['location', 'file', 'file', 'file', 'file', 'agendaitem']);
      });
      it('Paper 1.1: main and auxiliary files, locations, consultations', () => {
        const found = embeddedObjects(fixture('oparl-spec-master/Paper-01.json'));
        expect(new Set(found.map((e) => e.type))).toEqual(new Set(['file', 'location', 'consultation']));
        expect(found.every((e) => e.parentId === 'https://oparl.example.org/paper/749')).toBe(true);
      });
      it('Person: memberships; Body: legislative terms and location', () => {
        expect(embeddedObjects(fixture('oparl-spec-master/Person-01.json')).map((e) => e.type)).toEqual([
          'membership',
          'membership',
        ]);
        expect(embeddedObjects(fixture('oparl-spec-master/Body-01.json')).map((e) => e.type)).toEqual([
          'legislativeterm',
          'location',
        ]);
      });
      it('OParl 1.0 Body: a location without a valid id ("id:" typo in the spec example) is left alone', () => {
        expect(embeddedObjects(fixture('oparl-spec-1.0/Body-01.json')).map((e) => e.type)).toEqual([
          'legislativeterm',
        ]);
      });
      it('GeoJSON features are not OParl objects', () => {
        const found = embeddedObjects(fixture('oparl-spec-master/Location-01.json'));
        expect(found.every((e) => e.type !== 'feature')).toBe(true);
      });
    },
  );

  describe('body slugs (ONB-4)', () => {
    it('lower case, umlauts transliterated, other characters → "-"', () => {
      expect(slugify('Stadt Köln, kreisfreie Stadt')).toBe('stadt-koeln-kreisfreie-stadt');
      expect(slugify('Gemeinde Lütjenburg-Süd')).toBe('gemeinde-luetjenburg-sued');
      expect(slugify('Straße & Ämter')).toBe('strasse-aemter');
      expect(slugify('Landkreis Märkisch-Oderland')).toBe('landkreis-maerkisch-oderland');
    });
    it('short name first; "N/A" or empty names fall back (own cases)', () => {
      expect(bodySlugBase({ id: 'https://x.test/b/1', shortName: 'Köln', name: 'Stadt Köln' })).toBe('koeln');
      expect(bodySlugBase({ id: 'https://x.test/b/2', shortName: '', name: 'Stadt Leipzig' })).toBe(
        'stadt-leipzig',
      );
      expect(bodySlugBase({ id: 'https://x.test/b/1', name: 'N/A' })).toMatch(/^body-[0-9a-f]{8}$/);
    });
    it.skipIf(!oparlExamples().present)(
      'short name first on the published examples (OParl examples corpus)',
      CORPUS_OPTIONS,
      () => {
        expect(bodySlugBase(fixture('oparl-spec-master/Body-01.json'))).toBe('koeln');
        expect(bodySlugBase(fixture('mst-bodies/Stadt Leipzig.json'))).toBe('stadt-leipzig');
      },
    );
  });
});

describe('quirk: unescaped control characters in JSON (CC e-gov)', () => {
  it('escapes raw control characters inside strings only, then parses', () => {
    const raw = '{"name":"Zeile 1\nZeile\t2","n":1}';
    expect(() => JSON.parse(raw)).toThrow();
    expect(parseOParlJson(raw)).toEqual({ name: 'Zeile 1\nZeile\t2', n: 1 });
  });
  it('leaves structure whitespace and escaped quotes alone', () => {
    const raw = '{\n  "a": "x\\"y\u0001",\n  "b": 2\n}';
    expect(escapeControlCharactersInStrings(raw)).toBe('{\n  "a": "x\\"y\\u0001",\n  "b": 2\n}');
  });
  it('still fails loudly on broken JSON', () => {
    expect(() => parseOParlJson('{"a": ')).toThrow(/invalid JSON/);
  });
  it('skips a BOM', () => {
    expect(parseOParlJson('\ufeff{"a":1}')).toEqual({ a: 1 });
  });
});
