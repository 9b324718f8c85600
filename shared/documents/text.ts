import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createRunContext, type RunContext } from '../fetch';
import { textKey } from '../mirror';
import { ADMIT_ALL, type PassAdmission } from './admission';
import {
  TEXT_MAX_ATTEMPTS,
  TEXT_MAX_DOWNLOADS,
  TEXT_MAX_FILE_BYTES,
  TEXT_MAX_FILES_PER_BODY,
  TEXT_RETRY_LADDER_MS,
} from './constants';
import {
  applyCounted,
  countOutcome,
  type DocumentsDeps,
  hostOf,
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
import { TextBoundError, TextExtractionError, TooManyPagesError, UnsupportedTextTypeError } from './errors';
import { bodyKeyOf, shards } from './keys';
import { deleteObjects, fetchSourceOf, putObject, readAll, readObject } from './objects';
import type { ExtractedText } from './pdf-text';
import { afterChange, type DocumentsStore } from './store';
import { TextExtractor } from './text-extractor';
import type { DocumentChange, DocumentItem, FetchOutcome, OutcomeCounts } from './types';

/**
 * Text extraction (SPEC DOC-2): every newly recorded file without text is read once for its text, at
 * most 500 files per body and run and 50 MB per file, with pdfjs-dist (no shelling out) in a bounded
 * worker thread (text-extractor.ts: time, pages, memory). The file is shared with the cache: a
 * document whose copy we keep is read from S3, not fetched again; only documents we do not keep
 * (unlisted bodies, DOC-7 — their files are still fetched, ONB-4) are downloaded for text. A PDF
 * without a text layer (a scan) is marked `textLayer: false`.
 *
 * Poison files (issue 25): each attempt is recorded before the file is read (crash safety: an
 * invocation killed while reading has already moved the file back in the queue, so the next pass does
 * not pick it first). A time or memory breach, or an interrupted attempt, is tried again from our copy
 * on the text ladder (1 h, 1 d, 7 d, then given up); a file above the page bound or that pdf.js cannot
 * read is given up at once. A file downloaded for text only is read once (DOC-2: never downloaded
 * twice for it), so its failures end its text attempts.
 */

// ------------------------------------------------------------------------------- pure decisions

/** What one text attempt ended with. */
export type TextResult =
  | { kind: 'text'; extracted: ExtractedText; forSha256: string }
  | { kind: 'failed'; code: string; forSha256: string };

/** Failures worth another attempt: the worker breached a bound (a busy instance may be why) or died. */
export const RETRIED_TEXT_ERRORS: ReadonlySet<string> = new Set([
  'TEXT_TIMEOUT',
  'TEXT_MEMORY',
  'TEXT_INTERRUPTED',
]);

/** Text attempts started for this file version (a new version starts again at 0). */
export function textAttemptsFor(item: Pick<DocumentItem, 'textAttempts' | 'textAttemptFor'>, sha256: string) {
  return item.textAttemptFor === sha256 ? (item.textAttempts ?? 0) : 0;
}

/** The pause after the `attempts`-th text attempt that failed in a retried way. */
export function textRetryDelayMs(attempts: number): number {
  const ladder = TEXT_RETRY_LADDER_MS;
  return ladder[Math.min(Math.max(0, attempts - 1), ladder.length - 1)] ?? 0;
}

/**
 * DOC-2 crash safety (issue 25): the attempt about to start, written before the file is read. It is
 * counted, and the record already says what a killed invocation leaves behind: interrupted, due again
 * after the ladder's pause — so the next pass takes the other files first.
 */
export function textAttemptChange(item: DocumentItem, sha256: string, now: Date): DocumentChange {
  const attempts = textAttemptsFor(item, sha256) + 1;
  return {
    set: {
      textAttempts: attempts,
      textAttemptFor: sha256,
      textAttemptAt: now.toISOString(),
      textError: 'TEXT_INTERRUPTED',
      nextAttemptAt: new Date(now.getTime() + textRetryDelayMs(attempts)).toISOString(),
    },
    remove: [],
    outcome: 'attempt',
  };
}

/** An attempt's failure: its code, the version it read, whether our copy may be read again (DOC-2). */
export interface TextFailure {
  code: string;
  sha256: string;
  retry: boolean;
}

/**
 * DOC-2: an attempt of the version failed with `code`. From our copy, a retried failure waits on the
 * ladder until TEXT_MAX_ATTEMPTS attempts were made; everything else (and any failure of a file
 * downloaded for text only, `retry: false`) is final.
 */
export function textFailedChange(
  item: DocumentItem,
  { code, sha256, retry }: TextFailure,
  now: Date,
): DocumentChange {
  const attempts = textAttemptsFor(item, sha256);
  if (retry && RETRIED_TEXT_ERRORS.has(code) && attempts < TEXT_MAX_ATTEMPTS) {
    return {
      set: {
        textError: code,
        nextAttemptAt: new Date(now.getTime() + textRetryDelayMs(attempts)).toISOString(),
      },
      remove: [],
      outcome: 'retrying',
    };
  }
  const done = textDoneChange(item, { kind: 'failed', code, forSha256: sha256 }, now);
  return RETRIED_TEXT_ERRORS.has(code) ? { ...done, outcome: 'gave-up' } : done;
}

/** Where a document's text stands, for `documents` (CLI) and status. */
export type TextState = 'extracted' | 'no-text-layer' | 'failed' | 'retrying' | 'none';

export function textState(
  item: Pick<
    DocumentItem,
    'hasText' | 'textFor' | 'textError' | 'textAttempts' | 'textAttemptFor' | 'sha256'
  >,
): TextState {
  if (item.hasText === true) return 'extracted';
  if (item.textFor !== undefined && (item.sha256 === undefined || item.textFor === item.sha256)) {
    return item.textError === undefined ? 'no-text-layer' : 'failed';
  }
  if ((item.textAttempts ?? 0) > 0 && item.textError !== undefined) return 'retrying';
  return 'none';
}

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

/** What the text pass works on: the files pass's deps, store, sources and options, and its admission. */
export interface TextPassInput {
  deps: DocumentsDeps;
  store: DocumentsStore;
  contexts: SourceContext[];
  options: PassOptions;
  /** The files pass's host admission (decided once per pass); every host without one. */
  admission?: PassAdmission;
}

export async function runTextPass(input: TextPassInput): Promise<OutcomeCounts> {
  const { deps, store, contexts, options, admission = ADMIT_ALL } = input;
  const extractor = new TextExtractor(options.textBounds);
  try {
    return await textPass(
      { deps, store, now: options.now, counts: {}, extractor },
      contexts,
      options,
      admission,
    );
  } finally {
    await extractor.close();
  }
}

async function textPass(
  pass: TextRun,
  contexts: SourceContext[],
  options: PassOptions,
  admission: PassAdmission,
): Promise<OutcomeCounts> {
  const { deps, store, now, counts } = pass;
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
      // A file is started only before the deadline; TEXT_EXTRACTION_TIMEOUT_MS fits in the reserve.
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
        } else if (ctx.gate.textFromSource && !admission.allows(hostOf(item.url))) {
          // Item 5 of issue 27: its host is busy with syncs; the document stays due for the next pass.
          countOutcome(counts, 'download-host-busy');
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

/** A text pass's working set: the pass's and the one bounded extractor its files share. */
interface TextRun extends PassRun {
  extractor: TextExtractor;
}

/**
 * Crash safety: the attempt is recorded before the file is read (textAttemptChange). Returns the
 * item as recorded, or undefined when another run moved it first.
 */
async function startAttempt(
  run: TextRun,
  item: DocumentItem,
  sha256: string,
  also: Partial<DocumentItem> = {},
): Promise<DocumentItem | undefined> {
  const attempt = textAttemptChange(item, sha256, run.now);
  const change = { ...attempt, set: { ...attempt.set, ...also } };
  // Not counted as an outcome: the attempt's end is.
  if (!(await run.store.apply(item, change))) {
    countOutcome(run.counts, 'moved-meanwhile');
    return undefined;
  }
  return afterChange(item, change);
}

/** Text from our own copy in S3: the cache's download is reused (DOC-2 "downloaded once"). */
async function textFromCopy(run: TextRun, item: DocumentItem): Promise<void> {
  const { deps, now } = run;
  if (!needsText(item) || item.sha256 === undefined || item.storedKey === undefined) {
    await applyCounted(run, item, { set: storedPlacement(item, now), remove: [], outcome: 'skipped' });
    return;
  }
  const sha256 = item.sha256;
  if (textAttemptsFor(item, sha256) >= TEXT_MAX_ATTEMPTS) {
    // The last attempt never ended (the invocation died while reading): given up, not read again.
    await applyCounted(
      run,
      item,
      textFailedChange(item, { code: item.textError ?? 'TEXT_INTERRUPTED', sha256, retry: true }, now),
    );
    return;
  }
  const started = await startAttempt(run, item, sha256);
  if (started === undefined) return;
  const bytes = await readObject(deps.s3, deps.bucket, item.storedKey, TEXT_MAX_FILE_BYTES);
  const result: TextResult =
    bytes === undefined
      ? { kind: 'failed', code: 'COPY_UNREADABLE', forSha256: sha256 }
      : await extractSafely(run.extractor, bytes, item.contentType, sha256);
  await finishText(run, started, result, true);
}

/** DOC-7 / ONB-4: a document we do not keep is downloaded (≤ 50 MB) for its text only. */
async function textFromSource(run: TextRun & SourceRun, item: DocumentItem): Promise<void> {
  const { deps, ctx, now, runContext } = run;
  if (item.textFor !== undefined) {
    await applyCounted(run, item, { set: placementAfterText(item, now), remove: [], outcome: 'skipped' });
    return;
  }
  if (item.textAttemptFor !== undefined && (item.textAttempts ?? 0) > 0) {
    // An earlier invocation downloaded it and died while reading: never downloaded twice for text.
    const failed = textFailedChange(
      item,
      { code: item.textError ?? 'TEXT_INTERRUPTED', sha256: item.textAttemptFor, retry: false },
      now,
    );
    await applyCounted(run, item, failed);
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
  // The download is counted with the attempt, before the file is read.
  const started = await startAttempt(run, item, sha256, { textDownloads: (item.textDownloads ?? 0) + 1 });
  if (started === undefined) return;
  const result = await extractSafely(run.extractor, bytes, contentType, sha256);
  await finishText(run, started, result, false);
}

async function extractSafely(
  extractor: TextExtractor,
  bytes: Buffer,
  contentType: string | undefined,
  sha256: string,
): Promise<TextResult> {
  try {
    return { kind: 'text', extracted: await extractor.extract(bytes, contentType), forSha256: sha256 };
  } catch (error) {
    if (
      error instanceof TextExtractionError ||
      error instanceof UnsupportedTextTypeError ||
      error instanceof TooManyPagesError ||
      error instanceof TextBoundError
    ) {
      return { kind: 'failed', code: error.code, forSha256: sha256 };
    }
    throw error;
  }
}

/**
 * Text object first, record second (the record never names a text object that is not there); a
 * text object the record no longer names is deleted after the record. `retry`: a retried failure
 * waits on the ladder (our copy) instead of ending the attempts (a file downloaded for text only).
 */
async function finishText(
  pass: PassRun,
  item: DocumentItem,
  result: TextResult,
  retry: boolean,
): Promise<void> {
  const { deps, now } = pass;
  const change =
    result.kind === 'failed'
      ? textFailedChange(item, { code: result.code, sha256: result.forSha256, retry }, now)
      : textDoneChange(item, result, now);
  const key = textKey(item.sourceId, item.docId);
  if (result.kind === 'text' && result.extracted.textLayer) {
    await putObject(deps, key, result.extracted.text, 'text/plain; charset=utf-8');
  }
  // OPT-5: taken down while the text was made — not recorded, a new text object not kept.
  if (await takenDownNow(deps, item)) {
    if (item.textKey === undefined) await deleteObjects(deps.s3, deps.bucket, [key]);
    await applyCounted(pass, item, takenDownChange());
    return;
  }
  const applied = await applyCounted(pass, item, change);
  if (applied && change.remove.includes('textKey') && item.textKey !== undefined) {
    await deleteObjects(deps.s3, deps.bucket, [item.textKey]);
  }
}
