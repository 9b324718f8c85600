import { type AwsClients, DocumentQueue } from '../store';
import { type OParlObject, sha256Hex, textValue } from './objects';

/**
 * Records the files the sync saw as new or changed in the Documents table, for the document cache
 * (issue 6). One item per file URL; `docId` = SHA-256 of the URL. Writes are conditional: a new file is
 * created `pending` and due now; a known file is never reset — only its source-side change is noted
 * (DEL-1 re-fetches documents the source has changed).
 */
export interface DocumentFields {
  sourceId: string;
  bodyId: string;
  /** ONB-4 / DOC-7: documents of unlisted bodies are not stored by the sync; the cache reads this flag. */
  listed: boolean;
  nowIso: string;
}

/** The URL a file is fetched from: `accessUrl` is mandatory in OParl, `downloadUrl` optional. */
export function fileUrl(file: OParlObject): string | undefined {
  const url = textValue(file.accessUrl) ?? textValue(file.downloadUrl);
  if (url === undefined) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

export function documentId(url: string): string {
  return sha256Hex(url);
}

/** Returns 'created', 'changed' (source changed a known file) or 'unchanged'. */
export async function recordDocument(
  clients: Pick<AwsClients, 'doc'>,
  table: string,
  file: OParlObject,
  fields: DocumentFields,
): Promise<'created' | 'changed' | 'unchanged' | 'no-url'> {
  const url = fileUrl(file);
  const fileId = textValue(file.id);
  if (url === undefined || fileId === undefined) return 'no-url';
  const docId = documentId(url);
  const sourceModified = textValue(file.modified) ?? '';
  const sourceSha1 = textValue(file.sha1Checksum) ?? textValue(file.sha512Checksum) ?? '';
  const item: Record<string, unknown> & { docId: string } = {
    docId,
    url,
    sourceId: fields.sourceId,
    bodyId: fields.bodyId,
    fileId,
    state: 'pending',
    firstSeenAt: fields.nowIso,
    attemptShard: 'due',
    nextAttemptAt: fields.nowIso,
    listed: fields.listed,
    sourceModified,
    sourceChecksum: sourceSha1,
  };
  const downloadUrl = textValue(file.downloadUrl);
  if (downloadUrl !== undefined) item.downloadUrl = downloadUrl;
  const mimeType = textValue(file.mimeType);
  if (mimeType !== undefined) item.mimeType = mimeType;
  const queue = new DocumentQueue({ doc: clients.doc, table });
  if (await queue.addNew(item)) return 'created';
  // Known file: note that the source changed it, never touch state / attempts / S3 keys. It goes back
  // to the document functions' intake (`due`), which re-queues it by its state (DEL-1 re-fetch).
  const changed = await queue.noteSourceChange(docId, {
    sourceModified,
    sourceChecksum: sourceSha1,
    atIso: fields.nowIso,
  });
  return changed ? 'changed' : 'unchanged';
}
