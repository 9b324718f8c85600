import { constants, deflateRawSync } from 'node:zlib';
import { assemblePdf } from './pdf';

/**
 * Poison PDFs (issue 25, DOC-2), made on the fly for the tests and the chaos bench: small files that
 * cost a text extractor minutes of CPU or gigabytes of memory. No binary fixtures.
 */

/**
 * A PDF of `pages` pages that all show the same content stream: ≈ 95 bytes a page (20,000 pages ≈
 * 1.9 MB), and pdf.js reads every page anew. `linesPerPage` > 1 makes each page that many text
 * operators to read: a file slow to read on few pages, whose page tree is told at once.
 */
export function buildManyPagesPdf(pages: number, line = 'Seite', linesPerPage = 1): Buffer {
  const content = `BT /F1 12 Tf 72 770 Td ${`(${line}) Tj `.repeat(linesPerPage).trimEnd()} ET`;
  const first = 5; // objects 1–4: catalog, page tree, font, content
  const kids: string[] = [];
  for (let n = 0; n < pages; n++) kids.push(`${first + n} 0 R`);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  const page =
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>';
  for (let n = 0; n < pages; n++) objects.push(page);
  return assemblePdf(objects);
}

/**
 * A one-page PDF whose content stream is a FlateDecode bomb: `inflatedBytes` of spaces (whitespace
 * to a PDF lexer) deflated at the best ratio (≈ 1:1000, so 500 MB → ≈ 0.5 MB of file). Made from one
 * 1 MiB chunk fed repeatedly to one deflate stream, never the inflated size in memory.
 */
export function buildDeflateBombPdf(inflatedBytes: number): Buffer {
  const deflated = deflateRepeated(0x20, inflatedBytes);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
    `<< /Length ${deflated.length} /Filter /FlateDecode >>\nstream\n${deflated.toString('latin1')}\nendstream`,
  ];
  return assemblePdf(objects);
}

/**
 * A zlib stream of `total` bytes of `byte` (rounded up to whole MiB) without ever holding them: one
 * MiB deflated with a full flush is a self-contained, byte-aligned run of blocks, repeated as often as
 * needed, then the final empty block and the Adler-32 of the whole (computed in closed form).
 */
function deflateRepeated(byte: number, total: number): Buffer {
  const chunk = Buffer.alloc(1024 * 1024, byte);
  const times = Math.max(1, Math.ceil(total / chunk.length));
  const segment = deflateRawSync(chunk, {
    level: constants.Z_BEST_COMPRESSION,
    finishFlush: constants.Z_FULL_FLUSH,
  });
  const final = deflateRawSync(Buffer.alloc(0));
  const length = BigInt(times * chunk.length);
  const mod = 65521n;
  const value = BigInt(byte);
  const a = (1n + value * length) % mod;
  const b = (length + (value * length * (length + 1n)) / 2n) % mod;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array(times).fill(segment), final, adler]);
}
