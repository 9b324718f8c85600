/**
 * Numbers and names of the robots.txt policy (SPEC ID, ROB). One constant each, exported, so the
 * generated rules page and the tests read the same values as the code.
 */

/** ID-1: our product token; its group is always checked (ROB-3, OPT-1). */
export const PRODUCT_TOKEN = 'mandari-ingestor';

/**
 * ROB-3: tokens we used in the past. Their groups are checked only when the file names them
 * explicitly, and they can only forbid (no `*` fallback for them).
 */
export const LEGACY_TOKENS: readonly string[] = ['mandari-file-cache', 'mandari'];

/** ROB-5: at most 500 KiB of a robots.txt are evaluated; bytes after that are ignored. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/** ROB-5: a fetched robots.txt (or its absence) is trusted for 24 h per (hostname, agent). */
export const ROBOTS_CACHE_TTL_MS = 24 * 60 * 60 * 1000;

/** ROB-7: an unreachable robots.txt is retried no earlier than 15 minutes later. */
export const ROBOTS_UNREACHABLE_RETRY_MS = 15 * 60 * 1000;

/** RATE-8: a `Retry-After` on the robots.txt answer postpones the retry, capped at 24 h. */
export const ROBOTS_RETRY_AFTER_CAP_MS = 24 * 60 * 60 * 1000;

/** ROB-7 / RED-1: more than five redirects make robots.txt unreachable. */
export const ROBOTS_MAX_REDIRECTS = 5;

/** ROB-8: when robots.txt allows no request of a source, the sync tries again no earlier than this. */
export const ROBOTS_ALLOWS_NOTHING_RETRY_MS = 24 * 60 * 60 * 1000;

/** ROB-10: `Crawl-delay` is honoured as a lower bound of the host interval, capped at 60 s. */
export const CRAWL_DELAY_CAP_SECONDS = 60;

/** ROB-4: this path is always allowed, whatever the rules say (we must be able to read them). */
export const ROBOTS_TXT_PATH = '/robots.txt';
