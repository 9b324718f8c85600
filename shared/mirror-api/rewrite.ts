import {
  documentId,
  fileUrl,
  isRecord,
  LIST_CATALOGUE,
  type ListName,
  REFERENCES,
  textValue,
} from '../engine';
import { ORIGIN_ID_PROPERTY, ORIGIN_MODIFIED_PROPERTY, SOURCE_PROPERTY } from './constants';
import { type ApiUrls, typeOfUrl, typeUrl } from './urls';

/**
 * Rewrites a mirrored object into the API's namespace (pure). Every property that OParl 1.1 defines as
 * a reference to another object — a URL, a list of URLs or the embedded object itself — is rewritten to
 * our URL of that object; the object's own id likewise, with the origin id kept in `mandari:originId`.
 * Files point to our document endpoint instead of the origin's server. Properties the standard defines
 * as lists at the origin that we do not serve (an organization's meetings) are dropped rather than left
 * pointing at the council's server; anything else (names, dates, `web`, vendor extensions) is kept.
 */

/** Lists at the origin that the API does not serve (per type): dropped. */
const ORIGIN_LISTS: Record<string, string[]> = {
  organization: ['meeting', 'consultation'],
  system: ['body'],
  body: LIST_CATALOGUE.map((l) => l.bodyField),
};

export interface RewriteContext {
  urls: ApiUrls;
  sourceId: string;
  /** Body lists the API serves for this body (Body objects only). */
  lists?: readonly ListName[];
  /** When the mirror committed this object: its `modified` in the API (top-level objects only). */
  committedAt?: string;
}

export function rewriteObject(
  object: Record<string, unknown>,
  type: string,
  ctx: RewriteContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const refs = REFERENCES[type] ?? {};
  const dropped = new Set(ORIGIN_LISTS[type] ?? []);
  const originId = textValue(object.id);
  for (const [key, value] of Object.entries(object)) {
    if (key === 'id' || key === 'type' || dropped.has(key)) continue;
    const target = refs[key];
    out[key] = target === undefined ? value : rewriteReference(value, target, ctx);
  }
  if (originId !== undefined) {
    out.id = ctx.urls.object(ctx.sourceId, type, originId);
    out[ORIGIN_ID_PROPERTY] = originId;
  }
  out.type = typeUrl(type);
  out[SOURCE_PROPERTY] = ctx.sourceId;
  if (ctx.committedAt !== undefined) {
    // `modified` is when our copy last changed — the time `modified_since` filters by, as OParl defines
    // the filter on `modified`. The origin's value stays beside it.
    if (out.modified !== undefined) out[ORIGIN_MODIFIED_PROPERTY] = out.modified;
    out.modified = ctx.committedAt;
  }
  if (type === 'file') rewriteFileUrls(object, out, ctx);
  if (type === 'body') addBodyLists(out, originId, ctx);
  return out;
}

function rewriteReference(value: unknown, target: string, ctx: RewriteContext): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteReference(v, target, ctx));
  if (typeof value === 'string') {
    return target === 'system' ? ctx.urls.system() : ctx.urls.object(ctx.sourceId, target, value);
  }
  if (isRecord(value)) {
    // An embedded object: rewritten as an object of its own type (its `type` wins over the property's).
    const { committedAt: _parentTime, ...inner } = ctx;
    return rewriteObject(value, typeOfUrl(value.type) ?? target, inner);
  }
  return value;
}

/**
 * `accessUrl`/`downloadUrl` → our document endpoint; the document id is the one the sync recorded. Both
 * point to the one stored copy (the document endpoint serves one file per document), `downloadUrl` with
 * `?download=1`: OParl's URL "to download the file" answers it as an attachment, a PDF included, where
 * `accessUrl` shows a PDF inline. A File without a `downloadUrl` gets none (the property is optional).
 */
function rewriteFileUrls(
  origin: Record<string, unknown>,
  out: Record<string, unknown>,
  ctx: RewriteContext,
): void {
  const url = fileUrl(origin);
  // Without a document endpoint beside the API the origin's links are the only ones that lead anywhere.
  if (url === undefined || !ctx.urls.servesDocuments) return;
  const docId = documentId(url);
  out.accessUrl = ctx.urls.document(docId);
  if (out.downloadUrl !== undefined) out.downloadUrl = ctx.urls.download(docId);
}

function addBodyLists(out: Record<string, unknown>, originId: string | undefined, ctx: RewriteContext): void {
  if (originId === undefined) return;
  for (const entry of LIST_CATALOGUE) {
    if (entry.mandatory || ctx.lists?.includes(entry.list)) {
      out[entry.bodyField] = ctx.urls.list(ctx.sourceId, originId, entry.list);
    }
  }
  out.system = ctx.urls.system();
  // Required by OParl 1.1 (embedded); 1.0 bodies and scraped ones may lack it.
  if (!Array.isArray(out.legislativeTerm)) out.legislativeTerm = [];
}

/** OParl 1.1 deletion: a tombstone is served as id, type, `deleted: true` and when — nothing else. */
export function deletedStub(
  type: string,
  originId: string,
  committedAt: string,
  ctx: Pick<RewriteContext, 'urls' | 'sourceId'>,
): Record<string, unknown> {
  return {
    id: ctx.urls.object(ctx.sourceId, type, originId),
    type: typeUrl(type),
    deleted: true,
    modified: committedAt,
    [ORIGIN_ID_PROPERTY]: originId,
    [SOURCE_PROPERTY]: ctx.sourceId,
  };
}

/**
 * A taken-down object in a filtered list (OPT-2): that its id is deleted, at the takedown's time — no
 * origin id, no source, no content, so a client drops its copy and learns nothing else.
 */
export function takenDownStub(type: string, apiId: string, takenDownAt: string): Record<string, unknown> {
  return { id: apiId, type: typeUrl(type), deleted: true, modified: takenDownAt };
}
