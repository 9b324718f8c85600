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
 */
export const FILES_TO_GLACIER_IR_AFTER_DAYS = 30;
