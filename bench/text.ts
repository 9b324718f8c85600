import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildPdf } from '../demo';
import { buildManyPagesPdf } from '../demo/poison-pdf';
import { PROJECT_ROOT, workerBundleCommand } from '../infra/ingestor-function';
import { extractPdfText, TEXT_WORKER, TextExtractor } from '../shared/documents';

/**
 * Text bench (issue 25, DOC-2): the normal corpus read the old way (pdf.js on the calling thread) and
 * through the bounded text worker as the Lambda runs it (the stack's bundle of text-worker.mjs, one
 * worker kept for the pass). Normal files must not get slower.
 *
 *   workerStartMs         the first file through a fresh worker, minus its in-thread time (pdf.js loaded in the worker)
 *   perFileMs.{inThread,worker}     median over the demo council's one-page files
 *   longFileMs.{inThread,worker}    a 300-page file (a long council document's page count)
 */
export interface TextBenchResult {
  files: number;
  workerStartMs: number;
  perFileMs: { inThread: number; worker: number };
  totalMs: { inThread: number; worker: number };
  longFileMs: { inThread: number; worker: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const round = (ms: number) => Math.round(ms * 100) / 100;

export async function runTextBench(options: { files?: number; log?: (line: string) => void } = {}) {
  const count = options.files ?? 200;
  const corpus = Array.from({ length: count }, (_, i) =>
    buildPdf([`Stadt ${i}`, `Beschlussvorlage 2026/${i}`, 'Tagesordnungspunkt 1: Haushalt – Änderung']),
  );
  const long = buildManyPagesPdf(300, 'Haushaltsplan');
  const dir = mkdtempSync(join(tmpdir(), 'text-bench-'));
  try {
    execSync(workerBundleCommand(TEXT_WORKER, PROJECT_ROOT, dir), { stdio: 'pipe' });
    const worker = new TextExtractor({}, pathToFileURL(join(dir, 'index.mjs')).href);
    // In-thread first pass loads pdf.js in this thread; measure after one warm-up file.
    await extractPdfText(Buffer.from(corpus[0] ?? ''));
    const inThread: number[] = [];
    for (const pdf of corpus) {
      const t = performance.now();
      await extractPdfText(Buffer.from(pdf));
      inThread.push(performance.now() - t);
    }
    let t = performance.now();
    await worker.extract(Buffer.from(corpus[0] ?? ''));
    const workerStartMs = performance.now() - t - median(inThread);
    const inWorker: number[] = [];
    for (const pdf of corpus) {
      t = performance.now();
      await worker.extract(Buffer.from(pdf));
      inWorker.push(performance.now() - t);
    }
    t = performance.now();
    await extractPdfText(Buffer.from(long));
    const longInThread = performance.now() - t;
    t = performance.now();
    await worker.extract(Buffer.from(long));
    const longWorker = performance.now() - t;
    await worker.close();
    const result: TextBenchResult = {
      files: count,
      workerStartMs: round(workerStartMs),
      perFileMs: { inThread: round(median(inThread)), worker: round(median(inWorker)) },
      totalMs: {
        inThread: round(inThread.reduce((a, b) => a + b, 0)),
        worker: round(inWorker.reduce((a, b) => a + b, 0)),
      },
      longFileMs: { inThread: round(longInThread), worker: round(longWorker) },
    };
    options.log?.(`text bench: ${JSON.stringify(result)}`);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
