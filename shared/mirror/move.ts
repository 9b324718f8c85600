import { IngestorError } from '../errors';
import {
  type AwsClients,
  type IndexItem,
  type MirrorMoveCheckpoint,
  type MirrorMoveStep,
  MirrorTableMove,
  type MirrorTablePhase,
} from '../store';
import { mapLimit } from '../util';
import { writePacer } from './backfill';

/**
 * Items a second by default for the Mirror table's bulk commands (the move's copy, `mirror rebuild`),
 * from the table's capacity: it is on-demand (infra/table-capacity.ts DECIDED_CAPACITY) and takes
 * 4,000 write units a second at once as a new table (AWS's initial on-demand throughput), but at most
 * 1,000 a second into one partition — and both commands walk their source in key order, so their writes
 * fall into one `MIRROR#<source>#<type>` partition after another. An item costs 2 write units (⌈KB⌉
 * of the average item, bench/cost/mirror-move.ts) and 1 more in `byList`: 200 items a second are 400
 * units on the hot partition (40 % of its limit, the syncs' own writes there beside it) and 600 on the
 * table (15 %; its own peak, the 03:00 full syncs, is ≈ 125). The move's reads of State (on-demand
 * while it moves, infra/stack.ts) are 200 units a second. 13 M items (1,000 sources) take 18 hours; at
 * 60 a second (backfill-index's pace) they took 60. `--rate` goes up to 1,000 (≈ 3.6 hours): spread
 * such a rise over 30 minutes (on-demand doubles its previous peak within that).
 */
export const MIRROR_BULK_DEFAULT_RATE = 200;

/**
 * Records or items both bulk commands (this copy, `mirror rebuild`) have in flight at once. The rate
 * above, not this, protects the table; this only has to be high enough for the rate to be reached:
 * an item waits on its requests one after another (the rebuild: S3 GET, then the conditional PutItem;
 * the copy: Mirror GetItem, PutItem, State GetItem), so a run does concurrency ÷ Σ latency a second.
 * In the region (S3 first byte ≈ 30 ms, bench/cost/assumptions.ts `apiS3RoundSeconds`; a DynamoDB
 * request ≈ 10 ms, assumed) 16 make ≈ 400 rebuilt records a second, twice the rate (the rebuild's
 * own 8 made ≈ 200, no margin for its page barriers); from an operator's machine outside the region
 * (≈ 100 ms a request, assumed) 16 make ≈ 80 records a second (8 made ≈ 40) and the copy ≈ 53 items —
 * below the rate: docs/operations.md "The mirror table" gives both durations.
 */
export const MIRROR_BULK_CONCURRENCY = 16;

/**
 * Issue 28: `ingestor migrate mirror-table` — the mirror's object items move from State (PITR on, its
 * takedown registry and leases cannot be rebuilt) to the Mirror table (no PITR, Standard-IA: the
 * index can be rebuilt from S3). A two-deploy rollout (docs/operations.md "The mirror table"):
 *
 * 1. deploy `-c mirrorTable=dual`: every writer writes State, then Mirror; every reader reads State.
 * 2. `copy` (this, in `dual` only): each State item the Mirror table lacks, or holds older, is copied —
 *    conditional on what the Mirror table held when read, so a sync's newer commit or a takedown's mark
 *    written there meanwhile wins (OPT-5: a mark there is never overwritten); then the State item is
 *    read again, and when it changed meanwhile (a commit, a mark) the item is decided again, and when
 *    it is gone (a purge, OPT-3) our copy is deleted: nothing comes back that a purge removed.
 * 3. deploy `-c mirrorTable=own`: Mirror only.
 * 4. `delete-old` (in `own` only): the State items are deleted (they cost storage and PITR until then),
 *    each only where the Mirror table holds its key — what it lacks is counted, kept, and named.
 *
 * Resumable: each step saves where its Scan stopped after every page (a State item outside the mirror's
 * partitions); a rerun after a crash continues there — items of the page in flight are decided again,
 * which their conditions make harmless. Idempotent: a finished step does nothing unless `restart`.
 * Paced like `backfill-index` (`ratePerSecond` writes at most).
 */
export interface MirrorMoveOptions {
  step: MirrorMoveStep;
  /** The deployed phase (MIRROR_TABLE_PHASE): `copy` runs in `dual` only, `delete-old` in `own` only. */
  phase: MirrorTablePhase;
  ratePerSecond: number;
  /** Scan from the start although the step finished (e.g. one more copy pass just before deploy 2). */
  restart?: boolean;
  /** Items the Scan evaluates per page (one checkpoint per page). */
  pageSize?: number;
  /**
   * Items of a page decided at once (each on its own key, so independent): one item is three requests
   * one after another, ≈ 30 ms in the region and ≈ 100 ms from an operator's laptop, so one at a time
   * could not reach a rate above ≈ 10–30 a second.
   */
  concurrency?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface MirrorMoveReport {
  step: MirrorMoveStep;
  /** The step had finished before and was not restarted: nothing read, nothing written. */
  alreadyDone: boolean;
  /** Whether it went to the end of the table (false: a rerun continues). */
  done: boolean;
  /** Counts of this step, over every run of it since its start. */
  counts: Record<MoveOutcome, number>;
  /** `delete-old`: the keys of some State items the Mirror table lacks (kept). */
  missing: string[];
}

export type MoveOutcome =
  /** State items read. */
  | 'scanned'
  /** Copied into (copy) or deleted from State (delete-old). */
  | 'written'
  /** Held by the Mirror table as new or newer (copy) — nothing to do. */
  | 'present'
  /** Purged while being copied: our copy deleted again. */
  | 'purged'
  /** Changed on every attempt: left to the next run (`restart`). */
  | 'raced'
  /** delete-old: not in the Mirror table, kept. */
  | 'missing';

/** The move's steps refuse a phase they are not safe in. */
export class MirrorMovePhaseError extends IngestorError {
  constructor(step: MirrorMoveStep, phase: MirrorTablePhase) {
    super(
      'MIRROR_MOVE_PHASE',
      `migrate mirror-table ${step === 'copy' ? '' : '--delete-old '}needs the stack in phase ${
        step === 'copy' ? 'dual' : 'own'
      } (-c mirrorTable=${step === 'copy' ? 'dual' : 'own'}), it is in ${phase}: docs/operations.md "The mirror table"`,
    );
  }
}

/**
 * Copy only while every writer writes State first (`dual`): after deploy 2 a purge removes only the
 * Mirror item, and a copy from State would bring it back. Delete only when nothing reads State (`own`).
 */
const STEP_PHASE: Record<MirrorMoveStep, MirrorTablePhase> = { copy: 'dual', 'delete-old': 'own' };
const DEFAULT_PAGE = 500;
/** Decisions of one item while writers keep changing it; then it is left to the next run. */
const ITEM_ATTEMPTS = 4;
/** Keys of kept items the report names (the count is complete). */
const MISSING_NAMED = 20;

/**
 * Pure: whether the State item `old` goes over what the Mirror table holds (`held`). A mark there wins
 * (OPT-5, a takedown in flight) — unless it is `lifted`: State, read after that Mirror item, lacks the
 * mark. Every takedown marks State first and every lift unmarks State first (`mirrorItemTables`), so
 * such a mark is one a `takedown lift` removed from State while the copy was writing it into the Mirror
 * table (the lift found no Mirror item to unmark), or a lift in flight. A new takedown meanwhile replaces
 * such a mark there (`MirrorIndex.markTakenDown`), so the copy's write, conditional on the mark it read,
 * is refused rather than clearing the new one. A mark in State the Mirror
 * table lacks is copied (a takedown that died between its two writes), and so is a newer commit (a
 * sync that did).
 */
export function copyWanted(old: IndexItem, held: IndexItem | undefined, lifted = false): boolean {
  if (held === undefined) return true;
  if (held.takedown !== undefined)
    return lifted && old.takedown === undefined && String(old.fetchedAt) >= String(held.fetchedAt);
  if (old.takedown !== undefined) return true;
  return String(old.fetchedAt) > String(held.fetchedAt);
}

/** Pure: whether two reads of a State item are the same commit with the same mark. */
export function sameVersion(a: IndexItem, b: IndexItem): boolean {
  return (
    a.fetchedAt === b.fetchedAt &&
    a.deleted === b.deleted &&
    (a.takedown === undefined) === (b.takedown === undefined)
  );
}

export async function moveMirrorTable(
  clients: Pick<AwsClients, 'doc'>,
  tables: { state: string; mirror: string },
  options: MirrorMoveOptions,
): Promise<MirrorMoveReport> {
  if (options.phase !== STEP_PHASE[options.step]) throw new MirrorMovePhaseError(options.step, options.phase);
  if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
  const move = new MirrorTableMove(
    { doc: clients.doc, table: tables.state },
    { doc: clients.doc, table: tables.mirror },
  );
  const saved = options.restart ? undefined : await move.checkpoint(options.step);
  const counts = { ...emptyCounts(), ...(saved?.counts ?? {}) };
  const report: MirrorMoveReport = {
    step: options.step,
    alreadyDone: false,
    done: false,
    counts,
    missing: [],
  };
  if (saved?.done) return { ...report, alreadyDone: true, done: true };
  // A restart forgets the finished step at once: one that dies on its first page is continued by a
  // plain rerun, not reported done by the previous pass's checkpoint.
  if (options.restart) await move.saveCheckpoint(options.step, { done: false, counts });
  const paced = writePacer(options);
  let next = saved?.next;
  do {
    const page = await move.scanPage(next, options.pageSize ?? DEFAULT_PAGE);
    await mapLimit(page.items, options.concurrency ?? MIRROR_BULK_CONCURRENCY, async (item) => {
      counts.scanned += 1;
      const outcome =
        options.step === 'copy' ? await copyItem(move, item, paced) : await deleteOldItem(move, item, paced);
      counts[outcome] += 1;
      if (outcome === 'missing' && report.missing.length < MISSING_NAMED)
        report.missing.push(`${String(item.pk)} ${String(item.sk)}`);
    });
    next = page.next;
    const checkpoint: MirrorMoveCheckpoint = { done: next === undefined, counts, ...(next ? { next } : {}) };
    await move.saveCheckpoint(options.step, checkpoint);
  } while (next !== undefined);
  return { ...report, done: true };
}

function emptyCounts(): Record<MoveOutcome, number> {
  return { scanned: 0, written: 0, present: 0, purged: 0, raced: 0, missing: 0 };
}

/**
 * One State item into the Mirror table: decided against what the Mirror table holds, written only over
 * that, confirmed against State read again (see `moveMirrorTable`). A Mirror mark State lacks is decided
 * against State read after it (`copyWanted`'s `lifted`).
 */
async function copyItem(
  move: MirrorTableMove,
  read: IndexItem,
  paced: () => Promise<void>,
): Promise<MoveOutcome> {
  let old = read;
  let copied: IndexItem | undefined;
  for (let attempt = 0; attempt < ITEM_ATTEMPTS; attempt++) {
    const held = await move.readNew(old);
    let lifted = false;
    if (held?.takedown !== undefined && old.takedown === undefined) {
      const after = await move.readOld(old);
      if (after === undefined) return purged(move, copied);
      old = after;
      lifted = after.takedown === undefined;
    }
    if (copyWanted(old, held, lifted)) {
      await paced();
      // Refused: the Mirror item changed since it was read (a commit, a mark) — decide again.
      if (!(await move.copy(old, held))) continue;
      copied = old;
    }
    const now = await move.readOld(old);
    if (now === undefined) return purged(move, copied);
    if (sameVersion(now, old)) return copied !== undefined ? 'written' : 'present';
    old = now;
  }
  return 'raced';
}

/** OPT-3: purged meanwhile — its purge may have passed the Mirror table before our copy landed. */
async function purged(move: MirrorTableMove, copied: IndexItem | undefined): Promise<MoveOutcome> {
  if (copied !== undefined) await move.deleteCopy(copied);
  return 'purged';
}

/** One State item deleted after the move, only where the Mirror table holds its key. */
async function deleteOldItem(
  move: MirrorTableMove,
  item: IndexItem,
  paced: () => Promise<void>,
): Promise<MoveOutcome> {
  if ((await move.readNew(item)) === undefined) return 'missing';
  await paced();
  await move.deleteOld(item);
  return 'written';
}
