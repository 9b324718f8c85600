/** A meeting of the broadcast's body as the mirror knows it (shared/broadcasts/meetings.ts). */
export interface ScheduledMeeting {
  /** First 16 hex of SHA-256(meeting id): the key of its session day (shared/engine state). */
  meetingKey: string;
  meetingId: string;
  /** ISO 8601 instant of the scheduled start. */
  start: string;
  /** ISO 8601 instant of the scheduled end, when the council system names one. */
  end?: string;
  cancelled: boolean;
  /** Deleted at the source (OPT-2 tombstone) or taken down by an operator (OPT-5). */
  gone: boolean;
}

/** Per broadcast source, in the State table (`BROADCAST#<id>` / `STATUS`). */
export interface BroadcastStatus {
  broadcastId: string;
  /** The last request to the provider (claimed before it is sent: the once-a-minute cap). */
  lastPollAt?: string;
  lastSuccessAt?: string;
  lastError?: { text: string; at: string };
  polls: number;
  errors: number;
  /** Polls that found the broadcast live. */
  liveSeen: number;
}

/** Per meeting, in the State table (`BROADCAST#<id>` / `MEETING#<meetingKey>`). */
export interface BroadcastMeetingRecord {
  broadcastId: string;
  meetingKey: string;
  meetingId: string;
  start: string;
  end?: string;
  liveNow: boolean;
  firstLiveAt?: string;
  lastLiveAt?: string;
  streamUrl?: string;
  lastCheckedAt: string;
}

export type BroadcastDecision =
  | { action: 'poll'; meetingKeys: string[]; reason: string }
  | { action: 'wait'; reason: string; nextAt?: string };
