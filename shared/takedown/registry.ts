import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  TAKEDOWN_PARTITION_PREFIX,
  type TakedownItem,
  TakedownItems,
  type TakedownScope,
  takedownPartition,
  takedownSortKey,
} from '../store';
import type { TakedownMark } from './types';

/**
 * OPT-5: the takedown registry — the memory of a takedown that no purge touches.
 *
 * Why its own items: the operator's mark used to live only on the mirror's index entry, and
 * `purge-deleted` (OPT-3) deletes that entry, so the next sync found nothing and mirrored the object
 * again. A registry item is written *first* by `tombstone`, never by the sync, never deleted by the
 * purge, and removed only by an explicit `takedown lift`.
 *
 * Items (State table, so every function that already reads State may read them; no new grant; keys and
 * writes in shared/store takedowns.ts):
 * - pk `TAKEDOWN#<sourceId>` — one small partition per source, read whole with one Query;
 * - sk `OBJECT#<idHash(id)>` for a taken-down object (its OParl id, embedded ones included),
 *   sk `BODY#<idHash(bodyId)>` for a taken-down body (every object of it, the body itself included);
 * - attributes `sourceId`, `scope`, `id`, `type?`, the mark `at`, `by`, `note?`, and `rev` (renewed by
 *   every `record`: a lift removes an item only at the revision it read, so a new takedown wins).
 */
export {
  TAKEDOWN_PARTITION_PREFIX,
  type TakedownItem,
  type TakedownScope,
  takedownPartition,
  takedownSortKey,
};

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

/**
 * The registry's store (shared/store `TakedownItems`: items, find, record, remove) and the pure set of a
 * source's takedowns it loads.
 */
export class TakedownRegistry extends TakedownItems {
  constructor(doc: DynamoDBDocumentClient, table: string) {
    super({ doc, table });
  }

  async load(sourceId: string): Promise<TakedownSet> {
    return new TakedownSet(await this.items(sourceId));
  }
}
