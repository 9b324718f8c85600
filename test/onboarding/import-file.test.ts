import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { parseImportFile, readImportFile } from '../../shared/onboarding';

describe('sources import file formats (ONB-3)', () => {
  it('JSON: an array or {"sources": [...]}, each a Sources item without tool fields', () => {
    const list = [{ systemUrl: 'https://ris.a.de/oparl/system', name: 'A', requestIntervalSeconds: 2 }];
    expect(parseImportFile(JSON.stringify(list))).toEqual([
      {
        line: 1,
        systemUrl: 'https://ris.a.de/oparl/system',
        fields: { name: 'A', requestIntervalSeconds: 2 },
      },
    ]);
    expect(parseImportFile(JSON.stringify({ sources: list }))).toHaveLength(1);
  });

  it('ONB-3: "active" in the file is refused — activation is --activate only', () => {
    expect(() => parseImportFile('[{"systemUrl":"https://x.de/s","active":true}]')).toThrow(/--activate/);
  });

  it('CSV: header, ; or , separator, quotes, comments and empty cells', () => {
    const csv = [
      '# Quellen für den Import',
      'systemUrl;sourceId;name;requestIntervalSeconds',
      'https://ris.a.de/oparl/system;ris-a;"Stadt A; Kreis B";2',
      '',
      'https://ris.b.de/oparl/system;;"Gemeinde ""C""";',
    ].join('\n');
    expect(parseImportFile(csv)).toEqual([
      {
        line: 3,
        systemUrl: 'https://ris.a.de/oparl/system',
        sourceId: 'ris-a',
        fields: { name: 'Stadt A; Kreis B', requestIntervalSeconds: '2' },
      },
      { line: 5, systemUrl: 'https://ris.b.de/oparl/system', fields: { name: 'Gemeinde "C"' } },
    ]);
  });

  it('CSV: unknown columns and a missing systemUrl column are refused with the reason', () => {
    expect(() => parseImportFile('systemUrl,colour\nhttps://x.de/s,red')).toThrow(/unknown column "colour"/);
    expect(() => parseImportFile('name\nA')).toThrow(/systemUrl/);
    expect(() => parseImportFile('systemUrl,name\nhttps://x.de/s,"open')).toThrow(
      /not valid CSV: Quote Not Closed/,
    );
    expect(() => parseImportFile('systemUrl,name\nhttps://x.de/s,a,b')).toThrow(/not valid CSV/);
  });

  it('CSV: a quoted field may span lines (as Excel writes a cell with a line break); `,` and a `#` inside a URL', () => {
    const csv = [
      'systemUrl,name,note',
      'https://ris.a.de/oparl/system,"Stadt A","Ansprechpartner:',
      'Herr Müller, Tel. 123"',
      'https://ris.b.de/oparl/system#v1,Gemeinde B,',
    ].join('\r\n');
    expect(parseImportFile(csv)).toEqual([
      {
        line: 2,
        systemUrl: 'https://ris.a.de/oparl/system',
        fields: { name: 'Stadt A', note: 'Ansprechpartner:\nHerr Müller, Tel. 123' },
      },
      { line: 4, systemUrl: 'https://ris.b.de/oparl/system#v1', fields: { name: 'Gemeinde B' } },
    ]);
  });

  const GERMAN = [
    '# Kommunen für den Import',
    'systemUrl;name;note',
    'https://ris.köln.example/oparl/system;Köln;"Größe: „groß“ – 5 €"',
    'https://ris.b.de/oparl/system;Düsseldorf;',
  ].join('\r\n');
  const EXPECTED = [
    {
      line: 3,
      systemUrl: 'https://ris.köln.example/oparl/system',
      fields: { name: 'Köln', note: 'Größe: „groß“ – 5 €' },
    },
    { line: 4, systemUrl: 'https://ris.b.de/oparl/system', fields: { name: 'Düsseldorf' } },
  ];

  it('CSV in UTF-8 with a BOM (Excel "CSV UTF-8"): read as it is, no warning', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(GERMAN, 'utf8')]);
    expect(readImportFile(bytes)).toEqual({ entries: EXPECTED, encoding: 'utf-8', warnings: [] });
  });

  it('CSV in Windows-1252 (German Excel "CSV (Trennzeichen-getrennt)"): umlauts, „“ – € kept, and a warning says so', () => {
    const bytes = iconv.encode(GERMAN, 'windows-1252');
    // Not UTF-8: read strictly as UTF-8 this file would turn every umlaut into U+FFFD.
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    const read = readImportFile(bytes);
    expect(read.entries).toEqual(EXPECTED);
    expect(read.encoding).toBe('windows-1252');
    expect(read.warnings).toEqual([expect.stringMatching(/not valid UTF-8; read as Windows-1252/)]);
    expect(JSON.stringify(read.entries)).not.toContain('\uFFFD');
  });
});
