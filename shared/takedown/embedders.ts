import type { SourceConfig } from '../config';
import {
  asPublished,
  embeddedObjects,
  isRecord,
  type MirrorTotals,
  MirrorWriter,
  type OParlObject,
  REFERENCES,
  SyncStateStore,
  stampedWhenSeen,
} from '../engine';
import { lookupKey, MIRROR_TYPES, MirrorStore } from '../mirror';
import { TakedownGuard } from './guard';
import type { TakedownDeps } from './tombstone';

/**
 * OPT-5: a taken-down object also leaves the stored objects that embed it (a paper its file, a meeting
 * its agenda item — and, one level up, a meeting the files of that agenda item). Each is committed
 * again through the sync's one write path (`MirrorWriter` with this source's `TakedownGuard`, which
 * drops embedded objects the registry holds): S3 copy, inline index copy, hash, list position and
 * change feed event all follow from that one commit, and the next sync computes the same hash from the
 * origin's copy (unchanged, nothing written). Why not patch the S3 record in place: the index's hash
 * and inline copy would disagree with it, and a client of `modified_since` would never learn that its
 * copy of the paper lost a file.
 */

/** A taken-down object as last stored: what tells which objects embed it. */
export interface TakenDownObject {
  type: string;
  id: string;
  /** Its last live copy: its back-references (a file's `paper`, `meeting`, `agendaItem`). */
  object: OParlObject | undefined;
  /** The object it was mirrored embedded in (`meta.embeddedIn`; its type is not recorded). */
  embeddedIn?: string;
}

/** Walks up at most as deep as objects are embedded (`embeddedObjects`). */
const MAX_LEVELS = 6;

/**
 * Pure: the objects that may embed this one — the one it was mirrored in (of any type), and every object
 * its OParl references name (a file names its papers, meetings and agenda items; an agenda item its
 * meeting). Whether a candidate really embeds it is read from the candidate.
 */
export function embedderCandidates(o: TakenDownObject): { type: string; id: string }[] {
  const refs: { type: string; id: string }[] = [];
  if (o.embeddedIn !== undefined) for (const type of MIRROR_TYPES) refs.push({ type, id: o.embeddedIn });
  for (const [key, type] of Object.entries(REFERENCES[o.type] ?? {})) {
    const value = o.object?.[key];
    for (const id of Array.isArray(value) ? value : [value])
      if (typeof id === 'string') refs.push({ type, id });
  }
  return refs;
}

/**
 * The stored copy as its kind's versioning expects it: a scraped object's `modified` is our stamp of
 * when we saw it (`stampedWhenSeen`), not content — without it the hash is the one the next scrape makes.
 */
function asReceived(kind: SourceConfig['kind'] | undefined, object: OParlObject): OParlObject {
  if (kind !== 'scraper') return object;
  const { modified: _stamp, ...received } = object;
  return received;
}

/**
 * Commits again, without the taken-down objects, every live stored object of the source that embeds one
 * of them, and the objects embedding those. Returns how many were committed. Repeating is harmless: a
 * parent rewritten already embeds nothing taken down and is left alone.
 */
export async function commitEmbeddersWithout(
  deps: TakedownDeps,
  source: { sourceId: string; kind?: SourceConfig['kind'] },
  takenDown: readonly TakenDownObject[],
  /**
   * Told of each live object that embeds one of them — or did: a repeated command (after a failed CDN
   * invalidation) finds the parents rewritten already and must name them again (invalidation.ts).
   */
  onEmbedder?: (entry: { type: string; id: string; bodyId?: string }) => void,
): Promise<number> {
  if (takenDown.length === 0) return 0;
  const { sourceId } = source;
  const mirror = new MirrorStore(deps.clients, {
    bucket: deps.bucket,
    stateTable: deps.tables.state,
    mirrorTable: deps.tables.mirror,
  });
  const guard = new TakedownGuard(
    {
      clients: deps.clients,
      bucket: deps.bucket,
      stateTable: deps.tables.state,
      mirrorTable: deps.tables.mirror,
    },
    sourceId,
  );
  await guard.load();
  const state = new SyncStateStore(deps.clients, deps.tables.state, sourceId);
  const bodies = await state.getBodies();
  const totals: MirrorTotals = { new: 0, modified: 0, deleted: 0, documents: 0 };
  const writer = new MirrorWriter({
    clients: deps.clients,
    tables: { state: deps.tables.state, documents: deps.tables.documents, bucket: deps.bucket },
    sourceId,
    guard,
    sessionDays: state,
    totals: () => totals,
    nowMs: () => (deps.now ?? (() => new Date()))().getTime(),
  });
  const seen = new Set(takenDown.map((t) => lookupKey(t.type, t.id)));
  let committed = 0;
  let level: readonly TakenDownObject[] = takenDown;
  for (let depth = 0; level.length > 0 && depth < MAX_LEVELS; depth += 1) {
    // Objects these were mirrored embedded in: they embedded them for sure, now or before a repeat.
    const formerParents = new Set(level.flatMap((o) => (o.embeddedIn !== undefined ? [o.embeddedIn] : [])));
    const candidates = level.flatMap(embedderCandidates).filter((r) => !seen.has(lookupKey(r.type, r.id)));
    for (const r of candidates) seen.add(lookupKey(r.type, r.id));
    const next: TakenDownObject[] = [];
    for (const entry of (await mirror.lookup(sourceId, candidates, { consistent: true })).values()) {
      if (entry.deleted) continue;
      const record = await mirror.readLive(sourceId, entry.type, entry.id);
      const object = record?.object;
      if (!record || !isRecord(object)) continue;
      const embeds = embeddedObjects(object).some((e) => guard.covers({ id: e.id }) !== undefined);
      if (!embeds && !formerParents.has(entry.id)) continue;
      onEmbedder?.({
        type: entry.type,
        id: entry.id,
        ...(entry.bodyId !== undefined ? { bodyId: entry.bodyId } : {}),
      });
      const { embeddedIn } = record.meta;
      if (!embeds) {
        // Rewritten by an earlier run of this takedown: named again, and who embeds it in turn.
        next.push({
          type: entry.type,
          id: entry.id,
          object,
          ...(embeddedIn !== undefined ? { embeddedIn } : {}),
        });
        continue;
      }
      const written = await writer.writePage({
        objects: [
          {
            type: entry.type,
            id: entry.id,
            object: asReceived(source.kind, object),
            ...(embeddedIn !== undefined ? { parentId: embeddedIn } : {}),
          },
        ],
        url: record.meta.sourceUrl,
        body: bodies.find((b) => b.id === entry.bodyId),
        versioning: source.kind === 'scraper' ? stampedWhenSeen : asPublished,
      });
      committed += written.changed;
      // Who embeds this parent embeds the taken-down object too (a meeting its agenda item's file).
      next.push({
        type: entry.type,
        id: entry.id,
        object,
        ...(embeddedIn !== undefined ? { embeddedIn } : {}),
      });
    }
    level = next;
  }
  return committed;
}
