import { SyncStateStore } from '../engine';
import { lookupKey, MIRROR_TYPES, type MirrorIndexEntry, MirrorStore } from '../mirror';
import type { StoredBody } from '../onboarding';
import { type TakedownItem, TakedownRegistry } from './registry';
import { type TakedownDeps, type TombstoneResult, tombstoneBody, tombstoneIds } from './tombstone';
import type { TakedownMark } from './types';

/**
 * OPT-5 "re-running completes the rest": `tombstone` writes its registry item first and its marks
 * after, so a command killed in between leaves a takedown in force (every sync, preview and the API
 * check the registry) but its marks missing — the API list counters still count the object, the body
 * record still says listed, the Documents items are not flagged — until somebody repeats the command.
 * Operators rarely know that they should. This repair needs nothing but the registry: for each item of
 * a source it checks cheaply whether the command's marks are there and, where not, runs the command's
 * own code again (`tombstoneIds` / `tombstoneBody`, idempotent) with the item's ORIGINAL mark, so the
 * API's deletion time and the audit stay the takedown's, not the repair's.
 *
 * Checks, all reads of the index or the source's partition, none of S3:
 * - object: its index entries — of its type, or of every type when the item has none (`tombstone --ids`
 *   records an id on its source's host before it knows the type) — carry a takedown mark;
 * - body: its `BODY#` record carries `takedown`, which `tombstoneBody` writes last, once every entry
 *   of the body is marked and its Documents flagged.
 * Known blind spot: an `--ids` command killed after its marks but before the Documents flags and the
 * rewrite of the objects embedding it reads as complete here (preview and guard check the registry
 * themselves); repeating that command completes it.
 */

/** How far a recorded takedown got. */
export type TakedownProgress =
  /** Its marks are there: nothing to do. */
  | 'complete'
  /** Something mirrored lacks its mark: the command is run again. */
  | 'incomplete'
  /**
   * Nothing to mark: the id was never mirrored (a typo, an object not yet synced) or was purged since
   * (OPT-3). Not an error and not incomplete: the registry alone keeps it out of every sync. Counted
   * apart so an operator sees such takedowns, each run, without the repair retrying them for ever.
   */
  | 'not-mirrored';

/** What the mirror shows of a source's takedowns: index entries by `lookupKey`, body records by body id. */
export interface TakedownEvidence {
  entries: ReadonlyMap<string, Pick<MirrorIndexEntry, 'takedown'>>;
  bodies: ReadonlyMap<string, Pick<StoredBody, 'takedown'>>;
}

export interface TakedownCheck {
  item: TakedownItem;
  progress: TakedownProgress;
  reason: string;
}

/** The index entries an object takedown concerns: of its type, or of every type when none is recorded. */
export function takedownEntryRefs(item: TakedownItem): { type: string; id: string }[] {
  if (item.scope !== 'object') return [];
  return (item.type !== undefined ? [item.type] : MIRROR_TYPES).map((type) => ({ type, id: item.id }));
}

/** Pure: how far one recorded takedown got, from what the mirror shows of it. */
export function takedownProgress(item: TakedownItem, evidence: TakedownEvidence): TakedownCheck {
  if (item.scope === 'body') {
    const record = evidence.bodies.get(item.id);
    if (record === undefined) return { item, progress: 'not-mirrored', reason: 'no body record' };
    return record.takedown !== undefined
      ? { item, progress: 'complete', reason: 'body record marked' }
      : { item, progress: 'incomplete', reason: 'body record without its takedown mark' };
  }
  const entries = takedownEntryRefs(item).flatMap((r) => {
    const entry = evidence.entries.get(lookupKey(r.type, r.id));
    return entry === undefined ? [] : [{ type: r.type, entry }];
  });
  if (entries.length === 0) return { item, progress: 'not-mirrored', reason: 'no index entry' };
  const unmarked = entries.filter((e) => e.entry.takedown === undefined).map((e) => e.type);
  return unmarked.length === 0
    ? { item, progress: 'complete', reason: 'index entries marked' }
    : {
        item,
        progress: 'incomplete',
        reason: `index entry without its takedown mark (${unmarked.join(', ')})`,
      };
}

/** Pure: the incomplete object takedowns in groups of one mark — one `tombstone --ids` run each. */
export function byMark(items: readonly TakedownItem[]): { mark: TakedownMark; ids: string[] }[] {
  const groups = new Map<string, { mark: TakedownMark; ids: string[] }>();
  for (const item of items) {
    const key = JSON.stringify([item.mark.at, item.mark.by, item.mark.note ?? null]);
    const group = groups.get(key) ?? { mark: item.mark, ids: [] };
    group.ids.push(item.id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

export interface CompletionReport {
  sourceId: string;
  /** Registry items read. */
  checked: number;
  /** Items whose marks were all there. */
  complete: number;
  /** Items with nothing mirrored to mark (see `TakedownProgress`). */
  notMirrored: number;
  /** Items found incomplete and completed (or that would be, in a dry run), with their original mark. */
  completed: { scope: TakedownItem['scope']; id: string; mark: TakedownMark; reason: string }[];
  /** Objects the completion tombstoned (0 in a dry run). */
  tombstoned: number;
  /** Documents items it flagged (0 in a dry run). */
  documents: number;
}

/** What the mirror shows of these takedowns: one BatchGet per 100 index keys, one Query of the bodies. */
async function evidenceOf(
  deps: TakedownDeps,
  sourceId: string,
  items: readonly TakedownItem[],
): Promise<TakedownEvidence> {
  const mirror = new MirrorStore(deps.clients, {
    bucket: deps.bucket,
    stateTable: deps.tables.state,
    mirrorTable: deps.tables.mirror,
  });
  const refs = items.flatMap(takedownEntryRefs);
  // Strongly consistent: a mark written a moment ago by a sync that sealed the object must be seen.
  const entries = refs.length > 0 ? await mirror.lookup(sourceId, refs, { consistent: true }) : new Map();
  const bodies = new Map<string, StoredBody>();
  if (items.some((i) => i.scope === 'body')) {
    const records = (await new SyncStateStore(
      deps.clients,
      deps.tables.state,
      sourceId,
    ).getBodies()) as StoredBody[];
    for (const record of records) bodies.set(record.id, record);
  }
  return { entries, bodies };
}

function tombstonedIn(result: TombstoneResult): number {
  return Object.values(result.tombstoned).reduce((a, b) => a + b, 0);
}

/**
 * Completes what killed `tombstone` commands left undone in one source (see above). A dry run reads
 * and reports, writes nothing. A lifted takedown has no registry item any more, so nothing of it is
 * done again; completing never records a target anew, so a lift during the run is not undone by it.
 */
export async function completeTakedowns(
  deps: TakedownDeps,
  sourceId: string,
  options: { dryRun?: boolean } = {},
): Promise<CompletionReport> {
  const items = await new TakedownRegistry(deps.clients.doc, deps.tables.state).items(sourceId);
  const evidence = await evidenceOf(deps, sourceId, items);
  const checks = items.map((item) => takedownProgress(item, evidence));
  const incomplete = checks.filter((c) => c.progress === 'incomplete');
  const report: CompletionReport = {
    sourceId,
    checked: checks.length,
    complete: checks.filter((c) => c.progress === 'complete').length,
    notMirrored: checks.filter((c) => c.progress === 'not-mirrored').length,
    completed: incomplete.map((c) => ({
      scope: c.item.scope,
      id: c.item.id,
      mark: c.item.mark,
      reason: c.reason,
    })),
    tombstoned: 0,
    documents: 0,
  };
  if (options.dryRun === true) return report;
  for (const check of incomplete.filter((c) => c.item.scope === 'body')) {
    const { mark } = check.item;
    const slug = (evidence.bodies.get(check.item.id) as StoredBody).slug;
    const result = await tombstoneBody(deps, slug, { sourceId, by: mark.by, mark });
    report.tombstoned += tombstonedIn(result);
    report.documents += result.documents;
  }
  for (const group of byMark(incomplete.filter((c) => c.item.scope === 'object').map((c) => c.item))) {
    const result = await tombstoneIds(deps, group.ids, { sourceId, by: group.mark.by, mark: group.mark });
    report.tombstoned += tombstonedIn(result);
    report.documents += result.documents;
  }
  return report;
}
