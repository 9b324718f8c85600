/**
 * The mirror's change feed (issue 16, docs/mirror-api.md): one constant each.
 */

/** EventBridge accepts at most 10 entries per PutEvents call. */
export const CHANGE_BATCH_MAX = 10;

/** `source` and `detail-type` of every change event: what a consumer's EventBridge rule matches on. */
export const CHANGE_EVENT_SOURCE = 'mandari.ingestor';
export const CHANGE_DETAIL_TYPE = 'Mirror object changed';

/**
 * Events a publish could not deliver wait in the State table under this partition (the outbox) until a
 * later flush delivers them. One partition: it holds only undelivered events, normally none.
 */
export { OUTBOX_PARTITION } from '../store';

/**
 * How often a process looks into the outbox even when it outboxed nothing itself (another instance may
 * have): one Query of an empty partition (0.5 read units) per five minutes and process.
 */
export const OUTBOX_DRAIN_INTERVAL_MS = 5 * 60_000;

/** Outboxed events delivered per flush at most, so a long outage's backlog drains over several syncs. */
export const OUTBOX_DRAIN_MAX = 100;

/** Local mode: the feed is appended, one JSON event per line, to this file under `.data/`. */
export const LOCAL_CHANGES_FILE = 'changes.jsonl';
