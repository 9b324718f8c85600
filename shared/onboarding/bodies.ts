import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BodyRecord } from '../engine';
import { SyncStateStore } from '../engine';
import { BodyRecords, DocumentItems, loadAllSources, type StoreTables } from '../store';
import { BodyAmbiguousError, BodyNotFoundError, BodyTakenDownError, SourceNotFoundError } from './errors';

/**
 * ONB-4: bodies as operators see them — named by slug (shortName, else name; lower case, ä → ae,
 * ö → oe, ü → ue, ß → ss, anything else → '-'; unique per source: the sync reserves it with a `SLUG#`
 * item, shared/engine/state.ts), unlisted until an operator lists them. Listing changes `listed` on the
 * `BODY#` record only — the sync never touches it — and the `listed` flag of the body's documents in
 * the Documents table, which the document cache reads (DOC-7).
 */

export interface BodyRow {
  sourceId: string;
  slug: string;
  name: string;
  shortName?: string;
  listed: boolean;
  deleted: boolean;
  /** OPT-2: taken down by an operator (`tombstone --body`). */
  takedown: boolean;
  id: string;
  bodyKey: string;
  firstSeenAt: string;
}

/** The tables an operator's body command reads and writes (all three). */
export type BodyTables = StoreTables;

/** `BODY#` records may carry the operator's takedown mark next to the sync's fields. */
export type StoredBody = BodyRecord & { takedown?: { at: string; by: string; note?: string } };

async function sourceIds(doc: DynamoDBDocumentClient, table: string): Promise<string[]> {
  const { parsed } = await loadAllSources(doc, table);
  return parsed.map((p) => (p.ok ? p.source.sourceId : p.sourceId));
}

function rowOf(sourceId: string, body: StoredBody): BodyRow {
  return {
    sourceId,
    slug: body.slug,
    name: body.name,
    ...(body.shortName !== undefined ? { shortName: body.shortName } : {}),
    listed: body.listed === true,
    deleted: body.deleted === true,
    takedown: body.takedown !== undefined,
    id: body.id,
    bodyKey: body.bodyKey,
    firstSeenAt: body.firstSeenAt,
  };
}

/** Every body of every source (or of one), sorted by source and slug. */
export async function listBodies(
  doc: DynamoDBDocumentClient,
  tables: Pick<BodyTables, 'sources' | 'state'>,
  sourceId?: string,
): Promise<BodyRow[]> {
  const ids = await sourceIds(doc, tables.sources);
  if (sourceId !== undefined && !ids.includes(sourceId)) throw new SourceNotFoundError(sourceId);
  const rows: BodyRow[] = [];
  for (const id of sourceId === undefined ? ids : [sourceId]) {
    const bodies = (await new SyncStateStore({ doc }, tables.state, id).getBodies()) as StoredBody[];
    for (const body of bodies) rows.push(rowOf(id, body));
  }
  return rows.sort((a, b) => a.sourceId.localeCompare(b.sourceId) || a.slug.localeCompare(b.slug));
}

export interface ResolvedBody {
  sourceId: string;
  body: StoredBody;
}

/** The body a slug names, through its `SLUG#` reservation; `--source` settles a slug used twice. */
export async function resolveBody(
  doc: DynamoDBDocumentClient,
  tables: Pick<BodyTables, 'sources' | 'state'>,
  slug: string,
  sourceId?: string,
): Promise<ResolvedBody> {
  const ids = await sourceIds(doc, tables.sources);
  if (sourceId !== undefined && !ids.includes(sourceId)) throw new SourceNotFoundError(sourceId);
  const found: ResolvedBody[] = [];
  const records = new BodyRecords({ doc, table: tables.state });
  for (const id of sourceId === undefined ? ids : [sourceId]) {
    const bodyKey = await records.reservedBodyKey(id, slug);
    if (bodyKey === undefined) continue;
    const body = (await new SyncStateStore({ doc }, tables.state, id).getBody(bodyKey)) as
      | StoredBody
      | undefined;
    // A reservation without its body (a run that died in between) names nothing.
    if (body && body.slug === slug) found.push({ sourceId: id, body });
  }
  if (found.length === 0) throw new BodyNotFoundError(slug, sourceId);
  if (found.length > 1)
    throw new BodyAmbiguousError(
      slug,
      found.map((f) => f.sourceId),
    );
  return found[0] as ResolvedBody;
}

/**
 * Sets the `listed` flag of one Documents item per file of the body (bySource index, filtered by
 * body). Returns how many items were updated.
 */
export async function setDocumentsListed(
  doc: DynamoDBDocumentClient,
  documentsTable: string,
  { sourceId, bodyId }: { sourceId: string; bodyId: string },
  listed: boolean,
): Promise<number> {
  let updated = 0;
  const documents = new DocumentItems({ doc, table: documentsTable });
  for await (const item of documents.ofSource(sourceId, { bodyId, docIdOnly: true })) {
    // Deleted meanwhile (purge): nothing to flag.
    await documents.setListed(item.docId, listed);
    updated += 1;
  }
  return updated;
}

export interface ListingChange {
  sourceId: string;
  slug: string;
  name: string;
  /** The body's state now. */
  listed: boolean;
  /** What the request did: a change, or nothing because the body already had that state. */
  outcome: ListingOutcome;
  documents: number;
}

export type ListingOutcome = 'now-listed' | 'now-unlisted' | 'already-listed' | 'already-unlisted';

/**
 * `bodies list|unlist <slug>` (ONB-4). A taken-down body (OPT-2) cannot be listed again by accident —
 * neither one whose record carries the mark nor one the takedown registry holds (`takenDownAt`, asked
 * by the caller: `tombstone --body` marks the record last, so while it runs, or after it was killed,
 * only the registry knows).
 */
export async function setBodyListed(
  doc: DynamoDBDocumentClient,
  tables: BodyTables,
  slug: string,
  options: {
    /** The state asked for: listed (`bodies list`) or not (`bodies unlist`). */
    listed: boolean;
    sourceId?: string;
    by: string;
    now?: Date;
    allowTakedown?: boolean;
    takenDownAt?: (sourceId: string, bodyId: string) => Promise<string | undefined>;
  },
): Promise<ListingChange> {
  const { listed } = options;
  const { sourceId, body } = await resolveBody(doc, tables, slug, options.sourceId);
  if (listed && options.allowTakedown !== true) {
    const at = body.takedown?.at ?? (await options.takenDownAt?.(sourceId, body.id));
    if (at !== undefined) throw new BodyTakenDownError(slug, at);
  }
  const at = (options.now ?? new Date()).toISOString();
  const outcome: ListingOutcome =
    body.listed === listed
      ? listed
        ? 'already-listed'
        : 'already-unlisted'
      : listed
        ? 'now-listed'
        : 'now-unlisted';
  await new BodyRecords({ doc, table: tables.state }).setListed(sourceId, body.bodyKey, {
    listed,
    at,
    by: options.by,
  });
  const documents = await setDocumentsListed(doc, tables.documents, { sourceId, bodyId: body.id }, listed);
  return { sourceId, slug, name: body.name, listed, outcome, documents };
}
