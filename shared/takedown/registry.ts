import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { idHash } from '../mirror';
import type { TakedownMark } from './types';

/**
 * OPT-5: the takedown registry — the memory of a takedown that no purge touches.
 *
 * Why its own items: the operator's mark used to live only on the mirror's index entry, and
 * `purge-deleted` (OPT-3) deletes that entry, so the next sync found nothing and mirrored the object
 * again. A registry item is written *first* by `tombstone`, never by the sync, never deleted by the
 * purge, and removed only by an explicit `takedown lift`.
 *
 * Items (State table, so every function that already reads State may read them; no new grant):
 * - pk `TAKEDOWN#<sourceId>` — one small partition per source, read whole with one Query;
 * - sk `OBJECT#<idHash(id)>` for a taken-down object (its OParl id, embedded ones included),
 *   sk `BODY#<idHash(bodyId)>` for a taken-down body (every object of it, the body itself included);
 * - attributes `sourceId`, `scope`, `id`, `type?`, and the mark `at`, `by`, `note?`.
 */
export const TAKEDOWN_PARTITION_PREFIX = 'TAKEDOWN#';

export type TakedownScope = 'object' | 'body';

export interface TakedownItem {
  sourceId: string;
  scope: TakedownScope;
  /** OParl id of the object, or of the body. */
  id: string;
  /** Lower-case OParl type when known (objects found in the mirror). */
  type?: string;
  mark: TakedownMark;
}

export function takedownPartition(sourceId: string): string {
  return `${TAKEDOWN_PARTITION_PREFIX}${sourceId}`;
}

export function takedownSortKey(scope: TakedownScope, id: string): string {
  return `${scope === 'body' ? 'BODY' : 'OBJECT'}#${idHash(id)}`;
}

/** What a writer knows of one object it is about to write (or fetch, for a body's lists). */
export interface TakedownSubject {
  id: string;
  /** The object's body (OParl id); for a body, its own id. */
  bodyId?: string;
  /** The object it is embedded in (a paper's file): taken down with it. */
  parentId?: string;
}

/**
 * Pure: one source's takedowns, loaded once and asked per object without I/O. `covers` answers with
 * the mark that forbids writing the subject, or undefined.
 */
export class TakedownSet {
  private readonly objects = new Map<string, TakedownMark>();
  private readonly bodies = new Map<string, TakedownMark>();

  constructor(items: readonly Pick<TakedownItem, 'scope' | 'id' | 'mark'>[] = []) {
    for (const item of items) (item.scope === 'body' ? this.bodies : this.objects).set(item.id, item.mark);
  }

  /** A copy with more takedowns (the sync learns of those it sealed itself). */
  with(items: readonly Pick<TakedownItem, 'scope' | 'id' | 'mark'>[]): TakedownSet {
    const next = new TakedownSet(items);
    for (const [id, mark] of this.objects) if (!next.objects.has(id)) next.objects.set(id, mark);
    for (const [id, mark] of this.bodies) if (!next.bodies.has(id)) next.bodies.set(id, mark);
    return next;
  }

  get size(): number {
    return this.objects.size + this.bodies.size;
  }

  /** The ids taken down one by one (not whole bodies). */
  objectIds(): string[] {
    return [...this.objects.keys()];
  }

  body(bodyId: string | undefined): TakedownMark | undefined {
    return bodyId === undefined ? undefined : this.bodies.get(bodyId);
  }

  covers(subject: TakedownSubject): TakedownMark | undefined {
    return (
      this.objects.get(subject.id) ??
      this.bodies.get(subject.id) ??
      this.body(subject.bodyId) ??
      (subject.parentId === undefined ? undefined : this.objects.get(subject.parentId))
    );
  }
}

function itemOf(raw: Record<string, unknown>): TakedownItem {
  const mark: TakedownMark = { at: String(raw.at), by: String(raw.by) };
  if (typeof raw.note === 'string') mark.note = raw.note;
  return {
    sourceId: String(raw.sourceId),
    scope: raw.scope === 'body' ? 'body' : 'object',
    id: String(raw.id),
    ...(typeof raw.type === 'string' ? { type: raw.type } : {}),
    mark,
  };
}

const BATCH_GET_MAX = 100;

/** The thin store of the registry items. Reads are strongly consistent: they decide a race (OPT-5). */
export class TakedownRegistry {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Every takedown of a source: one Query (more only past 1 MB, i.e. thousands of takedowns). */
  async items(sourceId: string): Promise<TakedownItem[]> {
    const items: TakedownItem[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': takedownPartition(sourceId) },
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const raw of out.Items ?? []) items.push(itemOf(raw));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items;
  }

  async load(sourceId: string): Promise<TakedownSet> {
    return new TakedownSet(await this.items(sourceId));
  }

  /** The takedowns among a few subjects of one source (one BatchGet): the preview's per-opening check. */
  async find(sourceId: string, refs: { scope: TakedownScope; id: string }[]): Promise<TakedownItem[]> {
    const keys = [
      ...new Map(
        refs.map((r) => {
          const key = { pk: takedownPartition(sourceId), sk: takedownSortKey(r.scope, r.id) };
          return [key.sk, key] as const;
        }),
      ).values(),
    ];
    const found: TakedownItem[] = [];
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
      let pending: Record<string, unknown>[] = keys.slice(i, i + BATCH_GET_MAX);
      while (pending.length > 0) {
        const out = await this.doc.send(
          new BatchGetCommand({
            RequestItems: { [this.table]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        for (const raw of out.Responses?.[this.table] ?? []) found.push(itemOf(raw));
        pending = (out.UnprocessedKeys?.[this.table]?.Keys as Record<string, unknown>[]) ?? [];
      }
    }
    return found;
  }

  /**
   * Records a takedown. The first mark stays (who and when first decided it); repeating is harmless.
   * Returns false when it was recorded already.
   */
  async record(item: TakedownItem): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: takedownPartition(item.sourceId),
            sk: takedownSortKey(item.scope, item.id),
            sourceId: item.sourceId,
            scope: item.scope,
            id: item.id,
            ...(item.type !== undefined ? { type: item.type } : {}),
            ...item.mark,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  /** Only `takedown lift` calls this: an operator's explicit decision (OPT-5). */
  async remove(sourceId: string, scope: TakedownScope, id: string): Promise<boolean> {
    const out = await this.doc.send(
      new DeleteCommand({
        TableName: this.table,
        Key: { pk: takedownPartition(sourceId), sk: takedownSortKey(scope, id) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return out.Attributes !== undefined;
  }
}
