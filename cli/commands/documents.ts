import { type DocumentItem, DocumentsStore } from '../../shared/documents';
import { loadAllSources } from '../../shared/store';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

/** One line of `documents --json` (issue 6). */
export interface DocumentRow {
  url: string;
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
  size: number | null;
  sha256: string | null;
  hasText: boolean;
}

export function documentRow(item: DocumentItem): DocumentRow {
  return {
    url: item.url,
    state: item.state,
    attempts: item.attempts ?? 0,
    nextAttemptAt: item.nextAttemptAt ?? null,
    size: item.size ?? null,
    sha256: item.sha256 ?? null,
    hasText: item.hasText === true,
  };
}

/** `documents [--source ID]`: every document with its state, attempts, next attempt, size, hash, text. */
export async function documentsCommand(
  rt: LocalRuntime,
  opts: { sourceId?: string },
): Promise<CommandResult> {
  const store = new DocumentsStore(rt.clients.doc, rt.env.DOCUMENTS_TABLE);
  let sourceIds: string[];
  if (opts.sourceId !== undefined) {
    sourceIds = [opts.sourceId];
  } else {
    const { parsed } = await loadAllSources(rt.clients.doc, rt.env.SOURCES_TABLE);
    sourceIds = parsed.map((p) => (p.ok ? p.source.sourceId : p.sourceId));
  }
  const items: DocumentItem[] = [];
  for (const sourceId of sourceIds) {
    for await (const item of store.listBySource(sourceId)) items.push(item);
  }
  items.sort((a, b) => a.url.localeCompare(b.url));
  const text =
    items.length === 0
      ? ['no documents']
      : items.map(
          (i) =>
            `${i.docId.slice(0, 12)}  ${i.state.padEnd(16)} attempts ${i.attempts ?? 0}` +
            `${i.size === undefined ? '' : `  ${i.size} B`}${i.hasText ? '  text' : ''}` +
            `${i.nextAttemptAt === undefined ? '' : `  next ${i.nextAttemptAt}`}  ${i.url}`,
        );
  return { text, json: { documents: items.map(documentRow) } };
}
