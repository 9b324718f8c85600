import { ensureDomMatrix } from './dom-matrix';
import { TextExtractionError, TooManyPagesError, UnsupportedTextTypeError } from './errors';

/**
 * The PDF reading itself (SPEC DOC-2), with pdfjs-dist (no shelling out). It runs inside the text
 * worker (text-worker.ts), never on the files function's main thread: a poison file may take minutes
 * of CPU or gigabytes of memory, and only a worker can be stopped in the middle of pdf.js's work.
 * This module imports nothing but pdf.js and its own errors, so the worker's bundle stays small.
 */

export interface ExtractedText {
  text: string;
  pages: number;
  /** False when no page has a single non-blank text item (scanned PDF). */
  textLayer: boolean;
}

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsLoading: Promise<PdfJs> | undefined;

/** pdfjs with its worker's message handler in this thread: nothing to locate or spawn at runtime. */
export function loadPdfjs(): Promise<PdfJs> {
  pdfjsLoading ??= (async () => {
    ensureDomMatrix();
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjsLoading;
}

/** `%PDF-` within the first KiB (PDF 32000 §7.5.2 allows leading garbage). */
export function looksLikePdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes('%PDF-');
}

/**
 * The text of a PDF, pages separated by a form feed. Throws TEXT_UNSUPPORTED_TYPE,
 * TEXT_TOO_MANY_PAGES (more pages than `maxPages`, told from the page tree before any page is read)
 * or TEXT_EXTRACTION_FAILED (corrupt, encrypted).
 */
export async function extractPdfText(
  bytes: Uint8Array,
  contentType?: string,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<ExtractedText> {
  if (!looksLikePdf(bytes)) throw new UnsupportedTextTypeError(contentType);
  const pdfjs = await loadPdfjs();
  // pdfjs wants a plain Uint8Array and may take ownership of its memory: a file's own buffer is
  // handed over as a view (no second 50 MB copy), a slice of a shared pool is copied.
  const ownsMemory = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const data = ownsMemory ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes);
  let doc: Awaited<ReturnType<PdfJs['getDocument']>['promise']> | undefined;
  try {
    doc = await pdfjs.getDocument({
      data,
      // No code generation from PDF content; fonts are not rendered, only their text is read.
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      verbosity: 0,
    }).promise;
    // The page count is the page tree's /Count: pages beyond it are never read, so this bounds the work.
    if (doc.numPages > maxPages) throw new TooManyPagesError(doc.numPages, maxPages);
    const pages: string[] = [];
    let textLayer = false;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str;
        if (item.hasEOL) text += '\n';
        if (item.str.trim() !== '') textLayer = true;
      }
      pages.push(text.trimEnd());
      page.cleanup();
    }
    return { text: textLayer ? pages.join('\n\f') : '', pages: doc.numPages, textLayer };
  } catch (error) {
    if (error instanceof TooManyPagesError) throw error;
    throw new TextExtractionError(
      `cannot read the PDF: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  } finally {
    await doc?.destroy();
  }
}
