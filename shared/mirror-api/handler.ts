import { createHash } from 'node:crypto';
import { type BodyRecord, isRecord, LIST_CATALOGUE, type ListName, withoutEmbedded } from '../engine';
import { apiIdHash, committedAtOfListSort, listSort } from '../mirror';
import type { TakedownSet } from '../takedown';
import { mapLimit } from '../util';
import { LIST_MAX_AGE_S, OBJECT_MAX_AGE_S, OBJECT_READ_CONCURRENCY, OPARL_VERSION_URL } from './constants';
import { MirrorApiIndexMissingError, MirrorApiRequestError } from './errors';
import { decidePage, isFiltered, type ListQuery, listEnvelope, pageInMemory, parseListQuery } from './paging';
import type { MirrorReader } from './reader';
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
  const urls = apiUrls(deps.baseUrl, deps);
  const { reader } = deps;

  async function bodyObject(
    sourceId: string,
    body: BodyRecord,
  ): Promise<{ object: Record<string, unknown>; at: string }> {
    const record = await reader.read({ sourceId, type: 'body', id: body.id });
    const stored = record && isRecord(record.object) && record.meta.deleted !== true ? record.object : {};
    const origin = shown(stored, await reader.takedowns(sourceId));
    // The body record is the fallback for a body whose own object was never mirrored (a scraped one).
    const merged: Record<string, unknown> = {
      ...origin,
      id: body.id,
      name: typeof origin.name === 'string' ? origin.name : body.name,
      ...(body.shortName !== undefined && origin.shortName === undefined
        ? { shortName: body.shortName }
        : {}),
    };
    const at = record?.meta.fetchedAt ?? body.lastSeenAt;
    return {
      object: rewriteObject(merged, 'body', { urls, sourceId, lists: servedLists(body), committedAt: at }),
      at,
    };
  }

  function liveObject(
    object: unknown,
    type: string,
    sourceId: string,
    committedAt: string,
    hidden: TakedownSet,
  ): Record<string, unknown> | undefined {
    return isRecord(object)
      ? rewriteObject(shown(object, hidden), type, { urls, sourceId, committedAt })
      : undefined;
  }

  async function system(): Promise<ApiResponse> {
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

  async function bodies(request: ApiRequest, query: ListQuery): Promise<ApiResponse> {
    const served = await reader.servedBodies();
    const built = await mapLimit(served, OBJECT_READ_CONCURRENCY, async (b) => {
      const { object, at } = await bodyObject(b.sourceId, b.body);
      return {
        sortKey: listSort(at, b.body.id),
        key: apiIdHash(b.body.id),
        deleted: false,
        takedown: false,
        object,
      };
    });
    const decision = pageInMemory(built, query);
    const data = decision.show.map((s) => s.row.object);
    // Held in memory whole, every body shown: the counts are exact.
    const counts = { entries: built.length, live: built.length };
    return json(200, listEnvelope(selfUrl(request), decision, query, data, counts), LIST_MAX_AGE_S);
  }

  async function list(
    request: ApiRequest,
    query: ListQuery,
    { sourceId, bodyHash, list: listName }: Extract<ApiRoute, { kind: 'list' }>,
  ): Promise<ApiResponse> {
    const body = await reader.servedBody(sourceId, bodyHash);
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
        { sourceId, type, hash: row.item.sk, committedAt, inline: row.item.o, hidden },
        asDeleted,
      );
    });
    // Unfiltered only: a filtered list's size is unknown without reading it (docs/mirror-api.md, Lists).
    const counts = isFiltered(query) ? undefined : await reader.listCounts(sourceId, body.id, type);
    return json(
      200,
      listEnvelope(
        selfUrl(request),
        decision,
        query,
        data.filter((d) => d !== undefined),
        counts,
      ),
      LIST_MAX_AGE_S,
    );
  }

  type Entry = {
    sourceId: string;
    type: string;
    hash: string;
    committedAt: string;
    inline?: string;
    /** OPT-5: the source's takedowns, dropped from embedded values. */
    hidden: TakedownSet;
  };

  /**
   * One index entry as served: its tombstone stub, or the live object — from the index item when it
   * carries the object inline, else read from S3 by hash.
   */
  async function entryObject(entry: Entry, asDeleted: boolean): Promise<Record<string, unknown> | undefined> {
    if (!asDeleted && entry.inline !== undefined)
      return liveObject(
        JSON.parse(entry.inline),
        entry.type,
        entry.sourceId,
        entry.committedAt,
        entry.hidden,
      );
    const record = await reader.readByHash(entry.sourceId, entry.type, entry.hash);
    // A record missing behind an index item (a purge in progress) is left out, not served half.
    if (!record) return undefined;
    if (asDeleted)
      return deletedStub(entry.type, record.meta.id, entry.committedAt, { urls, sourceId: entry.sourceId });
    if (record.meta.deleted === true) return undefined;
    return liveObject(record.object, record.meta.type, record.meta.sourceId, entry.committedAt, entry.hidden);
  }

  async function object(sourceId: string, type: string, hash: string): Promise<ApiResponse> {
    if (type === 'body') {
      const body = await reader.servedBody(sourceId, hash);
      return body ? json(200, (await bodyObject(sourceId, body)).object, OBJECT_MAX_AGE_S) : notFound();
    }
    const entry = await reader.indexEntry(sourceId, type, hash);
    if (!entry || entry.takedown !== undefined || entry.bodyId === undefined) return notFound();
    if (!(await reader.servedBody(sourceId, apiIdHash(entry.bodyId)))) return notFound();
    const hidden = await reader.takedowns(sourceId);
    if (isTakenDown(entry, hash, hidden)) return notFound();
    const served = await entryObject(
      { sourceId, type, hash, committedAt: entry.fetchedAt, inline: entry.o, hidden },
      entry.deleted,
    );
    return served ? json(200, served, OBJECT_MAX_AGE_S) : notFound();
  }

  return {
    async handle(request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return { status: 405, headers: { allow: 'GET, HEAD', ...TEXT }, body: 'method not allowed\n' };
      }
      const route = parseApiPath(request.path);
      let response: ApiResponse;
      try {
        switch (route.kind) {
          case 'system':
            response = await system();
            break;
          case 'bodies':
            response = await bodies(request, parseListQuery(request.query));
            break;
          case 'list':
            response = await list(request, parseListQuery(request.query), route);
            break;
          case 'object':
            response = await object(route.sourceId, route.type, route.hash);
            break;
          default:
            response = notFound();
        }
      } catch (err) {
        if (err instanceof MirrorApiRequestError) {
          return json(400, { error: err.code, message: err.message }, 0);
        }
        if (err instanceof MirrorApiIndexMissingError) {
          return json(503, { error: err.code, message: err.message }, 0);
        }
        throw err;
      }
      return conditional(response, request);
    },
  };

  function selfUrl(request: ApiRequest): string {
    const self = new URL(`${urls.base.replace(/\/+$/, '')}${request.path}`);
    for (const [k, v] of request.query) self.searchParams.append(k, v);
    return self.toString();
  }
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
