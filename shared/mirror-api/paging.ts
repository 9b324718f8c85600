import { committedAtOfListSort, LIST_SORT_PATTERN, listBound, listSortOfHash } from '../mirror';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PAGE_SIZE_MIN } from './constants';
import { MirrorApiRequestError } from './errors';

/**
 * The paging decisions of a list (pure): what the query parameters ask for, which index range that is,
 * and what one page shows. Order is stable — commit time, then id hash (the `ls` sort key, then the
 * table's `sk`) — so a client
 * walking `links.next` sees every object exactly once even while the mirror changes: a changed object
 * moves to the end, where a later `modified_since` request finds it.
 */
export interface ListQuery {
  limit: number;
  /** ISO 8601 UTC (normalised), inclusive. */
  modifiedSince?: string;
  modifiedUntil?: string;
  cursor?: ListCursor;
}

/**
 * The opaque cursor: the position of the last entry the previous page evaluated — its list sort key and
 * its id hash (the table's sort key: together with the list's partition they are the index's start key)
 * — and the next page's number.
 */
export interface ListCursor {
  after: ListPosition;
  page: number;
}

export interface ListPosition {
  /** The list sort key (`ls`, shared/mirror `listSort`). */
  sort: string;
  /** The id hash (40 hex). */
  key: string;
}

/** Pure: order of two list positions — the index's order (sort key, then the table's key). */
export function comparePositions(a: ListPosition, b: ListPosition): number {
  if (a.sort !== b.sort) return a.sort < b.sort ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function isoParam(params: URLSearchParams, name: string): string | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  // OParl: an ISO 8601 date-time; a bare date is read as its midnight UTC.
  const ms = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(ms))
    throw new MirrorApiRequestError(`${name} is not an ISO 8601 date-time: ${raw}`);
  return new Date(ms).toISOString();
}

export function parseListQuery(params: URLSearchParams): ListQuery {
  const rawLimit = params.get('limit');
  let limit = PAGE_SIZE_DEFAULT;
  if (rawLimit !== null) {
    const n = Number(rawLimit);
    if (!Number.isInteger(n) || n < 1)
      throw new MirrorApiRequestError(`limit must be a positive integer: ${rawLimit}`);
    // Out-of-range sizes are clamped, as OParl lets a server choose its page size.
    limit = Math.min(PAGE_SIZE_MAX, Math.max(PAGE_SIZE_MIN, n));
  }
  const query: ListQuery = { limit };
  const since = isoParam(params, 'modified_since');
  const until = isoParam(params, 'modified_until');
  if (since !== undefined) query.modifiedSince = since;
  if (until !== undefined) query.modifiedUntil = until;
  if (since !== undefined && until !== undefined && since > until)
    throw new MirrorApiRequestError('modified_since is after modified_until');
  const cursor = params.get('cursor');
  if (cursor !== null) query.cursor = decodeCursor(cursor);
  return query;
}

/**
 * Marks a cursor over keyed ids (issue 25 point 5): its position's tie-break and id are `apiIdHash`es.
 * A cursor without it was issued over the unkeyed ones, whose order within one millisecond
 * `ingestor backfill-index` changes.
 */
const KEYED_CURSOR = 'k';

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(
    JSON.stringify([cursor.after.sort, cursor.after.key, cursor.page, KEYED_CURSOR]),
    'utf8',
  ).toString('base64url');
}

/**
 * Where a cursor issued over the unkeyed ids goes on: at the start of its millisecond. The entries of
 * that millisecond it had seen come again (at most one sync's page), none it had not seen is skipped —
 * their order among themselves changed with the keys.
 */
function startOfMillisecond(sort: string, page: number): ListCursor {
  // The lowest id hash: before every entry of that millisecond (a start key needs no item behind it).
  const lowest = '0'.repeat(40);
  return { after: { sort: listSortOfHash(committedAtOfListSort(sort), lowest), key: lowest }, page };
}

const ID_HASH = /^[0-9a-f]{40}$/;

/**
 * A cursor of the first list index (`[<commit time ISO>#<id hash>, page]`, before the compact keys): a
 * client that was walking a list while the API was upgraded goes on where it was.
 */
const LEGACY_CURSOR_AFTER =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2}))#([0-9a-f]{40})$/;

const isPage = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 1;

/**
 * The position a cursor continues after becomes a DynamoDB start key, so anything but what this API
 * issues (`[<list sort key>, <id hash>, page]`, or the legacy form) is refused as a bad request.
 */
export function decodeCursor(text: string): ListCursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value)) {
      const [sort, key, page, keyed] = value as unknown[];
      if (
        (value.length === 3 || (value.length === 4 && keyed === KEYED_CURSOR)) &&
        typeof sort === 'string' &&
        LIST_SORT_PATTERN.test(sort) &&
        typeof key === 'string' &&
        ID_HASH.test(key) &&
        key.startsWith(sort.slice(sort.indexOf('#') + 1)) &&
        isPage(page)
      )
        return value.length === 4 ? { after: { sort, key }, page } : startOfMillisecond(sort, page);
      const legacy = value.length === 2 && typeof sort === 'string' ? LEGACY_CURSOR_AFTER.exec(sort) : null;
      if (legacy && isPage(key)) {
        const [, at] = legacy as unknown as [string, string];
        return startOfMillisecond(listSortOfHash(at, ''), key);
      }
    }
  } catch {
    // fall through
  }
  throw new MirrorApiRequestError('cursor is not one this API issued');
}

/** A filtered list shows deletions (OParl 1.1: `deleted: true`); an unfiltered one only live objects. */
export function isFiltered(query: ListQuery): boolean {
  return query.modifiedSince !== undefined || query.modifiedUntil !== undefined;
}

/** The sort-key range of the index Query (`ls` between lo and hi, both inclusive). */
export function sortRange(query: ListQuery): { lo?: string; hi?: string } {
  const range: { lo?: string; hi?: string } = {};
  if (query.modifiedSince !== undefined) range.lo = listBound(query.modifiedSince);
  // `~` sorts after every hex digit: the whole of the last millisecond is included.
  if (query.modifiedUntil !== undefined) range.hi = `${listBound(query.modifiedUntil)}#~`;
  return range;
}

export interface IndexRow {
  /** The list sort key. */
  sortKey: string;
  /** The id hash. */
  key: string;
  deleted: boolean;
  takedown: boolean;
}

export interface PageDecision<R extends IndexRow> {
  /**
   * Rows to show, in order: live objects; tombstones only in filtered lists, as deleted; taken-down
   * objects only in filtered lists and only `bare` — id, type, deleted, modified, nothing of the object.
   */
  show: { row: R; asDeleted: boolean; bare?: true }[];
  next?: ListCursor;
  page: number;
}

/**
 * `rows` = the Query's answer with Limit = `limit + 1`, so one extra row tells whether a next page
 * exists without a second request. Hidden rows still count toward the page, so a page may show fewer
 * than `limit` objects — OParl lets a client rely on `links.next` only, never on a page's length.
 */
export function decidePage<R extends IndexRow>(rows: R[], query: ListQuery): PageDecision<R> {
  const filtered = isFiltered(query);
  const page = query.cursor?.page ?? 1;
  const onPage = rows.slice(0, query.limit);
  // OParl 1.1: a client learns of deletions from filtered lists. A takedown is one too — its content
  // never appears again, but an incremental client must learn to drop the copy it holds.
  const show = onPage
    .filter((r) => filtered || (!r.deleted && !r.takedown))
    .map((row) =>
      row.takedown ? { row, asDeleted: true, bare: true as const } : { row, asDeleted: row.deleted },
    );
  const last = onPage[onPage.length - 1];
  return rows.length > query.limit && last
    ? { show, next: { after: { sort: last.sortKey, key: last.key }, page: page + 1 }, page }
    : { show, page };
}

/** Paging of a small list held in memory (the bodies): the same cursor and order, by sort key. */
export function pageInMemory<R extends IndexRow>(rows: R[], query: ListQuery): PageDecision<R> {
  const { lo, hi } = sortRange(query);
  const after = query.cursor?.after;
  const position = (r: R): ListPosition => ({ sort: r.sortKey, key: r.key });
  const selected = [...rows]
    .sort((a, b) => comparePositions(position(a), position(b)))
    .filter(
      (r) =>
        (lo === undefined || r.sortKey >= lo) &&
        (hi === undefined || r.sortKey <= hi) &&
        (after === undefined || comparePositions(position(r), after) > 0),
    );
  return decidePage(selected.slice(0, query.limit + 1), query);
}

/** A list's counter (shared/mirror `countDelta`): index items in its partition, and live ones. */
export interface ListCounts {
  entries: number;
  live: number;
}

/**
 * Pure: OParl's `totalElements` and `totalPages` of a list, or nothing when unknown — a filtered list
 * (only reading it would tell) or a list without a counter. `totalElements` = what the unfiltered list
 * shows (live objects); `totalPages` = the pages a client walks, hidden entries counted (they fill pages
 * too, see `decidePage`), at least the one page an empty list has.
 */
export function pageCounts(
  counts: ListCounts | undefined,
  query: ListQuery,
): { totalElements: number; totalPages: number } | undefined {
  if (counts === undefined || isFiltered(query)) return undefined;
  return { totalElements: counts.live, totalPages: Math.max(1, Math.ceil(counts.entries / query.limit)) };
}

/** The list's `links` and `pagination` (OParl 1.1 §list): first, self, next; the counts when known. */
export function listEnvelope(
  selfUrl: string,
  decision: Pick<PageDecision<IndexRow>, 'next' | 'page'>,
  query: ListQuery,
  data: unknown[],
  counts?: ListCounts,
): Record<string, unknown> {
  const base = new URL(selfUrl);
  base.searchParams.delete('cursor');
  base.searchParams.delete('limit');
  if (query.limit !== PAGE_SIZE_DEFAULT) base.searchParams.set('limit', String(query.limit));
  const links: Record<string, string> = { first: base.toString(), self: selfUrl };
  if (decision.next) {
    const next = new URL(base);
    next.searchParams.set('cursor', encodeCursor(decision.next));
    links.next = next.toString();
  }
  return {
    data,
    pagination: { ...pageCounts(counts, query), elementsPerPage: query.limit, currentPage: decision.page },
    links,
  };
}
