import type { SampleWalkCursor } from '../store';
import { DEL_WALK_CHECKPOINT } from './constants';
import { walkPosition, walkRanges } from './decide';
import type { DocumentsStore } from './store';
import type { DocumentItem } from './types';

/**
 * DEL-2 (issue 28): one listed body's sample walk in one run. The documents its clock has passed since
 * the cursor are read in key order (at most the run's share of DEL_SAMPLES_PER_BODY); as their samples
 * settle, the cursor follows the settled prefix — written after every DEL_WALK_CHECKPOINT of them and
 * at the end — so an unchanged sample writes nothing of its own, a document not asked this run (server
 * stopped, source resting, deadline) is never passed, and a run that dies repeats at most one
 * checkpoint's HEADs. Two runs at once: the cursor write is conditional, the slower run's is dropped.
 */
export class BodyWalk {
  private readonly settled: boolean[];
  private readonly keys: string[];
  private written: string | undefined;
  private writtenDone = 0;
  /** Another run moved the cursor: this one writes no more. */
  private lost = false;
  private writes: Promise<void> = Promise.resolve();
  private failure: unknown;

  private readonly store: DocumentsStore;
  private readonly cursorId: string;
  readonly items: DocumentItem[];
  private readonly end: string;
  private readonly nowIso: string;
  /** Whether the final write is worth its unit (see `open`). */
  private readonly mustWrite: boolean;

  private constructor(fields: {
    store: DocumentsStore;
    cursorId: string;
    items: DocumentItem[];
    end: string;
    cursor: string | undefined;
    nowIso: string;
    mustWrite: boolean;
  }) {
    this.store = fields.store;
    this.cursorId = fields.cursorId;
    this.items = fields.items;
    this.end = fields.end;
    this.nowIso = fields.nowIso;
    this.mustWrite = fields.mustWrite;
    this.keys = fields.items.map((i) => i.nextAttemptAt ?? '');
    this.settled = fields.items.map(() => false);
    this.written = fields.cursor;
  }

  /**
   * Reads the walk's due documents, at most `limit`. `movedIn`: documents of this body that this run
   * may place into the walk at the current time of week (first samples, retries) — the cursor must pass
   * that place, or the next run would sample them again. `cursor`: the walk's cursor as this run read
   * it (`DocumentsStore.walkCursors`, one read for all its bodies; never one kept from a run before).
   */
  static async open(
    store: DocumentsStore,
    at: {
      shard: string;
      cursorId: string;
      cursor: SampleWalkCursor | undefined;
      now: Date;
      limit: number;
      movedIn: number;
    },
  ): Promise<BodyWalk> {
    const { cursor } = at;
    const { ranges, end } = walkRanges(cursor, at.now);
    const items: DocumentItem[] = [];
    for (const range of ranges) {
      if (items.length >= at.limit) break;
      items.push(...(await store.queryRange(at.shard, range.after, range.upTo, at.limit - items.length)));
    }
    // Quota reached: the walk stops after its last document read (more may wait behind it).
    const last = items.at(-1)?.nextAttemptAt;
    return new BodyWalk({
      store,
      cursorId: at.cursorId,
      items,
      end: items.length >= at.limit && last !== undefined ? last : end,
      cursor: cursor?.position,
      nowIso: at.now.toISOString(),
      // An idle body's cursor is not moved every hour (nothing lies between it and now).
      mustWrite: cursor === undefined || items.length > 0 || at.movedIn > 0,
    });
  }

  /** The `index`-th document's sample is over: `settled` when it was answered or moved elsewhere. */
  settle(index: number, settled: boolean): void {
    this.settled[index] = settled;
    const { done } = walkPosition(this.keys, this.settled, this.end);
    if (done - this.writtenDone >= DEL_WALK_CHECKPOINT) this.write();
  }

  /** The end of the run: the cursor to the settled prefix (its end when all were). */
  async close(): Promise<void> {
    // Even at the same position: the cursor's time says how far the clock has taken the walk.
    if (this.mustWrite) this.write(true);
    await this.writes;
    if (this.failure !== undefined) throw this.failure;
  }

  private write(final = false): void {
    const { done, position } = walkPosition(this.keys, this.settled, this.end);
    if (position === undefined || (position === this.written && !final) || this.lost) return;
    this.writtenDone = done;
    const from = this.written;
    this.written = position;
    this.writes = this.writes
      .then(async () => {
        if (this.lost) return;
        const moved = await this.store.advanceWalk(this.cursorId, from, { position, at: this.nowIso });
        if (!moved) this.lost = true;
      })
      .catch((error: unknown) => {
        // Kept for `close` (a rejection waiting there unhandled would be reported as lost).
        this.lost = true;
        this.failure ??= error;
      });
  }
}
