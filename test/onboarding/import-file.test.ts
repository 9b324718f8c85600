import { describe, expect, it } from 'vitest';
import { parseImportFile, splitCsvLine } from '../../shared/onboarding';

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
    expect(() => splitCsvLine('"open', ',')).toThrow(/unterminated/);
  });
});
