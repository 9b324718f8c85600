import { parentPort } from 'node:worker_threads';
import { extractPdfText, loadPdfjs } from './pdf-text';
import type { TextJob, TextReply } from './text-protocol';

/**
 * Entry of the text worker thread (DOC-2): reads one PDF per message with pdf.js and answers with
 * its text or the error's code. The main thread (text-extractor.ts) owns the bounds — it stops this
 * thread when a file takes too long or too much memory — so nothing here needs to watch itself.
 * The Lambda bundle carries this file as `text-worker.mjs` next to its `index.mjs`.
 */
const port = parentPort;
if (port === null) throw new Error('text-worker.ts runs as a worker thread only');

port.on('message', (job: TextJob) => {
  void answer(job).then((reply) => port.postMessage(reply));
});
void loadPdfjs().then(() => port.postMessage({ ready: true } satisfies TextReply));

async function answer(job: TextJob): Promise<TextReply> {
  try {
    const extracted = await extractPdfText(job.bytes, job.contentType, job.maxPages);
    return { id: job.id, ok: true, extracted };
  } catch (error) {
    const code =
      typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : '';
    const message = error instanceof Error ? error.message : String(error);
    return { id: job.id, ok: false, code, message: message.slice(0, 500) };
  }
}
