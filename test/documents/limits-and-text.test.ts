import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPdf } from '../../demo';
import {
  CACHE_MAX_FILE_BYTES,
  extractPdfText,
  runFilesPass,
  TEXT_MAX_FILE_BYTES,
} from '../../shared/documents';
import { AffineMatrix } from '../../shared/documents/dom-matrix';
import { fileKey, textKey } from '../../shared/mirror';
import {
  buildScannedPdf,
  type DocumentsBed,
  type FileServer,
  getDoc,
  keysUnder,
  objectExists,
  putBody,
  putSource,
  recordFile,
  startDocumentsBed,
  startFileServer,
} from '../support/documents-bed';

describe('DOC-2: text extraction with pdfjs-dist', () => {
  it('a PDF with a text layer: its text, page by page', async () => {
    const result = await extractPdfText(
      buildPdf(['Sitzung des Rates', 'Tagesordnungspunkt 1: Haushalt – Änderung']),
    );
    expect(result).toMatchObject({ pages: 1, textLayer: true });
    expect(result.text).toContain('Sitzung des Rates');
    expect(result.text).toContain('Haushalt – Änderung');
  });

  it('a scanned PDF (no text operators) has no text layer', async () => {
    expect(await extractPdfText(buildScannedPdf())).toEqual({ text: '', pages: 1, textLayer: false });
  });

  it('a file that is no PDF is refused as TEXT_UNSUPPORTED_TYPE; a broken PDF as TEXT_EXTRACTION_FAILED', async () => {
    await expect(
      extractPdfText(Buffer.from('PK\x03\x04 word document'), 'application/msword'),
    ).rejects.toMatchObject({
      code: 'TEXT_UNSUPPORTED_TYPE',
    });
    await expect(extractPdfText(Buffer.from('%PDF-1.4\nthis is not a pdf at all'))).rejects.toMatchObject({
      code: 'TEXT_EXTRACTION_FAILED',
    });
  });
});

describe('DOC-2: the DOMMatrix stand-in for the bundled Lambda (no @napi-rs/canvas there)', () => {
  it('multiplies, translates, scales and inverts like a 2-D DOMMatrix', () => {
    const m = new AffineMatrix([2, 0, 0, 3, 10, 20]);
    expect(m.transformPoint({ x: 1, y: 1 })).toMatchObject({ x: 12, y: 23 });
    const back = m.multiply(m.inverse());
    expect([back.a, back.b, back.c, back.d, back.e, back.f]).toEqual([1, 0, 0, 1, 0, 0]);
    const t = new AffineMatrix().scaleSelf(1 / 4, -1 / 2).translateSelf(0, -2);
    expect([t.a, t.d, t.e, t.f]).toEqual([0.25, -0.5, 0, 1]);
    expect(new AffineMatrix(m).preMultiplySelf([1, 0, 0, 1, 5, 5]).e).toBe(15);
    expect(new AffineMatrix().isIdentity).toBe(true);
  });
});

describe('size limits and text against a file server on loopback', () => {
  let bed: DocumentsBed;
  let files: FileServer;
  const SOURCE = 'stadt-gross';
  const BODY = 'https://files.test/oparl/v1/bodies/1';

  beforeAll(async () => {
    bed = await startDocumentsBed();
    files = await startFileServer({
      '/scan.pdf': { body: buildScannedPdf(), type: 'application/pdf' },
      '/text.pdf': { body: buildPdf(['Beschlussvorlage 2026/123']), type: 'application/pdf' },
      '/letter.docx': {
        body: Buffer.from('PK\x03\x04 an office document'),
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      },
    });
    await putSource(bed, { sourceId: SOURCE, systemUrl: files.url('/oparl/v1/system') });
    await putBody(bed, SOURCE, { id: BODY, listed: true });
  });
  afterAll(async () => {
    await files?.close();
    await bed?.close();
  });

  it('DOC-3 / DOC-5: an 81 MB file without Content-Length is refused while streaming (too-large), nothing is left in S3', async () => {
    const total = 81 * 1000 * 1000;
    const docId = await recordFile(bed, {
      sourceId: SOURCE,
      bodyId: BODY,
      url: files.url(`/big-chunked-${total}.pdf`),
    });
    const started = performance.now();
    const report = await runFilesPass(bed.deps, { now: bed.now() });
    expect(report.files['too-large']).toBe(1);
    const doc = await getDoc(bed, docId);
    expect(doc).toMatchObject({ state: 'too-large', lastOutcome: 'RESPONSE_TOO_LARGE' });
    expect(doc.attemptShard).toBeUndefined();
    expect(await objectExists(bed, fileKey(SOURCE, docId))).toBe(false);
    expect(await keysUnder(bed, `files/${SOURCE}/`)).toEqual([]);
    // refused at the limit, not after reading everything first
    expect(CACHE_MAX_FILE_BYTES).toBe(80_000_000);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('DOC-5: an 81 MB Content-Length is refused before the body is read', async () => {
    const total = 81 * 1000 * 1000;
    const path = `/big-declared-${total}.pdf`;
    const docId = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: files.url(path) });
    await runFilesPass(bed.deps, { now: bed.now() });
    expect(await getDoc(bed, docId)).toMatchObject({ state: 'too-large' });
    // the server could only push what the socket buffers took before we hung up
    expect(files.sent.get(path) ?? 0).toBeLessThan(total / 2);
  });

  it('DOC-3: exactly 80 MB is stored (multipart), and not read again for text (DOC-2: ≤ 50 MB)', async () => {
    const total = CACHE_MAX_FILE_BYTES;
    const docId = await recordFile(bed, {
      sourceId: SOURCE,
      bodyId: BODY,
      url: files.url(`/big-chunked-${total}.pdf`),
    });
    const report = await runFilesPass(bed.deps, { now: bed.now() });
    expect(report.files.stored).toBe(1);
    const doc = await getDoc(bed, docId);
    expect(doc).toMatchObject({ state: 'stored', size: total });
    expect(total).toBeGreaterThan(TEXT_MAX_FILE_BYTES);
    expect(doc.textFor).toBeUndefined();
    expect(doc.hasText).toBeUndefined();
    expect(doc.attemptShard).toMatch(/^sample#/);
  }, 60_000);

  it('DOC-2: a scanned PDF is stored and marked textLayer: false; a PDF with text gets its text object', async () => {
    const scan = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: files.url('/scan.pdf') });
    const text = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: files.url('/text.pdf') });
    const report = await runFilesPass(bed.deps, { now: bed.now() });
    expect(report.text).toMatchObject({ 'no-text-layer': 1, extracted: 1 });
    expect(await getDoc(bed, scan)).toMatchObject({
      state: 'stored',
      hasText: false,
      textLayer: false,
      textPages: 1,
    });
    expect(await objectExists(bed, textKey(SOURCE, scan))).toBe(false);
    expect(await getDoc(bed, text)).toMatchObject({ hasText: true, textLayer: true });
    expect(await objectExists(bed, textKey(SOURCE, text))).toBe(true);
  });

  it('DOC-2: a stored file that is no PDF is marked (TEXT_UNSUPPORTED_TYPE) and not tried again', async () => {
    const docId = await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: files.url('/letter.docx') });
    await runFilesPass(bed.deps, { now: bed.now() });
    const doc = await getDoc(bed, docId);
    expect(doc).toMatchObject({ state: 'stored', hasText: false, textError: 'TEXT_UNSUPPORTED_TYPE' });
    expect(doc.textFor).toBe(doc.sha256);
    expect(doc.attemptShard).toMatch(/^sample#/);
  });
});
