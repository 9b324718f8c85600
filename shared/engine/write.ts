import {
  apiIdHash,
  classifyChange,
  digestVersion,
  type ListDigest,
  lookupKey,
  type MirrorIndexEntry,
  MirrorStore,
  type MirrorWrite,
} from '../mirror';
import { type AwsClients, BodyRecords } from '../store';
import { mapLimit } from '../util';
import { WRITE_CONCURRENCY } from './constants';
import { recordDocument } from './documents';
import {
  contentHash,
  embeddedObjects,
  isDeleted,
  modifiedMs,
  type OParlObject,
  oparlTimeMs,
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
 *
 * OPT-5, a takedown issued while the page is written: see `withoutLateTakedowns`.
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
  /**
   * After a page's commits: the takedowns are read afresh when they created entries or stored objects
   * that embed others (`embedding`); created entries taken down meanwhile are sealed. Nothing to read
   * otherwise. `covers` answers from the fresh read afterwards.
   */
  afterCommit(page: {
    created: { entry: MirrorIndexEntry; subject: WriteSubject }[];
    embedding: boolean;
  }): Promise<void>;
}

/**
 * OPT-5: a source's takedowns as one run of a kind sees them — the `MirrorGuard` its writer checks,
 * read once before the run's first write (`load`), and asked whether a body is taken down (`body`:
 * such a body is neither fetched nor written). shared/takedown `TakedownGuard` is the one in use; the
 * composition root gives it as a `TakedownGuardFactory`, since takedown/ builds on the engine and the
 * kinds therefore never build it themselves.
 */
export interface SourceTakedowns<M = unknown> extends MirrorGuard<M> {
  load(): Promise<void>;
  body(bodyId: string | undefined): M | undefined;
}

/** The takedown guard of one run of `sourceId`; its events go to the run's log. */
export type TakedownGuardFactory<M = unknown> = (
  sourceId: string,
  log: (event: string, fields: Record<string, unknown>) => void,
) => SourceTakedowns<M>;

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
 * Pure: the hash and `modified` a stored object was committed with (`ingestor mirror rebuild`, from its
 * S3 record): as published for an OParl source; for a scraped one the stamp `stampedWhenSeen` added is
 * not part of the hash (the next scrape compares the content without it).
 */
export function storedVersion(
  object: OParlObject,
  kind: 'oparl' | 'scraper',
): { hash: string; modified?: string } {
  if (kind === 'oparl') {
    const { hash, modified } = asPublished({ object } as PageObject, '');
    return { hash, ...(modified !== undefined ? { modified } : {}) };
  }
  const { modified, ...content } = object;
  const stamp = textValue(modified);
  return { hash: contentHash(content as OParlObject), ...(stamp !== undefined ? { modified: stamp } : {}) };
}

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
  /**
   * Issue 28: the list's digest (a full sync's): objects it knows as they arrive are neither read nor
   * written; what the page decides or commits is recorded in it. Absent: every object is looked up.
   */
  digest?: ListDigest;
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
  /** DOC-7: the bodies' listing as the operator sets it (a new file's flag is confirmed against it). */
  private readonly bodies: BodyRecords;

  constructor(private readonly deps: MirrorWriterDeps<M>) {
    this.bodies = new BodyRecords({ doc: deps.clients.doc, table: deps.tables.state });
    this.mirror = new MirrorStore(deps.clients, {
      bucket: deps.tables.bucket,
      stateTable: deps.tables.state,
      mirrorTable: deps.tables.mirror,
    });
  }

  /** Mirrors one page's objects; returns how many changed and which were created. */
  async writePage<T extends PageObject>(page: WritePage<T>): Promise<PageWritten<T>> {
    const { sourceId, guard } = this.deps;
    const digest = page.digest;
    const unknown = digest ? page.objects.filter((o) => !this.known(o, page, digest)) : page.objects;
    if (unknown.length === 0) return { changed: 0, created: [] };
    const index = await this.mirror.lookup(sourceId, unknown);
    const scope = page.scope ?? 'any';
    const objects = unknown.filter((o) => {
      const known = index.has(lookupKey(o.type, o.id));
      return scope === 'any' || (scope === 'known') === known;
    });
    const takenDown = new PageTakedowns(index, guard);
    const pass = await this.commitEach(objects, { index, page, takenDown, again: false });
    await guard.afterCommit({ created: pass.created, embedding: pass.embedding.length > 0 });
    await this.withoutLateTakedowns(pass.embedding, page, takenDown);
    return {
      changed: pass.changed,
      created: objects.filter((o) => pass.createdKeys.has(lookupKey(o.type, o.id))),
    };
  }

  /**
   * Issue 28: the digest knows the object as it arrives — so the index holds it as the digest recorded
   * (no commit since: the digest's opening forgot those) and the page would decide it unchanged again.
   * Only objects of a body's list, whose commits the digest's staleness check sees (`byList`); never an
   * object the takedowns cover (it must be met, OPT-5); the version compared is the one the commit path
   * would compute (embedded objects taken down pruned first).
   */
  private known(o: PageObject, page: WritePage<PageObject>, digest: ListDigest): boolean {
    if (page.body === undefined || o.type === 'body') return false;
    const { guard } = this.deps;
    const subject: WriteSubject = {
      id: o.id,
      bodyId: page.body.id,
      ...(o.parentId !== undefined ? { parentId: o.parentId } : {}),
    };
    if (guard.covers(subject) !== undefined) {
      // Never kept for it: a digest saved by this run must not name it (its entry may be purged unseen).
      digest.forget(o.type, o.id);
      return false;
    }
    const object = withoutEmbedded(o.object, (id) => guard.covers({ id }) !== undefined);
    const fetchedAt = new Date(this.deps.nowMs()).toISOString();
    const incoming = page.versioning(object === o.object ? o : { ...o, object }, fetchedAt);
    return digest.trusts(o.type, o.id, digestVersion(incoming.hash, o.embedded === true));
  }

  /**
   * OPT-5: a `tombstone --ids` of an embedded object (a paper's file) issued while this page is
   * written. The command records the id (registry), marks it, then commits again the stored objects
   * that embed it; the page embedded what this run knew at the lookup. Had our commit of the parent
   * landed after the command's, it would bring the object back into the parent's S3 record and inline
   * copy (the API hides it at serve time, the stored copy keeps it until the parent's next write). So
   * after the page's commits the takedowns are read afresh (`afterCommit`), and each parent committed
   * with an object now taken down is committed again without it — until a fresh read finds nothing
   * new. Why that suffices: a command whose registry item the last read missed wrote it after that
   * read, and reads the parent only after its item (registry item, mark, then the parent) — so after
   * our last commit — and commits it without the object itself. Costs one registry Query after a page
   * that committed objects embedding others (none when the page created entries: that read is done
   * anyway); the commit again, with a strongly consistent lookup first, only when such a command
   * actually ran meanwhile.
   */
  private async withoutLateTakedowns<T extends PageObject>(
    committed: Committed<T>[],
    page: WritePage<T>,
    takenDown: PageTakedowns,
  ): Promise<void> {
    let pending = committed;
    for (;;) {
      const stale = embeddingTakenDown(pending, takenDown.has);
      if (stale.length === 0) return;
      const objects = stale.map((c) => c.object);
      // Strongly consistent: the command may have committed the parent without the object already.
      const index = await this.mirror.lookup(this.deps.sourceId, objects, { consistent: true });
      const again = await this.commitEach(objects, { index, page, takenDown, again: true });
      await this.deps.guard.afterCommit({ created: again.created, embedding: again.embedding.length > 0 });
      pending = again.embedding;
    }
  }

  /**
   * The page's objects written against the index entries read for them. `again`: objects of the page
   * committed once already, now without an object taken down meanwhile — compared as list copies (the
   * rule for embedded copies, only a newer `modified` replaces, would keep ours) and not counted again
   * in the totals (it is no change of the source's).
   */
  private async commitEach<T extends PageObject>(
    objects: T[],
    against: CommitAgainst<T>,
  ): Promise<CommitPass<T>> {
    const { index, page, takenDown, again } = against;
    const { sourceId, guard } = this.deps;
    const fetchedAt = new Date(this.deps.nowMs()).toISOString();
    const pass: CommitPass<T> = { changed: 0, created: [], createdKeys: new Set(), embedding: [] };
    await mapLimit(objects, WRITE_CONCURRENCY, async (o) => {
      const previous = index.get(lookupKey(o.type, o.id));
      // OPT-2: an operator's tombstone stands, whatever the source still publishes.
      if (previous?.takedown !== undefined) return page.digest?.forget(o.type, o.id);
      const bodyId = o.type === 'body' ? o.id : page.body?.id;
      const subject: WriteSubject = {
        id: o.id,
        ...(bodyId !== undefined ? { bodyId } : {}),
        ...(o.parentId !== undefined ? { parentId: o.parentId } : {}),
      };
      // OPT-5: the registry outlives a purge of the index entry; an unsealed entry is sealed now.
      const covered = guard.covers(subject);
      if (covered) return guard.meet(previous, covered);
      // OPT-5: nor does it come back inside another object (a paper's file, a meeting's agenda item).
      const object = withoutEmbedded(o.object, takenDown.has);
      const incoming = page.versioning(object === o.object ? o : { ...o, object }, fetchedAt);
      const kind = classifyChange(
        previous ? { hash: previous.hash, deleted: previous.deleted, ...modifiedOf(previous) } : undefined,
        {
          hash: incoming.hash,
          deleted: incoming.deleted,
          ...(incoming.modifiedMs !== undefined ? { modifiedMs: incoming.modifiedMs } : {}),
        },
        { embedded: o.embedded === true && !again },
      );
      // Issue 28: what the digest may answer next time — only for an entry in this body's list
      // partition (`byList`), where a later commit of it shows.
      const version = digestVersion(incoming.hash, o.embedded === true);
      const inList = page.body !== undefined && o.type !== 'body';
      if (kind === 'unchanged') {
        // Decided against the entry as last committed (its `fetchedAt` is its list sort key's time).
        if (inList && previous !== undefined && previous.bodyId === bodyId)
          page.digest?.record(o.type, o.id, version, previous.fetchedAt);
        return;
      }
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
      if (entry === undefined) {
        // Taken down meanwhile (and sealed now): the objects of the page that embed it drop it too.
        takenDown.met(o.id);
        page.digest?.forget(o.type, o.id);
        return;
      }
      if (inList) page.digest?.record(o.type, o.id, version, entry.fetchedAt);
      if (previous === undefined) {
        pass.created.push({ entry, subject });
        pass.createdKeys.add(lookupKey(o.type, o.id));
      }
      if (!incoming.deleted && embeddedObjects(incoming.object).length > 0) {
        pass.embedding.push({ object: o, committed: incoming.object });
      }
      if (again) return;
      this.deps.totals()[kind] += 1;
      pass.changed += 1;
    });
    return pass;
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
        listedNow: () => this.bodies.listedNow(this.deps.sourceId, body.bodyKey),
        nowIso: fetchedAt,
      });
      if (recorded === 'created' || recorded === 'changed') this.deps.totals().documents += 1;
    }
    if (o.type === 'meeting') {
      const day = sessionDayOf(incoming.object, this.deps.nowMs());
      // The meeting key is a prefix of its mirror index key (the keyed id): shared/broadcasts finds the meeting by it.
      await this.deps.sessionDays.setMeetingDay(body.bodyKey, apiIdHash(o.id).slice(0, 16), day);
    }
  }
}

/** An object of the page that embeds others, and the copy of it committed (checked against later takedowns). */
interface Committed<T extends PageObject> {
  object: T;
  committed: OParlObject;
}

/** What a page's objects are committed against: the index entries read for them, the page, its takedowns. */
interface CommitAgainst<T extends PageObject> {
  index: Map<string, MirrorIndexEntry>;
  page: WritePage<T>;
  takenDown: PageTakedowns;
  /** Objects committed once already, now without one taken down meanwhile (see commitEach). */
  again: boolean;
}

interface CommitPass<T extends PageObject> {
  changed: number;
  created: { entry: MirrorIndexEntry; subject: WriteSubject }[];
  createdKeys: Set<string>;
  /** The live objects committed that embed others. */
  embedding: Committed<T>[];
}

/**
 * OPT-5: the ids one page treats as taken down — what the guard covers (the registry as last read),
 * and what the page met marked by an operator: an index entry its lookup found marked, an object
 * whose commit failed on a mark. Marks outrun this run's read of the registry when a `tombstone` runs
 * while the run does.
 */
export class PageTakedowns {
  private readonly marked = new Set<string>();

  constructor(
    index: ReadonlyMap<string, MirrorIndexEntry>,
    private readonly guard: Pick<MirrorGuard<unknown>, 'covers'>,
  ) {
    for (const entry of index.values()) if (entry.takedown !== undefined) this.marked.add(entry.id);
  }

  /** An object whose commit an operator's mark made fail. */
  met(id: string): void {
    this.marked.add(id);
  }

  readonly has = (id: string): boolean => this.marked.has(id) || this.guard.covers({ id }) !== undefined;
}

/** Pure: the committed objects that still embed an object taken down (committed before it was known). */
export function embeddingTakenDown<T extends PageObject>(
  committed: readonly Committed<T>[],
  takenDown: (id: string) => boolean,
): Committed<T>[] {
  return committed.filter((c) => withoutEmbedded(c.committed, takenDown) !== c.committed);
}

/** The index entry's `modified` as epoch ms, for `classifyChange`. */
function modifiedOf(entry: MirrorIndexEntry): { modifiedMs?: number } {
  const ms = entry.modified === undefined ? undefined : oparlTimeMs(entry.modified);
  return ms === undefined ? {} : { modifiedMs: ms };
}

/** SCH-2: the Berlin date a meeting starts, if it counts as a session day (not cancelled/deleted/past). */
export function sessionDayOf(meeting: OParlObject, nowMs: number): string | undefined {
  if (isDeleted(meeting) || meeting.cancelled === true || meeting.cancelled === 'true') return undefined;
  const date = parseOParlTime(meeting.start)?.toISODate() ?? undefined;
  return date !== undefined && date >= berlinDate(nowMs) ? date : undefined;
}
