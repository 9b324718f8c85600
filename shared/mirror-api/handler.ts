import { createHash } from 'node:crypto';
import { type BodyRecord, isRecord, LIST_CATALOGUE, type ListName, withoutEmbedded } from '../engine';
import { apiIdHash, committedAtOfListSort, listSort } from '../mirror';
import { logger } from '../observability';
import { type InlineCopy, InlineCopyCorruptError, unpackInline } from '../store';
import type { TakedownSet } from '../takedown';
import { mapLimit } from '../util';
import { LIST_MAX_AGE_S, OBJECT_MAX_AGE_S, OBJECT_READ_CONCURRENCY, OPARL_VERSION_URL } from './constants';
import { MirrorApiIndexMissingError, MirrorApiRequestError } from './errors';
import {
  createdWithin,
  decidePage,
  isFiltered,
  type ListQuery,
  listEnvelope,
  pageInMemory,
  parseListQuery,
} from './paging';
import type { MirrorReader, SourceBody } from './reader';
import { deletedStub, rewriteObject, takenDownStub } from './rewrite';
import { type ApiRoute, apiUrls, parseApiPath, typeUrl } from './urls';

/**
 * The OParl 1.1 API over the mirror (docs/mirror-api.md): node-agnostic request in, JSON response out,
 * read-only. The Lambda adapter and `ingestor serve` translate to and from these.
 */
export interface ApiRequest {
  method: string;
  /** Path without query string, e.g. `/oparl/v1/system`. */
  path: string;
  query: URLSearchParams;
  ifNoneMatch?: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface MirrorApiDeps {
  reader: MirrorReader;
  /** Public base URL of the API and the preview (`https://…`, or `http://127.0.0.1:P` locally). */
  baseUrl: string;
  /** `false` when no document endpoint is deployed beside the API (see `INGESTOR_API_DOCUMENTS`). */
  documents?: boolean;
}

export interface MirrorApiHandler {
  handle(request: ApiRequest): Promise<ApiResponse>;
}

/** The body lists served: the mandatory four and those the origin had. */
export function servedLists(body: BodyRecord): ListName[] {
  return LIST_CATALOGUE.filter((l) => l.mandatory || body.lists[l.list] !== undefined).map((l) => l.list);
}

export function createMirrorApiHandler(deps: MirrorApiDeps): MirrorApiHandler {
  const ctx: ApiContext = { urls: apiUrls(deps.baseUrl, deps), reader: deps.reader };
  return {
    async handle(request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return { status: 405, headers: { allow: 'GET, HEAD', ...TEXT }, body: 'method not allowed\n' };
      }
      let response: ApiResponse;
      try {
        response = await routed(ctx, request);
      } catch (err) {
        if (err instanceof MirrorApiRequestError) {
          // A refusal depends on the URL alone: the CDN may keep it, so a repeated junk request costs
          // no invocation (issue 25 point 4).
          return json(400, { error: err.code, message: err.message }, OBJECT_MAX_AGE_S);
        }
        if (err instanceof MirrorApiIndexMissingError) {
          return json(503, { error: err.code, message: err.message }, 0);
        }
        throw err;
      }
      return conditional(response, request);
    },
  };
}

/** What every view of the API reads: its URLs and the mirror. */
interface ApiContext {
  urls: ReturnType<typeof apiUrls>;
  reader: MirrorReader;
}

/** The view of a request's route (its errors are the handler's to answer). */
async function routed(ctx: ApiContext, request: ApiRequest): Promise<ApiResponse> {
  const route = parseApiPath(request.path);
  switch (route.kind) {
    case 'system':
      return system(ctx);
    case 'bodies':
      return bodies(ctx, parseListQuery(request.query));
    case 'list':
      return list(ctx, request, parseListQuery(request.query), route);
    case 'object':
      return object(ctx, route.sourceId, route.type, route.hash);
    default:
      return notFound();
  }
}

/**
 * A served body as the API shows it: its object inline from its index item (read with the bodies), else
 * from S3; the body record is the fallback for a body whose own object was never mirrored (a scraped
 * one). `at` = its standing's time (`bodyStanding`): the later of its commit and its listing.
 */
async function bodyObject(ctx: ApiContext, b: SourceBody, at: string): Promise<Record<string, unknown>> {
  const { urls, reader } = ctx;
  const { sourceId, body, entry } = b;
  let stored: Record<string, unknown> = {};
  const inline =
    entry?.o !== undefined && entry.deleted !== true
      ? inlineObject(entry.o, { sourceId, type: 'body', hash: entry.sk })
      : undefined;
  if (inline !== undefined) {
    if (isRecord(inline.object)) stored = inline.object;
  } else if (entry !== undefined) {
    const record = await reader.read({ sourceId, type: 'body', id: body.id });
    if (record && isRecord(record.object) && record.meta.deleted !== true) stored = record.object;
  }
  const origin = shown(stored, await reader.takedowns(sourceId));
  const merged: Record<string, unknown> = {
    ...origin,
    id: body.id,
    name: typeof origin.name === 'string' ? origin.name : body.name,
    ...(body.shortName !== undefined && origin.shortName === undefined ? { shortName: body.shortName } : {}),
  };
  return rewriteObject(merged, 'body', { urls, sourceId, lists: servedLists(body), committedAt: at });
}

interface LiveObject {
  object: unknown;
  type: string;
  sourceId: string;
  committedAt: string;
  /** OPT-5: the source's takedowns, dropped from embedded values. */
  hidden: TakedownSet;
}

/** A live object as served: the source's takedowns dropped from it, its URLs rewritten. */
function liveObject(
  { urls }: ApiContext,
  { object, type, sourceId, committedAt, hidden }: LiveObject,
): Record<string, unknown> | undefined {
  return isRecord(object)
    ? rewriteObject(shown(object, hidden), type, { urls, sourceId, committedAt })
    : undefined;
}

async function system({ urls }: ApiContext): Promise<ApiResponse> {
  return json(
    200,
    {
      id: urls.system(),
      type: typeUrl('system'),
      oparlVersion: OPARL_VERSION_URL,
      name: 'mandari mirror of council information systems',
      body: urls.bodies(),
    },
    OBJECT_MAX_AGE_S,
  );
}

/**
 * The body list (issue 25 point 4): built from the bodies as cached (records and index items, one
 * Query each per source) and paged before any object is read; only the page's bodies whose object is
 * not inline are read from S3. Bodies that were public and are gone (taken down, unlisted, deleted at
 * the origin) are rows too: a filtered list shows them as deletion stubs, an unfiltered one hides them.
 */
async function bodies(ctx: ApiContext, query: ListQuery): Promise<ApiResponse> {
  const { urls, reader } = ctx;
  const rows = [];
  for (const b of await reader.allBodies()) {
    const standing = await reader.standing(b);
    if (standing.kind === 'never') continue;
    rows.push({
      b,
      at: standing.at,
      sortKey: listSort(standing.at, b.body.id),
      key: apiIdHash(b.body.id),
      deleted: standing.kind === 'gone',
      // Taken down or unlisted: an operator's decision — the stub is bare, as a takedown's.
      takedown: standing.kind === 'gone' && standing.why !== 'deleted',
    });
  }
  const decision = pageInMemory(rows, query);
  const data = await mapLimit(decision.show, OBJECT_READ_CONCURRENCY, async ({ row, asDeleted, bare }) => {
    const id = urls.objectOfHash(row.b.sourceId, 'body', row.key);
    if (bare) return takenDownStub('body', id, row.at);
    if (asDeleted) return deletedStub('body', row.b.body.id, row.at, { urls, sourceId: row.b.sourceId });
    return bodyObject(ctx, row.b, row.at);
  });
  // Held in memory whole: the counts are exact (gone bodies fill pages, as hidden list entries do).
  const counts = { entries: rows.length, live: rows.filter((r) => !r.deleted).length };
  return json(
    200,
    listEnvelope({
      listUrl: urls.bodies(),
      decision,
      query,
      data: data.filter(createdWithin(query)),
      counts,
    }),
    LIST_MAX_AGE_S,
  );
}

async function list(
  ctx: ApiContext,
  request: ApiRequest,
  query: ListQuery,
  { sourceId, bodyHash, list: listName }: Extract<ApiRoute, { kind: 'list' }>,
): Promise<ApiResponse> {
  const { urls, reader } = ctx;
  const named = await reader.namedBody(sourceId, bodyHash);
  const standing = named && (await reader.standing(named));
  if (named && standing?.kind === 'gone') return bodyGone(standing.at);
  const body = standing?.kind === 'served' ? named?.body : undefined;
  if (!body || !servedLists(body).includes(listName)) return notFound();
  const type = LIST_CATALOGUE.find((l) => l.list === listName)?.type ?? listName;
  const items = await reader.listPage(sourceId, body.id, type, query);
  const hidden = await reader.takedowns(sourceId);
  const rows = items.map((item) => ({
    item,
    sortKey: item.ls,
    key: item.sk,
    deleted: item.deleted,
    takedown: isTakenDown(item, item.sk, hidden),
  }));
  const decision = decidePage(rows, query);
  const data = await mapLimit(decision.show, OBJECT_READ_CONCURRENCY, async ({ row, asDeleted, bare }) => {
    const committedAt = committedAtOfListSort(row.sortKey);
    // Taken down: nothing of the object is read or shown, only that its id is gone.
    if (bare) return takenDownStub(type, urls.objectOfHash(sourceId, type, row.item.sk), committedAt);
    return entryObject(
      ctx,
      { sourceId, type, hash: row.item.sk, committedAt, inline: row.item.o, hidden },
      asDeleted,
    );
  });
  // Unfiltered only: a filtered list's size is unknown without reading it (docs/mirror-api.md, Lists).
  const counts = isFiltered(query) ? undefined : await reader.listCounts(sourceId, body.id, type);
  const shownData = data.filter((d): d is Record<string, unknown> => d !== undefined);
  return json(
    200,
    listEnvelope({
      listUrl: listUrl(urls, request),
      decision,
      query,
      data: shownData.filter(createdWithin(query)),
      counts,
    }),
    LIST_MAX_AGE_S,
  );
}

type Entry = {
  sourceId: string;
  type: string;
  hash: string;
  committedAt: string;
  inline?: InlineCopy;
  /** OPT-5: the source's takedowns, dropped from embedded values. */
  hidden: TakedownSet;
};

/**
 * An index item's inline copy as its object (either stored form, shared/store inline-copy.ts), or
 * undefined when the copy is unreadable: the caller then serves the S3 record, the mirror's truth, as
 * for an object too large to ride inline. A portal client gets the same answer either way — one S3 read
 * slower — never a 5xx for a copy the API can do without, and never a guess; on-call gets the error
 * (`MIRROR_INLINE_CORRUPT`) with the item's keys, and the next commit of the object (or
 * `ingestor mirror rebuild`) writes the copy again.
 */
function inlineObject(
  copy: InlineCopy,
  at: { sourceId: string; type: string; hash: string },
): { object: unknown } | undefined {
  try {
    return { object: unpackInline(copy) };
  } catch (error) {
    if (!(error instanceof InlineCopyCorruptError)) throw error;
    const { sourceId, type, hash } = at;
    logger.error('inline copy unreadable, served from S3', {
      sourceId,
      type,
      hash,
      code: error.code,
      error: error.message,
    });
    return undefined;
  }
}

/**
 * One index entry as served: its tombstone stub, or the live object — from the index item when it
 * carries the object inline, else read from S3 by hash.
 */
async function entryObject(
  ctx: ApiContext,
  entry: Entry,
  asDeleted: boolean,
): Promise<Record<string, unknown> | undefined> {
  const { urls, reader } = ctx;
  const inline = !asDeleted && entry.inline !== undefined ? inlineObject(entry.inline, entry) : undefined;
  if (inline !== undefined) return liveObject(ctx, { ...entry, object: inline.object });
  const record = await reader.readByHash(entry.sourceId, entry.type, entry.hash);
  // A record missing behind an index item (a purge in progress) is left out, not served half.
  if (!record) return undefined;
  if (asDeleted)
    return deletedStub(entry.type, record.meta.id, entry.committedAt, { urls, sourceId: entry.sourceId });
  if (record.meta.deleted === true) return undefined;
  return liveObject(ctx, {
    object: record.object,
    type: record.meta.type,
    sourceId: record.meta.sourceId,
    committedAt: entry.committedAt,
    hidden: entry.hidden,
  });
}

async function object(ctx: ApiContext, sourceId: string, type: string, hash: string): Promise<ApiResponse> {
  const { reader } = ctx;
  if (type === 'body') {
    const named = await reader.namedBody(sourceId, hash);
    const standing = named && (await reader.standing(named));
    if (named && standing?.kind === 'served')
      return json(200, await bodyObject(ctx, named, standing.at), OBJECT_MAX_AGE_S);
    return standing?.kind === 'gone' ? bodyGone(standing.at) : notFound();
  }
  const entry = await reader.indexEntry(sourceId, type, hash);
  if (!entry || entry.takedown !== undefined || entry.bodyId === undefined) return notFound();
  if (!(await reader.servedBody(sourceId, apiIdHash(entry.bodyId)))) return notFound();
  const hidden = await reader.takedowns(sourceId);
  if (isTakenDown(entry, hash, hidden)) return notFound();
  const served = await entryObject(
    ctx,
    { sourceId, type, hash, committedAt: entry.fetchedAt, inline: entry.o, hidden },
    entry.deleted,
  );
  return served ? json(200, served, OBJECT_MAX_AGE_S) : notFound();
}

/** The list's URL without a query: its links carry the canonical query alone (`listEnvelope`). */
function listUrl(urls: ApiContext['urls'], request: ApiRequest): string {
  return `${urls.base.replace(/\/+$/, '')}${request.path}`;
}

const HASHES = new WeakMap<TakedownSet, Set<string>>();

/**
 * OPT-5: an index entry is taken down by its mark — or by the registry alone, while the mark is missing
 * (a takedown command killed between the registry write and the mark). The registry's id hashes are
 * computed once per registry read (the reader caches the set).
 */
function isTakenDown(entry: { takedown?: unknown }, hash: string, hidden: TakedownSet): boolean {
  if (entry.takedown !== undefined) return true;
  let hashes = HASHES.get(hidden);
  if (hashes === undefined) {
    hashes = new Set(hidden.objectIds().map(apiIdHash));
    HASHES.set(hidden, hashes);
  }
  return hashes.has(hash);
}

/**
 * OPT-5, defence in depth: a stored object as served — without the embedded objects the source's
 * takedown registry holds. The takedown and the sync's write path already store parents without them.
 */
function shown(object: Record<string, unknown>, hidden: TakedownSet): Record<string, unknown> {
  return withoutEmbedded(object, (id) => hidden.covers({ id }) !== undefined);
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

/**
 * A body that was public and is gone (taken down, unlisted, deleted at the origin): its URL and its
 * lists answer 410 Gone — unlike 404 (never existed, a typo), a sign an incremental client can act on:
 * drop the body and every object it holds of it. Cached like a list page, so a relisting shows soon.
 */
function bodyGone(since: string): ApiResponse {
  return json(
    410,
    {
      error: 'MIRROR_API_BODY_GONE',
      message: 'this body is no longer served: drop it and its objects',
      deleted: true,
      modified: since,
    },
    LIST_MAX_AGE_S,
  );
}

function notFound(): ApiResponse {
  return {
    status: 404,
    headers: { ...TEXT, 'cache-control': `public, max-age=${LIST_MAX_AGE_S}` },
    body: 'not found\n',
  };
}

/** A strong ETag of the exact bytes served: equal bodies, equal tags, across instances. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
}

function json(status: number, value: unknown, maxAgeS: number): ApiResponse {
  const body = JSON.stringify(value);
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'access-control-allow-origin': '*',
      'cache-control': maxAgeS > 0 ? `public, max-age=${maxAgeS}` : 'no-store',
      ...(status === 200 ? { etag: etagOf(body) } : {}),
    },
    body,
  };
}

/** `If-None-Match` → 304 without a body (RFC 9110 §13.1.2: any listed tag, or `*`). */
export function conditional(
  response: ApiResponse,
  request: Pick<ApiRequest, 'ifNoneMatch' | 'method'>,
): ApiResponse {
  const etag = response.headers.etag;
  const asked = request.ifNoneMatch;
  const head = request.method === 'HEAD';
  if (etag !== undefined && asked !== undefined) {
    const tags = asked.split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (tags.includes('*') || tags.includes(etag)) {
      const { 'content-type': _ct, ...headers } = response.headers;
      return { status: 304, headers, body: '' };
    }
  }
  return head ? { ...response, body: '' } : response;
}
