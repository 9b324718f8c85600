import { type AwsClients, DocumentItems, DocumentQueue } from '../store';
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
  /**
   * DOC-7: the body's flag now (its `BODY#` record, strongly consistent). A new item is confirmed
   * against it: an operator's `bodies list|unlist` may have landed after the run read the body and
   * swept the body's items before this one existed (see `confirmListing`). Absent: not confirmed.
   */
  listedNow?: () => Promise<boolean | undefined>;
  nowIso: string;
}

/**
 * How often a new item's flag is confirmed against its body at most: each round ends when the body
 * says what the item says; only an operator flipping the body again within a round asks for another.
 */
export const LISTING_CONFIRM_ROUNDS = 3;

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
  if (await queue.addNew(item)) {
    await confirmListing(clients, table, docId, fields);
    return 'created';
  }
  // Known file: note that the source changed it, never touch state / attempts / S3 keys. It goes back
  // to the document functions' intake (`due`), which re-queues it by its state (DEL-1 re-fetch).
  const changed = await queue.noteSourceChange(docId, {
    sourceModified,
    sourceChecksum: sourceSha1,
    atIso: fields.nowIso,
  });
  return changed ? 'changed' : 'unchanged';
}

/**
 * DOC-7 / ONB-4: an operator's `bodies list|unlist` writes the `BODY#` record, then sets the flag of
 * every Documents item of the body it finds. A run that read the body before that write and creates an
 * item after the sweep would leave the old flag. So the run reads the body after its write: if the read
 * comes before the operator's write, so did the item, and the sweep (after that write) finds it; if
 * after, the run sees the new flag and sets it. The same holds for the run's own correcting write,
 * hence the rounds. Cost: one strongly consistent read per new file (none for known files).
 */
async function confirmListing(
  clients: Pick<AwsClients, 'doc'>,
  table: string,
  docId: string,
  fields: DocumentFields,
): Promise<void> {
  if (fields.listedNow === undefined) return;
  let written = fields.listed;
  for (let round = 0; round < LISTING_CONFIRM_ROUNDS; round++) {
    const now = await fields.listedNow();
    // A body gone from the State table (never the case for a running sync): the flag stays.
    if (now === undefined || now === written) return;
    await new DocumentItems({ doc: clients.doc, table }).setListed(docId, now);
    written = now;
  }
}
