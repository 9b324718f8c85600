import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createRunContext, type RunContext } from '../fetch';
import { TEXT_MAX_DOWNLOADS, TEXT_MAX_FILE_BYTES, TEXT_MAX_FILES_PER_BODY } from './constants';
import {
  applyCounted,
  countOutcome,
  type DocumentsDeps,
  isTakenDown,
  type PassOptions,
  type PassRun,
  pastDeadline,
  type SourceContext,
  type SourceRun,
  takenDownNow,
} from './context';
import {
  classifyFailure,
  needsText,
  outcomeCode,
  outcomeOfError,
  retryDelayMs,
  storedPlacement,
  takenDownChange,
} from './decide';
import { ensureDomMatrix } from './dom-matrix';
import { TextExtractionError, UnsupportedTextTypeError } from './errors';
import { bodyKeyOf, shards, textKey } from './keys';
import { deleteObjects, fetchSourceOf, putObject, readAll, readObject } from './objects';
import { afterChange, type DocumentsStore } from './store';
import type { DocumentChange, DocumentItem, FetchOutcome, OutcomeCounts } from './types';

/**
 * Text extraction (SPEC DOC-2): every newly recorded file without text is read once for its text, at
 * most 500 files per body and run and 50 MB per file, with pdfjs-dist (no shelling out). The file is
 * shared with the cache: a document whose copy we keep is read from S3, not fetched again; only
 * documents we do not keep (unlisted bodies, DOC-7 — their files are still fetched, ONB-4) are
 * downloaded for text. A PDF without a text layer (a scan) is marked `textLayer: false`.
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
function loadPdfjs(): Promise<PdfJs> {
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

/** The text of a PDF, pages separated by a form feed. Throws TEXT_UNSUPPORTED_TYPE / TEXT_EXTRACTION_FAILED. */
export async function extractPdfText(bytes: Uint8Array, contentType?: string): Promise<ExtractedText> {
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
    throw new TextExtractionError(
      `cannot read the PDF: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  } finally {
    await doc?.destroy();
  }
}

// ------------------------------------------------------------------------------- pure decisions

/** What one text attempt ended with. */
export type TextResult =
  | { kind: 'text'; extracted: ExtractedText; forSha256: string }
  | { kind: 'failed'; code: string; forSha256: string };

/**
 * DOC-2: the document after its text attempt finished (text, no text layer, or a final failure):
 * `textFor` records the file version, so it is not read again until the file changes. The document
 * then waits where it belongs — its next DEL-2 sample, or (not kept, DOC-7) its body's listing.
 */
export function textDoneChange(item: DocumentItem, result: TextResult, now: Date): DocumentChange {
  const nowIso = now.toISOString();
  const set: Partial<DocumentItem> = { textFor: result.forSha256, textAt: nowIso };
  const remove: (keyof DocumentItem)[] = [];
  let outcome: string;
  if (result.kind === 'text' && result.extracted.textLayer) {
    Object.assign(set, {
      hasText: true,
      textLayer: true,
      textKey: textKey(item.sourceId, item.docId),
      textChars: result.extracted.text.length,
      textPages: result.extracted.pages,
    });
    remove.push('textError');
    outcome = 'extracted';
  } else if (result.kind === 'text') {
    Object.assign(set, { hasText: false, textLayer: false, textChars: 0, textPages: result.extracted.pages });
    remove.push('textKey', 'textError');
    outcome = 'no-text-layer';
  } else {
    Object.assign(set, { hasText: false, textError: result.code });
    remove.push('textKey', 'textLayer', 'textChars', 'textPages');
    outcome = 'failed';
  }
  const after = afterChange(item, { set, remove, outcome });
  return { set: { ...set, ...placementAfterText(after, now) }, remove, outcome };
}

function placementAfterText(item: DocumentItem, now: Date): { attemptShard: string; nextAttemptAt: string } {
  if (item.storedKey !== undefined) return storedPlacement(item, now);
  return {
    attemptShard: shards.unlisted(item.sourceId, bodyKeyOf(item.bodyId)),
    nextAttemptAt: now.toISOString(),
  };
}

/**
 * DOC-2 + DOC-4: a download for text failed. Transient reasons (the DOC-4 ladder) are tried again on
 * the ladder, at most TEXT_MAX_DOWNLOADS downloads in all; anything else ends the text attempts.
 */
export function textDownloadFailedChange(
  item: DocumentItem,
  outcome: FetchOutcome,
  now: Date,
): DocumentChange {
  const downloads = (item.textDownloads ?? 0) + (outcome.kind === 'deferred' ? 0 : 1);
  const code = outcomeCode(outcome);
  const failureClass =
    outcome.kind === 'failed'
      ? classifyFailure(outcome.code, outcome.status)
      : outcome.kind === 'deferred'
        ? 'deferred'
        : 'ladder';
  if (failureClass === 'deferred') {
    return { set: { textDownloads: downloads, lastOutcome: code }, remove: [], outcome: 'deferred' };
  }
  if (failureClass === 'ladder' && downloads < TEXT_MAX_DOWNLOADS) {
    return {
      set: {
        textDownloads: downloads,
        lastOutcome: code,
        nextAttemptAt: new Date(now.getTime() + retryDelayMs(downloads, 'ladder')).toISOString(),
      },
      remove: [],
      outcome: 'retrying',
    };
  }
  const done = textDoneChange(
    { ...item, textDownloads: downloads },
    { kind: 'failed', code, forSha256: `failed:${code}` },
    now,
  );
  return { ...done, set: { ...done.set, textDownloads: downloads, lastOutcome: code } };
}

// ---------------------------------------------------------------------------------------- the pass

export async function runTextPass(
  deps: DocumentsDeps,
  store: DocumentsStore,
  contexts: SourceContext[],
  options: PassOptions,
): Promise<OutcomeCounts> {
  const { now } = options;
  const counts: OutcomeCounts = {};
  const pass: PassRun = { deps, store, now, counts };
  for (const ctx of contexts) {
    // DOC-1: nothing for a source whose file fetching is off (the items wait in their queue).
    if (!ctx.gate.textFromCopy) continue;
    const perBody = new Map<string, number>();
    const limit = TEXT_MAX_FILES_PER_BODY * Math.max(1, ctx.bodies.size);
    const due = await store.queryDue(shards.text(ctx.source.sourceId), now.toISOString(), limit);
    let runContext: RunContext | undefined;
    let done = 0;
    for (const item of due) {
      options.onProgress?.({ stage: 'text', done: done++, total: due.length, host: ctx.source.host });
      if (pastDeadline(options)) return counts;
      // DOC-2: at most 500 files per body and run.
      const taken = perBody.get(item.bodyId) ?? 0;
      if (taken >= TEXT_MAX_FILES_PER_BODY) continue;
      perBody.set(item.bodyId, taken + 1);
      try {
        if (isTakenDown(ctx, item)) {
          await applyCounted(pass, item, takenDownChange());
        } else if (item.storedKey !== undefined) {
          await textFromCopy(pass, item);
        } else if (ctx.gate.textFromSource) {
          runContext ??= createRunContext(ctx.source.sourceId);
          await textFromSource({ ...pass, ctx, runContext }, item);
        } else {
          // ONB-4: files of an inactive source are not fetched; the document waits for its listing.
          const change: DocumentChange = {
            set: placementAfterText(item, now),
            remove: [],
            outcome: 'skipped-inactive',
          };
          await applyCounted(pass, item, change);
        }
      } catch (error) {
        countOutcome(counts, 'error');
        deps.log?.('text error', { docId: item.docId, error: String(error) });
      }
    }
  }
  return counts;
}

/** Text from our own copy in S3: the cache's download is reused (DOC-2 "downloaded once"). */
async function textFromCopy(pass: PassRun, item: DocumentItem): Promise<void> {
  const { deps, now } = pass;
  if (!needsText(item) || item.sha256 === undefined || item.storedKey === undefined) {
    await applyCounted(pass, item, { set: storedPlacement(item, now), remove: [], outcome: 'skipped' });
    return;
  }
  const bytes = await readObject(deps.s3, deps.bucket, item.storedKey, TEXT_MAX_FILE_BYTES);
  const result: TextResult =
    bytes === undefined
      ? { kind: 'failed', code: 'COPY_UNREADABLE', forSha256: item.sha256 }
      : await extractSafely(bytes, item.contentType, item.sha256);
  await finishText(pass, item, result);
}

/** DOC-7 / ONB-4: a document we do not keep is downloaded (≤ 50 MB) for its text only. */
async function textFromSource(run: SourceRun, item: DocumentItem): Promise<void> {
  const { deps, ctx, now, runContext } = run;
  if (item.textFor !== undefined) {
    await applyCounted(run, item, { set: placementAfterText(item, now), remove: [], outcome: 'skipped' });
    return;
  }
  let bytes: Buffer | undefined;
  let contentType: string | undefined;
  try {
    const result = await deps.fetcher.stream(item.url, {
      purpose: 'file',
      source: fetchSourceOf(ctx.source),
      maxBytes: TEXT_MAX_FILE_BYTES,
      hostIntervalMs: ctx.hostIntervalMs,
      runContext,
    });
    contentType = result.contentType;
    bytes = await readAll(result.body as Readable, TEXT_MAX_FILE_BYTES);
  } catch (error) {
    await applyCounted(run, item, textDownloadFailedChange(item, outcomeOfError(error), now), 'download-');
    return;
  }
  if (bytes === undefined || bytes.length === 0) {
    await applyCounted(run, item, textDownloadFailedChange(item, { kind: 'empty' }, now), 'download-');
    return;
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const result = await extractSafely(bytes, contentType, sha256);
  await finishText(run, { ...item, textDownloads: (item.textDownloads ?? 0) + 1 }, result, item);
}

async function extractSafely(
  bytes: Buffer,
  contentType: string | undefined,
  sha256: string,
): Promise<TextResult> {
  try {
    return { kind: 'text', extracted: await extractPdfText(bytes, contentType), forSha256: sha256 };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (error instanceof TextExtractionError || error instanceof UnsupportedTextTypeError) {
      return { kind: 'failed', code: String(code), forSha256: sha256 };
    }
    throw error;
  }
}

/**
 * Text object first, record second (the record never names a text object that is not there); a
 * text object the record no longer names is deleted after the record.
 */
async function finishText(
  pass: PassRun,
  item: DocumentItem,
  result: TextResult,
  asRead: DocumentItem = item,
): Promise<void> {
  const { deps, now } = pass;
  const change = textDoneChange(item, result, now);
  const key = textKey(item.sourceId, item.docId);
  if (result.kind === 'text' && result.extracted.textLayer) {
    await putObject(deps, key, result.extracted.text, 'text/plain; charset=utf-8');
  }
  // OPT-5: taken down while the text was made — not recorded, a new text object not kept.
  if (await takenDownNow(deps, item)) {
    if (asRead.textKey === undefined) await deleteObjects(deps.s3, deps.bucket, [key]);
    await applyCounted(pass, asRead, takenDownChange());
    return;
  }
  if (item.textDownloads !== asRead.textDownloads && item.textDownloads !== undefined) {
    change.set.textDownloads = item.textDownloads;
  }
  const applied = await applyCounted(pass, asRead, change);
  if (applied && change.set.textKey === undefined && asRead.textKey !== undefined) {
    await deleteObjects(deps.s3, deps.bucket, [asRead.textKey]);
  }
}
