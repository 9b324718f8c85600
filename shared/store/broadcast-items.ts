import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type TableContext, unlessConditionFails } from './context';
import {
  BROADCAST_MEETING_PREFIX,
  BROADCAST_STATUS_SK,
  broadcastMeetingSk,
  broadcastPartition,
} from './keys';
import { PartitionItems } from './partition-items';

/** One poll's finding for one meeting, as stored on its `MEETING#` item. */
export interface BroadcastMeetingReading {
  meetingKey: string;
  meetingId: string;
  start: string;
  end?: string;
  live: boolean;
  streamUrl?: string;
}

/**
 * OTH-5: a broadcast's partition of the State table (`BROADCAST#<broadcastId>`): the `STATUS` item and
 * one `MEETING#<meetingKey>` item per meeting. Every write is one single-item update (dynalite has no
 * transactions; none are needed). shared/broadcasts decides what to write and when.
 */
export class BroadcastItems {
  private readonly items: PartitionItems;

  constructor(
    private readonly ctx: TableContext,
    private readonly broadcastId: string,
  ) {
    this.items = new PartitionItems(ctx, broadcastPartition(broadcastId));
  }

  /** The `STATUS` item without its keys, or undefined. */
  status<T>(): Promise<T | undefined> {
    return this.items.get<T>(BROADCAST_STATUS_SK);
  }

  /** Every `MEETING#` item without its keys, in key order. */
  meetings<T>(): Promise<T[]> {
    return this.items.listPrefix<T>(BROADCAST_MEETING_PREFIX);
  }

  /** Remembers the meetings read from the mirror on the status. */
  async putKnown(known: Record<string, unknown>): Promise<void> {
    await this.updateStatus('SET broadcastId = :id, known = :k', { ':id': this.broadcastId, ':k': known });
  }

  /**
   * Claims a poll at `nowIso` unless one was claimed after `cutIso` (a conditional write: of two passes
   * at once, one wins) and counts it. False = taken.
   */
  claimPoll(nowIso: string, cutIso: string): Promise<boolean> {
    return unlessConditionFails(
      this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: { pk: this.items.pk, sk: BROADCAST_STATUS_SK },
          UpdateExpression: 'SET broadcastId = :id, lastPollAt = :now ADD polls :one',
          ConditionExpression: 'attribute_not_exists(lastPollAt) OR lastPollAt <= :cut',
          ExpressionAttributeValues: { ':id': this.broadcastId, ':now': nowIso, ':cut': cutIso, ':one': 1 },
        }),
      ),
    );
  }

  /** A successful poll at `nowIso`; `live` counts a live finding. */
  async recordSuccess(nowIso: string, live: boolean): Promise<void> {
    await this.updateStatus(`SET lastSuccessAt = :now${live ? ' ADD liveSeen :one' : ''}`, {
      ':now': nowIso,
      ...(live ? { ':one': 1 } : {}),
    });
  }

  /** A failed poll: its error text (a fixed text, never an exception's message) and the count. */
  async recordError(nowIso: string, text: string): Promise<void> {
    await this.updateStatus('SET lastError = :e ADD errors :one', {
      ':e': { text, at: nowIso },
      ':one': 1,
    });
  }

  /** One poll's finding for one meeting: live now, first / last seen live, stream URL. */
  async recordMeeting(reading: BroadcastMeetingReading, nowIso: string): Promise<void> {
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
      ':key': reading.meetingKey,
      ':mid': reading.meetingId,
      ':start': reading.start,
      ':live': reading.live,
      ':now': nowIso,
    };
    const names: Record<string, string> = { '#start': 'start' };
    if (reading.end !== undefined) {
      sets.push('#end = :end');
      names['#end'] = 'end';
      values[':end'] = reading.end;
    }
    if (reading.live) {
      sets.push('firstLiveAt = if_not_exists(firstLiveAt, :now)', 'lastLiveAt = :now');
      if (reading.streamUrl !== undefined) {
        sets.push('streamUrl = :stream');
        values[':stream'] = reading.streamUrl;
      }
    }
    await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.table,
        Key: { pk: this.items.pk, sk: broadcastMeetingSk(reading.meetingKey) },
        UpdateExpression: `SET ${sets.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  private async updateStatus(expression: string, values: Record<string, unknown>): Promise<void> {
    await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.table,
        Key: { pk: this.items.pk, sk: BROADCAST_STATUS_SK },
        UpdateExpression: expression,
        ExpressionAttributeValues: values,
      }),
    );
  }
}
