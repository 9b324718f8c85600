/**
 * Numbers and names of the OParl 1.1 API over the mirror (docs/mirror-api.md), one constant each.
 */

/** Every path of the API begins with this (beside the preview's `/documents/…`); the mirror names ids by it. */
export { API_PREFIX } from '../mirror';
export const OPARL_VERSION_URL = 'https://schema.oparl.org/1.1/';

/** Page sizes like the origins': at least 20, at most 100 objects per list page. */
export const PAGE_SIZE_MIN = 20;
export const PAGE_SIZE_MAX = 100;
export const PAGE_SIZE_DEFAULT = 50;

/**
 * Vendor properties (OParl allows vendor-prefixed extensions): the object's id at its origin and the
 * source it was mirrored from, so a client can always trace a copy back.
 */
export const VENDOR_PREFIX = 'mandari:';
export const ORIGIN_ID_PROPERTY = `${VENDOR_PREFIX}originId`;
export const SOURCE_PROPERTY = `${VENDOR_PREFIX}source`;
/** The origin's `modified`; the API's own `modified` is our commit time (docs/mirror-api.md). */
export const ORIGIN_MODIFIED_PROPERTY = `${VENDOR_PREFIX}originModified`;

/**
 * CDN and client caching. Objects change at most once per sync, so five minutes is cheap freshness;
 * list pages are what incremental clients poll, so they stay fresh within a minute. ETags make every
 * revalidation a 304 without a body.
 */
export const OBJECT_MAX_AGE_S = 300;
export const LIST_MAX_AGE_S = 60;

/** Source bodies (listed or not) are reused this long within one process: listing applies soon. */
export const BODIES_TTL_MS = 30_000;

/** Parallel S3 reads of the object bodies of one list page. */
export const OBJECT_READ_CONCURRENCY = 16;

/**
 * Behind CloudFront: the public base URL (`https://<distribution or custom domain>`) that the
 * distribution's viewer-request function sets on every API request — the Function URL sees only its own
 * host. Only CloudFront can call the URL (origin access control), so the header cannot be forged.
 */
export const API_BASE_HEADER = 'x-mandari-api-base';

/**
 * The query parameters the API reads (issue 25 point 4, OParl 1.1 Filter and paging), in the order its
 * links write them. Nothing else is part of a list's identity: the handler ignores other names, its links
 * never carry them, and CloudFront's cache policy keys (and forwards) only these.
 */
export const API_QUERY_PARAMETERS: readonly string[] = [
  'created_since',
  'created_until',
  'modified_since',
  'modified_until',
  'limit',
  'cursor',
];
