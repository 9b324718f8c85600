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
  /** ISO 8601 UTC (normalised), inclusive: our commit time (`modified` as served). */
  modifiedSince?: string;
  modifiedUntil?: string;
  /**
   * ISO 8601 UTC (normalised), inclusive: the object's `created` as the origin gave it — or, without
   * one (a scraped object, a deletion stub), its `modified` (`createdOf`).
   */
  createdSince?: string;
  createdUntil?: string;
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

/**
 * ISO 8601 as OParl clients write it (issue 25 point 4: one reading, no lenient parse): a date, or a
 * date-time to the minute, second or fraction, with `Z`, an offset (`+01:00`, `+0100`) or none (read
 * as UTC). A `+` sent unencoded arrives as a space (form decoding) and is read as the `+` it was.
 * Anything else — `2024-01-01junk`, `yesterday`, `2024-02-30` — is no date.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+ -]\d{2}:?\d{2})?)?$/;

/** Pure: the instant an ISO 8601 value names, as `toISOString()`; undefined when it is none. */
export function canonicalInstant(raw: string): string | undefined {
  const m = ISO_8601.exec(raw);
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] = m;
  const fields = [y, mo, d, h, mi, sec].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = fields;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, Number(frac.padEnd(3, '0').slice(0, 3)));
  // Day 30 of February, hour 25: Date.UTC rolls them over; the round trip refuses them.
  const back = new Date(utc);
  if (
    hour > 23 ||
    back.getUTCFullYear() !== year ||
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== day ||
    back.getUTCHours() !== hour ||
    back.getUTCMinutes() !== minute ||
    back.getUTCSeconds() !== second
  )
    return undefined;
  let offsetMin = 0;
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2));
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = utc - offsetMin * 60_000;
  // Beyond what a Date holds (±275,760 years) is no instant either.
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
}

/** A parameter the API reads, given at most once: a second value would make the request ambiguous. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new MirrorApiRequestError(`${name} is given ${values.length} times`);
  return values[0];
}

function isoParam(params: URLSearchParams, name: string): string | undefined {
  const raw = single(params, name);
  if (raw === undefined) return undefined;
  const instant = canonicalInstant(raw);
  if (instant === undefined) throw new MirrorApiRequestError(`${name} is not an ISO 8601 date-time: ${raw}`);
  return instant;
}

/** A page size in plain decimal (`50`, not `050`, `5e1`, `0x32`, `50.0`, `+50`). */
const DECIMAL = /^[1-9][0-9]{0,8}$/;

/**
 * Pure: the list query a request asks for (OParl 1.1 Filter and paging), or MirrorApiRequestError (400)
 * — before any read. Only `API_QUERY_PARAMETERS` are read; other names are ignored (CloudFront does not
 * forward them either, so the API answers the same with or without a CDN). A known parameter's value
 * is refused unless written as documented: one decimal spelling of a number, ISO 8601 dates (the links
 * then carry their one canonical form, `canonicalSearch`).
 */
export function parseListQuery(params: URLSearchParams): ListQuery {
  const rawLimit = single(params, 'limit');
  let limit = PAGE_SIZE_DEFAULT;
  if (rawLimit !== undefined) {
    if (!DECIMAL.test(rawLimit))
      throw new MirrorApiRequestError(`limit must be a positive integer in decimal: ${rawLimit}`);
    // Out-of-range sizes are clamped, as OParl lets a server choose its page size.
    limit = Math.min(PAGE_SIZE_MAX, Math.max(PAGE_SIZE_MIN, Number(rawLimit)));
  }
  const query: ListQuery = { limit };
  const filters = [
    ['created_since', 'created_until', 'createdSince', 'createdUntil'],
    ['modified_since', 'modified_until', 'modifiedSince', 'modifiedUntil'],
  ] as const;
  for (const [sinceName, untilName, sinceKey, untilKey] of filters) {
    const since = isoParam(params, sinceName);
    const until = isoParam(params, untilName);
    if (since !== undefined) query[sinceKey] = since;
    if (until !== undefined) query[untilKey] = until;
    if (since !== undefined && until !== undefined && since > until)
      throw new MirrorApiRequestError(`${sinceName} is after ${untilName}`);
  }
  const cursor = single(params, 'cursor');
  if (cursor !== undefined) query.cursor = decodeCursor(cursor);
  return query;
}

/**
 * Pure: the one spelling of a list query (issue 25 point 4) — `API_QUERY_PARAMETERS` in their order,
 * dates as `toISOString()`, `limit` only when not the default, the cursor when asked. `links.self`,
 * `first` and `next` carry exactly this, so every client following them asks CloudFront the same URL.
 */
export function canonicalSearch(query: ListQuery, opts: { cursor?: ListCursor } = {}): URLSearchParams {
  const out = new URLSearchParams();
  if (query.createdSince !== undefined) out.set('created_since', query.createdSince);
  if (query.createdUntil !== undefined) out.set('created_until', query.createdUntil);
  if (query.modifiedSince !== undefined) out.set('modified_since', query.modifiedSince);
  if (query.modifiedUntil !== undefined) out.set('modified_until', query.modifiedUntil);
  if (query.limit !== PAGE_SIZE_DEFAULT) out.set('limit', String(query.limit));
  if (opts.cursor !== undefined) out.set('cursor', encodeCursor(opts.cursor));
  return out;
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
    const bytes = Buffer.from(text, 'base64url');
    const json = bytes.toString('utf8');
    // One spelling (issue 25 point 4): the decoder skips foreign characters and padding, so
    // `<cursor>junk` would page like `<cursor>`; only the exact text this API wrote is a cursor.
    if (bytes.toString('base64url') !== text) throw new MirrorApiRequestError('cursor is not canonical');
    const value = JSON.parse(json) as unknown;
    if (JSON.stringify(value) !== json) throw new MirrorApiRequestError('cursor is not canonical');
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
  return (
    query.modifiedSince !== undefined ||
    query.modifiedUntil !== undefined ||
    query.createdSince !== undefined ||
    query.createdUntil !== undefined
  );
}

/**
 * Pure: when an object served was created, for `created_since` / `created_until` — its `created` as the
 * origin gave it, read as ISO 8601; without one (a scraped object, a deletion stub, a value that is no
 * date) its `modified`, our commit time: it existed by then, and a created filter then finds a new
 * object whenever its modified filter would.
 */
export function createdOf(object: Record<string, unknown>): string | undefined {
  const created = typeof object.created === 'string' ? canonicalInstant(object.created) : undefined;
  if (created !== undefined) return created;
  return typeof object.modified === 'string' ? canonicalInstant(object.modified) : undefined;
}

/** Pure: a filter of served objects by the query's created range (inclusive); all pass without one. */
export function createdWithin(query: ListQuery): (object: Record<string, unknown>) => boolean {
  const { createdSince: since, createdUntil: until } = query;
  if (since === undefined && until === undefined) return () => true;
  return (object) => {
    const created = createdOf(object);
    if (created === undefined) return true;
    return (since === undefined || created >= since) && (until === undefined || created <= until);
  };
}

/**
 * How far an origin's clock may run ahead of ours and `created_since` still find the object: an object
 * is committed here after the origin created it, so `created ≥ X` implies our commit time ≥ X — give or
 * take the origin's clock (and a `created` written in local time without an offset, ≤ 14 h off).
 */
export const CREATED_CLOCK_SLACK_MS = 24 * 3_600_000;

/**
 * The sort-key range of the index Query (`ls` between lo and hi, both inclusive). `created_since`
 * narrows it too (less `CREATED_CLOCK_SLACK_MS`): what is created since X was committed since then, so
 * an incremental client's created filter costs what its modified filter costs. `created_until` cannot
 * narrow it (an old object may have changed yesterday): it is applied to the page (`matchesCreated`).
 */
export function sortRange(query: ListQuery): { lo?: string; hi?: string } {
  const range: { lo?: string; hi?: string } = {};
  const since = [
    query.modifiedSince,
    query.createdSince === undefined
      ? undefined
      : new Date(Math.max(0, Date.parse(query.createdSince) - CREATED_CLOCK_SLACK_MS)).toISOString(),
  ].filter((t): t is string => t !== undefined);
  // ISO strings of one form order as the instants they name: the later bound wins.
  const latest = since.sort().at(-1);
  if (latest !== undefined) range.lo = listBound(latest);
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

/** One page of a list as answered: its URL, the page decided for the query, the objects shown. */
export interface ListPageAnswer {
  listUrl: string;
  decision: Pick<PageDecision<IndexRow>, 'next' | 'page'>;
  query: ListQuery;
  data: unknown[];
  /** The list counter, when known (unfiltered lists only, see pageCounts). */
  counts?: ListCounts;
}

/** The list's `links` and `pagination` (OParl 1.1 §list): first, self, next; the counts when known. */
export function listEnvelope(answer: ListPageAnswer): Record<string, unknown> {
  const { listUrl, decision, query, data, counts } = answer;
  // The links hold the canonical query only (issue 25 point 4): whatever else the request carried.
  const at = (search: URLSearchParams) => {
    const url = new URL(listUrl);
    url.search = search.toString();
    return url.toString();
  };
  const links: Record<string, string> = {
    first: at(canonicalSearch(query)),
    self: at(canonicalSearch(query, query.cursor ? { cursor: query.cursor } : {})),
  };
  if (decision.next) links.next = at(canonicalSearch(query, { cursor: decision.next }));
  return {
    data,
    pagination: { ...pageCounts(counts, query), elementsPerPage: query.limit, currentPage: decision.page },
    links,
  };
}
