import type { FieldProblem } from '../config';
import type { AwsClients, StoreTables } from '../store';
import { BROADCAST_POLL_INTERVAL_MS } from './constants';
import { idOfBroadcast, loadBroadcasts } from './run';
import { BroadcastStore } from './store';
import type { BroadcastStatus } from './types';

/** `ingestor broadcasts status`: per broadcast source its config, last success, counts and last error. */
export interface BroadcastStatusRow
  extends Pick<
    BroadcastStatus,
    'broadcastId' | 'lastPollAt' | 'lastSuccessAt' | 'lastError' | 'polls' | 'errors' | 'liveSeen'
  > {
  valid: boolean;
  problems?: FieldProblem[];
  body?: string;
  councilSourceId?: string;
  streamUrl?: string;
  format?: string;
  active?: boolean;
  /** Meetings with a record (polled while their window was open). */
  meetings: number;
  liveNow: boolean;
  lastLiveAt?: string;
}

/**
 * Live now: a meeting found live by a poll of the last two minutes — a finding older than that is
 * stale (the window closed, or the source was switched off since).
 */
function isFresh(checkedAt: string, now: Date): boolean {
  return now.getTime() - Date.parse(checkedAt) <= 2 * BROADCAST_POLL_INTERVAL_MS;
}

export async function broadcastStatus(
  clients: Pick<AwsClients, 'doc'>,
  tables: Pick<StoreTables, 'sources' | 'state'>,
  now: Date,
): Promise<BroadcastStatusRow[]> {
  const rows: BroadcastStatusRow[] = [];
  for (const p of await loadBroadcasts(clients, tables.sources)) {
    const id = idOfBroadcast(p);
    const store = new BroadcastStore(clients, tables.state, id);
    const status = await store.getStatus();
    const meetings = await store.listMeetings();
    const lastLive = meetings
      .map((m) => m.lastLiveAt)
      .filter((at): at is string => at !== undefined)
      .sort()
      .at(-1);
    const row: BroadcastStatusRow = {
      broadcastId: id,
      valid: p.ok,
      polls: status.polls,
      errors: status.errors,
      liveSeen: status.liveSeen,
      meetings: meetings.length,
      liveNow: meetings.some((m) => m.liveNow && isFresh(m.lastCheckedAt, now)),
    };
    if (p.ok) {
      row.body = p.broadcast.body;
      row.councilSourceId = p.broadcast.councilSourceId;
      row.streamUrl = p.broadcast.streamUrl;
      row.format = p.broadcast.format;
      row.active = p.broadcast.active;
    } else {
      row.problems = p.problems;
    }
    if (status.lastPollAt !== undefined) row.lastPollAt = status.lastPollAt;
    if (status.lastSuccessAt !== undefined) row.lastSuccessAt = status.lastSuccessAt;
    if (status.lastError !== undefined) row.lastError = status.lastError;
    if (lastLive !== undefined) row.lastLiveAt = lastLive;
    rows.push(row);
  }
  return rows;
}
