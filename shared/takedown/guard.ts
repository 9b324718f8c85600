import { embeddedObjects, isRecord, type TakedownGuardFactory } from '../engine';
import { type MirrorIndexEntry, MirrorStore, MirrorTakenDownError } from '../mirror';
import { TakedownRegistry, TakedownSet, type TakedownSubject } from './registry';
import { type SealDeps, sealTakenDown } from './seal';
import type { TakedownMark } from './types';

/**
 * OPT-5 for a sync run (OParl engine and scraper alike): which objects this run must not write, and
 * the race with a `tombstone` issued while it runs.
 *
 * Cost, in DynamoDB reads: one Query of the source's `TAKEDOWN#` partition per invocation (`load`), and
 * one more after a page only when that page created index entries that did not exist before or
 * committed objects that embed others (`afterCommit`) — an unchanged page, and a page of modified
 * objects that embed nothing (files, persons), cost nothing extra.
 *
 * The race, with `tombstone` writing registry item → index mark → S3 record, and the sync writing
 * S3 record → index item (the commit point):
 * - the object has an index entry: the sync's commit is conditional on "no takedown mark"
 *   (shared/mirror), so a mark set before the commit wins (`MirrorTakenDownError` → we seal, since our
 *   S3 write may have replaced the tombstone); a mark set after it is simply the takedown proceeding;
 * - the object is new (no entry for `tombstone` to mark): both sides write, then read the other's item,
 *   strongly consistent — `tombstone` writes its registry item and then looks up the index; the sync
 *   commits the index item and then reads the registry. At least one of them sees the other, and
 *   whoever sees it seals the object;
 * - the object is embedded in one the sync commits (a paper's file): the same pair of reads decides.
 *   `tombstone` commits the stored parent again without it after its registry item; the sync reads the
 *   registry after committing the parent and commits it again without the object if it is there
 *   (shared/engine/write.ts, `withoutLateTakedowns`).
 */
export class TakedownGuard {
  private set = new TakedownSet();
  private readonly registry: TakedownRegistry;
  private readonly mirror: MirrorStore;
  /** Registry reads of this run (the figure the bench and tests measure). */
  reads = 0;
  /** Objects this run sealed (found written over a takedown, or met unsealed after a crash). */
  sealed = 0;

  constructor(
    private readonly deps: SealDeps,
    private readonly sourceId: string,
    private readonly log?: (event: string, fields: Record<string, unknown>) => void,
  ) {
    this.registry = new TakedownRegistry(deps.clients.doc, deps.stateTable);
    this.mirror = new MirrorStore(deps.clients, {
      bucket: deps.bucket,
      stateTable: deps.stateTable,
      mirrorTable: deps.mirrorTable,
    });
  }

  async load(): Promise<void> {
    this.reads += 1;
    this.set = await this.registry.load(this.sourceId);
  }

  /** The mark that forbids writing this subject (and fetching it, for a body), if any. */
  covers(subject: TakedownSubject): TakedownMark | undefined {
    return this.set.covers(subject);
  }

  body(bodyId: string | undefined): TakedownMark | undefined {
    return this.set.body(bodyId);
  }

  /**
   * A taken-down object met by the sync: its index entry carries no mark yet (a `tombstone` killed
   * between its steps, or a mark purged with nothing else lost) — complete the takedown.
   */
  async meet(previous: MirrorIndexEntry | undefined, mark: TakedownMark): Promise<void> {
    if (previous === undefined || (previous.takedown !== undefined && previous.deleted)) return;
    await this.seal(previous, mark);
  }

  /**
   * Runs one commit (S3 record, then index item). Returns the entry written, or undefined when an
   * operator's mark on the index item made the commit fail: the object is then sealed.
   */
  async commit(write: () => Promise<MirrorIndexEntry>): Promise<MirrorIndexEntry | undefined> {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof MirrorTakenDownError)) throw error;
      const entry = (
        await this.mirror.lookup(this.sourceId, [{ type: error.type, id: error.id }], { consistent: true })
      ).get(`${error.type}\n${error.id}`);
      const mark = entry?.takedown as TakedownMark | undefined;
      if (entry && mark) await this.seal(entry, mark);
      return undefined;
    }
  }

  /**
   * After a page: a fresh read of the registry when the page created entries (absent before) or
   * committed objects that embed others (`embedding`: the writer checks those against it); created
   * entries taken down meanwhile are sealed. Nothing to read when the page did neither.
   */
  async afterCommit(page: {
    created: { entry: MirrorIndexEntry; subject: TakedownSubject }[];
    embedding: boolean;
  }): Promise<void> {
    const { created } = page;
    if (created.length === 0 && !page.embedding) return;
    await this.load();
    for (const { entry, subject } of created) {
      const mark = this.set.covers(subject);
      if (mark) await this.seal(entry, mark);
    }
  }

  /**
   * Seals the object and, as `tombstone --ids` does, what is embedded in it (a paper's files): those
   * are recorded in the registry too, so the file list cannot bring them back on their own.
   */
  private async seal(entry: MirrorIndexEntry, mark: TakedownMark): Promise<void> {
    const record = await this.mirror.read(entry.sourceId, entry.type, entry.id);
    await sealTakenDown(this.deps, entry, mark);
    this.sealed += 1;
    this.log?.('takedown-sealed', { type: entry.type, id: entry.id, takedownAt: mark.at });
    const live = record && record.meta.deleted !== true ? record.object : record?.meta.lastGood;
    const children = isRecord(live) ? embeddedObjects(live).map((e) => ({ type: e.type, id: e.id })) : [];
    if (children.length === 0) return;
    for (const child of children) {
      await this.registry.record({ sourceId: this.sourceId, scope: 'object', ...child, mark });
    }
    this.set = this.set.with(children.map((c) => ({ scope: 'object' as const, id: c.id, mark })));
    const entries = await this.mirror.lookup(this.sourceId, children, { consistent: true });
    for (const child of entries.values()) {
      if (child.takedown === undefined || !child.deleted) await this.seal(child, mark);
    }
  }
}

/**
 * The sync's takedown guards (engine `TakedownGuardFactory`): one `TakedownGuard` per run of a source,
 * over the clients, bucket and State table the composition root holds (shared/sync `composeSync`).
 */
export function takedownGuards(deps: SealDeps): TakedownGuardFactory<TakedownMark> {
  return (sourceId, log) => new TakedownGuard(deps, sourceId, log);
}
