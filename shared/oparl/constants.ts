/**
 * Numbers and names of the OParl sync policy (SPEC SCH-8…SCH-12, FULL-5…FULL-7). One constant each,
 * exported, so tests and the generated rules page read the same values as the code.
 */

/** SCH-8: the body list is read across all pages, at most this many. */
export const BODY_LIST_MAX_PAGES = 20;

/** SCH-9: the change window reaches back to the last complete sync start minus this margin … */
export const CHANGE_WINDOW_MARGIN_MS = 2 * 60 * 60 * 1000;
/** … but never further back than this. */
export const CHANGE_WINDOW_MAX_MS = 7 * 24 * 60 * 60 * 1000;

/** SCH-10: without a working filter, a list read from the start stops after this many unchanged pages. */
export const UNFILTERED_STOP_AFTER_UNCHANGED_PAGES = 5;
/** SCH-10: an inconclusive filter check after a full sync is repeated once after this pause. */
export const FILTER_RECHECK_DELAY_MS = 60_000;
/**
 * SCH-10 / FULL-7: how far outside the asked range an object's `modified` may lie before we conclude the
 * server ignores the filter. Servers compare in their own time zone or by date only; a day absorbs that.
 */
export const FILTER_TOLERANCE_MS = 24 * 60 * 60 * 1000;

/** SCH-11: a missing optional list is asked again by the incremental sync at most once a day. */
export const MISSING_LIST_RECHECK_MS = 24 * 60 * 60 * 1000;

/** SCH-12: a request unanswered after this long marks the list slow (as does HTTP 504). */
export const SLOW_LIST_TIMEOUT_MS = 60_000;
/** SCH-12: skip ladder of a slow optional list, in hours: 1, 2, 4, 8, 16, then 24 at most. */
export const SLOW_LIST_SKIP_HOURS: readonly number[] = [1, 2, 4, 8, 16, 24];
/** SCH-12: catch-up of a slow list's missed changes in chunks of this size (filtering systems). */
export const CATCH_UP_CHUNK_DAYS = 1;

/** FULL-5: everything modified before this instant forms the first slice (`modified_until` only). */
export const SLICE_EPOCH_LOCAL = '2010-01-01T00:00:00';
/** FULL-5: then slices of this many days, old → new, up to the one containing now. */
export const SLICE_DAYS = 30;

/** Request timeout of one list page: SCH-12 counts a page unanswered after 60 s as slow. */
export const PAGE_TIMEOUT_MS = SLOW_LIST_TIMEOUT_MS;

/**
 * A page loop guard independent of `links.next` cycle detection: no council list has more pages than
 * this (the largest known systems hold ~500k papers at ≥ 10 per page); beyond it we stop the list.
 */
export const MAX_PAGES_PER_LIST = 100_000;

/**
 * Bounds of one API page, checked as it is parsed. `JSON.parse` reads any depth, but every walk over the
 * result (embedded objects, content hash, serialising to the mirror) recurses, and a ~20 KB page of
 * 10,000 nested brackets overflows its stack. Real OParl pages nest about 10 levels (page → data →
 * meeting → agendaItem → file; GeoJSON coordinates 4 more): a page deeper than this is refused as a
 * failure of its list.
 */
export const MAX_PAGE_JSON_DEPTH = 64;

/**
 * JSON objects in one page (the page, its items and all they embed). Each embedded object with an id is
 * mirrored on its own; real pages hold at most a few thousand (≈ 100 items × ~50 embedded). A page with
 * more is refused as a failure of its list, so one page cannot turn into an unbounded number of writes.
 */
export const MAX_PAGE_JSON_OBJECTS = 20_000;
