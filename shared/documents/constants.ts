/**
 * Policy tables of the document functions (SPEC DOC, DEL, PHO, ERR-6, RATE-6). One constant each,
 * exported, so the generated rules page and the tests read the same numbers as the code.
 */

import { DAY_MS, HOUR_MS, MINUTE_MS } from '../util';

/** The states a document can be in (issue 6); `documents --json` prints these names. */
export const DOCUMENT_STATES = [
  'pending',
  'stored',
  'retrying',
  'blocked-robots',
  'blocked-html',
  'too-large',
  'gone-provisional',
  'gone',
  'disabled',
] as const;
export type DocumentState = (typeof DOCUMENT_STATES)[number];

/**
 * DOC-4: pauses after the 1st … 5th failed attempt in a row caused by a timeout, connection error,
 * empty body, 429, 5xx or unreachable robots.txt (15 min, 1 h, 6 h, 24 h, 72 h).
 */
export const DOC_RETRY_LADDER_MS: readonly number[] = [
  15 * MINUTE_MS,
  HOUR_MS,
  6 * HOUR_MS,
  24 * HOUR_MS,
  72 * HOUR_MS,
];
/** DOC-4: after the ladder, and after any other error (403 included): every 7 days, without end. */
export const DOC_RETRY_WEEKLY_MS = 7 * DAY_MS;

/** DOC-3: per run (the function runs hourly) at most 400 files, at most 200 per source. */
export const CACHE_MAX_FILES_PER_RUN = 400;
export const CACHE_MAX_FILES_PER_SOURCE = 200;
/** DOC-3 / DOC-5: at most 80 MB per file; larger ends the attempts (`too-large`). */
export const CACHE_MAX_FILE_BYTES = 80 * 1000 * 1000;

/** DOC-5: a 404/410 within 7 days after we first recorded the file is provisional. */
export const DOC_GONE_PROVISIONAL_MS = 7 * DAY_MS;

/** DOC-2: text of at most 500 files per body and run, of files up to 50 MB. */
export const TEXT_MAX_FILES_PER_BODY = 500;
export const TEXT_MAX_FILE_BYTES = 50 * 1000 * 1000;
/**
 * DOC-2: a file is downloaded once for text. When that one download fails for a transient reason
 * (the DOC-4 ladder reasons), it is tried again on the ladder, at most this many times in all.
 */
export const TEXT_MAX_DOWNLOADS = DOC_RETRY_LADDER_MS.length + 1;

/**
 * DOC-2 bounds of one text extraction (issue 25). pdf.js reads each file in a worker thread
 * (text-extractor.ts); the main thread stops the worker at the first breach, so one poison file costs
 * at most these, and the pass goes on with the next file. One constant per bound:
 *
 * Time: a file started just before the pass's deadline must end within the files function's reserve
 * (BUDGET_RESERVE_MS, 3 min, functions/files.ts) with its record written — 2 min leaves a minute for
 * S3 and DynamoDB. Measured on main: 20,000 near-empty pages took 75 s; real council files (a few
 * hundred pages) take a few seconds.
 */
export const TEXT_EXTRACTION_TIMEOUT_MS = 2 * MINUTE_MS;
/**
 * Pages: the longest council documents (budget plans) have a few thousand pages. The count is the
 * page tree's own, known before any page is read, so a file above it costs nothing but its parse.
 */
export const TEXT_MAX_PAGES = 5_000;
/**
 * Memory, per file: the worker is stopped when reading one file has grown the process's resident
 * memory by more than this since the file was handed over. A decompression bomb (1 MB inflating to
 * GBs: 2.6 GB RSS on main) is stopped here. A heap bound alone would not do: pdf.js inflates streams
 * into ArrayBuffers, which live outside the V8 heap. A legal 50 MB file needs far less (its parse
 * stays within the worker heap below).
 */
export const TEXT_MAX_MEMORY_GROWTH_BYTES = 768 * 1000 * 1000;
/**
 * Memory, for the function: the worker is also stopped when the whole process passes this, whatever
 * one file added — memory a stopped worker left to the allocator counts too. The files function has
 * 1,536 MB (infra/function-sizes.ts); the 236 MB above this take the growth between two looks
 * (TEXT_MEMORY_CHECK_MS), so the worker is stopped before Lambda ends the whole invocation.
 */
export const TEXT_MAX_PROCESS_RSS_BYTES = 1_300 * 1000 * 1000;
/** How often the main thread looks at the process's resident memory while a file is read. */
export const TEXT_MEMORY_CHECK_MS = 20;
/**
 * The worker's V8 heap (pdf.js's objects, the text): a second, hard bound inside the RSS bound; a
 * breach ends the worker alone (ERR_WORKER_OUT_OF_MEMORY), never the function.
 */
export const TEXT_WORKER_HEAP_MB = 512;
/**
 * DOC-2: after a text attempt from our copy that timed out, breached memory or was interrupted (the
 * invocation died while reading), the next attempt waits 1 h, then 1 d, then 7 d; the attempt after
 * the last pause is the last one (TEXT_MAX_ATTEMPTS). The attempt is recorded before the file is read,
 * so a killed invocation has moved the file back in the queue already.
 */
export const TEXT_RETRY_LADDER_MS: readonly number[] = [HOUR_MS, DAY_MS, 7 * DAY_MS];
export const TEXT_MAX_ATTEMPTS = TEXT_RETRY_LADDER_MS.length + 1;

/** DEL-1: documents the source changed, re-fetched per run. */
export const DEL_MAX_REFETCHES_PER_RUN = 200;
/** DEL-2: HEAD samples per listed body and run. */
export const DEL_SAMPLES_PER_BODY = 30;
/**
 * DEL-2 (our choice, the rule only bounds the number): a stored document is due for its next HEAD
 * sample this long after its last check — after its first sample, at the same time of week in its
 * body's walk (sample-walk.ts), which goes on from where it stopped when a run could not finish.
 */
export const DEL_SAMPLE_INTERVAL_MS = 7 * DAY_MS;
/**
 * DEL-2 (issue 28): a body's sample walk writes its cursor after this many samples in a row are done,
 * and once at the end of the run — so a run that dies repeats at most this many HEADs next hour, and
 * an unchanged sample costs no write of its own (the cursor is one small item in no index).
 */
export const DEL_WALK_CHECKPOINT = 10;
/** DEL-3: re-checks of a document gone with 404/410, days after it was first found gone. */
export const DEL_RECHECKS: readonly { afterDays: number; method: 'HEAD' | 'GET' }[] = [
  { afterDays: 1, method: 'HEAD' },
  { afterDays: 7, method: 'HEAD' },
  { afterDays: 25, method: 'HEAD' },
  // After 30 days one GET before our copy and text are deleted.
  { afterDays: 30, method: 'GET' },
];
/** DEL-3 re-checks per run (our bound; each costs one request at ≥ 2 s per server). */
export const DEL_MAX_RECHECKS_PER_RUN = 400;
/** RATE-6: at least 2 s between two checks of the same server within one run. */
export const DEL_SERVER_SPACING_MS = 2_000;
/** DEL-4: after these statuses the run asks that server nothing more. */
export const DEL_STOP_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** DEL-4: … and after this many errors in a row. */
export const DEL_MAX_ERRORS_IN_ROW = 5;
/** DEL-4: more than this many documents of one source newly gone (404/410) in one run → it rests. */
export const DEL_SOURCE_REST_NEW_GONE = 10;
/** DEL-2: HEAD answers that leave the sample unclear, so one GET follows (shared pace only, RATE-6). */
export const DEL_UNCLEAR_HEAD_STATUSES: ReadonlySet<number> = new Set([400, 403, 405, 501]);

/** 404 and 410: "gone" for DOC-5 and DEL-3. */
export const GONE_STATUSES: ReadonlySet<number> = new Set([404, 410]);

/** PHO-1: persons per body and run; photos checked more than 30 days ago are due again (PHO-2). */
export const PHO_MAX_PERSONS_PER_BODY = 500;
export const PHO_RECHECK_MS = 30 * DAY_MS;
/** PHO-1: pause between two photos, on top of the host pace. */
export const PHO_PAUSE_MS = 100;
/** A person photo larger than this is an error, not a photo. */
export const PHO_MAX_BYTES = 10 * 1000 * 1000;

/**
 * Multipart upload of a streamed file: lib-storage gathers a part (and copies it once) while the
 * previous one is sent, so memory ≈ part size × (queue size + 2) plus garbage not yet collected.
 * S3's smallest part (5 MiB) with one part in flight measured ~45 MB of peak RSS over the baseline for
 * an 80 MB file at the same throughput as 8 MiB × 2 (~80 MB over it) — `npx tsx bench/files.ts`.
 */
export const UPLOAD_PART_BYTES = 5 * 1024 * 1024;
export const UPLOAD_QUEUE_SIZE = 1;

/** Index reads of one run: items routed from the intake and un-parked, at most. */
export const ROUTE_MAX_ITEMS_PER_RUN = 5_000;
export const UNPARK_MAX_ITEMS_PER_RUN = 5_000;
/** Items moved to `disabled` per source and run (DOC-1 / DOC-5). */
export const DISABLE_MAX_ITEMS_PER_SOURCE = 2_000;

/** Servers worked on at once by one run; within one server the work is sequential. */
export const HOSTS_IN_PARALLEL = 4;
/**
 * Issue 28 (lever filesHostsAtOnce), DOC-3: servers the files pass downloads from at once, each one's
 * files one after the other in its host slots (RATE-1 unchanged). Its waits are the hosts' pace, so 16
 * overlap 4 × as many. Measured on the kernel clock (`FILES_POLITENESS_WIDTHS=16,4 npm run bench --
 * files-politeness`: the real pass in its own process, slots through Upstash, 48 councils × 6 PDFs of
 * 400 KB): 0 RATE-1 violations in 4 runs at 16 (load 6.7–16.8 on 2 cores; closest gaps 1,018–1,059 ms)
 * and 3 at 4 (load 10.5–19.2; 1,020–1,028 ms); the downloads took 45–60 s instead of 97–139 s. On that
 * loaded CPU the pass forfeits more late slots at 16 (173–317 of 336 requests, 4: 48–104), each one
 * more Upstash call (3.0 a request instead of 2.3) — not billed on the fixed plan. Memory: 16 streams of
 * 80 MB peak 302 MB over a 182 MB baseline (`FILES_STREAMS=16 npm run bench -- files`), 245 MB settled,
 * in a 1,536 MB function whose text pass — stopped at 1,300 MB — begins after the downloads.
 */
export const FILES_HOSTS_IN_PARALLEL = 16;
/**
 * Issue 28, RATE-6: servers the deletion check asks at once. Its samples and re-checks are HEADs (no
 * body), so memory does not bound them; within one server the checks stay one after the other, at
 * least DEL_SERVER_SPACING_MS apart. At 1,000 sources (≈ 12 samples per server and hour) a run then
 * needs ≈ 1,000 × 12 × 2.3 s ÷ 100 ≈ 280 s of its 900 s (`deletionSampleFit` computes it).
 */
export const DEL_HOSTS_IN_PARALLEL = 100;
/**
 * Issue 28, DEL-2 at 10,000+ sources: sources one deletion-check shard (one invocation of the hourly
 * run) works. Measured (`npm run bench -- deletion-cpu`): ≈ 4.4 ms CPU a sample and ≈ 8–23 ms a source's
 * loads and queue reads a run on one vCPU; at 512 MB (≈ 0.29 vCPU) and ≈ 12 samples a source and hour
 * (2,000 stored files, weekly) a source takes ≈ 0.23–0.28 s of CPU and ≈ 0.27 s of RATE-6 waits
 * (100 servers at once) a run — ≈ 2,800 sources fill the 780 s a run may use; 2,000 leave room for
 * bigger councils and a slower answer.
 */
export const DEL_SOURCES_PER_SHARD = 2_000;
/**
 * Whole-file GETs in one deletion run at once (DEL-1 re-fetches, the GET after an unclear HEAD, the
 * 30-day GET): 4 streams of up to 80 MB, ≈ 112 MB over the baseline as measured (`FILES_STREAMS=4 npm
 * run bench -- files`), in its 512 MB (the files pass's 16 are sized for the files function's 1,536).
 */
export const DEL_BODIES_IN_PARALLEL = HOSTS_IN_PARALLEL;
