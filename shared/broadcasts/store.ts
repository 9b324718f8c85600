import { type BroadcastConfig, type BroadcastItem, parseBroadcastItem } from '../config';
import { IngestorError } from '../errors';
import { type AwsClients, BroadcastItems, broadcastPartition, putOtherItem } from '../store';
import { BROADCAST_POLL_INTERVAL_MS } from './constants';
import type { KnownMeeting } from './meetings';
import type { BroadcastMeetingRecord, BroadcastStatus } from './types';

/**
 * OTH-5 state in the State table, partition `BROADCAST#<broadcastId>` (shared/store BroadcastItems):
 * - `STATUS`               last poll (the once-a-minute claim), last success, last error, counts, and
 *                          the meetings the last pass read from the mirror (`known`)
 * - `MEETING#<meetingKey>` per meeting: live now, first / last seen live, stream URL
 */
// The keys live in shared/store keys.ts (one home for every key, issue 29 item 1).
export { broadcastPartition };

export type StoredBroadcastStatus = BroadcastStatus & { known?: Record<string, KnownMeeting> };

/** A broadcast's state: what to claim and note when (the store's `BroadcastItems` stores it). */
export class BroadcastStore {
  private readonly items: BroadcastItems;

  constructor(
    clients: Pick<AwsClients, 'doc'>,
    table: string,
    private readonly broadcastId: string,
  ) {
    this.items = new BroadcastItems({ doc: clients.doc, table }, broadcastId);
  }

  async getStatus(): Promise<StoredBroadcastStatus> {
    const stored = (await this.items.status<Partial<StoredBroadcastStatus>>()) ?? {};
    return { broadcastId: this.broadcastId, polls: 0, errors: 0, liveSeen: 0, ...stored };
  }

  /** Remembers the meetings read from the mirror (skips S3 reads while they are unchanged). */
  async putKnown(known: Record<string, KnownMeeting>): Promise<void> {
    await this.items.putKnown(known);
  }

  /**
   * OTH-5: claims this minute's request before it is sent — a conditional write, so two passes running
   * at once (a slow invocation overlapping the next minute's) send one request, not two. False = taken.
   */
  claimPoll(now: Date): Promise<boolean> {
    const cut = new Date(now.getTime() - BROADCAST_POLL_INTERVAL_MS).toISOString();
    return this.items.claimPoll(now.toISOString(), cut);
  }

  async recordSuccess(now: Date, live: boolean): Promise<void> {
    await this.items.recordSuccess(now.toISOString(), live);
  }

  /** `text` is one of BROADCAST_ERROR_TEXTS or OTHER_FETCH_ERROR_TEXTS: never an exception's message. */
  async recordError(now: Date, text: string): Promise<void> {
    await this.items.recordError(now.toISOString(), text);
  }

  /** One poll's finding for one meeting whose window is open. */
  async recordMeeting(
    meeting: Pick<BroadcastMeetingRecord, 'meetingKey' | 'meetingId' | 'start' | 'end'>,
    reading: { live: boolean; streamUrl?: string },
    now: Date,
  ): Promise<void> {
    await this.items.recordMeeting(
      {
        meetingKey: meeting.meetingKey,
        meetingId: meeting.meetingId,
        start: meeting.start,
        ...(meeting.end === undefined ? {} : { end: meeting.end }),
        live: reading.live,
        ...(reading.streamUrl === undefined ? {} : { streamUrl: reading.streamUrl }),
      },
      now.toISOString(),
    );
  }

  async listMeetings(): Promise<BroadcastMeetingRecord[]> {
    const items = await this.items.meetings<BroadcastMeetingRecord>();
    return items.sort((a, b) => a.start.localeCompare(b.start));
  }
}

/**
 * Writes a new broadcast item to the Sources table after validating it; an existing id is refused
 * (BROADCAST_EXISTS) so that adding again never overwrites what on-call edited.
 */
export async function putBroadcastItem(
  clients: Pick<AwsClients, 'doc'>,
  sourcesTable: string,
  item: BroadcastItem,
): Promise<BroadcastConfig> {
  const parsed = parseBroadcastItem(item);
  if (!parsed.ok) {
    throw new IngestorError(
      'CONFIG_INVALID',
      `broadcast ${parsed.broadcastId}: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
    );
  }
  if (!(await putOtherItem(clients.doc, sourcesTable, item, { mustNotExist: true }))) {
    throw new IngestorError('BROADCAST_EXISTS', `a source with id ${item.sourceId} exists already`);
  }
  return parsed.broadcast;
}
