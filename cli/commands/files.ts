import {
  clearChange,
  type DocumentItem,
  DocumentsError,
  DocumentsStore,
  type OutcomeCounts,
  type PassProgress,
  runFilesPass,
} from '../../shared/documents';
import { documentId } from '../../shared/engine';
import { loadAllSources } from '../../shared/store';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';
import { createProgress, type Progress } from '../progress';

/** `files` (a pass) or `files clear <fileId>`: the command table checked which, and the id's presence. */
export type FilesArgs = [] | ['clear', string];

/** A documents pass's progress on the status line: `files 12/40 · host · 13 requests`. */
export function passProgress(progress: Progress): (p: PassProgress) => void {
  return (p) => progress.step(p.stage, p.done, p.total, p.host);
}

/** Counts as one line for people: `stored 3, retrying 1`. */
export function countsLine(counts: OutcomeCounts): string {
  const parts = Object.entries(counts).map(([k, v]) => `${k} ${v}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

/**
 * `files [--once]`: one pass of the document cache and text extraction (DOC-1 … DOC-7) in this
 * process, against the local state; prints counts by outcome. (One pass either way: the hourly rhythm
 * is the scheduler's, or `npm start`'s.) `files clear <fileId>`: DOC-6 operator clearance.
 */
export async function filesCommand(
  rt: LocalRuntime,
  opts: { positionals: FilesArgs; json: boolean },
  now: Date,
): Promise<CommandResult> {
  const args = opts.positionals;
  if (args.length === 2) return clearCommand(rt, args[1], now);
  const progress = createProgress({ json: opts.json });
  const docs = await composeCli(rt).documents({ onRequest: progress.request });
  try {
    const report = await runFilesPass(docs.deps, { now, onProgress: passProgress(progress) });
    progress.end();
    return {
      text: [
        `files: ${countsLine(report.files)}`,
        `text: ${countsLine(report.text)}`,
        ...(Object.keys(report.routed).length > 0 ? [`routed: ${countsLine(report.routed)}`] : []),
        ...report.sources.map((s) => `  ${s.sourceId}: ${s.selected} selected (${s.gate})`),
        // Item 5 of issue 27: hosts this pass left to the syncs (or paused), and why.
        ...report.busyHosts.map((b) => `  ${b.host} skipped: ${b.reason}`),
      ],
      json: {
        files: report.files,
        text: report.text,
        routed: report.routed,
        unparked: report.unparked,
        sources: report.sources,
        invalidSources: report.invalidSources,
        busyHosts: report.busyHosts,
      },
    };
  } finally {
    await docs.close();
  }
}

/**
 * DOC-6: files blocked by robots.txt or bot protection are fetched again only after an operator clears
 * them. `<fileId>` is the document id (64 hex), the file's URL, or its OParl File id.
 */
async function clearCommand(rt: LocalRuntime, fileId: string, now: Date): Promise<CommandResult> {
  const store = new DocumentsStore(rt.clients.doc, rt.env.DOCUMENTS_TABLE);
  const item = await findDocument(rt, store, fileId);
  if (!item) throw new DocumentsError('DOCUMENT_NOT_FOUND', `no document ${fileId}`);
  if (item.state !== 'blocked-robots' && item.state !== 'blocked-html') {
    throw new DocumentsError(
      'DOCUMENT_NOT_BLOCKED',
      `document ${item.docId} is ${item.state}; only blocked-robots and blocked-html are cleared (DOC-6)`,
    );
  }
  const by = process.env.USER ?? process.env.USERNAME ?? 'cli';
  const change = clearChange(item, now, by);
  if (!(await store.apply(item, change))) {
    throw new DocumentsError('DOCUMENT_CONFLICT', `document ${item.docId} changed meanwhile; try again`);
  }
  return {
    text: [`cleared ${item.docId} (${item.url}); it is fetched again from the next files run (DOC-6)`],
    json: { docId: item.docId, url: item.url, cleared: true, was: item.state, state: 'pending' },
  };
}

async function findDocument(
  rt: LocalRuntime,
  store: DocumentsStore,
  fileId: string,
): Promise<DocumentItem | undefined> {
  if (/^[0-9a-f]{64}$/.test(fileId)) return store.get(fileId);
  const byUrl = await store.get(documentId(fileId));
  if (byUrl) return byUrl;
  // An OParl File id: the operator tool reads each source's documents (the bySource index).
  const { parsed } = await loadAllSources(rt.clients.doc, rt.env.SOURCES_TABLE);
  for (const p of parsed) {
    if (!p.ok) continue;
    for await (const item of store.listBySource(p.source.sourceId)) {
      if (item.fileId === fileId) return item;
    }
  }
  return undefined;
}
