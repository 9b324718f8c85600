import { deflateRawSync, inflateRawSync } from 'node:zlib';
import {
  type ListName,
  type ListReport,
  type ListState,
  refreshDue,
  type StoredCursor,
  SyncStateStore,
  stableStringify,
} from '../engine';
import { cursorSk, listSk, runListSk } from '../store';

/**
 * The OParl kind's own items of the source partition `SOURCE#<sourceId>` (State table), beside the
 * core's (cursor, System, bodies, session days — shared/engine/state.ts):
 * - `LIST#<bodyKey>#<list>`    marks per list: filter finding, time of day, missing, slow, catch-up
 * - `RUNLIST#<kind>#<n>`       list reports n, n+1 … of the current run of that kind, written together
 *                              with the cursor (overwritten by the next run; `runId` tells whose) —
 *                              only those that do not ride in the cursor item itself (issue 28)
 */
// The keys live in shared/store keys.ts (one home for every key, issue 29 item 1).
export { runListSk };

/** List reports per `RUNLIST#` item (a report is ~250 bytes; an item may hold 400 KB). */
export const RUN_LIST_REPORTS_PER_ITEM = 100;

/**
 * Issue 28: a run's list reports ride in its cursor item while the packed item stays within one write
 * unit (an unchanged run's ten reports: the cursor and its reports ≈ 0.6 KB packed) — the run's end
 * then writes one item, not a cursor and a `RUNLIST#` item. Past it they go to `RUNLIST#` items.
 */
export const CURSOR_ITEM_MAX_BYTES = 1024;

/** The run's reports in its cursor item: n = `from`, `from` + 1 … */
interface RidingRunLists {
  from: number;
  reports: ListReport[];
}

type PendingRunList = { kind: string; runId: string; index: number; report: ListReport };

export class OParlStateStore extends SyncStateStore {
  /** List reports not yet written: they go out with the next cursor write (`putCursor`). */
  private pendingRunLists: PendingRunList[] = [];
  /** The reports riding in the cursor item as last read or written, with their run. */
  private riding: { kind: string; runId: string; reports: Map<number, ListReport> } | undefined;
  /** List marks as last read or written, without their times (see `putListState`). */
  private readonly knownMarks = new Map<string, { content: string; lastCompleteStart?: string }>();

  protected override cursorFromItem(item: StoredCursor): StoredCursor {
    const { runLists, ...cursor } = item as StoredCursor & { runId?: string; runLists?: RidingRunLists };
    this.riding =
      runLists === undefined
        ? undefined
        : {
            kind: cursor.kind,
            runId: String(cursor.runId),
            reports: new Map(runLists.reports.map((report, k) => [runLists.from + k, report])),
          };
    return cursor;
  }

  /**
   * The cursor with its run's reports riding in it (those it carried and the new ones) when they are
   * one unbroken series and the packed item stays within CURSOR_ITEM_MAX_BYTES; else the reports go
   * to their own items first and the cursor alone is written.
   */
  protected override async cursorItem(cursor: StoredCursor): Promise<StoredCursor> {
    const { kind } = cursor;
    const runId = String((cursor as StoredCursor & { runId?: string }).runId);
    const reports = new Map<number, ListReport>();
    if (this.riding?.kind === kind && this.riding.runId === runId)
      for (const [index, report] of this.riding.reports) reports.set(index, report);
    const others: PendingRunList[] = [];
    for (const p of this.pendingRunLists) {
      if (p.kind === kind && p.runId === runId) reports.set(p.index, p.report);
      else others.push(p);
    }
    this.pendingRunLists = [];
    this.riding = undefined;
    // Another run's reports (none in a store of one run) keep their own items.
    await this.writeRunLists(others);
    if (reports.size === 0) return cursor;
    const indexes = [...reports.keys()].sort((a, b) => a - b);
    const from = indexes[0] as number;
    if (indexes.every((index, k) => index === from + k)) {
      const runLists: RidingRunLists = { from, reports: indexes.map((i) => reports.get(i) as ListReport) };
      const item = { ...cursor, runLists };
      if (this.items.packedBytes(cursorSk(kind), item) <= CURSOR_ITEM_MAX_BYTES) {
        this.riding = { kind, runId, reports };
        return item;
      }
    }
    await this.writeRunLists(
      indexes.map((index) => ({ kind, runId, index, report: reports.get(index) as ListReport })),
    );
    return cursor;
  }

  // --- per-list reports of a run -----------------------------------------------------------------

  /**
   * Keeps the `index`-th list report of run `runId`; it is written with the next cursor write, several
   * reports to an item (issue 18: one write per list was a third of an unchanged sync's writes). A crash
   * before that write loses the reports and the cursor's count of them together.
   */
  async putRunList(kind: string, index: number, runId: string, report: ListReport): Promise<void> {
    this.pendingRunLists.push({ kind, runId, index, report });
  }

  /** Reports to `RUNLIST#` items, up to RUN_LIST_REPORTS_PER_ITEM an item (each an unbroken series). */
  private async writeRunLists(pending: PendingRunList[]): Promise<void> {
    const sorted = [...pending].sort((a, b) => a.kind.localeCompare(b.kind) || a.index - b.index);
    const chunks: PendingRunList[][] = [];
    for (const p of sorted) {
      const chunk = chunks.at(-1);
      const last = chunk?.at(-1);
      if (
        chunk === undefined ||
        last === undefined ||
        last.kind !== p.kind ||
        last.runId !== p.runId ||
        last.index + 1 !== p.index ||
        chunk.length >= RUN_LIST_REPORTS_PER_ITEM
      )
        chunks.push([p]);
      else chunk.push(p);
    }
    for (const chunk of chunks) {
      const first = chunk[0] as (typeof pending)[number];
      // One run and kind per store (the engine's run); an item's key is its first report's index.
      await this.items.put(runListSk(first.kind, first.index), {
        runId: first.runId,
        index: first.index,
        packed: packReports(chunk.map((c) => c.report)),
      });
    }
  }

  /** The first `count` list reports of run `runId`, in order (the stored ones and those not yet written). */
  async getRunLists(kind: string, runId: string, count: number): Promise<ListReport[]> {
    if (count === 0) return [];
    // Those riding in the cursor and those not yet written: all of them, in a run that kept them there.
    const known = new Map<number, ListReport>();
    if (this.riding?.kind === kind && this.riding.runId === runId)
      for (const [index, report] of this.riding.reports) known.set(index, report);
    for (const p of this.pendingRunLists)
      if (p.kind === kind && p.runId === runId) known.set(p.index, p.report);
    const byIndex = new Map<number, ListReport>();
    const stored = Array.from({ length: count }, (_, i) => i).every((i) => known.has(i))
      ? []
      : await this.storedRunLists(kind);
    for (const item of stored.filter((i) => i.runId === runId).sort((a, b) => a.index - b.index)) {
      const reports = item.packed
        ? unpackReports(item.packed)
        : (item.reports ?? (item.report ? [item.report] : []));
      for (const [k, r] of reports.entries()) byIndex.set(item.index + k, r);
    }
    for (const [index, report] of known) byIndex.set(index, report);
    return [...byIndex.entries()]
      .filter(([index]) => index < count)
      .sort((a, b) => a[0] - b[0])
      .map(([, report]) => report);
  }

  private storedRunLists(kind: string) {
    return this.items.listPrefix<{
      runId: string;
      index: number;
      /** Items written before issue 18 hold one report each; before issue 28 a plain list. */
      report?: ListReport;
      reports?: ListReport[];
      packed?: Uint8Array;
    }>(`RUNLIST#${kind}#`);
  }

  // --- lists --------------------------------------------------------------------------------------

  async getListStates(bodyKey: string): Promise<Map<ListName, ListState>> {
    const items = await this.items.listPrefix<ListState>(`LIST#${bodyKey}#`);
    for (const s of items) this.knownMarks.set(listSk(s.bodyKey, s.list), markContent(s));
    return new Map(items.map((s) => [s.list, s]));
  }

  /**
   * Writes a list's marks — unless they are the ones read (or last written) apart from their times and
   * those are less than MARK_REFRESH_MS old: an unchanged list costs no write.
   */
  async putListState(state: ListState): Promise<void> {
    const sk = listSk(state.bodyKey, state.list);
    const known = this.knownMarks.get(sk);
    const next = markContent(state);
    if (
      known !== undefined &&
      known.content === next.content &&
      (known.lastCompleteStart === next.lastCompleteStart ||
        (next.lastCompleteStart !== undefined &&
          !refreshDue(known.lastCompleteStart, next.lastCompleteStart)))
    ) {
      return;
    }
    await this.items.put(sk, state);
    this.knownMarks.set(sk, next);
  }
}

/**
 * Issue 28: a run's list reports as one deflated JSON value. They repeat the same names and values list
 * after list (an unchanged run: ten reports of ~110 bytes as a DynamoDB map, ~1.1 KB, two write units);
 * deflated they take ~180 bytes, so the item is one write unit.
 */
export function packReports(reports: ListReport[]): Uint8Array {
  return deflateRawSync(Buffer.from(JSON.stringify(reports)));
}

export function unpackReports(packed: Uint8Array): ListReport[] {
  return JSON.parse(inflateRawSync(packed).toString('utf8')) as ListReport[];
}

/** A list mark without its times: what decides whether it must be written. */
function markContent(state: ListState): { content: string; lastCompleteStart?: string } {
  const { updatedAt: _u, lastCompleteStart, ...rest } = state;
  return {
    content: stableStringify(rest),
    ...(lastCompleteStart !== undefined ? { lastCompleteStart } : {}),
  };
}
