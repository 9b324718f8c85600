import { ListObjectsCommand } from '@aws-sdk/client-s3';
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

  constructor(private readonly ctx: BucketContext) {
    this.objects = new BucketObjects(ctx);
  }

  /**
   * One page of record keys under `prefix` (`mirror/`, or one source's `mirror/<sourceId>/`), in key
   * order after `startAfter` (a key: the page resumes there, a checkpoint needs nothing else); `next` is
   * the page's last key when more follow. ListObjects (v1) with `Marker`: the same request price and
   * order as v2's `StartAfter`, and a position that is a key (v2's continuation token is opaque, and
   * the local S3 peer, s3rver, fails building one).
   */
  async listKeys(
    prefix: string,
    startAfter: string | undefined,
    limit: number,
  ): Promise<{ keys: string[]; next: string | undefined }> {
    const out = await this.ctx.s3.send(
      new ListObjectsCommand({
        Bucket: this.ctx.bucket,
        Prefix: prefix,
        MaxKeys: limit,
        ...(startAfter !== undefined ? { Marker: startAfter } : {}),
      }),
    );
    const keys = (out.Contents ?? []).map((o) => o.Key).filter((k): k is string => k !== undefined);
    return { keys, next: out.IsTruncated ? keys.at(-1) : undefined };
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
