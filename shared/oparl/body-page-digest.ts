import { type BodyRecord, stableStringify } from '../engine';
import {
  DIGEST_BASIS_MARGIN_MS,
  DIGEST_REWRITE_AFTER_MS,
  ListDigest,
  type ListDigestData,
  listPartition,
  listTime,
} from '../mirror';
import type { OParlRun } from './run-context';

/**
 * Issue 28: the digest of one body's page in the body list — the body and the objects it embeds (its
 * legislative terms) — so that an incremental run, every 10 minutes by day, does not read the index
 * items of embedded objects it decided against before: they were ≈ 5 of the 6 index items an unchanged
 * OParl run read (measured: `BatchGetItem MIRROR` 3 read units of 6 in the cost bench's unchanged run,
 * ≈ 6.6 M of the sync's 8.35 M units a month at 1,000 sources).
 *
 * It is a `ListDigest` (shared/mirror digest.ts) with the same rules: it only ever lets the writer SKIP
 * an object (no read, no write), never for an object the run's takedowns cover (OPT-5), and only for
 * objects in this body's list partitions (the body object itself is read every time: its commits are in
 * no list partition, so no Query could see them). Staleness:
 * - the basis Query: every commit of an embedded object of this body (a sync's write, a tombstone, an
 *   operator's takedown mark) moves its `byList` sort key past the basis and is forgotten before the page
 *   is written — but for the commits the digest's own run made (`own`);
 * - `takedown lift` drops it with the source's list digests (a purged entry is a removal no Query sees);
 * - a full sync neither trusts nor keeps what it had: it reads the whole page as before issue 28 and
 *   records the digest afresh, so whatever the Query cannot see — a commit of the same object under
 *   another body (the item leaves this body's partition) — is read again at the latest the next night
 *   (FULL-1's nightly reconciliation). An embedded copy replaces ours only when newer anyway.
 * Kept in the body's `BODY#` State item (a few hundred bytes), which the run reads with its other State
 * items in one Query: no S3 GET a run, as a list's digest costs.
 */

/**
 * A list digest's stamp ties its S3 object to the State mark that names it; this digest and its "mark"
 * are one item, so one constant stamp serves (36 bytes of a UUID less on an item every run reads).
 */
const BODY_PAGE_STAMP = 'body';

/** An open body page digest: what the writer is handed, and when it was opened (its next basis). */
export interface OpenBodyPageDigest {
  digest: ListDigest;
  openedAtMs: number;
}

/**
 * The body page's digest for this run: the stored one checked for commits since its basis (incremental
 * runs), or an empty one to record into (full syncs, none stored, or none readable). Undefined when
 * digests are off (`deps.listDigests === false`): every object is looked up, as before issue 28.
 */
export async function openBodyPageDigest(
  run: OParlRun,
  body: BodyRecord,
): Promise<OpenBodyPageDigest | undefined> {
  if (run.deps.listDigests === false) return undefined;
  const openedAtMs = run.nowMs();
  const empty = { digest: ListDigest.empty(), openedAtMs };
  if (run.options.kind !== 'incremental') return empty;
  const opened = ListDigest.open(body.pageDigest, BODY_PAGE_STAMP);
  if (typeof opened === 'string') {
    if (opened !== 'absent') run.log('body-digest-rebuilt', { body: body.bodyKey, reason: opened });
    return empty;
  }
  try {
    const partitions = opened.types().map((type) => listPartition(run.source.sourceId, body.id, type));
    const committed = await run.digests.committedAfter(partitions, listTime(opened.basis as string));
    opened.forgetCommitted(committed);
  } catch (error) {
    // The digest only saves reads: without it every object of the page is looked up.
    run.log('body-digest-unreadable', { body: body.bodyKey, error: (error as Error).message });
    return empty;
  }
  return { digest: opened, openedAtMs };
}

/**
 * After the page's commits: the digest written to the body's item when the page changed it (or its
 * basis is old). A failed write keeps the stored one (its basis still finds this run's commits).
 */
export async function saveBodyPageDigest(
  run: OParlRun,
  body: BodyRecord,
  open: OpenBodyPageDigest | undefined,
): Promise<void> {
  if (open === undefined || !open.digest.needsWrite(run.nowMs())) return;
  // Commits after the opening minus a margin are looked for next time (the index may lag, clocks differ).
  const basis = new Date(open.openedAtMs - DIGEST_BASIS_MARGIN_MS).toISOString();
  const data = open.digest.toData(BODY_PAGE_STAMP, basis);
  // A body that embeds nothing keeps no digest: its item, read every run, stays as small as it was.
  if (body.pageDigest === undefined && Object.keys(data.entries).length === 0) return;
  if (run.options.kind !== 'incremental' && learntNothing(body.pageDigest, data, run.nowMs())) return;
  try {
    await run.state.setBodyPageDigest(body.bodyKey, data);
  } catch (error) {
    run.log('body-digest-not-written', { body: body.bodyKey, error: (error as Error).message });
  }
}

/**
 * Pure: a full sync's digest (recorded afresh, never trusted) says what the stored one says — the same
 * entries — and the stored one's basis is recent: no write (one a night per
 * body before). The stored basis stays: its Query looks further back, which only ever forgets more.
 */
export function learntNothing(stored: unknown, fresh: ListDigestData, nowMs: number): boolean {
  const old = stored as Partial<ListDigestData> | undefined;
  if (old?.entries === undefined) return false;
  const recent = typeof old.basis === 'string' && nowMs - Date.parse(old.basis) <= DIGEST_REWRITE_AFTER_MS;
  return recent && stableStringify(old.entries) === stableStringify(fresh.entries);
}
