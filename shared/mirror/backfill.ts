import { QueryCommand, type QueryCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AwsClients } from '../store';
import {
  bodyListPartition,
  bodyListSort,
  INLINE_ITEM_MAX_BYTES,
  idHash,
  indexPartition,
  itemSizeBound,
  mirrorKey,
} from './keys';
import { MirrorStore, type MirrorStoreConfig } from './store';
import { MIRROR_TYPES, type MirrorIndexEntry } from './types';

/**
 * Maintenance (issue 16): index items written before the OParl API existed carry no `byBodyList` keys
 * (`apiList`, `apiListSort`) and no inline copy (`o`), so the API does not list them until the sync
 * writes them again. The backfill gives them both, as the sync would have: sort = commit time (a
 * takedown's time for a taken-down object, see `MirrorStore.markTakenDown`), inline only for a live
 * object whose item stays within INLINE_ITEM_MAX_BYTES.
 *
 * - Idempotent: an item that has its keys (and its inline copy, or is too large for one) is left alone;
 *   running it twice writes nothing the second time.
 * - Never over a newer write: each update is conditional on the item's commit time being the one read
 *   (`fetchedAt`), so a sync that rewrote the object meanwhile wins (counted as `raced`).
 * - Paced: at most `ratePerSecond` updates per second (each is one write unit plus the index's copy),
 *   so a backfill of a large mirror never crowds out the syncs' writes.
 */
export interface BackfillOptions {
  sourceIds: readonly string[];
  /** Updates per second at most. */
  ratePerSecond: number;
  /** Count only, write nothing. */
  dryRun?: boolean;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface BackfillReport {
  /** Index items read. */
  scanned: number;
  /** Items given list keys and/or an inline copy (or that would be, in a dry run). */
  updated: number;
  /** Of those, items that got an inline copy. */
  inlined: number;
  /** Items a sync rewrote between our read and our write (it wins). */
  raced: number;
}

/** Pure: when the n-th write (from 0) may start, for a pace of `ratePerSecond` from `startMs`. */
export function paceSlot(startMs: number, n: number, ratePerSecond: number): number {
  return startMs + Math.floor((n * 1000) / ratePerSecond);
}

/** Pure: what the backfill does with one index item — nothing, or which attributes it sets. */
export function backfillNeed(
  item: MirrorIndexEntry & { apiList?: string; o?: string },
): { listKeys: boolean; inline: boolean } | undefined {
  if (item.bodyId === undefined || item.type === 'body') return undefined;
  const listKeys = item.apiList === undefined;
  const inline = !item.deleted && item.takedown === undefined && item.o === undefined;
  return listKeys || inline ? { listKeys, inline } : undefined;
}

export async function backfillListIndex(
  clients: Pick<AwsClients, 'doc' | 's3'>,
  config: MirrorStoreConfig,
  options: BackfillOptions,
): Promise<BackfillReport> {
  if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // Not `changes`: a backfill commits no change of any object (nothing to publish).
  const mirror = new MirrorStore({ doc: clients.doc, s3: clients.s3 }, config);
  const report: BackfillReport = { scanned: 0, updated: 0, inlined: 0, raced: 0 };
  const start = now();
  let writes = 0;
  for (const sourceId of options.sourceIds) {
    for (const type of MIRROR_TYPES) {
      let startKey: QueryCommandOutput['LastEvaluatedKey'];
      do {
        const page = await clients.doc.send(
          new QueryCommand({
            TableName: config.stateTable,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': indexPartition(sourceId, type) },
            ExclusiveStartKey: startKey,
          }),
        );
        for (const raw of page.Items ?? []) {
          report.scanned += 1;
          const item = raw as MirrorIndexEntry & { apiList?: string; o?: string };
          const need = backfillNeed(item);
          if (!need) continue;
          const set: Record<string, unknown> = {};
          if (need.listKeys) {
            const at = (item.takedown as { at?: string } | undefined)?.at ?? item.fetchedAt;
            set.apiList = bodyListPartition(sourceId, item.bodyId as string, type);
            set.apiListSort = bodyListSort(at, item.id);
          }
          if (need.inline) {
            const record = await mirror.readKey(mirrorKey(sourceId, type, item.id));
            const inline = record && record.meta.deleted !== true ? JSON.stringify(record.object) : undefined;
            if (inline !== undefined && itemSizeBound({ ...raw, ...set, o: inline }) <= INLINE_ITEM_MAX_BYTES)
              set.o = inline;
          }
          if (Object.keys(set).length === 0) continue;
          report.updated += 1;
          if (set.o !== undefined) report.inlined += 1;
          if (options.dryRun) continue;
          const slot = paceSlot(start, writes, options.ratePerSecond);
          writes += 1;
          const wait = slot - now();
          if (wait > 0) await sleep(wait);
          const names = Object.keys(set);
          try {
            await clients.doc.send(
              new UpdateCommand({
                TableName: config.stateTable,
                Key: { pk: indexPartition(sourceId, type), sk: idHash(item.id) },
                UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
                // Only over the version read: a sync's newer write (or a takedown's mark) wins.
                ConditionExpression: `fetchedAt = :fetchedAt AND deleted = :deleted AND ${
                  item.takedown === undefined
                    ? 'attribute_not_exists(takedown)'
                    : 'attribute_exists(takedown)'
                }`,
                ExpressionAttributeNames: Object.fromEntries(names.map((n) => [`#${n}`, n])),
                ExpressionAttributeValues: {
                  ...Object.fromEntries(names.map((n) => [`:${n}`, set[n]])),
                  ':fetchedAt': item.fetchedAt,
                  ':deleted': item.deleted,
                },
              }),
            );
          } catch (error) {
            if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
            report.updated -= 1;
            if (set.o !== undefined) report.inlined -= 1;
            report.raced += 1;
          }
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }
  }
  return report;
}
