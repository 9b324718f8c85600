import { IngestorError } from '../errors';
import {
  type AwsClients,
  type IndexItem,
  MirrorIndex,
  type MirrorRebuildCheckpoint,
  MirrorRebuildCheckpoints,
  MirrorRecords,
  type MirrorTablePhase,
  markedItem,
} from '../store';
import { mapLimit } from '../util';
import { writePacer } from './backfill';
import { listSort, MIRROR_PREFIX, mirrorKey } from './keys';
import { MIRROR_BULK_CONCURRENCY } from './move';
import { indexItemOf } from './store';
import type { MirrorIndexEntry, MirrorRecord } from './types';

/**
 * Issue 28: `ingestor mirror rebuild` — the Mirror table (no PITR) rebuilt from the S3 records it
 * indexes. Each record (`mirror/<source>/<type>/<api id>.json`, `{ object, meta }`) gives the item the
 * sync's commit wrote (`indexItemOf`, the same function): the content hash as the source's versioning
 * computed it (`versionOf`), `modified`, the list keys, the inline copy.
 *
 * OPT-5, the takedown registry and the tombstones are the authority — nothing taken down comes back:
 * - an object the registry covers (itself, its body, the object it is embedded in) is written as the
 *   mark leaves it (`markedItem`: deleted, no inline copy, its record sealed) and never live for a
 *   moment; an item held unmarked gets the mark (`seal`). A record that is an operator's tombstone the
 *   registry no longer covers was lifted: deleted as the lift left it, unmarked (`itemToWrite`);
 * - a takedown issued while the rebuild runs: the rebuild writes a page's items, then reads the
 *   registry again and seals what it covers now; `tombstone` writes the registry, then looks the item
 *   up — one of the two sees the other (the sync's protocol, shared/takedown guard.ts);
 * - a source's tombstone (OPT-2) is rebuilt as a deleted item, never live.
 * Never over a newer item: a write is conditional on the table holding nothing, or an older commit
 * (`fetchedAt`) without a mark — a sync committing meanwhile wins. Objects of unlisted bodies get their
 * list keys as the sync gives them; the API hides them by the body's record (ONB-4), which is in State.
 *
 * Resumable: the last record key of each finished page is saved (State); a rerun continues after it,
 * deciding the page in flight again, which the conditions make harmless. Idempotent: a rerun over a
 * rebuilt table writes nothing (`present`). A record that cannot be read (not JSON, its meta not
 * matching its key) is counted and named and loses nothing else. Paced at `ratePerSecond` records.
 * Runs only with the stack in `own` (in `dual`, rerun `migrate mirror-table --restart`; before the move
 * the items are in State, which has PITR). The API list counters are not touched: `backfill-index`
 * recounts them afterwards.
 */
export interface MirrorRebuildOptions {
  /** One source, or every record under `mirror/`. */
  sourceId?: string;
  phase: MirrorTablePhase;
  ratePerSecond: number;
  dryRun?: boolean;
  /** Start from the first record although a rebuild of this scope finished. */
  restart?: boolean;
  /** Record keys per page (one checkpoint, one registry read per source per page). */
  pageSize?: number;
  /** Records in flight at once within a page. */
  concurrency?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What the rebuild needs from above the mirror (the CLI composes it from shared/engine and shared/takedown). */
export interface MirrorRebuildDeps {
  /** The hash and `modified` the source's versioning gave the stored object (shared/engine). */
  versionOf: (sourceId: string, object: unknown) => { hash: string; modified?: string };
  /** One source's takedowns, read strongly consistent: the mark that covers a subject, if any. */
  takedowns: (sourceId: string) => Promise<TakedownCover>;
  /** Completes an object's takedown: its item marked (unless it is), its record an operator's tombstone. */
  seal: (entry: MirrorIndexEntry, mark: RebuildMark) => Promise<void>;
}

/** An operator's mark as the registry and the records carry it (shared/takedown `TakedownMark`). */
export interface RebuildMark {
  at: string;
}
export type TakedownCover = (subject: {
  id: string;
  bodyId?: string;
  parentId?: string;
}) => RebuildMark | undefined;

export type RebuildOutcome =
  /** Records listed. */
  | 'scanned'
  /** Items written (or that would be, in a dry run). */
  | 'written'
  /** The table holds this commit already. */
  | 'present'
  /** The table holds a newer commit (a sync's): left as it is. */
  | 'newer'
  /** Taken down (record, registry, or the item's own mark): written or left marked, never live. */
  | 'takenDown'
  /** Of `written`: taken down while the rebuild ran, sealed after the write. */
  | 'sealed'
  /** Records that cannot be read: named in the report, nothing else lost. */
  | 'unreadable'
  /** Changed by writers on every attempt: left as they left it (`--restart` decides it again). */
  | 'raced';

export interface MirrorRebuildReport {
  scope: string;
  alreadyDone: boolean;
  done: boolean;
  dryRun: boolean;
  counts: Record<RebuildOutcome, number>;
  /** Some unreadable records' keys and why (the count is complete). */
  unreadable: string[];
}

/** A record that cannot give an item. */
export class MirrorRecordUnreadableError extends IngestorError {
  constructor(key: string, why: string) {
    super('MIRROR_RECORD_UNREADABLE', `${key}: ${why}`);
  }
}

/** The rebuild refuses a phase whose items are not the Mirror table's alone. */
export class MirrorRebuildPhaseError extends IngestorError {
  constructor(phase: MirrorTablePhase) {
    super(
      'MIRROR_REBUILD_PHASE',
      `mirror rebuild needs the stack in phase own (-c mirrorTable=own), it is in ${phase}: in dual run migrate mirror-table --restart; in state the items are in State (PITR) — docs/operations.md "The mirror table"`,
    );
  }
}

const DEFAULT_PAGE = 1000;
/** Decisions of one record while writers keep changing its item; then `raced` into the next run. */
const ITEM_ATTEMPTS = 4;
const UNREADABLE_NAMED = 20;

/** One record made into its item: the reference, the item, and the mark it must carry (if any). */
export interface RebuiltItem {
  entry: MirrorIndexEntry;
  item: IndexItem;
  /** The subject the registry is asked about. */
  subject: { id: string; bodyId?: string; parentId?: string };
  /** The operator's mark the record carries (an operator's tombstone). */
  recordMark?: RebuildMark;
}

/**
 * Pure: the item a record gives — what the sync's commit of it wrote (`indexItemOf`), and for an
 * operator's tombstone what the mark left (`markedItem`). Throws `MirrorRecordUnreadableError`.
 */
export function rebuiltItemOf(
  key: string,
  record: unknown,
  versionOf: MirrorRebuildDeps['versionOf'],
): RebuiltItem {
  const meta = (record as Partial<MirrorRecord> | undefined)?.meta;
  if (meta === undefined || typeof meta !== 'object') throw new MirrorRecordUnreadableError(key, 'no meta');
  const { id, type, sourceId, fetchedAt } = meta;
  if (![id, type, sourceId, fetchedAt].every((v) => typeof v === 'string'))
    throw new MirrorRecordUnreadableError(key, 'meta lacks id, type, sourceId or fetchedAt');
  if (mirrorKey(sourceId, type, id) !== key)
    throw new MirrorRecordUnreadableError(
      key,
      `its meta names ${mirrorKey(sourceId, type, id)} (a legacy key: backfill-index)`,
    );
  const object = (record as MirrorRecord).object;
  const version = versionOf(sourceId, object);
  const write = { sourceId, type, id, object, fetchedAt, hash: version.hash, modified: version.modified };
  const bodyId = typeof meta.bodyId === 'string' ? meta.bodyId : undefined;
  const { entry, item } = indexItemOf(
    { ...write, ...(bodyId === undefined ? {} : { bodyId }) },
    meta.deleted === true,
  );
  const subject = {
    id,
    ...(bodyId === undefined ? {} : { bodyId }),
    ...(meta.embeddedIn === undefined ? {} : { parentId: meta.embeddedIn }),
  };
  const mark = (meta as { takedown?: RebuildMark }).takedown;
  return { entry, item, subject, ...(mark === undefined ? {} : { recordMark: mark }) };
}

/** Pure: the item an operator's mark leaves of a rebuilt item (list order moved to the mark's time). */
export function withMark(rebuilt: RebuiltItem, mark: RebuildMark): IndexItem {
  const { entry } = rebuilt;
  const listed = entry.bodyId !== undefined && entry.type !== 'body';
  return markedItem(rebuilt.item, { ...mark }, listed ? listSort(mark.at, entry.id) : undefined);
}

/**
 * Pure, OPT-5 with the registry as the authority: the item to write and the mark it carries. Covered by
 * the registry (`registryMark`): marked. An operator's tombstone the registry no longer covers was
 * lifted (`takedown lift` keeps the record until the next sync): deleted as the lift left it, without
 * the mark, so the next sync may mirror it again. Anything else: as the sync committed it.
 */
export function itemToWrite(
  rebuilt: RebuiltItem,
  registryMark: RebuildMark | undefined,
): { item: IndexItem; mark?: RebuildMark } {
  if (registryMark !== undefined) return { item: withMark(rebuilt, registryMark), mark: registryMark };
  if (rebuilt.recordMark === undefined) return { item: rebuilt.item };
  const { takedown: _lifted, ...item } = withMark(rebuilt, rebuilt.recordMark);
  return { item };
}

export type RebuildDecision = 'write' | 'present' | 'newer' | 'marked' | 'mark';

/**
 * Pure: what to do with a rebuilt item against the item the table holds. A mark held is never
 * overwritten; a mark wanted goes onto whatever is held unmarked (`mark`: the held commit stays, it is
 * only marked); otherwise only over nothing or an older commit.
 */
export function rebuildDecision(
  candidate: { fetchedAt: string; marked: boolean },
  held: IndexItem | undefined,
): RebuildDecision {
  if (held === undefined) return 'write';
  if (held.takedown !== undefined) return 'marked';
  if (candidate.marked) return 'mark';
  const heldAt = String(held.fetchedAt);
  if (heldAt > candidate.fetchedAt) return 'newer';
  return heldAt === candidate.fetchedAt ? 'present' : 'write';
}

export async function rebuildMirrorIndex(
  clients: Pick<AwsClients, 'doc' | 's3'>,
  config: { bucket: string; stateTable: string; mirrorTable: string },
  deps: MirrorRebuildDeps,
  options: MirrorRebuildOptions,
): Promise<MirrorRebuildReport> {
  if (options.phase !== 'own') throw new MirrorRebuildPhaseError(options.phase);
  if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
  const scope = options.sourceId === undefined ? 'all' : `source:${options.sourceId}`;
  const checkpoints = new MirrorRebuildCheckpoints({ doc: clients.doc, table: config.stateTable });
  const saved = options.restart || options.dryRun ? undefined : await checkpoints.get(scope);
  const counts = { ...emptyCounts(), ...(saved?.counts ?? {}) };
  const report: MirrorRebuildReport = {
    scope,
    alreadyDone: false,
    done: false,
    dryRun: options.dryRun === true,
    counts,
    unreadable: [],
  };
  if (saved?.done) return { ...report, alreadyDone: true, done: true };
  // A restart forgets the finished rebuild at once: one that dies on its first page is continued by a
  // plain rerun, not reported done by the previous pass's checkpoint.
  if (options.restart && !options.dryRun) await checkpoints.save(scope, { done: false, counts });
  const run: RebuildRun = {
    records: new MirrorRecords({ s3: clients.s3, bucket: config.bucket }),
    index: new MirrorIndex(
      { doc: clients.doc, table: config.stateTable },
      { table: config.mirrorTable, phase: 'own' },
    ),
    deps,
    report,
    paced: writePacer(options),
    dryRun: options.dryRun === true,
  };
  const prefix =
    options.sourceId === undefined ? `${MIRROR_PREFIX}/` : `${MIRROR_PREFIX}/${options.sourceId}/`;
  let after = saved?.after;
  do {
    const page = await run.records.listKeys(prefix, after, options.pageSize ?? DEFAULT_PAGE);
    await rebuildPage(run, page.keys, options.concurrency ?? MIRROR_BULK_CONCURRENCY);
    after = page.next;
    const checkpoint: MirrorRebuildCheckpoint = {
      done: after === undefined,
      counts,
      ...(after ? { after } : {}),
    };
    if (!run.dryRun) await checkpoints.save(scope, checkpoint);
  } while (after !== undefined);
  return { ...report, done: true };
}

interface RebuildRun {
  records: MirrorRecords;
  index: MirrorIndex;
  deps: MirrorRebuildDeps;
  report: MirrorRebuildReport;
  paced: () => Promise<void>;
  dryRun: boolean;
}

function emptyCounts(): Record<RebuildOutcome, number> {
  return { scanned: 0, written: 0, present: 0, newer: 0, takenDown: 0, sealed: 0, unreadable: 0, raced: 0 };
}

/**
 * One page: the registry of each source in it read before (what is taken down is never written
 * live), the records decided and written, then the registry read again and what it covers now sealed.
 */
async function rebuildPage(run: RebuildRun, keys: readonly string[], concurrency: number): Promise<void> {
  const sources = [...new Set(keys.map(sourceOfKey))];
  const before = await coversOf(run, sources);
  const written = await mapLimit(keys, concurrency, async (key) => {
    run.report.counts.scanned += 1;
    await run.paced();
    return rebuildRecord(run, key, before);
  });
  const live = written.filter((w): w is RebuiltItem => w !== undefined);
  if (live.length === 0 || run.dryRun) return;
  const after = await coversOf(run, [...new Set(live.map((w) => w.entry.sourceId))]);
  for (const rebuilt of live) {
    const mark = after.get(rebuilt.entry.sourceId)?.(rebuilt.subject);
    if (mark === undefined) continue;
    await run.deps.seal(rebuilt.entry, mark);
    run.report.counts.sealed += 1;
  }
}

function sourceOfKey(key: string): string {
  return key.slice(MIRROR_PREFIX.length + 1).split('/')[0] ?? '';
}

async function coversOf(run: RebuildRun, sources: readonly string[]): Promise<Map<string, TakedownCover>> {
  const covers = new Map<string, TakedownCover>();
  for (const sourceId of sources) covers.set(sourceId, await run.deps.takedowns(sourceId));
  return covers;
}

/** One record into the table; returns it when written without a mark (checked again after the page). */
async function rebuildRecord(
  run: RebuildRun,
  key: string,
  covers: Map<string, TakedownCover>,
): Promise<RebuiltItem | undefined> {
  let rebuilt: RebuiltItem;
  try {
    const record = await run.records.readKey<unknown>(key);
    // Deleted since it was listed (a purge, OPT-3): nothing to rebuild.
    if (record === undefined) return undefined;
    rebuilt = rebuiltItemOf(key, record, run.deps.versionOf);
  } catch (error) {
    run.report.counts.unreadable += 1;
    if (run.report.unreadable.length < UNREADABLE_NAMED)
      run.report.unreadable.push(error instanceof IngestorError ? error.message : `${key}: ${String(error)}`);
    return undefined;
  }
  const { item, mark } = itemToWrite(rebuilt, covers.get(rebuilt.entry.sourceId)?.(rebuilt.subject));
  const outcome = await placeItem(run, rebuilt, { item, mark });
  run.report.counts[outcome] += 1;
  return outcome === 'written' ? rebuilt : undefined;
}

/** Decides and writes one item, deciding again when a writer changed the held item meanwhile. */
async function placeItem(
  run: RebuildRun,
  rebuilt: RebuiltItem,
  { item, mark }: { item: IndexItem; mark?: RebuildMark },
): Promise<RebuildOutcome> {
  const ref = rebuilt.entry;
  // A write is tried first (its condition decides; a rebuild after a loss mostly finds nothing), the
  // item held is read only when it refused — or at once in a dry run, which writes nothing.
  let held = run.dryRun ? await run.index.get(ref.sourceId, ref.type, ref.id) : undefined;
  for (let attempt = 0; attempt < ITEM_ATTEMPTS; attempt++) {
    const decision = rebuildDecision({ fetchedAt: ref.fetchedAt, marked: mark !== undefined }, held);
    if (decision === 'present' || decision === 'newer') return decision;
    if (decision === 'marked') return 'takenDown';
    if (run.dryRun) return mark === undefined ? 'written' : 'takenDown';
    if (decision === 'mark') {
      await run.deps.seal(held as unknown as MirrorIndexEntry, mark as RebuildMark);
      return 'takenDown';
    }
    const put = await run.index.putRebuilt(ref, item);
    if (put === true) {
      // The record of an object the registry covers is made an operator's tombstone too.
      if (mark !== undefined && rebuilt.recordMark === undefined)
        await run.deps.seal({ ...ref, deleted: true, takedown: mark }, mark);
      return mark === undefined ? 'written' : 'takenDown';
    }
    held = put.held;
  }
  return 'raced';
}
