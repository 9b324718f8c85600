import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { assemblePdf } from '../demo/pdf';

/**
 * Issue 28: a council document of a given size for the files-cost bench — not the demo's one-line
 * page. `textChars` of German-looking text over `pages` pages (each page's content stream deflated,
 * as council PDFs are), the rest of `bytes` as one scanned-looking image per page (8-bit grey, random
 * so incompressible: the bytes a download and an upload carry). pdf.js reads every text operator; it
 * does not decode images for text (getTextContent). Not modelled: embedded font programs, which real
 * files carry and pdf.js parses — the bench's extraction time is a floor for them.
 */
export interface CouncilPdfShape {
  bytes: number;
  pages: number;
  textChars: number;
}

const WORDS = [
  'Beschlussvorlage',
  'Haushalt',
  'Ausschuss',
  'Stadtrat',
  'Tagesordnungspunkt',
  'Bebauungsplan',
  'Änderung',
  'Sitzung',
  'öffentlich',
  'Verwaltung',
  'Antrag',
  'Fraktion',
  'Gemeinde',
  'Straße',
  'Förderung',
  'und',
  'der',
  'die',
  'das',
  'für',
];

/** Deterministic text of about `chars` characters, in lines of ≤ 90 (a page's width at 10 pt). */
function lines(chars: number, seed: number): string[] {
  const out: string[] = [];
  let line = '';
  let total = 0;
  for (let i = 0; total < chars; i++) {
    const word = WORDS[(i * 7 + seed * 13 + ((i * i) % 11)) % WORDS.length] ?? 'und';
    if (line.length + word.length + 1 > 90) {
      out.push(line);
      total += line.length;
      line = '';
    }
    line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

const pdfText = (s: string) =>
  `(${s.replace(/[()\\]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, (c) => `\\${(c.codePointAt(0) ?? 63).toString(8).padStart(3, '0')}`)})`;

export function buildCouncilPdf(shape: CouncilPdfShape): Buffer {
  const { pages } = shape;
  // Objects: 1 catalog, 2 page tree, 3 font, then per page: page, content, image.
  const first = 4;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, p) => `${first + 3 * p} 0 R`).join(' ')}] /Count ${pages} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  const contents: string[] = [];
  for (let p = 0; p < pages; p++) {
    const text = lines(shape.textChars / pages, p);
    const ops = ['q 400 0 0 300 100 60 cm /Im1 Do Q', 'BT', '/F1 10 Tf', '13 TL', '50 800 Td'];
    for (const [i, l] of text.entries()) ops.push(`${i === 0 ? '' : 'T* '}${pdfText(l)} Tj`);
    ops.push('ET');
    contents.push(deflateSync(Buffer.from(ops.join('\n'), 'latin1')).toString('latin1'));
  }
  const fixed = assemblePdf([...objects, ...contents]).length + pages * 300;
  const imageBytes = Math.max(16, Math.floor((shape.bytes - fixed) / pages));
  const side = Math.max(4, Math.floor(Math.sqrt(imageBytes)));
  for (let p = 0; p < pages; p++) {
    const page = first + 3 * p;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 ${page + 2} 0 R >> >> /Contents ${page + 1} 0 R >>`,
      `<< /Length ${contents[p]?.length ?? 0} /Filter /FlateDecode >>\nstream\n${contents[p]}\nendstream`,
      `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${Math.floor(imageBytes / side)} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${side * Math.floor(imageBytes / side)} >>\nstream\n${randomBytes(side * Math.floor(imageBytes / side)).toString('latin1')}\nendstream`,
    );
  }
  return assemblePdf(objects);
}
