import {
  type DocumentItem,
  DocumentsStore,
  TEXT_MAX_ATTEMPTS,
  type TextState,
  textState,
} from '../../shared/documents';
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
  /** DOC-2: extracted, no-text-layer, failed (given up), retrying (on the text ladder) or none yet. */
  text: TextState;
  /** Why the last text attempt failed (TEXT_TIMEOUT, TEXT_MEMORY, TEXT_TOO_MANY_PAGES …). */
  textError: string | null;
  textAttempts: number;
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
    text: textState(item),
    textError: item.textError ?? null,
    textAttempts: item.textAttempts ?? 0,
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
            `${i.size === undefined ? '' : `  ${i.size} B`}${textNote(i)}` +
            `${i.nextAttemptAt === undefined ? '' : `  next ${i.nextAttemptAt}`}  ${i.url}`,
        );
  return { text, json: { documents: items.map(documentRow) } };
}

/** `  text`, or the text ladder's state: `  text retrying TEXT_MEMORY (attempt 2 of 4)`, `  text failed TEXT_TIMEOUT`. */
function textNote(item: DocumentItem): string {
  const state = textState(item);
  if (state === 'extracted') return '  text';
  if (state === 'retrying') {
    return `  text retrying ${item.textError} (attempt ${item.textAttempts ?? 0} of ${TEXT_MAX_ATTEMPTS})`;
  }
  if (state === 'failed') return `  text failed ${item.textError}`;
  return '';
}
