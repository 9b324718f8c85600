import { MIRROR_TYPES, MirrorStore } from '../mirror';
import { resolveBody } from '../onboarding';
import { BodyRecords, DocumentItems, ListDigestRepository, loadAllSources, MirrorIndex } from '../store';
import { byMark } from './complete';
import { TakedownError } from './errors';
import { type TakedownItem, TakedownRegistry, type TakedownScope } from './registry';
import {
  type DocumentMatch,
  forMatchingDocuments,
  type TakedownDeps,
  tombstoneBody,
  tombstoneIds,
} from './tombstone';

/**
 * OPT-5 "until an operator lifts it": `takedown lift --ids … | --body <slug>`. Removes the registry
 * items and the operator's marks (index entries, the BODY# record, Documents `takedownAt`), so that the
 * next sync may mirror the objects again if the source still publishes them. The tombstones stay until
 * then (nothing reappears by this command alone), a lifted body stays unlisted until listed, and the
 * decision is logged loudly with who lifted it.
 *
 * Two operators at once (OPT-5: a new takedown always wins over an older lift): the lift removes a
 * registry item only as it read it (`rev`, shared/store takedowns.ts) — a takedown recorded in between
 * renews it, and the lift leaves that one alone. A takedown recorded after the removal, while the lift
 * removes the marks, may have found its own marks refused by the old ones the lift then removes: so the
 * lift reads the registry again at its end and completes what it holds again with the command's own
 * code and the new item's mark (`tombstoneIds` / `tombstoneBody`, as `completeTakedowns` does).
 * Either way the id is reported `renewed` and logged. A takedown recorded just *before* the lift reads
 * it, whose marks land after the lift removed them, is this lift's to win on paper only: the takedown
 * finds its item gone at its end and records it again (shared/takedown tombstone.ts) — never a mark
 * without its item.
 */
export interface LiftResult {
  sourceIds: string[];
  body: string | null;
  /** Registry items removed. */
  lifted: number;
  /** Ids with no takedown in any source. */
  notTakenDown: string[];
  /**
   * OPT-5: ids (or the body's id) taken down again while this lift ran — the newer takedown stays in
   * force, complete; lifting it is a new decision (run the lift again).
   */
  renewed: string[];
}

async function unmark(deps: TakedownDeps, sourceId: string, type: string, id: string): Promise<void> {
  await new MirrorIndex(
    { doc: deps.clients.doc, table: deps.tables.state },
    deps.tables.mirror,
  ).removeTakedownMark(sourceId, type, id);
}

/** Removes `takedownAt` from the source's Documents items of the body or of these files. */
async function unflagDocuments(deps: TakedownDeps, sourceId: string, match: DocumentMatch): Promise<void> {
  const documents = new DocumentItems({ doc: deps.clients.doc, table: deps.tables.documents });
  await forMatchingDocuments(deps, sourceId, match, async (item) => {
    if (item.takedownAt === undefined) return;
    await documents.removeTakedownFlag(item.docId);
  });
}

/**
 * Issue 28: a lifted object may come back at the next sync, but a purge may have removed its index
 * entry — a removal no list digest's staleness check sees, so a digest could still name the object as
 * known. The sources' digests go; their next full syncs rebuild them from lookups.
 */
async function dropListDigests(deps: TakedownDeps, sourceIds: readonly string[]): Promise<void> {
  const digests = new ListDigestRepository(deps.clients, {
    bucket: deps.bucket,
    stateTable: deps.tables.state,
    mirrorTable: deps.tables.mirror,
  });
  for (const sourceId of sourceIds) await digests.removeSource(sourceId);
}

/** One lift: the registry, the result it fills, who lifts, and the loud log. */
interface LiftRun {
  deps: TakedownDeps;
  registry: TakedownRegistry;
  result: LiftResult;
  by: string;
  log: (event: string, fields: Record<string, unknown>) => void;
}

function noteLifted(run: LiftRun, sourceId: string, scope: TakedownScope, id: string): void {
  run.result.lifted += 1;
  if (!run.result.sourceIds.includes(sourceId)) run.result.sourceIds.push(sourceId);
  // Loud on purpose: a lifted takedown lets the next sync publish the object again (OPT-5).
  run.log('TAKEDOWN LIFTED', { sourceId, scope, id, by: run.by });
}

function noteRenewed(run: LiftRun, item: TakedownItem): void {
  if (!run.result.renewed.includes(item.id)) run.result.renewed.push(item.id);
  // Loud too: the operator's lift did not end this takedown, a newer one (OPT-5).
  run.log('TAKEDOWN RENEWED DURING LIFT', {
    sourceId: item.sourceId,
    scope: item.scope,
    id: item.id,
    by: run.by,
    takedownBy: item.mark.by,
    takedownAt: item.mark.at,
  });
}

function mirrorOf(deps: TakedownDeps): MirrorStore {
  return new MirrorStore(deps.clients, {
    bucket: deps.bucket,
    stateTable: deps.tables.state,
    mirrorTable: deps.tables.mirror,
  });
}

export async function liftTakedown(
  deps: TakedownDeps,
  target: { ids?: readonly string[]; body?: string; sourceId?: string; by: string },
  log: (event: string, fields: Record<string, unknown>) => void = (event, fields) =>
    console.warn(JSON.stringify({ level: 'WARN', event, ...fields })),
): Promise<LiftResult> {
  const run: LiftRun = {
    deps,
    registry: new TakedownRegistry(deps.clients.doc, deps.tables.state),
    result: { sourceIds: [], body: target.body ?? null, lifted: 0, notTakenDown: [], renewed: [] },
    by: target.by,
    log,
  };
  if (target.body !== undefined) await liftBody(run, target.body, target.sourceId);
  else await liftIds(run, target.ids ?? [], target.sourceId);
  return run.result;
}

/** `takedown lift --body`: the registry item, the record's mark, every entry's mark, the Documents flags. */
async function liftBody(run: LiftRun, slug: string, onlySource: string | undefined): Promise<void> {
  const { deps, registry } = run;
  const { sourceId, body } = await resolveBody(deps.clients.doc, deps.tables, slug, onlySource);
  const [item] = await registry.find(sourceId, [{ scope: 'body', id: body.id }]);
  const removal = item === undefined ? 'absent' : await registry.remove(item);
  if (removal === 'renewed') return noteRenewed(run, item as TakedownItem);
  if (removal === 'lifted') noteLifted(run, sourceId, 'body', body.id);
  await new BodyRecords({ doc: deps.clients.doc, table: deps.tables.state }).removeTakedown(
    sourceId,
    body.bodyKey,
  );
  // Every marked entry of the body, or the next sync's commits would fail their condition again.
  const mirror = mirrorOf(deps);
  for (const type of MIRROR_TYPES) {
    for await (const entry of mirror.listAll(sourceId, type, { bodyId: body.id, consistent: true })) {
      if (entry.takedown !== undefined) await unmark(deps, sourceId, type, entry.id);
    }
  }
  await unflagDocuments(deps, sourceId, { bodyId: body.id });
  const [again] = await registry.find(sourceId, [{ scope: 'body', id: body.id }]);
  if (again !== undefined) {
    await tombstoneBody(deps, slug, { sourceId, by: again.mark.by, mark: again.mark });
    noteRenewed(run, again);
  }
  await dropListDigests(deps, [sourceId]);
}

/** `takedown lift --ids`: in every source (or one) that holds them, their registry items and marks. */
async function liftIds(run: LiftRun, ids: readonly string[], onlySource: string | undefined): Promise<void> {
  const { deps } = run;
  const wanted = [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ''))];
  if (wanted.length === 0) throw new TakedownError('TAKEDOWN_INVALID_INPUT', 'no ids or body given');
  const { parsed } = await loadAllSources(deps.clients.doc, deps.tables.sources);
  const sources = parsed
    .map((p) => (p.ok ? p.source.sourceId : p.sourceId))
    .filter((s) => onlySource === undefined || s === onlySource);
  const seen = new Set<string>();
  for (const sourceId of sources) {
    for (const id of await liftIdsInSource(run, sourceId, wanted)) seen.add(id);
  }
  run.result.notTakenDown = wanted.filter((id) => !seen.has(id));
  await dropListDigests(deps, run.result.sourceIds);
}

/** The wanted ids' takedowns in one source; returns the ids it had a takedown of. */
async function liftIdsInSource(run: LiftRun, sourceId: string, wanted: readonly string[]): Promise<string[]> {
  const { deps, registry } = run;
  const mirror = mirrorOf(deps);
  const items = await registry.find(
    sourceId,
    wanted.map((id) => ({ scope: 'object' as const, id })),
  );
  const fileIds = new Set<string>();
  const removed: TakedownItem[] = [];
  for (const item of items) {
    if ((await registry.remove(item)) === 'renewed') {
      noteRenewed(run, item);
      continue;
    }
    removed.push(item);
    noteLifted(run, sourceId, 'object', item.id);
    // `tombstone --ids` records an id on its source's host before it knows the type (OPT-5), so the
    // item may carry none: then the mirrored entries of that id are looked up, or their marks stay.
    const types = item.type !== undefined ? [item.type] : await markedTypes(mirror, sourceId, item.id);
    for (const type of types) {
      await unmark(deps, sourceId, type, item.id);
      if (type === 'file') fileIds.add(item.id);
    }
  }
  if (fileIds.size > 0) await unflagDocuments(deps, sourceId, { fileIds });
  const again = removed.length > 0 ? await registry.find(sourceId, removed) : [];
  for (const group of byMark(again)) {
    await tombstoneIds(deps, group.ids, { sourceId, by: group.mark.by, mark: group.mark });
  }
  for (const item of again) noteRenewed(run, item);
  return items.map((i) => i.id);
}

/** The types under which an id's mirrored entries carry a takedown mark. */
async function markedTypes(mirror: MirrorStore, sourceId: string, id: string): Promise<string[]> {
  const entries = await mirror.lookup(
    sourceId,
    MIRROR_TYPES.map((type) => ({ type, id })),
  );
  return [...entries.values()].filter((e) => e.takedown !== undefined).map((e) => e.type);
}
