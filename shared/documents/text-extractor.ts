import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  TEXT_EXTRACTION_TIMEOUT_MS,
  TEXT_MAX_MEMORY_GROWTH_BYTES,
  TEXT_MAX_PAGES,
  TEXT_MAX_PROCESS_RSS_BYTES,
  TEXT_MEMORY_CHECK_MS,
  TEXT_WORKER_HEAP_MB,
} from './constants';
import { TextBoundError, TextExtractionError, TooManyPagesError, UnsupportedTextTypeError } from './errors';
import { type ExtractedText, looksLikePdf } from './pdf-text';
import type { TextJob, TextReply } from './text-protocol';

/**
 * DOC-2 text extraction in a bounded worker thread (issue 25). pdf.js runs in the worker; this (the
 * main) thread keeps its event loop free and holds the bounds: a timer (time, counted from the hand-
 * over, not the worker's start), a look at the process's resident memory every few ms (what this file
 * added, and the process's total), the worker's V8 heap limit, and the page bound the worker checks
 * before reading any page. At a time or memory breach the worker is terminated — V8 stops it
 * mid-instruction, its memory goes with it — and the next file gets a fresh worker. Between files the
 * worker is kept: starting one costs pdf.js's load, which normal files should not pay each.
 */
export interface TextBounds {
  timeoutMs: number;
  maxPages: number;
  maxGrowthBytes: number;
  maxProcessRssBytes: number;
  memoryCheckMs: number;
  workerHeapMb: number;
}

export const DEFAULT_TEXT_BOUNDS: TextBounds = {
  timeoutMs: TEXT_EXTRACTION_TIMEOUT_MS,
  maxPages: TEXT_MAX_PAGES,
  maxGrowthBytes: TEXT_MAX_MEMORY_GROWTH_BYTES,
  maxProcessRssBytes: TEXT_MAX_PROCESS_RSS_BYTES,
  memoryCheckMs: TEXT_MEMORY_CHECK_MS,
  workerHeapMb: TEXT_WORKER_HEAP_MB,
};

/**
 * The worker's entry. In the Lambda bundle (`index.mjs`) the stack bundles text-worker.ts as
 * `text-worker.mjs` next to it (infra/ingestor-function.ts). From source (tsx, vitest) this module is
 * a `.ts` file: Node 20 applies no loader hooks inside a worker, so the worker loads its TypeScript
 * sibling through tsx's CommonJS loader (resolved from here, whatever the working directory).
 * TEXT_WORKER names both for the stack.
 */
export const TEXT_WORKER = { entry: 'shared/documents/text-worker.ts', outfile: 'text-worker.mjs' } as const;

export function textWorkerEntry(moduleUrl: string = import.meta.url): { entry: string | URL; eval: boolean } {
  if (!new URL(moduleUrl).pathname.endsWith('.ts')) {
    return { entry: new URL(`./${TEXT_WORKER.outfile}`, moduleUrl), eval: false };
  }
  const source = fileURLToPath(new URL('./text-worker.ts', moduleUrl));
  const tsx = createRequire(moduleUrl).resolve('tsx/cjs/api');
  const code = `require(${JSON.stringify(tsx)}).require(${JSON.stringify(source)}, ${JSON.stringify(source)});`;
  return { entry: code, eval: true };
}

export class TextExtractor {
  /** The worker, once it said it is ready (pdf.js loaded). */
  private worker: Promise<Worker> | undefined;
  /** A stopped worker's end: the next worker starts after it, when its memory is given back. */
  private stopping: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private readonly bounds: TextBounds;

  /** `moduleUrl`: where the worker's entry is looked for (a test points it at a bundle). */
  constructor(
    bounds: Partial<TextBounds> = {},
    private readonly moduleUrl: string = import.meta.url,
  ) {
    this.bounds = { ...DEFAULT_TEXT_BOUNDS, ...bounds };
  }

  /**
   * The text of one PDF. `bytes` is handed over to the worker (its buffer is detached when this
   * call owns all of it). Throws TEXT_UNSUPPORTED_TYPE, TEXT_TOO_MANY_PAGES, TEXT_EXTRACTION_FAILED,
   * TEXT_TIMEOUT or TEXT_MEMORY.
   */
  async extract(bytes: Uint8Array, contentType?: string): Promise<ExtractedText> {
    // Not a PDF: told without a worker.
    if (!looksLikePdf(bytes)) throw new UnsupportedTextTypeError(contentType);
    const worker = await this.readyWorker();
    const id = this.nextId++;
    const owns = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const data = owns ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes);
    const job: TextJob = { id, bytes: data, maxPages: this.bounds.maxPages };
    if (contentType !== undefined) job.contentType = contentType;
    const { timeoutMs, maxGrowthBytes, maxProcessRssBytes, memoryCheckMs, workerHeapMb } = this.bounds;
    const startRss = process.memoryUsage.rss();

    return new Promise<ExtractedText>((resolve, reject) => {
      const settle = (outcome: { text: ExtractedText } | { error: Error }, stopWorker: boolean) => {
        clearTimeout(timer);
        clearInterval(watch);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (stopWorker) this.stop(worker);
        if ('text' in outcome) resolve(outcome.text);
        else reject(outcome.error);
      };
      const onMessage = (reply: TextReply) => {
        if (!('id' in reply) || reply.id !== id) return;
        settle(reply.ok ? { text: reply.extracted } : { error: errorOfReply(reply, this.bounds) }, false);
      };
      const onError = (error: Error & { code?: string }) => {
        const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
        const failure = memory
          ? new TextBoundError('TEXT_MEMORY', `the PDF needs more than ${workerHeapMb} MB of heap`, error)
          : new TextExtractionError(`the text worker failed: ${error.message}`, error);
        settle({ error: failure }, true);
      };
      const onExit = (code: number) => {
        settle({ error: new TextExtractionError(`the text worker ended (exit code ${code})`) }, true);
      };
      const timer = setTimeout(() => {
        const error = new TextBoundError('TEXT_TIMEOUT', `reading the PDF took more than ${timeoutMs} ms`);
        settle({ error }, true);
      }, timeoutMs);
      const watch = setInterval(() => {
        const rss = process.memoryUsage.rss();
        if (rss - startRss <= maxGrowthBytes && rss <= maxProcessRssBytes) return;
        const mb = (bytes: number) => Math.round(bytes / 1e6);
        const error = new TextBoundError(
          'TEXT_MEMORY',
          `reading the PDF grew the process by ${mb(rss - startRss)} MB to ${mb(rss)} MB ` +
            `(bounds: ${mb(maxGrowthBytes)} MB per file, ${mb(maxProcessRssBytes)} MB in all)`,
        );
        settle({ error }, true);
      }, memoryCheckMs);
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage(job, [data.buffer as ArrayBuffer]);
    });
  }

  /** Ends the worker (end of the pass). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.then((w) => w.terminate()).catch(() => undefined);
  }

  /** The worker, started when none is running, once pdf.js is loaded in it. */
  private readyWorker(): Promise<Worker> {
    this.worker ??= this.stopping.then(() => this.startWorker());
    const starting = this.worker;
    // A worker that failed to start is not kept: the next file tries a fresh one.
    starting.catch(() => {
      if (this.worker === starting) this.worker = undefined;
    });
    return starting;
  }

  private startWorker(): Promise<Worker> {
    const { entry, eval: isCode } = textWorkerEntry(this.moduleUrl);
    const worker = new Worker(entry, {
      eval: isCode,
      resourceLimits: { maxOldGenerationSizeMb: this.bounds.workerHeapMb },
      // pdf.js's warnings about a broken file are no news: the outcome is recorded.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    // An idle worker never keeps a process (the CLI) alive; a file being read does, by its timers.
    worker.unref();
    return new Promise<Worker>((resolve, reject) => {
      const done = () => {
        worker.off('message', onReady);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onReady = (reply: TextReply) => {
        if (!('ready' in reply)) return;
        done();
        resolve(worker);
      };
      const onError = (error: Error) => {
        done();
        void worker.terminate();
        reject(new Error(`the text worker did not start: ${error.message}`, { cause: error }));
      };
      const onExit = (code: number) => {
        done();
        reject(new Error(`the text worker did not start (exit code ${code})`));
      };
      worker.on('message', onReady);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
  }

  /** Terminates a worker that breached a bound or failed; the next file gets a fresh one. */
  private stop(worker: Worker): void {
    const current = this.worker;
    this.worker = undefined;
    void current?.catch(() => undefined);
    this.stopping = worker.terminate().catch(() => undefined);
  }
}

function errorOfReply(reply: Extract<TextReply, { ok: false }>, bounds: TextBounds): Error {
  switch (reply.code) {
    case 'TEXT_UNSUPPORTED_TYPE':
      return new UnsupportedTextTypeError(undefined);
    case 'TEXT_TOO_MANY_PAGES': {
      const pages = Number(/(\d+) pages/.exec(reply.message)?.[1] ?? Number.NaN);
      return new TooManyPagesError(pages, bounds.maxPages);
    }
    default:
      return new TextExtractionError(reply.message);
  }
}
