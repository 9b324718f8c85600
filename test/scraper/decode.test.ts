import { describe, expect, it } from 'vitest';
import { charsetFromContentType, declaredCharsets, decodeHtml } from '../../shared/scraper/decode';
import { CORPUS_OPTIONS, risHtml } from '../support/corpora';
import { ALLRIS_DISTRICTS, allrisPage, sessionNetSample } from '../support/fake-ris-html';
import { allrisCalendarPage, encodeCp1252 } from '../support/fake-ris-html/pages';

/** Encoding detection (issue 8: "never mangle umlauts"): header, meta, XML declaration, BOM, fallback. */

const UMLAUTS = 'Ausschuss für Grün- und Straßenflächen, Öffentlichkeit – „Bürger“ €';
const ris = risHtml();

describe('decodeHtml', () => {
  it('ISSUE-8: an ALLRIS page of our own (ISO-8859-1 bytes, charset only in its meta tag) decodes without U+FFFD or mojibake', () => {
    const page = allrisCalendarPage({
      year: 2025,
      month: 11,
      headline: 'Bezirksversammlung Grünstadt',
      entries: [],
    });
    const decoded = decodeHtml(page, 'text/html');
    expect(decoded.charset).toBe('windows-1252');
    expect(decoded.source).toBe('meta');
    expect(decoded.text).not.toMatch(/\uFFFD|Ã¼|Ã¶|[\u0080-\u009F]/);
    expect(decoded.text).toContain('Bezirksversammlung Grünstadt');
  });

  it.skipIf(!ris.present).each(ALLRIS_DISTRICTS.map((d) => [d]))(
    'ISSUE-8: the captured ALLRIS page of %s (ISO-8859-1 bytes) decodes by its meta tag without U+FFFD or mojibake',
    CORPUS_OPTIONS,
    (district) => {
      const decoded = decodeHtml(allrisPage(district, 'to010'), 'text/html');
      expect(decoded.charset).toBe('windows-1252');
      expect(decoded.source).toBe('meta');
      expect(decoded.text).not.toMatch(/\uFFFD|Ã¼|Ã¶|[\u0080-\u009F]/);
      expect(decoded.text).toMatch(/[äöüÄÖÜß]/);
    },
  );

  it('ISSUE-8: Windows-1252 characters in an ISO-8859-1 page come out as „ “ – € (Node decodes them as C1 controls)', () => {
    const bytes = encodeCp1252(`<p>${UMLAUTS}</p>`);
    const decoded = decodeHtml(bytes, 'text/html; Charset=ISO-8859-1');
    expect(decoded).toMatchObject({ charset: 'windows-1252', source: 'header' });
    expect(decoded.text).toBe(`<p>${UMLAUTS}</p>`);
    // 0x80–0x9F are the Windows-1252 characters, not C1 controls (Node's own decoder gets them wrong).
    expect(
      decodeHtml(Buffer.from([0x84, 0x78, 0x93, 0x96, 0x80]), 'text/html; charset=windows-1252').text,
    ).toBe('„x“–€');
  });

  it('ISSUE-8: the header wins over the meta tag (HTML standard order) …', () => {
    const page = Buffer.from(`<meta charset="iso-8859-1"><p>${UMLAUTS}</p>`, 'utf8');
    expect(decodeHtml(page, 'text/html; charset=utf-8')).toMatchObject({
      charset: 'utf-8',
      source: 'header',
    });
    expect(decodeHtml(page, 'text/html; charset=utf-8').text).toContain(UMLAUTS);
  });

  it('ISSUE-8: … unless it claims UTF-8 for bytes that are not: then the page’s own declaration decides', () => {
    const page = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'),
      encodeCp1252(`<p>${UMLAUTS}</p>`),
    ]);
    const decoded = decodeHtml(page, 'text/html; charset=UTF-8');
    expect(decoded).toMatchObject({ charset: 'windows-1252', source: 'meta' });
    expect(decoded.text).toContain(UMLAUTS);
  });

  it('ISSUE-8: XML declaration, BOM, valid UTF-8 without declaration, and the Windows-1252 fallback', () => {
    const xml = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="iso-8859-1"?><p>'),
      encodeCp1252(UMLAUTS),
    ]);
    expect(decodeHtml(xml)).toMatchObject({
      source: 'xml-declaration',
      text: `<?xml version="1.0" encoding="iso-8859-1"?><p>${UMLAUTS}`,
    });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(UMLAUTS, 'utf8')]);
    expect(decodeHtml(bom, 'text/html; charset=iso-8859-1')).toMatchObject({ source: 'bom', text: UMLAUTS });
    expect(decodeHtml(Buffer.from(UMLAUTS, 'utf8'))).toMatchObject({ source: 'utf8-valid', text: UMLAUTS });
    expect(decodeHtml(encodeCp1252(UMLAUTS))).toMatchObject({ source: 'fallback', text: UMLAUTS });
  });

  it.skipIf(!ris.present)(
    'ISSUE-8: the SessionNet samples are UTF-8 (one by its meta charset, one by valid bytes alone)',
    CORPUS_OPTIONS,
    () => {
      expect(decodeHtml(sessionNetSample('si0040_oct2025'))).toMatchObject({
        charset: 'utf-8',
        source: 'meta',
      });
      const decoded = decodeHtml(sessionNetSample('si0057_sample'));
      expect(decoded).toMatchObject({ charset: 'utf-8', source: 'utf8-valid' });
      expect(decoded.text).toContain('Protokoll öffentlich');
    },
  );

  it('ISSUE-8: charset labels and declarations are read one tag at a time', () => {
    expect(charsetFromContentType('text/html; Charset="ISO-8859-1"')).toBe('windows-1252');
    expect(charsetFromContentType('text/html')).toBeUndefined();
    expect(charsetFromContentType('text/html; charset=klingon')).toBeUndefined();
    expect(
      declaredCharsets(Buffer.from('<meta name="description" content="charset=utf-8"><meta charset=latin1>')),
    ).toEqual({
      meta: 'windows-1252',
    });
  });
});
