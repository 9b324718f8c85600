import type { BucketContext } from './context';
import { mirrorKey, TAKEDOWN_TAG, TOMBSTONE_TAG } from './keys';
import type { MirrorObjectRef } from './mirror-index';
import { BucketObjects } from './objects';

/**
 * The mirror's records in the bucket (`mirror/<sourceId>/<type>/<api id>.json`, keys.ts): one JSON
 * record per object, `{ object, meta }`. What kind of record it is decides its metadata and tag:
 * - `live`: neither;
 * - `tombstone` (the source deleted it, OPT-2): `deleted`, tag `mirror=tombstone` — a lifecycle rule on
 *   the tag may age these out (DESIGN); live objects carry no tag;
 * - `takedown` (an operator's, OPT-2/5): `deleted` and `takedown`, tag `mirror=takedown`, which that
 *   rule must not touch (the audit copy).
 */
export type MirrorRecordKind = 'live' | 'tombstone' | 'takedown';

const KIND_MARKS: Record<MirrorRecordKind, { metadata: Record<string, string>; tagging?: string }> = {
  live: { metadata: {} },
  tombstone: { metadata: { deleted: 'true' }, tagging: TOMBSTONE_TAG },
  takedown: { metadata: { deleted: 'true', takedown: 'true' }, tagging: TAKEDOWN_TAG },
};

export class MirrorRecords {
  private readonly objects: BucketObjects;

  constructor(ctx: BucketContext) {
    this.objects = new BucketObjects(ctx);
  }

  /** The record under one S3 key (`mirrorKey`), tombstones included; absent = undefined. */
  readKey<R>(key: string): Promise<R | undefined> {
    return this.objects.readJson<R>(key);
  }

  read<R>(sourceId: string, type: string, id: string): Promise<R | undefined> {
    return this.readKey<R>(mirrorKey(sourceId, type, id));
  }

  /** Writes the record under its deterministic key: repeating overwrites (STYLE 4). */
  async write(
    { sourceId, type, id }: MirrorObjectRef,
    record: unknown,
    kind: MirrorRecordKind,
  ): Promise<void> {
    const marks = KIND_MARKS[kind];
    await this.objects.putJson(mirrorKey(sourceId, type, id), record, {
      metadata: marks.metadata,
      ...(marks.tagging !== undefined ? { tagging: marks.tagging } : {}),
    });
  }

  /** OPT-3: the purge's removal; deleting an absent record succeeds. */
  async delete(sourceId: string, type: string, id: string): Promise<void> {
    await this.objects.delete(mirrorKey(sourceId, type, id));
  }
}
