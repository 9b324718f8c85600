import { apiIdHash, listSort, listTime } from './keys';

/**
 * Issue 28: the per-list digest of a full sync — what one list's objects looked like when the sync last
 * decided about them, so that a nightly full sync of an unchanged list reads no index item at all
 * (one BatchGet per page before: ≈ €44 of a €175 bill at 1,000 sources).
 *
 * An entry says: "this object (type, id), arriving with this version, was last decided *unchanged* or
 * written as that version" — true as long as nobody commits the object again. The digest is only ever
 * used to SKIP an object (no read, no write); a wrong entry could delay a change, never write anything,
 * so it can never undo a takedown (OPT-2 / OPT-5). Staleness is found three ways (shared/oparl
 * list-digest.ts opens it):
 * - stamp: the digest is trusted only when its stamp is the one the list's State mark names (written
 *   after the digest, with the source's other State items): a missing mark (a source removed and added
 *   again), a table restored to an older point, a digest whose mark was never written → ignored, and the
 *   run rebuilds it from its lookups;
 * - basis: every commit of an object of a body moves its `byList` sort key to the commit time (a sync's
 *   write, a tombstone, an operator's takedown mark): the index items of the source's lists committed
 *   after the digest's basis are forgotten before the first page (one Query per body and type) — but
 *   for the digest's own run's commits, which it names with their exact sort keys (`own`);
 * - the takedown registry: an object the run's takedowns cover is never trusted (the writer checks).
 * Entries are recorded only for objects whose index item is in this body's list partition. What the
 * Query cannot see is a later commit that takes an item out of `byList` — only the body phase commits
 * without a body (objects embedded in a Body); its embedded copy replaces ours only when newer, so the
 * list's older copy would be decided unchanged anyway (without `modified` on either side, the two
 * copies would take turns today; with the digest the embedded one stays).
 */

/** Bits of the id hash a digest keys by: 64, collision-free for any list (and a hit must match a version too). */
const DIGEST_ID_HEX = 16;
/** Bits of the content hash a version holds: 64. */
const DIGEST_VERSION_HEX = 16;

/**
 * Commits up to this long before a digest was opened are looked for again by the next run: the
 * `byList` index is eventually consistent (a commit a second old may not be visible to its Query yet),
 * and the writers' clocks are different machines'.
 */
export const DIGEST_BASIS_MARGIN_MS = 5 * 60_000;

/** An unchanged digest is written again when its basis is this old (the Query after it then stays short). */
export const DIGEST_REWRITE_AFTER_MS = 7 * 86_400_000;

/** The version a digest compares: the content hash, and whether the copy was embedded (other rules). */
export function digestVersion(hash: string, embedded: boolean): string {
  return `${hash.slice(0, DIGEST_VERSION_HEX)}${embedded ? 'e' : ''}`;
}

function idKey(id: string): string {
  return apiIdHash(id).slice(0, DIGEST_ID_HEX);
}

/** The stored form (shared/store list-digests.ts keeps it as given). */
export interface ListDigestData {
  v: 1;
  /** The list mark's `digest` names this; any other digest is ignored. */
  stamp: string;
  /** ISO instant: commits after it are looked for when the digest is opened. */
  basis: string;
  /** type → first 16 hex of the API id hash → version. */
  entries: Record<string, Record<string, string>>;
  /**
   * The commits the entries were decided against, of those after the basis: type → id key → their
   * `byList` sort key. A commit found after the basis with exactly this key is the one the entry
   * records (this run's own, or one it read); any other is news.
   */
  own?: Record<string, Record<string, string>>;
}

/** Why a stored digest is not used (logged): none stored, or not the one the list mark names. */
export type DigestRefusal = 'absent' | 'unreadable' | 'stamp-mismatch';

export class ListDigest {
  private readonly entries = new Map<string, Map<string, string>>();
  /** Commits the entries record, by type and id key: their list sort keys (see `ListDigestData.own`). */
  private readonly own = new Map<string, Map<string, string>>();
  /** Changed since read: it must be written. */
  dirty = false;

  private constructor(readonly basis: string | undefined) {}

  /** An empty digest: every object is looked up, and recorded as the run decides it. */
  static empty(): ListDigest {
    return new ListDigest(undefined);
  }

  /** The stored digest when it is the one the list mark names (`stamp`), else why not. */
  static open(data: unknown, stamp: string | undefined): ListDigest | DigestRefusal {
    if (data === undefined) return 'absent';
    const d = data as Partial<ListDigestData>;
    if (d.v !== 1 || typeof d.basis !== 'string' || typeof d.entries !== 'object' || d.entries === null)
      return 'unreadable';
    if (stamp === undefined || d.stamp !== stamp) return 'stamp-mismatch';
    const digest = new ListDigest(d.basis);
    for (const [type, byId] of Object.entries(d.entries))
      digest.entries.set(type, new Map(Object.entries(byId)));
    for (const [type, byId] of Object.entries(d.own ?? {}))
      digest.own.set(type, new Map(Object.entries(byId)));
    return digest;
  }

  /** Types with entries: the `byList` partitions to look for commits in. */
  types(): string[] {
    return [...this.entries.keys()];
  }

  get size(): number {
    let n = 0;
    for (const byId of this.entries.values()) n += byId.size;
    return n;
  }

  /** Whether the object, arriving as `version`, is as the digest knows it. */
  trusts(type: string, id: string, version: string): boolean {
    return this.entries.get(type)?.get(idKey(id)) === version;
  }

  /**
   * The object as this run decided it, against (or by) the index item committed at `committedAt` —
   * the time its list sort key carries, so that a later commit, anyone's, is told apart from it.
   */
  record(type: string, id: string, version: string, committedAt?: string): void {
    const key = idKey(id);
    if (committedAt !== undefined) setIn(this.own, type, key, listSort(committedAt, id));
    if (this.entries.get(type)?.get(key) === version) return;
    setIn(this.entries, type, key, version);
    this.dirty = true;
  }

  forget(type: string, id: string): void {
    this.forgetKey(type, idKey(id));
  }

  /**
   * Forgets the index items committed after the basis (table keys: `MIRROR#<source>#<type>`, id hash;
   * `ls` their list sort key) — all but the commits the digest's run made itself. Returns how many
   * entries that removed.
   */
  forgetCommitted(items: readonly { pk: string; sk: string; ls: string }[]): number {
    let removed = 0;
    for (const { pk, sk, ls } of items) {
      const type = pk.slice(pk.lastIndexOf('#') + 1);
      const key = sk.slice(0, DIGEST_ID_HEX);
      if (this.own.get(type)?.get(key) === ls) continue;
      if (this.forgetKey(type, key)) removed += 1;
    }
    return removed;
  }

  private forgetKey(type: string, key: string): boolean {
    this.own.get(type)?.delete(key);
    const removed = this.entries.get(type)?.delete(key) === true;
    if (removed) this.dirty = true;
    return removed;
  }

  /** Whether it must be written at the list's end: changed, new, or its basis is old. */
  needsWrite(nowMs: number): boolean {
    return this.dirty || this.basis === undefined || nowMs - Date.parse(this.basis) > DIGEST_REWRITE_AFTER_MS;
  }

  /** The stored form; of the own commits only those after `basis` (older ones the next run never sees). */
  toData(stamp: string, basis: string): ListDigestData {
    const entries: ListDigestData['entries'] = {};
    for (const [type, byId] of this.entries) if (byId.size > 0) entries[type] = Object.fromEntries(byId);
    const after = listTime(basis);
    const own: NonNullable<ListDigestData['own']> = {};
    for (const [type, byId] of this.own) {
      const recent = [...byId].filter(([key, ls]) => ls > after && this.entries.get(type)?.has(key));
      if (recent.length > 0) own[type] = Object.fromEntries(recent);
    }
    return { v: 1, stamp, basis, entries, own };
  }
}

function setIn(map: Map<string, Map<string, string>>, type: string, key: string, value: string): void {
  let byId = map.get(type);
  if (!byId) {
    byId = new Map();
    map.set(type, byId);
  }
  byId.set(key, value);
}
