import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { IngestorError } from '../errors';
import { type AwsClients, bodySk, sessionSk, slugSk, sourcePartition } from '../store';
import { stableStringify } from './objects';
import type { BodyRecord, SystemRecord } from './types';

/**
 * The sync's items in the State table. Partition `SOURCE#<sourceId>`; sort keys owned here:
 * - `OPARL#SYSTEM`             the System: body list URL, last filter check (SCH-10), validators (B-1)
 * - `BODY#<bodyKey>`           one per body: id, name, slug, listed (ONB-4), list URLs, last complete sync
 * - `SLUG#<slug>`              reservation making body slugs unique per source (conditional put)
 * - `CURSOR#<kind>`            the run cursor (incremental / full / sliced), written after every page
 * - `SESSION#<bodyKey>`        upcoming meeting days, one attribute per meeting (SCH-2)
 * The OParl lists' items (`LIST#…`, `RUNLIST#…`) are the OParl kind's (shared/oparl/state.ts).
 * The mirror index lives in its own partitions (`MIRROR#…`, see shared/mirror/store.ts).
 * `bodyKey` = first 16 hex of SHA-256(body id): stable whatever the body's name does.
 */
// The keys live in shared/store keys.ts (one home for every key, issue 29 item 1).
export { bodySk, sessionSk, slugSk, sourcePartition };

export const SK_SYSTEM = 'OPARL#SYSTEM';
export const cursorSk = (kind: string) => `CURSOR#${kind}`;

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

export class CursorConflictError extends IngestorError {
  constructor(sourceId: string, kind: string) {
    super(
      'SYNC_CURSOR_CONFLICT',
      `another invocation advanced the ${kind} cursor of ${sourceId}; this one stops (lease overlap?)`,
    );
  }
}

/** An item as stored, without its table keys. */
export function strip<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as T;
}

function isConditionFailure(err: unknown): boolean {
  return (
    err instanceof ConditionalCheckFailedException ||
    (err as { name?: string }).name === 'ConditionalCheckFailedException'
  );
}

/**
 * Items of one source's partition `SOURCE#<sourceId>` of the State table: read one, write one, list a
 * sort-key family. The OParl engine's store and the scraper's build on it.
 */
export class SourcePartitionItems {
  private puts = 0;

  constructor(
    protected readonly clients: Pick<AwsClients, 'doc'>,
    protected readonly table: string,
    protected readonly sourceId: string,
  ) {}

  protected get pk(): string {
    return sourcePartition(this.sourceId);
  }

  /**
   * Items written through `put` so far: the run frame saves the cursor after such a write (a scraped
   * month's rows, a page's state — the cursor's tasks were derived from them).
   */
  get commits(): number {
    return this.puts;
  }

  protected async get<T>(sk: string): Promise<T | undefined> {
    const out = await this.clients.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: this.pk, sk }, ConsistentRead: true }),
    );
    return strip<T>(out.Item);
  }

  protected async put(sk: string, item: object): Promise<void> {
    await this.clients.doc.send(
      new PutCommand({ TableName: this.table, Item: { pk: this.pk, sk, ...item } }),
    );
    this.puts += 1;
  }

  protected async queryPrefix<T>(prefix: string): Promise<T[]> {
    const items: T[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.clients.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': this.pk, ':prefix': prefix },
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of out.Items ?? []) items.push(strip<T>(item) as T);
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items;
  }
}

/** What the store needs of a run's cursor; each source kind's cursor (OParl `SyncCursor`) extends it. */
export interface StoredCursor {
  kind: string;
  /** Optimistic lock: +1 per write. */
  seq: number;
}

export class SyncStateStore extends SourcePartitionItems {
  // --- cursor -------------------------------------------------------------------------------------

  getCursor<C extends StoredCursor>(kind: string): Promise<C | undefined> {
    return this.get<C>(cursorSk(kind));
  }

  /**
   * Writes the cursor if nobody else advanced it since we read it (optimistic lock on `seq`): a duplicate
   * invocation of the same source — which the planner's lease should prevent — fails here instead of
   * interleaving pages.
   */
  async putCursor(cursor: StoredCursor, previousSeq: number | undefined): Promise<void> {
    // A kind's items that travel with the cursor first (OParl: the run's list reports): a cursor never
    // counts what is not stored.
    await this.beforeCursorWrite();
    await putLockedCursor(
      this.clients,
      this.table,
      { pk: this.pk, sk: cursorSk(cursor.kind), ...cursor },
      previousSeq,
      () => new CursorConflictError(this.sourceId, cursor.kind),
    );
  }

  /** Hook for a kind's store: what must be written before (with) the next cursor write. */
  protected async beforeCursorWrite(): Promise<void> {}

  // --- system -------------------------------------------------------------------------------------

  getSystem(): Promise<SystemRecord | undefined> {
    return this.get<SystemRecord>(SK_SYSTEM);
  }

  async putSystem(record: SystemRecord): Promise<void> {
    await this.clients.doc.send(
      new PutCommand({ TableName: this.table, Item: { pk: this.pk, sk: SK_SYSTEM, ...record } }),
    );
  }

  // --- bodies -------------------------------------------------------------------------------------

  getBodies(): Promise<BodyRecord[]> {
    return this.queryPrefix<BodyRecord>('BODY#');
  }

  getBody(bodyKey: string): Promise<BodyRecord | undefined> {
    return this.get<BodyRecord>(bodySk(bodyKey));
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
  ): Promise<BodyRecord> {
    const existing = await this.getBody(fields.bodyKey);
    if (existing && !bodyChanged(existing, fields) && !refreshDue(existing.lastSeenAt, fields.lastSeenAt)) {
      return existing;
    }
    if (!existing) {
      const slug = await this.reserveSlug(slugBase, fields.bodyKey);
      const created: BodyRecord = { ...fields, slug, listed: false, firstSeenAt: fields.lastSeenAt };
      try {
        await this.clients.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: { pk: this.pk, sk: bodySk(fields.bodyKey), ...created },
            ConditionExpression: 'attribute_not_exists(sk)',
          }),
        );
        return created;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
        // Created meanwhile (a resumed run): fall through to the refresh below.
      }
    }
    const names: Record<string, string> = {
      '#name': 'name',
      '#lists': 'lists',
      '#seen': 'lastSeenAt',
    };
    const values: Record<string, unknown> = {
      ':name': fields.name,
      ':lists': fields.lists,
      ':seen': fields.lastSeenAt,
    };
    const sets = ['#name = :name', '#lists = :lists', '#seen = :seen'];
    const removes: string[] = [];
    for (const [attr, value] of [
      ['shortName', fields.shortName],
      ['oparlVersion', fields.oparlVersion],
      ['deleted', fields.deleted],
    ] as const) {
      names[`#${attr}`] = attr;
      if (value === undefined) removes.push(`#${attr}`);
      else {
        sets.push(`#${attr} = :${attr}`);
        values[`:${attr}`] = value;
      }
    }
    const out = await this.clients.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: this.pk, sk: bodySk(fields.bodyKey) },
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ConditionExpression: 'attribute_exists(sk)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip<BodyRecord>(out.Attributes) as BodyRecord;
  }

  /** Takes `base`, else `base-2`, `base-3` … — a conditional put per try, so two bodies never share one. */
  private async reserveSlug(base: string, bodyKey: string): Promise<string> {
    for (let n = 1; n < 1000; n++) {
      const slug = n === 1 ? base : `${base}-${n}`;
      try {
        await this.clients.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: { pk: this.pk, sk: slugSk(slug), bodyKey },
            ConditionExpression: 'attribute_not_exists(sk) OR bodyKey = :bodyKey',
            ExpressionAttributeValues: { ':bodyKey': bodyKey },
          }),
        );
        return slug;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
    throw new IngestorError('SLUG_EXHAUSTED', `no free slug for ${base}`);
  }

  async markBodyComplete(bodyKey: string, startedAt: string, full: boolean): Promise<void> {
    await this.clients.doc
      .send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: this.pk, sk: bodySk(bodyKey) },
          // Only ever moves forward: a resumed older run must not roll the window back (SCH-9).
          UpdateExpression: full ? 'SET #c = :s, #f = :s' : 'SET #c = :s',
          ConditionExpression: 'attribute_exists(sk) AND (attribute_not_exists(#c) OR #c < :s)',
          ExpressionAttributeNames: full
            ? { '#c': 'lastCompleteSyncStart', '#f': 'lastCompleteFullSyncStart' }
            : { '#c': 'lastCompleteSyncStart' },
          ExpressionAttributeValues: { ':s': startedAt },
        }),
      )
      .catch((err) => {
        if (!isConditionFailure(err)) throw err;
      });
  }

  // --- session days (SCH-2) -----------------------------------------------------------------------

  /**
   * One attribute per meeting (`m_<hash>` = Berlin date), set or removed on its own: no read-modify-write
   * of a shared map, so repeating an update is harmless.
   */
  async setMeetingDay(bodyKey: string, meetingKey: string, date: string | undefined): Promise<void> {
    const attr = `m_${meetingKey}`;
    await this.clients.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: this.pk, sk: sessionSk(bodyKey) },
        UpdateExpression: date === undefined ? 'SET bodyKey = :b REMOVE #m' : 'SET bodyKey = :b, #m = :d',
        ExpressionAttributeNames: { '#m': attr },
        ExpressionAttributeValues: date === undefined ? { ':b': bodyKey } : { ':b': bodyKey, ':d': date },
      }),
    );
  }

  /** Drops meeting days that lie in the past (they never count again). */
  async pruneMeetingDays(bodyKey: string, meetingKeys: string[]): Promise<void> {
    for (let i = 0; i < meetingKeys.length; i += 50) {
      const chunk = meetingKeys.slice(i, i + 50);
      await this.clients.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: this.pk, sk: sessionSk(bodyKey) },
          UpdateExpression: `REMOVE ${chunk.map((_, j) => `#m${j}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(chunk.map((k, j) => [`#m${j}`, `m_${k}`])),
        }),
      );
    }
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
    const items = await this.queryPrefix<Record<string, unknown>>('SESSION#');
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

/**
 * A run's cursor item with an optimistic lock on `seq` (created when `previousSeq` is undefined): a
 * duplicate invocation of the same source fails with `conflict()` instead of interleaving pages.
 * Shared by the OParl and the scraper engine.
 */
export async function putLockedCursor(
  clients: Pick<AwsClients, 'doc'>,
  table: string,
  item: Record<string, unknown> & { pk: string; sk: string },
  previousSeq: number | undefined,
  conflict: () => Error,
): Promise<void> {
  try {
    await clients.doc.send(
      new PutCommand({
        TableName: table,
        Item: item,
        ...(previousSeq === undefined
          ? { ConditionExpression: 'attribute_not_exists(sk)' }
          : { ConditionExpression: 'seq = :seq', ExpressionAttributeValues: { ':seq': previousSeq } }),
      }),
    );
  } catch (err) {
    if (isConditionFailure(err)) throw conflict();
    throw err;
  }
}
