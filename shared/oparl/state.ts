import { deflateRawSync, inflateRawSync } from 'node:zlib';
import {
  type ListName,
  type ListReport,
  type ListState,
  refreshDue,
  SyncStateStore,
  stableStringify,
} from '../engine';
import { listSk, runListSk } from '../store';

/**
 * The OParl kind's own items of the source partition `SOURCE#<sourceId>` (State table), beside the
 * core's (cursor, System, bodies, session days — shared/engine/state.ts):
 * - `LIST#<bodyKey>#<list>`    marks per list: filter finding, time of day, missing, slow, catch-up
 * - `RUNLIST#<kind>#<n>`       list reports n, n+1 … of the current run of that kind, written together
 *                              with the cursor (overwritten by the next run; `runId` tells whose)
 */
// The keys live in shared/store keys.ts (one home for every key, issue 29 item 1).
export { runListSk };

/** List reports per `RUNLIST#` item (a report is ~250 bytes; an item may hold 400 KB). */
export const RUN_LIST_REPORTS_PER_ITEM = 100;

export class OParlStateStore extends SyncStateStore {
  /** List reports not yet written: they go out with the next cursor write (`putCursor`). */
  private pendingRunLists: { kind: string; runId: string; index: number; report: ListReport }[] = [];
  /** List marks as last read or written, without their times (see `putListState`). */
  private readonly knownMarks = new Map<string, { content: string; lastCompleteStart?: string }>();

  protected override async beforeCursorWrite(): Promise<void> {
    await this.flushRunLists();
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

  private async flushRunLists(): Promise<void> {
    const pending = this.pendingRunLists;
    this.pendingRunLists = [];
    for (let i = 0; i < pending.length; i += RUN_LIST_REPORTS_PER_ITEM) {
      const chunk = pending.slice(i, i + RUN_LIST_REPORTS_PER_ITEM);
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
    const items = await this.items.listPrefix<{
      runId: string;
      index: number;
      /** Items written before issue 18 hold one report each; before issue 28 a plain list. */
      report?: ListReport;
      reports?: ListReport[];
      packed?: Uint8Array;
    }>(`RUNLIST#${kind}#`);
    const byIndex = new Map<number, ListReport>();
    for (const item of items.filter((i) => i.runId === runId).sort((a, b) => a.index - b.index)) {
      const reports = item.packed
        ? unpackReports(item.packed)
        : (item.reports ?? (item.report ? [item.report] : []));
      for (const [k, r] of reports.entries()) byIndex.set(item.index + k, r);
    }
    for (const p of this.pendingRunLists)
      if (p.kind === kind && p.runId === runId) byIndex.set(p.index, p.report);
    return [...byIndex.entries()]
      .filter(([index]) => index < count)
      .sort((a, b) => a[0] - b[0])
      .map(([, report]) => report);
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
