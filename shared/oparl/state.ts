import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { type ListName, type ListReport, type ListState, SyncStateStore } from '../engine';

/**
 * The OParl kind's own items of the source partition `SOURCE#<sourceId>` (State table), beside the
 * core's (cursor, System, bodies, session days — shared/engine/state.ts):
 * - `LIST#<bodyKey>#<list>`    marks per list: filter finding, time of day, missing, slow, catch-up
 * - `RUNLIST#<kind>#<n>`       the n-th list report of the current run of that kind (overwritten by
 *                              the next run; `runId` tells whose it is)
 */
export const listSk = (bodyKey: string, list: ListName) => `LIST#${bodyKey}#${list}`;
export const runListSk = (kind: string, index: number) => `RUNLIST#${kind}#${String(index).padStart(6, '0')}`;

export class OParlStateStore extends SyncStateStore {
  // --- per-list reports of a run -----------------------------------------------------------------

  async putRunList(kind: string, index: number, runId: string, report: ListReport): Promise<void> {
    await this.clients.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: this.pk, sk: runListSk(kind, index), runId, index, report },
      }),
    );
  }

  /** The first `count` list reports of run `runId`, in order. */
  async getRunLists(kind: string, runId: string, count: number): Promise<ListReport[]> {
    if (count === 0) return [];
    const items = await this.queryPrefix<{ runId: string; index: number; report: ListReport }>(
      `RUNLIST#${kind}#`,
    );
    return items
      .filter((i) => i.runId === runId && i.index < count)
      .sort((a, b) => a.index - b.index)
      .map((i) => i.report);
  }

  // --- lists --------------------------------------------------------------------------------------

  async getListStates(bodyKey: string): Promise<Map<ListName, ListState>> {
    const items = await this.queryPrefix<ListState>(`LIST#${bodyKey}#`);
    return new Map(items.map((s) => [s.list, s]));
  }

  async putListState(state: ListState): Promise<void> {
    await this.clients.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: this.pk, sk: listSk(state.bodyKey, state.list), ...state },
      }),
    );
  }
}
