import {
  classifyChange,
  idHash,
  lookupKey,
  type MirrorIndexEntry,
  MirrorStore,
  type MirrorWrite,
} from '../mirror';
import type { AwsClients } from '../store';
import { mapLimit } from '../util';
import { WRITE_CONCURRENCY } from './constants';
import { recordDocument } from './documents';
import {
  contentHash,
  isDeleted,
  modifiedMs,
  type OParlObject,
  parseOParlTime,
  textValue,
  withoutEmbedded,
} from './objects';
import { berlinDate, type SyncTables } from './run';
import type { BodyRecord } from './types';

/**
 * The mirror write path every source kind shares: one page's objects → mirror lookup → takedown guard
 * (OPT-2 / OPT-5: taken-down objects are not written, nor kept embedded in others) → change
 * classification → side effects (Documents, session days) → commit → totals.
 *
 * A kind says only what is its own: how an object's version is read (`Versioning`: the OParl API
 * publishes `modified`, scraped HTML does not) and which objects a call may write (`WriteScope`).
 * Side effects come first and the index item last, because the index item is the commit point of an
 * object: a run killed in between writes the object again on resume, and its side effects with it.
 */

/** One object of a page as the kind read it. */
export interface PageObject {
  /** Lower-case OParl type name (the mirror's `type`). */
  type: string;
  id: string;
  object: OParlObject;
  /** A copy embedded in another object (often abridged): it replaces ours only when newer. */
  embedded?: boolean;
  /** The object it is embedded in (a paper's file): taken down with it (OPT-5). */
  parentId?: string;
}

/** What the takedown check is asked about (the shape of `TakedownSubject` in shared/takedown). */
export interface WriteSubject {
  id: string;
  bodyId?: string;
  parentId?: string;
}

/**
 * OPT-5 as the writer needs it — `TakedownGuard` of shared/takedown fits. A port, because shared/takedown
 * builds on this core (it reads embedded objects) and must not become a dependency of it.
 */
export interface MirrorGuard<M> {
  /** The takedown that forbids writing this subject, if any. */
  covers(subject: WriteSubject): M | undefined;
  /** A taken-down object met by the sync: complete its takedown if it is not sealed yet. */
  meet(previous: MirrorIndexEntry | undefined, mark: M): Promise<void>;
  /** One commit; undefined when an operator's mark made it fail (the object is then sealed). */
  commit(write: () => Promise<MirrorIndexEntry>): Promise<MirrorIndexEntry | undefined>;
  /** After a page: the entries it created are checked against a fresh read of the takedowns. */
  afterCommit(created: { entry: MirrorIndexEntry; subject: WriteSubject }[]): Promise<void>;
}

/** The version of an object a page holds, as compared with the mirror's and written. */
export interface IncomingObject {
  /** The object as written (a kind may stamp it). */
  object: OParlObject;
  /** What the mirror compares: the content hash (see `contentHash`). */
  hash: string;
  deleted: boolean;
  /** `modified` as stored in the index. */
  modified?: string;
  /** The source's own `modified` (epoch ms): a stale copy never rolls the mirror back. */
  modifiedMs?: number;
}

export type Versioning = (o: PageObject, fetchedAt: string) => IncomingObject;

/** The OParl API: the object as published, compared by content and by its own `modified`. */
export const asPublished: Versioning = (o) => {
  const modified = textValue(o.object.modified);
  const ms = modifiedMs(o.object);
  return {
    object: o.object,
    hash: contentHash(o.object),
    deleted: isDeleted(o.object),
    ...(modified !== undefined ? { modified } : {}),
    ...(ms !== undefined ? { modifiedMs: ms } : {}),
  };
};

/**
 * Scraped pages carry no modification time (issue 8): the content is compared without one, and
 * `modified` is when we saw the content change.
 */
export const stampedWhenSeen: Versioning = (o, fetchedAt) => ({
  object: { ...o.object, modified: fetchedAt },
  hash: contentHash(o.object),
  deleted: isDeleted(o.object),
  modified: fetchedAt,
});

/**
 * Which of the page's objects a call may write: `any`; only those the mirror does not hold (`absent`:
 * stubs never overwrite an owner's copy); only those it holds (`known`: tombstones of vanished
 * objects are written over something, never out of nothing).
 */
export type WriteScope = 'any' | 'absent' | 'known';

export interface WritePage<T extends PageObject> {
  objects: T[];
  /** The page the objects came from (B-4 attribution). */
  url: string;
  /** The body the page belongs to; without one, no Documents and no session days are recorded. */
  body: Pick<BodyRecord, 'id' | 'bodyKey' | 'listed'> | undefined;
  versioning: Versioning;
  scope?: WriteScope;
}

export interface PageWritten<T> {
  /** Objects written (new, modified or deleted). */
  changed: number;
  /** The objects this page created in the mirror (absent before), in page order. */
  created: T[];
}

/** The run's counters the writer adds to (the kind's cursor totals). */
export interface MirrorTotals {
  new: number;
  modified: number;
  deleted: number;
  documents: number;
}

export interface MirrorWriterDeps<M> {
  clients: Pick<AwsClients, 'doc' | 's3'>;
  tables: SyncTables;
  sourceId: string;
  guard: MirrorGuard<M>;
  /** SCH-2: where a meeting's session day is kept (the State store). */
  sessionDays: {
    setMeetingDay(bodyKey: string, meetingKey: string, date: string | undefined): Promise<void>;
  };
  /** The cursor's totals: read at every count, since a run may adopt another cursor. */
  totals(): MirrorTotals;
  nowMs(): number;
}

export class MirrorWriter<M> {
  private readonly mirror: MirrorStore;

  constructor(private readonly deps: MirrorWriterDeps<M>) {
    this.mirror = new MirrorStore(deps.clients, {
      bucket: deps.tables.bucket,
      stateTable: deps.tables.state,
    });
  }

  /** Mirrors one page's objects; returns how many changed and which were created. */
  async writePage<T extends PageObject>(page: WritePage<T>): Promise<PageWritten<T>> {
    if (page.objects.length === 0) return { changed: 0, created: [] };
    const { sourceId, guard } = this.deps;
    const index = await this.mirror.lookup(sourceId, page.objects);
    const scope = page.scope ?? 'any';
    const objects = page.objects.filter((o) => {
      const known = index.has(lookupKey(o.type, o.id));
      return scope === 'any' || (scope === 'known') === known;
    });
    const fetchedAt = new Date(this.deps.nowMs()).toISOString();
    let changed = 0;
    const created: Parameters<MirrorGuard<M>['afterCommit']>[0] = [];
    const createdKeys = new Set<string>();
    await mapLimit(objects, WRITE_CONCURRENCY, async (o) => {
      const previous = index.get(lookupKey(o.type, o.id));
      // OPT-2: an operator's tombstone stands, whatever the source still publishes.
      if (previous?.takedown !== undefined) return;
      const bodyId = o.type === 'body' ? o.id : page.body?.id;
      const subject: WriteSubject = {
        id: o.id,
        ...(bodyId !== undefined ? { bodyId } : {}),
        ...(o.parentId !== undefined ? { parentId: o.parentId } : {}),
      };
      // OPT-5: the registry outlives a purge of the index entry; an unsealed entry is sealed now.
      const takenDown = guard.covers(subject);
      if (takenDown) return guard.meet(previous, takenDown);
      // OPT-5: nor does it come back inside another object (a paper's file, a meeting's agenda item).
      const object = withoutEmbedded(o.object, (id) => guard.covers({ id }) !== undefined);
      const incoming = page.versioning(object === o.object ? o : { ...o, object }, fetchedAt);
      const kind = classifyChange(
        previous ? { hash: previous.hash, deleted: previous.deleted, ...modifiedOf(previous) } : undefined,
        {
          hash: incoming.hash,
          deleted: incoming.deleted,
          ...(incoming.modifiedMs !== undefined ? { modifiedMs: incoming.modifiedMs } : {}),
        },
        { embedded: o.embedded === true },
      );
      if (kind === 'unchanged') return;
      const write: MirrorWrite = {
        sourceId,
        type: o.type,
        id: o.id,
        object: incoming.object,
        sourceUrl: page.url,
        fetchedAt,
        hash: incoming.hash,
        ...(bodyId !== undefined ? { bodyId } : {}),
        ...(o.parentId !== undefined ? { embeddedIn: o.parentId } : {}),
        ...(incoming.modified !== undefined ? { modified: incoming.modified } : {}),
      };
      // Side effects first, the index item last: it is the commit point of this object.
      await this.sideEffects(o, incoming, page.body, fetchedAt);
      const entry = await guard.commit(() =>
        incoming.deleted ? this.mirror.writeTombstone(write, previous) : this.mirror.writeLive(write),
      );
      if (entry === undefined) return;
      if (previous === undefined) {
        created.push({ entry, subject });
        createdKeys.add(lookupKey(o.type, o.id));
      }
      this.deps.totals()[kind] += 1;
      changed += 1;
    });
    await guard.afterCommit(created);
    return { changed, created: objects.filter((o) => createdKeys.has(lookupKey(o.type, o.id))) };
  }

  /** DOC-7: a file goes to the Documents table; SCH-2: a meeting notes its session day. */
  private async sideEffects(
    o: PageObject,
    incoming: IncomingObject,
    body: WritePage<PageObject>['body'],
    fetchedAt: string,
  ): Promise<void> {
    if (body === undefined) return;
    if (o.type === 'file' && !incoming.deleted) {
      const recorded = await recordDocument(this.deps.clients, this.deps.tables.documents, incoming.object, {
        sourceId: this.deps.sourceId,
        bodyId: body.id,
        listed: body.listed,
        nowIso: fetchedAt,
      });
      if (recorded === 'created' || recorded === 'changed') this.deps.totals().documents += 1;
    }
    if (o.type === 'meeting') {
      const day = sessionDayOf(incoming.object, this.deps.nowMs());
      await this.deps.sessionDays.setMeetingDay(body.bodyKey, idHash(o.id).slice(0, 16), day);
    }
  }
}

/** The index entry's `modified` as epoch ms, for `classifyChange`. */
function modifiedOf(entry: MirrorIndexEntry): { modifiedMs?: number } {
  const ms = entry.modified === undefined ? undefined : parseOParlTime(entry.modified)?.toMillis();
  return ms === undefined ? {} : { modifiedMs: ms };
}

/** SCH-2: the Berlin date a meeting starts, if it counts as a session day (not cancelled/deleted/past). */
export function sessionDayOf(meeting: OParlObject, nowMs: number): string | undefined {
  if (isDeleted(meeting) || meeting.cancelled === true || meeting.cancelled === 'true') return undefined;
  const date = parseOParlTime(meeting.start)?.toISODate() ?? undefined;
  return date !== undefined && date >= berlinDate(nowMs) ? date : undefined;
}
