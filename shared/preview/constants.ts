/**
 * Policy numbers of the document preview (SPEC PRV-1 … PRV-4), one exported constant each so the
 * tests and the rules page read the same values as the code.
 */

/** PRV-1: total wait for a concurrency place, robots.txt and a slot (redirects included). */
export const PREVIEW_MAX_WAIT_MS = 5_000;
/** PRV-2: on-demand source fetches at once per process (function instance / `serve`). */
export const PREVIEW_MAX_FETCHES_PER_INSTANCE = 4;
/**
 * PRV-2 (our bound across instances): on-demand fetches at once in all instances together, kept in
 * Redis. The per-host pace and the two in-flight places (RATE-1, RATE-4) still bind each server.
 */
export const PREVIEW_MAX_FETCHES_GLOBAL = 40;
/** How long a global place outlives a crashed holder: longer than a whole 80 MB transfer may take. */
export const PREVIEW_GLOBAL_LEASE_MS = 10 * 60_000;
/**
 * PRV-1: how long one Redis call of the PRV-2 limits may take. Upstash answers in milliseconds; a call
 * beyond this means Redis is unreachable, and the preview answers without it (stored copies served,
 * fetches 503) well inside the 5 s budget instead of hanging or failing.
 */
export const PREVIEW_LIMITS_CALL_MS = 1_000;
/** PRV-2: requests per visitor address and minute. */
export const PREVIEW_VISITOR_LIMIT = 20;
export const PREVIEW_VISITOR_WINDOW_MS = 60_000;
/** The salt of visitor hashes lives one day, so a hash cannot be linked to an address for longer. */
export const PREVIEW_SALT_TTL_MS = 24 * 60 * 60_000;
/** Retry-After when no better time is known (PRV-1 503). */
export const PREVIEW_DEFAULT_RETRY_AFTER_S = 5;
export const PREVIEW_MAX_RETRY_AFTER_S = 3_600;
/** A document id is the Documents table key: SHA-256 of the file URL, lower-case hex. */
export const PREVIEW_DOC_ID_PATTERN = /^[0-9a-f]{64}$/;
/** Source, state and body lookups are reused this long within one process (config changes apply soon). */
export const PREVIEW_CONTEXT_TTL_MS = 30_000;
/** Redis keys of the preview (beside the slots' `ingestor:slots:`). */
export const PREVIEW_KEY_PREFIX = 'ingestor:preview:';
/**
 * Coalescing (PRV-2, the bench goal "100 visitors at once → 1 source request"): a finished fetch of an
 * unlisted body's file (not stored, PRV-3) up to 16 MB keeps serving openings of the same document for 2 s from memory. PRV-3's "every
 * opening asks the source" is read as every opening after that rush; nothing is stored.
 */
export const PREVIEW_LINGER_MS = 2_000;
export const PREVIEW_LINGER_MAX_BYTES = 16 * 1024 * 1024;
/**
 * A stored copy is not streamed through the function: the visitor is redirected to a presigned S3 URL
 * valid this long (S3 then serves Range requests and large files). Short, so a takedown or purge
 * (OPT-2/3) stops serving a copy within minutes even to someone who kept the link.
 */
export const PREVIEW_STORED_URL_TTL_S = 300;
/**
 * How long a redirect to a stored copy may be reused (browser, CloudFront): well inside
 * PREVIEW_STORED_URL_TTL_S, so a cached redirect never points to an expired URL.
 */
export const PREVIEW_STORED_REDIRECT_MAX_AGE_S = 60;
/**
 * OParl 1.1 `File.downloadUrl` is the URL "to download the file": the document endpoint's one query
 * parameter, `?download=1`, delivers every type as an attachment — a PDF too, which without it is shown
 * inline. The API links to it (shared/mirror-api/urls.ts); CloudFront keys its cache by it and forwards
 * no other parameter (infra/stack.ts), so the two variants are cached apart and nothing else splits them.
 */
export const PREVIEW_DOWNLOAD_PARAM = 'download';
/** The one value PREVIEW_DOWNLOAD_PARAM takes; any other is refused with 400 (delivery.ts says why). */
export const PREVIEW_DOWNLOAD_VALUE = '1';

/**
 * RATE-9 (issue 27 item 5): a preview refused because its host has no budget left asks the visitor to
 * come back after this long — the host ledger counts other fetches over minutes (OTHER_FETCH_BUCKET_MS),
 * so a retry within seconds would only be refused again.
 */
export const PREVIEW_HOST_BUSY_RETRY_AFTER_S = 60;

/**
 * RATE-9: the learnt figures of a host's sources (their expected requests, from the State table) are
 * re-read at most this often per process and host — the same five minutes as the Sources cache, so a
 * preview is judged with the cadence the planner plans with.
 */
export const PREVIEW_HOST_SOURCES_TTL_MS = 5 * 60_000;
