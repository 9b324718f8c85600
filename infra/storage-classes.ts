/**
 * Storage classes of the mirror bucket (issue 28, lever "storage classes").
 *
 * Stored copies of council files (`files/…`, DOC-3) are written once and read rarely after their first
 * weeks (a preview visit, a re-fetch by the deletion check overwrites the key with a new Standard
 * object). After this many days a lifecycle rule moves them to S3 Glacier Instant Retrieval: about a
 * fifth of Standard's storage price, with a per-GB retrieval fee and a 90-day minimum that fit files
 * kept for years and seldom read. Glacier Instant Retrieval (unlike Glacier Flexible Retrieval or Deep
 * Archive) answers a GetObject in milliseconds without a restore, so a preview's presigned GET (which
 * signs a GetObject of the key, not a class) works unchanged, and the `s3:GetObject` grants stay as
 * they are. Texts (`text/…`) and mirror records stay in Standard: the API and the change feed read them
 * often, where the retrieval fee would cost more than the storage saves.
 *
 * 30 days: after the 90-day minimum of the class a transition at 30 days is billed like a
 * 90-day stay only for files deleted within 60 days of the transition (DEL-3 deletions, rare).
 *
 * Weighed and not built (issue 28, bench/cost/file-class-choice.ts, `s3FileClasses` in the cost bench at
 * 1,000 sources): writing a copy in Glacier IR at PUT saves the transition and its Standard month but
 * pays Glacier IR reads of young files — the preview's visits (70 % go to files younger than 30 days)
 * and the text extraction's read right after the store: €1.62 → €4.46 a month. Intelligent-Tiering for
 * every copy: its monitoring fee (≈ 1.1 M copies ≥ 128 KB) passes the retrieval fees it would save —
 * €6.53 → €7.73. A later transition pays only for files read ≥ 0.41 times a month; old files are read
 * ≈ 0.03 times (assumptions.ts `previewOldFileShare`, visits spread evenly).
 */
export const FILES_TO_GLACIER_IR_AFTER_DAYS = 30;

/**
 * Issue 28: only file copies larger than this move (the rule's `ObjectSizeGreaterThan`). A transition is
 * one request per object ($0.02 per 1,000) and Glacier IR bills an object as 128 KiB at the least, so a
 * small file's move pays back only after months: ≈ 95 KB within a year, ≈ 61 KB within two, ≈ 49 KB
 * within three (bench/cost file-sizes.ts `transitionBreakEvenBytes`, prices of bench/cost/prices.ts).
 * Files are kept for years (≈ 2.5 years of history a source in the cost model): 64 KiB is the cheapest
 * threshold of the cost bench's steady state (file-sizes.ts `tierMonthUsd`, test/cost/file-sizes.test.ts)
 * — below S3's default of 128 KiB since 2024-09, which a rule's filter overrides.
 */
export const FILES_TO_GLACIER_IR_MIN_BYTES = 64 * 1024;
