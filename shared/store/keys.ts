import { createHash, createHmac } from 'node:crypto';
import { apiIdKey, GEO_ID_PREFIX } from '../config';

/**
 * Every key of the tables and the bucket, in one place (issue 29 item 1): the State table's partitions
 * and sort keys, the mirror's index and list keys, the S3 prefixes of mirror records, copies and texts.
 * Domain folders call the repositories of shared/store, which build their keys from these.
 */

/**
 * Deterministic S3 keys of the mirror (STYLE 4: idempotent by construction): the same object of the same
 * source always lands on the same key, so a repeated or resumed sync overwrites instead of duplicating.
 */
export const MIRROR_PREFIX = 'mirror';

/** Every path of the OParl API over the mirror begins with this (shared/mirror-api). */
export const API_PREFIX = '/oparl/v1';

/**
 * An object's path in the OParl API over the mirror: `/oparl/v1/<source>/<type>/<api id>` — the id a
 * client knows it by (the change feed's `apiId`; the API prefixes its base URL). The id is keyed
 * (`apiIdHash`, api-ids.ts): it names the object without revealing its origin id (OPT-5).
 */
export function apiObjectPath(sourceId: string, type: string, id: string): string {
  return `${API_PREFIX}/${sourceId}/${type}/${apiIdHash(id)}`;
}

/** The length of an id hash: 160 bits, collision-free for any council's object count. */
const ID_HASH_HEX = 40;

/**
 * The one derivation of a mirror id (issue 25 point 5, OPT-5): HMAC-SHA-256 of the origin id under the
 * deployment's key (shared/config api-id-key.ts), first 40 hex. It is the API's id of the object, the
 * mirror index's sort key, the list tie-break (`listSort`) and the S3 key (`mirrorKey`): one hash, so
 * every URL still leads to its record without a lookup — and none of them tells the origin id to
 * someone without the key (a takedown's stub shows only this).
 */
export function apiIdHash(originId: string): string {
  return createHmac('sha256', apiIdKey()).update(originId).digest('hex').slice(0, ID_HASH_HEX);
}

/**
 * First 40 hex characters of SHA-256(id), unkeyed: internal keys only that never reach a client (the
 * takedown registry, a body's slot and session-day key, a photo's key). Never an API id: the mirror's
 * index, list order, S3 keys and URLs use `apiIdHash`. It is also the mirror's key before issue 25
 * (`legacyMirrorKey`), which `ingestor backfill-index` moves.
 */
export function idHash(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, ID_HASH_HEX);
}

/** `mirror/<sourceId>/<type>/<api id>.json`, type = lower-case OParl type name. */
export function mirrorKey(sourceId: string, type: string, id: string): string {
  return mirrorKeyOfHash(sourceId, type, apiIdHash(id));
}

/** The S3 key of a record written before the keyed ids (unkeyed SHA-256): what the migration moves. */
export function legacyMirrorKey(sourceId: string, type: string, id: string): string {
  return mirrorKeyOfHash(sourceId, type, idHash(id));
}

/** The same key from the id hash alone (the index's sort key): what the API reads by. */
export function mirrorKeyOfHash(sourceId: string, type: string, hash: string): string {
  return `${MIRROR_PREFIX}/${sourceId}/${type}/${hash}.json`;
}

export function mirrorTypePrefix(sourceId: string, type: string): string {
  return `${MIRROR_PREFIX}/${sourceId}/${type}/`;
}

/** State table partition of the mirror index of one source and type (see `store.ts`). */
export function indexPartition(sourceId: string, type: string): string {
  return `MIRROR#${sourceId}#${type}`;
}

/**
 * The API's list index (State table GSI `byList`, shared/mirror-api): partition = one body's objects of
 * one type, sort = commit time then a slice of the id hash — so a list page with `modified_since` /
 * `modified_until` is one Query, in a stable order. Only objects of a body carry it (the index is sparse).
 *
 * Every list page reads these attributes for 101 items (the page and one look-ahead row), beside the
 * table's own keys, which DynamoDB projects into every index: the goal of ≤ 2 read units per
 * page of 100 (≤ 16 KB, ≈ 162 B per item) leaves no room for readable values. Hence two-letter names
 * and compact values (docs/mirror-api.md "Read units"): ≈ 120 B per item for a source id of 9 characters.
 */
export const LIST_PARTITION_ATTRIBUTE = 'lp';
export const LIST_SORT_ATTRIBUTE = 'ls';

/**
 * The attributes of the first list index (`byBodyList`: `<source>#<40-hex body hash>#<type>` and
 * `<ISO>#<40-hex id hash>`, ≈ 213 B per item, 3 read units a page), which `ingestor backfill-index`
 * moves to the compact ones.
 */
export const LEGACY_LIST_ATTRIBUTES = ['apiList', 'apiListSort'] as const;

/** 64 bits of SHA-256 over source, body and type: collision-free for any deployment's number of lists. */
const LIST_PARTITION_HEX = 16;

/**
 * 48 bits of the id hash order objects committed in the same millisecond (a sync commits a whole page at
 * its fetch time). Two of them sharing these bits too (≈ 2 × 10⁻¹¹ for a page of 100) still page
 * correctly — a start key names the item by its full table key — only their mutual order is DynamoDB's.
 */
const LIST_TIE_HEX = 12;

/** Epoch milliseconds padded to 13 digits sort as text like the instants they name (until 2286-11-20). */
const LIST_TIME_DIGITS = 13;

export function listPartition(sourceId: string, bodyId: string, type: string): string {
  return createHash('sha256')
    .update(`${sourceId}\n${bodyId}\n${type}`)
    .digest('hex')
    .slice(0, LIST_PARTITION_HEX);
}

/** `<epoch ms, 13 digits>`: the part of a list sort key that names a commit time (`modified_*` bounds). */
export function listTime(iso: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms) || ms < 0 || ms >= 10 ** LIST_TIME_DIGITS)
    throw new RangeError(`not a commit time a list can sort by: ${iso}`);
  return String(ms).padStart(LIST_TIME_DIGITS, '0');
}

/**
 * The list time of a `modified_since`/`modified_until` bound: clamped to the times a sort key can hold,
 * so that a bound before 1970 or after 2286 selects what it means (everything, or nothing before it).
 */
export function listBound(iso: string): string {
  const ms = Math.min(Math.max(Date.parse(iso), 0), 10 ** LIST_TIME_DIGITS - 1);
  return listTime(new Date(ms).toISOString());
}

/** `<epoch ms, 13 digits>#<first 12 hex of the api id>`. */
export function listSort(committedAt: string, id: string): string {
  return listSortOfHash(committedAt, apiIdHash(id));
}

export function listSortOfHash(committedAt: string, hash: string): string {
  return `${listTime(committedAt)}#${hash.slice(0, LIST_TIE_HEX)}`;
}

/** The commit time a list sort key names, as ISO 8601 UTC. */
export function committedAtOfListSort(sortKey: string): string {
  return new Date(Number(sortKey.slice(0, LIST_TIME_DIGITS))).toISOString();
}

/** What a list sort key looks like (a cursor is checked against it before it becomes a start key). */
export const LIST_SORT_PATTERN = /^\d{13}#[0-9a-f]{12}$/;

/**
 * Objects ride inline in their index item (attribute `o`, the object's JSON as received, packed: a
 * binary attribute, inline-copy.ts), which `byList` projects: a list page is then one Query and no S3
 * read at all. Up to one read unit per item (4 KB, the item as stored by DynamoDB's size rule,
 * item-bytes.ts): the sync's BatchGet of a page's index items and a GetItem by id cost what they cost
 * without it, and a page stays far below a Query's 1 MB (101 × 4 KB). At 1 KB, the first bound, a
 * typical paper or meeting (the OParl specification's examples: 2.6 and 3.1 KB) came from S3: 100 GETs a
 * page, ≈ 280 ms locally against ≈ 30 ms inline, and 7× the price of the page's read units. What it
 * costs: writes are billed per KB and the copies are DynamoDB storage (docs/mirror-api.md, Inline
 * objects) — packed, the specification's example paper (2,577 bytes) is 747 and its meeting (3,127)
 * 723. Larger objects are read from S3. The bound is decided by cost (`npm run bench -- cost`,
 * `mirrorIndex.inlineBound`, issue 28 with packed copies): at 1,000 sources the month is €63.56 at
 * 3 and 4 KB, €63.77 at 2 KB, €64.96 at 1 KB (the demo's packed items: p95 1.2 KB); 4 KB stays, as
 * real objects are larger than the demo's. Above it an item costs two read units a BatchGet or GetItem.
 */
export const INLINE_ATTRIBUTE = 'o';
export const INLINE_ITEM_MAX_BYTES = 4096;

/**
 * The counts of one API list (`listPartition`), one small State table item each, in one
 * partition per source so that `backfill-index` finds every counter of a source with one Query. Not in
 * the source's `SOURCE#` partition, which the planner reads, nor in an index partition (`listAll`).
 */
export const LIST_COUNT_PREFIX = 'APILISTCOUNT';

export function listCountKey(sourceId: string, list: string): { pk: string; sk: string } {
  return { pk: `${LIST_COUNT_PREFIX}#${sourceId}`, sk: `${LIST_COUNT_PREFIX}#${list}` };
}

/** The index lookup's map key of one object (`MirrorStore.lookup`). */
export function lookupKey(type: string, id: string): string {
  return `${type}\n${id}`;
}

/**
 * The sync's partition of a source in the State table (`STATE`, `OPARL#SYSTEM`, `BODY#…`, `SLUG#…`,
 * `CURSOR#…`, `SESSION#…`; shared/engine/state.ts lists them).
 */
export function sourcePartition(sourceId: string): string {
  return `SOURCE#${sourceId}`;
}

/**
 * `LASTRUN`: the last run's report (issue 28), beside the `STATE` item so that the item every lease,
 * claim and release rewrites stays under 1 KB; written when a run ends whose report does not fit in
 * the STATE item within that (else the release keeps it inline; source-state.ts `releaseSyncRun`).
 */
export const LAST_RUN_SK = 'LASTRUN';
/** `BODY#<bodyKey>`: one body's record (ONB-4), `bodyKey` = first 16 hex of SHA-256(body id). */
export const bodySk = (bodyKey: string) => `BODY#${bodyKey}`;
/** `SESSION#<bodyKey>`: a body's upcoming meeting days, one attribute `m_<meetingKey>` each (SCH-2). */
export const sessionSk = (bodyKey: string) => `SESSION#${bodyKey}`;
/** `SLUG#<slug>`: the reservation that makes a body's slug unique per source. */
export const slugSk = (slug: string) => `SLUG#${slug}`;

/** `OPARL#SYSTEM`: the System of a source — body list URL, last filter check (SCH-10), validators (B-1). */
export const SYSTEM_SK = 'OPARL#SYSTEM';
/** `CURSOR#<kind>`: the sync's run cursor of one kind (incremental / full / sliced). */
export const cursorSk = (kind: string) => `CURSOR#${kind}`;
/** `LIST#<bodyKey>#<list>`: the OParl kind's marks of one list of a body (shared/oparl/state.ts). */
export const listSk = (bodyKey: string, list: string) => `LIST#${bodyKey}#${list}`;
/** `RUNLIST#<kind>#<n>`: list reports n, n+1 … of the current run of that kind (six digits). */
export const runListSk = (kind: string, index: number) => `RUNLIST#${kind}#${String(index).padStart(6, '0')}`;

/**
 * The scraper's sort-key family in the source partition (shared/scraper/state.ts): `SCRAPE#CURSOR#<kind>`,
 * `SCRAPE#MONTH#<yyyy-mm>`, `SCRAPE#PAGE#<scrapeUrlKey>` (`scrapeUrlKey` = first 24 hex of SHA-256(url)).
 */
export const scrapeCursorSk = (kind: string) => `SCRAPE#CURSOR#${kind}`;
export const scrapeMonthSk = (month: string) => `SCRAPE#MONTH#${month}`;
export function scrapeUrlKey(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 24);
}
export const scrapePageSk = (url: string) => `SCRAPE#PAGE#${scrapeUrlKey(url)}`;

/**
 * OPT-5: the takedown registry's partition of a source (`TAKEDOWN#<sourceId>`), read whole with one
 * Query; sort key `OBJECT#<idHash(id)>` or `BODY#<idHash(bodyId)>` (shared/store takedowns.ts).
 */
export const TAKEDOWN_PARTITION_PREFIX = 'TAKEDOWN#';

export function takedownPartition(sourceId: string): string {
  return `${TAKEDOWN_PARTITION_PREFIX}${sourceId}`;
}

export function takedownSortKey(scope: 'object' | 'body', id: string): string {
  return `${scope === 'body' ? 'BODY' : 'OBJECT'}#${idHash(id)}`;
}

/**
 * S3 tags of tombstones. The sync's `mirror=tombstone` (a lifecycle rule may age these out) differs
 * from an operator's `mirror=takedown` on purpose: such a rule must not silently drop the audit copy of
 * a takedown (OPT-2).
 */
export const TOMBSTONE_TAG = 'mirror=tombstone';
export const TAKEDOWN_TAG = 'mirror=takedown';

/**
 * Deterministic S3 keys of the document functions (STYLE 4: idempotent by construction). The key of a
 * document's copy follows from its `docId` alone, so the table always knows where an object of a
 * document would be — an upload interrupted before its record is overwritten or deleted by the next
 * run, never orphaned. `files/` holds copies (photos included), `text/` extracted texts (the purge and
 * infra/stack.ts's lifecycle rules name these).
 */
export const FILES_PREFIX = 'files/';
export const TEXT_PREFIX = 'text/';

/** `files/<sourceId>/<docId>`: the stored copy of a document (DOC-3). */
export function fileKey(sourceId: string, docId: string): string {
  return `${FILES_PREFIX}${sourceId}/${docId}`;
}

/**
 * `files/_incoming/…`: where a fetched file lands until it is known to be a valid file (DOC-5: an
 * empty or HTML answer never replaces a copy we hold). Under `files/` so every grant on the copies
 * covers it; `_` cannot begin a source id, so it never meets a copy's key. A run that dies before
 * promoting leaves an object here that the next fetch of that document overwrites, and the bucket's
 * lifecycle rule on this prefix removes what no run comes back for.
 */
export const INCOMING_PREFIX = `${FILES_PREFIX}_incoming/`;

/** The incoming key of a copy's key (`files/<sourceId>/<docId>` → `files/_incoming/<sourceId>/<docId>`). */
export function incomingKey(key: string): string {
  if (!key.startsWith(FILES_PREFIX) || key.startsWith(INCOMING_PREFIX)) {
    throw new Error(`not a copy's key: ${key}`);
  }
  return `${INCOMING_PREFIX}${key.slice(FILES_PREFIX.length)}`;
}

/** `text/<sourceId>/<docId>.txt`: the extracted text (DOC-2). */
export function textKey(sourceId: string, docId: string): string {
  return `${TEXT_PREFIX}${sourceId}/${docId}.txt`;
}

/** `files/<sourceId>/photos/<hash of the person id>`: a person photo (PHO-1). */
export function photoKey(sourceId: string, personId: string): string {
  return `${FILES_PREFIX}${sourceId}/photos/${idHash(personId)}`;
}

/** State table partition of the photo marks of one body (PHO-2); sort key = hash of the person id. */
export function photoPartition(sourceId: string, bodyKey: string): string {
  return `PHOTO#${sourceId}#${bodyKey}`;
}

/** ROB-5: the shared robots.txt cache's prefix in the bucket (shared/store robots-cache.ts). */
export const ROBOTS_PREFIX = 'robots/';

/** S3 key of one robots.txt cache entry: `robots/<host>/<agent-token>.json` (both lower-cased, URL-encoded). */
export function robotsObjectKey(host: string, agentToken: string, prefix = ROBOTS_PREFIX): string {
  return `${prefix}${encodeURIComponent(host.toLowerCase())}/${encodeURIComponent(agentToken.toLowerCase())}.json`;
}

/**
 * OTH-4: a geo source's stock — the FeatureCollection in S3 (`geo/<body>/plans.geojson`) and the State
 * table's partition `GEO#<sourceId>`: `PLAN#<planId>` per plan, `PAPER#<paper id>` per linked paper,
 * and the run state `STATE` (shared/store geo-items.ts).
 */
export const GEO_OBJECT_PREFIX = 'geo';
export const geoPartition = (sourceId: string) => `GEO#${sourceId}`;

export function geoObjectKey(sourceId: string): string {
  return `${GEO_OBJECT_PREFIX}/${sourceId.slice(GEO_ID_PREFIX.length)}/plans.geojson`;
}

/**
 * OTH-5: a broadcast's partition `BROADCAST#<broadcastId>` (State table): `STATUS`, and
 * `MEETING#<meetingKey>` per meeting (shared/store broadcast-items.ts).
 */
export const broadcastPartition = (broadcastId: string) => `BROADCAST#${broadcastId}`;
export const BROADCAST_STATUS_SK = 'STATUS';
export const BROADCAST_MEETING_PREFIX = 'MEETING#';
export const broadcastMeetingSk = (meetingKey: string) => `${BROADCAST_MEETING_PREFIX}${meetingKey}`;
