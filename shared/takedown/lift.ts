import { MIRROR_TYPES, MirrorStore } from '../mirror';
import { resolveBody } from '../onboarding';
import { BodyRecords, DocumentItems, ListDigestRepository, loadAllSources, MirrorIndex } from '../store';
import { TakedownError } from './errors';
import { TakedownRegistry, type TakedownScope } from './registry';
import { type DocumentMatch, forMatchingDocuments, type TakedownDeps } from './tombstone';

/**
 * OPT-5 "until an operator lifts it": `takedown lift --ids … | --body <slug>`. Removes the registry
 * items and the operator's marks (index entries, the BODY# record, Documents `takedownAt`), so that the
 * next sync may mirror the objects again if the source still publishes them. The tombstones stay until
 * then (nothing reappears by this command alone), a lifted body stays unlisted until listed, and the
 * decision is logged loudly with who lifted it.
 */
export interface LiftResult {
  sourceIds: string[];
  body: string | null;
  /** Registry items removed. */
  lifted: number;
  /** Ids with no takedown in any source. */
  notTakenDown: string[];
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

export async function liftTakedown(
  deps: TakedownDeps,
  target: { ids?: readonly string[]; body?: string; sourceId?: string; by: string },
  log: (event: string, fields: Record<string, unknown>) => void = (event, fields) =>
    console.warn(JSON.stringify({ level: 'WARN', event, ...fields })),
): Promise<LiftResult> {
  const registry = new TakedownRegistry(deps.clients.doc, deps.tables.state);
  const result: LiftResult = { sourceIds: [], body: target.body ?? null, lifted: 0, notTakenDown: [] };
  const lifted = (sourceId: string, scope: TakedownScope, id: string) => {
    result.lifted += 1;
    if (!result.sourceIds.includes(sourceId)) result.sourceIds.push(sourceId);
    // Loud on purpose: a lifted takedown lets the next sync publish the object again (OPT-5).
    log('TAKEDOWN LIFTED', { sourceId, scope, id, by: target.by });
  };
  if (target.body !== undefined) {
    const { sourceId, body } = await resolveBody(deps.clients.doc, deps.tables, target.body, target.sourceId);
    if (await registry.remove(sourceId, 'body', body.id)) lifted(sourceId, 'body', body.id);
    await new BodyRecords({ doc: deps.clients.doc, table: deps.tables.state }).removeTakedown(
      sourceId,
      body.bodyKey,
    );
    // Every marked entry of the body, or the next sync's commits would fail their condition again.
    const mirror = new MirrorStore(deps.clients, {
      bucket: deps.bucket,
      stateTable: deps.tables.state,
      mirrorTable: deps.tables.mirror,
    });
    for (const type of MIRROR_TYPES) {
      for await (const entry of mirror.listAll(sourceId, type, { bodyId: body.id, consistent: true })) {
        if (entry.takedown !== undefined) await unmark(deps, sourceId, type, entry.id);
      }
    }
    await unflagDocuments(deps, sourceId, { bodyId: body.id });
    await dropListDigests(deps, [sourceId]);
    return result;
  }
  const wanted = [...new Set((target.ids ?? []).map((id) => id.trim()).filter((id) => id !== ''))];
  if (wanted.length === 0) throw new TakedownError('TAKEDOWN_INVALID_INPUT', 'no ids or body given');
  const { parsed } = await loadAllSources(deps.clients.doc, deps.tables.sources);
  const sources = parsed
    .map((p) => (p.ok ? p.source.sourceId : p.sourceId))
    .filter((s) => target.sourceId === undefined || s === target.sourceId);
  const seen = new Set<string>();
  const mirror = new MirrorStore(deps.clients, {
    bucket: deps.bucket,
    stateTable: deps.tables.state,
    mirrorTable: deps.tables.mirror,
  });
  for (const sourceId of sources) {
    const items = await registry.find(
      sourceId,
      wanted.map((id) => ({ scope: 'object' as const, id })),
    );
    const fileIds = new Set<string>();
    for (const item of items) {
      await registry.remove(sourceId, 'object', item.id);
      lifted(sourceId, 'object', item.id);
      seen.add(item.id);
      // `tombstone --ids` records an id on its source's host before it knows the type (OPT-5), so the
      // item may carry none: then the mirrored entries of that id are looked up, or their marks stay.
      const types = item.type !== undefined ? [item.type] : await markedTypes(mirror, sourceId, item.id);
      for (const type of types) {
        await unmark(deps, sourceId, type, item.id);
        if (type === 'file') fileIds.add(item.id);
      }
    }
    if (fileIds.size > 0) await unflagDocuments(deps, sourceId, { fileIds });
  }
  result.notTakenDown = wanted.filter((id) => !seen.has(id));
  await dropListDigests(deps, result.sourceIds);
  return result;
}

/** The types under which an id's mirrored entries carry a takedown mark. */
async function markedTypes(mirror: MirrorStore, sourceId: string, id: string): Promise<string[]> {
  const entries = await mirror.lookup(
    sourceId,
    MIRROR_TYPES.map((type) => ({ type, id })),
  );
  return [...entries.values()].filter((e) => e.takedown !== undefined).map((e) => e.type);
}
