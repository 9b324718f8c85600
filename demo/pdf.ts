// A minimal, valid one-page PDF with a real text layer, built byte by byte so text extraction
// and checksum code can be tested without binary fixtures.

// WinAnsiEncoding equals Latin-1 for the umlauts and ß; these few extras matter for German text.
const WIN_ANSI_EXTRA: Record<string, number> = {
  '€': 0x80,
  '„': 0x84,
  '“': 0x93,
  '”': 0x94,
  '–': 0x96,
  '—': 0x97,
};

function pdfString(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0x3f;
    if (ch === '(' || ch === ')' || ch === '\\') out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else {
      const win = WIN_ANSI_EXTRA[ch] ?? (code >= 0xa0 && code <= 0xff ? code : 0x3f);
      // Octal escapes keep the content stream pure ASCII, so byte offsets equal string offsets.
      out += `\\${win.toString(8).padStart(3, '0')}`;
    }
  }
  return `(${out})`;
}

export function buildPdf(lines: string[]): Buffer {
  const content = [
    'BT',
    '/F1 12 Tf',
    '16 TL',
    '72 770 Td',
    ...lines.map((line, i) => `${i === 0 ? '' : 'T* '}${pdfString(line)} Tj`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  return assemblePdf(objects);
}

/** Numbered objects (1 = catalog) → a complete PDF file with its cross-reference table. */
export function assemblePdf(objects: string[]): Buffer {
  // The binary comment line marks the file as binary for transfer tools (PDF 32000 §7.5.2).
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  // Every character above is < 0x100, so latin1 maps characters to bytes one to one.
  return Buffer.from(out, 'latin1');
}
