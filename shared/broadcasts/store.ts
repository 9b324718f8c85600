import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type BroadcastConfig, type BroadcastItem, parseBroadcastItem } from '../config';
import { SourcePartitionItems } from '../engine';
import { IngestorError } from '../errors';
import {
  type AwsClients,
  BROADCAST_STATUS_SK,
  broadcastMeetingSk,
  broadcastPartition,
  putOtherItem,
} from '../store';
import { BROADCAST_POLL_INTERVAL_MS } from './constants';
import type { KnownMeeting } from './meetings';
import type { BroadcastMeetingRecord, BroadcastStatus } from './types';

/**
 * OTH-5 state in the State table, partition `BROADCAST#<broadcastId>`:
 * - `STATUS`               last poll (the once-a-minute claim), last success, last error, counts, and
 *                          the meetings the last pass read from the mirror (`known`)
 * - `MEETING#<meetingKey>` per meeting: live now, first / last seen live, stream URL
 * Every write is one single-item update (dynalite has no transactions; none are needed).
 */
// The keys live in shared/store keys.ts (one home for every key, issue 29 item 1).
export { broadcastPartition };

const STATUS_SK = BROADCAST_STATUS_SK;
const meetingSk = broadcastMeetingSk;

export type StoredBroadcastStatus = BroadcastStatus & { known?: Record<string, KnownMeeting> };

/** The item helpers of a State partition (shared/engine), on the broadcast's own partition. */
export class BroadcastStore extends SourcePartitionItems {
  constructor(
    clients: Pick<AwsClients, 'doc'>,
    table: string,
    private readonly broadcastId: string,
  ) {
    super(clients, table, broadcastId);
  }

  protected override get pk(): string {
    return broadcastPartition(this.broadcastId);
  }

  private key(sk: string) {
    return { pk: this.pk, sk };
  }

  async getStatus(): Promise<StoredBroadcastStatus> {
    const stored = (await this.get<Partial<StoredBroadcastStatus>>(STATUS_SK)) ?? {};
    return { broadcastId: this.broadcastId, polls: 0, errors: 0, liveSeen: 0, ...stored };
  }

  /** Remembers the meetings read from the mirror (skips S3 reads while they are unchanged). */
  async putKnown(known: Record<string, KnownMeeting>): Promise<void> {
    await this.clients.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: this.key(STATUS_SK),
        UpdateExpression: 'SET broadcastId = :id, known = :k',
        ExpressionAttributeValues: { ':id': this.broadcastId, ':k': known },
      }),
    );
  }

  /**
   * OTH-5: claims this minute's request before it is sent — a conditional write, so two passes running
   * at once (a slow invocation overlapping the next minute's) send one request, not two. False = taken.
   */
  async claimPoll(now: Date): Promise<boolean> {
    const cut = new Date(now.getTime() - BROADCAST_POLL_INTERVAL_MS).toISOString();
    try {
      await this.clients.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(STATUS_SK),
          UpdateExpression: 'SET broadcastId = :id, lastPollAt = :now ADD polls :one',
          ConditionExpression: 'attribute_not_exists(lastPollAt) OR lastPollAt <= :cut',
          ExpressionAttributeValues: {
            ':id': this.broadcastId,
            ':now': now.toISOString(),
            ':cut': cut,
            ':one': 1,
          },
        }),
      );
      return true;
    } catch (err) {
      if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw err;
    }
  }

  async recordSuccess(now: Date, live: boolean): Promise<void> {
    await this.clients.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: this.key(STATUS_SK),
        UpdateExpression: `SET lastSuccessAt = :now${live ? ' ADD liveSeen :one' : ''}`,
        ExpressionAttributeValues: { ':now': now.toISOString(), ...(live ? { ':one': 1 } : {}) },
      }),
    );
  }

  /** `text` is one of BROADCAST_ERROR_TEXTS or OTHER_FETCH_ERROR_TEXTS: never an exception's message. */
  async recordError(now: Date, text: string): Promise<void> {
    await this.clients.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: this.key(STATUS_SK),
        UpdateExpression: 'SET lastError = :e ADD errors :one',
        ExpressionAttributeValues: { ':e': { text, at: now.toISOString() }, ':one': 1 },
      }),
    );
  }

  /** One poll's finding for one meeting whose window is open. */
  async recordMeeting(
    meeting: Pick<BroadcastMeetingRecord, 'meetingKey' | 'meetingId' | 'start' | 'end'>,
    reading: { live: boolean; streamUrl?: string },
    now: Date,
  ): Promise<void> {
    const sets = [
      'broadcastId = :id',
      'meetingKey = :key',
      'meetingId = :mid',
      '#start = :start',
      'liveNow = :live',
      'lastCheckedAt = :now',
    ];
    const values: Record<string, unknown> = {
      ':id': this.broadcastId,
      ':key': meeting.meetingKey,
      ':mid': meeting.meetingId,
      ':start': meeting.start,
      ':live': reading.live,
      ':now': now.toISOString(),
    };
    const names: Record<string, string> = { '#start': 'start' };
    if (meeting.end !== undefined) {
      sets.push('#end = :end');
      names['#end'] = 'end';
      values[':end'] = meeting.end;
    }
    if (reading.live) {
      sets.push('firstLiveAt = if_not_exists(firstLiveAt, :now)', 'lastLiveAt = :now');
      if (reading.streamUrl !== undefined) {
        sets.push('streamUrl = :stream');
        values[':stream'] = reading.streamUrl;
      }
    }
    await this.clients.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: this.key(meetingSk(meeting.meetingKey)),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  async listMeetings(): Promise<BroadcastMeetingRecord[]> {
    const items = await this.queryPrefix<BroadcastMeetingRecord>('MEETING#');
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
