import { IngestorError } from '../errors';
import {
  type AwsClients,
  BODY_PAGE_DIGEST_ATTRIBUTE,
  bodySk,
  cursorSk,
  SourceSyncItems,
  SYSTEM_SK,
  sessionSk,
  slugSk,
  sourcePartition,
  withoutKeys,
} from '../store';
import { stableStringify } from './objects';
import type { BodyRecord, SystemRecord } from './types';

/**
 * The sync's items in the State table. Partition `SOURCE#<sourceId>`; sort keys owned here:
 * - `OPARL#SYSTEM`             the System: body list URL, last filter check (SCH-10), validators (B-1)
 * - `BODY#<bodyKey>`           one per body: id, name, slug, listed (ONB-4), list URLs, last complete sync
 * - `SLUG#<slug>`              reservation making body slugs unique per source (conditional put)
 * - `CURSOR#<kind>`            the run cursor (incremental / full / sliced), written at checkpoints, packed
 * - `SESSION#<bodyKey>`        upcoming meeting days, one attribute per meeting (SCH-2)
 * The OParl lists' items (`LIST#…`, `RUNLIST#…`) are the OParl kind's (shared/oparl/state.ts).
 * The mirror index lives in its own partitions (`MIRROR#…`, see shared/mirror/store.ts).
 * `bodyKey` = first 16 hex of SHA-256(body id): stable whatever the body's name does.
 */
// The keys live in shared/store keys.ts (one home for every key, issue 29 item 1).
export { bodySk, cursorSk, sessionSk, slugSk, sourcePartition };

export const SK_SYSTEM = SYSTEM_SK;

/**
 * An unchanged list mark or body is rewritten at most this often, only to move its times
 * (`lastCompleteStart`, `lastSeenAt`): an unchanged sync every ten minutes then writes no mark, and no
 * such time is ever more than a day old. Their readers take an older time as the safe side (a catch-up
 * starts earlier, never later).
 */
export const MARK_REFRESH_MS = 24 * 60 * 60 * 1000;

/** Whether an unchanged item's time `at` (ISO) is older than MARK_REFRESH_MS at `nowIso`. */
export function refreshDue(at: string | undefined, nowIso: string | undefined): boolean {
  if (at === undefined || nowIso === undefined) return true;
  return Date.parse(nowIso) - Date.parse(at) >= MARK_REFRESH_MS;
}

/**
 * SCH-9, issue 28: whether a body's complete sync must be written to its `BODY#` item now. A full pass
 * always is (`lastCompleteFullSyncStart`); an incremental one only once the stored start is
 * MARK_REFRESH_MS old — in between, an unchanged run every ten minutes writes no body item, and the
 * kind keeps the newer start where it writes anyway (OParl: its cursor, `bodiesComplete`).
 */
export function bodyCompleteDue(
  body: Pick<BodyRecord, 'lastCompleteSyncStart'>,
  startedAt: string,
  full: boolean,
): boolean {
  return full || refreshDue(body.lastCompleteSyncStart, startedAt);
}

export class CursorConflictError extends IngestorError {
  constructor(sourceId: string, kind: string) {
    super(
      'SYNC_CURSOR_CONFLICT',
      `another invocation advanced the ${kind} cursor of ${sourceId}; this one stops (lease overlap?)`,
    );
  }
}

/** An item as stored, without its table keys. */
export const strip = withoutKeys;

/** What the store needs of a run's cursor; each source kind's cursor (OParl `SyncCursor`) extends it. */
export interface StoredCursor {
  kind: string;
  /** Optimistic lock: +1 per write. */
  seq: number;
}

/**
 * The sync's items of one source's partition `SOURCE#<sourceId>`, read and written through the store's
 * repository (`SourceSyncItems`). The OParl engine's store builds on it; the scraper's uses the same
 * repository on its own.
 */
export class SyncStateStore {
  /** The partition's items in the store (shared/store): every read and write goes through it. */
  protected readonly items: SourceSyncItems;

  constructor(
    clients: Pick<AwsClients, 'doc'>,
    table: string,
    protected readonly sourceId: string,
  ) {
    this.items = new SourceSyncItems({ doc: clients.doc, table }, sourceId);
  }

  /**
   * Issue 28: the partition's sync items in one Query at an invocation's start (shared/store
   * `preloadSyncState`); the reads after it are served from it until the run writes the item.
   */
  preload(): Promise<void> {
    return this.items.preloadSyncState();
  }

  // --- cursor -------------------------------------------------------------------------------------

  /** The cursor of a kind (one written plain before issue 28's packing is read as it is). */
  async getCursor<C extends StoredCursor>(kind: string): Promise<C | undefined> {
    const item = await this.items.getPacked<C>(cursorSk(kind));
    return item === undefined ? undefined : (this.cursorFromItem(item) as C);
  }

  /**
   * Writes the cursor if nobody else advanced it since we read it (optimistic lock on `seq`): a duplicate
   * invocation of the same source — which the planner's lease should prevent — fails here instead of
   * interleaving pages.
   */
  async putCursor(cursor: StoredCursor, previousSeq: number | undefined): Promise<void> {
    // Issue 28: packed (shared/store packed-item.ts) — ≈ 1 KB plain at a run's end, 1–2 write units a
    // checkpoint. A kind's items that travel with the cursor go in it or before it (OParl: the run's
    // list reports): a cursor never counts what is not stored.
    const item = await this.cursorItem(cursor);
    if (!(await this.items.putLockedPacked(cursorSk(cursor.kind), item, previousSeq)))
      throw new CursorConflictError(this.sourceId, cursor.kind);
  }

  /** Hook for a kind's store: the item a cursor is written as (what rides with it added). */
  protected async cursorItem(cursor: StoredCursor): Promise<StoredCursor> {
    return cursor;
  }

  /** Hook for a kind's store: the cursor of an item as read (what rode with it taken out). */
  protected cursorFromItem(item: StoredCursor): StoredCursor {
    return item;
  }

  // --- system -------------------------------------------------------------------------------------

  getSystem(): Promise<SystemRecord | undefined> {
    return this.items.get<SystemRecord>(SK_SYSTEM);
  }

  async putSystem(record: SystemRecord): Promise<void> {
    await this.items.put(SK_SYSTEM, record);
  }

  // --- bodies -------------------------------------------------------------------------------------

  getBodies(): Promise<BodyRecord[]> {
    return this.items.listPrefix<BodyRecord>(bodySk(''));
  }

  getBody(bodyKey: string): Promise<BodyRecord | undefined> {
    return this.items.get<BodyRecord>(bodySk(bodyKey));
  }

  /**
   * Creates the body if it is new — unlisted (ONB-4) with a slug unique in the source — or refreshes the
   * fields the source owns (name, lists …). `listed` and `slug` are never touched after creation.
   */
  async upsertBody(
    fields: Omit<
      BodyRecord,
      'slug' | 'listed' | 'firstSeenAt' | 'lastCompleteSyncStart' | 'lastCompleteFullSyncStart'
    >,
    slugBase: string,
    /** The record as the caller has just read it (absent: undefined inside), so it is not read twice. */
    read?: { existing: BodyRecord | undefined },
  ): Promise<BodyRecord> {
    const existing = read === undefined ? await this.getBody(fields.bodyKey) : read.existing;
    if (existing && !bodyChanged(existing, fields) && !refreshDue(existing.lastSeenAt, fields.lastSeenAt)) {
      return existing;
    }
    if (!existing) {
      const slug = await this.reserveSlug(slugBase, fields.bodyKey);
      const created: BodyRecord = { ...fields, slug, listed: false, firstSeenAt: fields.lastSeenAt };
      if (await this.items.createBody(fields.bodyKey, created)) return created;
      // Created meanwhile (a resumed run): fall through to the refresh below.
    }
    const set: Record<string, unknown> = {
      name: fields.name,
      lists: fields.lists,
      lastSeenAt: fields.lastSeenAt,
    };
    const remove: string[] = [];
    for (const [attr, value] of [
      ['shortName', fields.shortName],
      ['oparlVersion', fields.oparlVersion],
      ['deleted', fields.deleted],
    ] as const) {
      if (value === undefined) remove.push(attr);
      else set[attr] = value;
    }
    return this.items.refreshBody<BodyRecord>(fields.bodyKey, set, remove);
  }

  /** Takes `base`, else `base-2`, `base-3` … — a conditional put per try, so two bodies never share one. */
  private async reserveSlug(base: string, bodyKey: string): Promise<string> {
    for (let n = 1; n < 1000; n++) {
      const slug = n === 1 ? base : `${base}-${n}`;
      if (await this.items.reserveSlug(slug, bodyKey)) return slug;
    }
    throw new IngestorError('SLUG_EXHAUSTED', `no free slug for ${base}`);
  }

  /**
   * Issue 28: the body's page digest (shared/oparl body-page-digest.ts) on its `BODY#` item, beside the
   * fields the source owns (it names its own attribute: nothing else of the item is replaced).
   */
  async setBodyPageDigest(bodyKey: string, digest: unknown): Promise<void> {
    await this.items.refreshBody(bodyKey, { [BODY_PAGE_DIGEST_ATTRIBUTE]: digest }, []);
  }

  /** SCH-9: only ever moves forward — a resumed older run must not roll the window back. */
  async markBodyComplete(bodyKey: string, startedAt: string, full: boolean): Promise<void> {
    await this.items.advanceBodyComplete(bodyKey, startedAt, full);
  }

  // --- session days (SCH-2) -----------------------------------------------------------------------

  /**
   * One attribute per meeting (`m_<hash>` = Berlin date), set or removed on its own: no read-modify-write
   * of a shared map, so repeating an update is harmless.
   */
  async setMeetingDay(bodyKey: string, meetingKey: string, date: string | undefined): Promise<void> {
    await this.items.setMeetingDay(bodyKey, meetingKey, date);
  }

  /** Drops meeting days that lie in the past (they never count again). */
  async pruneMeetingDays(bodyKey: string, meetingKeys: string[]): Promise<void> {
    await this.items.removeMeetingDays(bodyKey, meetingKeys);
  }

  /** Meeting days of every body, by body key; past days pruned by the caller. */
  /**
   * SCH-2: the source's session days from `today` (a Berlin date) on, sorted; meetings of past days are
   * pruned on the way so the items stay small. Both engines report these to the planner.
   */
  async upcomingSessionDays(today: string): Promise<string[]> {
    const days = new Set<string>();
    for (const [bodyKey, meetings] of await this.getMeetingDays()) {
      const past: string[] = [];
      for (const [meetingKey, date] of Object.entries(meetings)) {
        if (date >= today) days.add(date);
        else past.push(meetingKey);
      }
      if (past.length > 0 && bodyKey !== '') await this.pruneMeetingDays(bodyKey, past);
    }
    return [...days].sort();
  }

  async getMeetingDays(): Promise<Map<string, Record<string, string>>> {
    const items = await this.items.listPrefix<Record<string, unknown>>('SESSION#');
    const out = new Map<string, Record<string, string>>();
    for (const item of items) {
      const days: Record<string, string> = {};
      for (const [k, v] of Object.entries(item)) {
        if (k.startsWith('m_') && typeof v === 'string') days[k.slice(2)] = v;
      }
      out.set(String(item.bodyKey ?? ''), days);
    }
    return out;
  }
}

/** Whether the body list says something new about a body (its times aside). */
function bodyChanged(
  existing: BodyRecord,
  fields: Pick<BodyRecord, 'name' | 'lists' | 'shortName' | 'oparlVersion' | 'deleted'>,
): boolean {
  const pick = (b: typeof fields) =>
    stableStringify({
      name: b.name,
      lists: b.lists,
      shortName: b.shortName,
      oparlVersion: b.oparlVersion,
      deleted: b.deleted,
    });
  return pick(existing) !== pick(fields);
}
