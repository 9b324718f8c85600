import { BROADCAST_LEAD_MINUTES, BROADCAST_OPEN_END_HOURS, BROADCAST_POLL_INTERVAL_MS } from './constants';
import type { BroadcastDecision, ScheduledMeeting } from './types';

/**
 * OTH-5, pure (state + now → decision): a broadcast source is polled only while a meeting window of its
 * body is open — from `BROADCAST_LEAD_MINUTES` before the scheduled start until the scheduled end, or
 * `BROADCAST_OPEN_END_HOURS` after the start when no end is known — never for a cancelled, deleted or
 * taken-down meeting, and at most once per `BROADCAST_POLL_INTERVAL_MS`.
 */

const MINUTE_MS = 60_000;

/** The window `[fromMs, untilMs)` of one meeting; an end not after the start counts as unknown. */
export function meetingWindow(meeting: Pick<ScheduledMeeting, 'start' | 'end'>): {
  fromMs: number;
  untilMs: number;
} {
  const startMs = Date.parse(meeting.start);
  const endMs = meeting.end === undefined ? Number.NaN : Date.parse(meeting.end);
  return {
    fromMs: startMs - BROADCAST_LEAD_MINUTES * MINUTE_MS,
    untilMs: endMs > startMs ? endMs : startMs + BROADCAST_OPEN_END_HOURS * 60 * MINUTE_MS,
  };
}

/** Meetings that may have a broadcast at all. */
export function isBroadcastable(meeting: ScheduledMeeting): boolean {
  return !meeting.cancelled && !meeting.gone && !Number.isNaN(Date.parse(meeting.start));
}

/** The meetings whose window is open at `nowMs`. */
export function openMeetings(meetings: ScheduledMeeting[], nowMs: number): ScheduledMeeting[] {
  return meetings.filter((m) => {
    if (!isBroadcastable(m)) return false;
    const w = meetingWindow(m);
    return nowMs >= w.fromMs && nowMs < w.untilMs;
  });
}

export function decideBroadcastPoll(
  source: { active: boolean },
  state: { lastPollAt?: string },
  meetings: ScheduledMeeting[],
  now: Date,
): BroadcastDecision {
  if (!source.active) return { action: 'wait', reason: 'inactive (OTH-3: switched off)' };
  const nowMs = now.getTime();
  const open = openMeetings(meetings, nowMs);
  if (open.length === 0) {
    const next = meetings
      .filter(isBroadcastable)
      .map((m) => meetingWindow(m).fromMs)
      .filter((ms) => ms > nowMs)
      .sort((a, b) => a - b)[0];
    return {
      action: 'wait',
      reason: 'no meeting window open (OTH-5)',
      ...(next === undefined ? {} : { nextAt: new Date(next).toISOString() }),
    };
  }
  const lastMs = state.lastPollAt === undefined ? Number.NaN : Date.parse(state.lastPollAt);
  // A last poll in the future (a clock jump back) counts as just now: slower, never faster.
  if (!Number.isNaN(lastMs) && nowMs - lastMs < BROADCAST_POLL_INTERVAL_MS) {
    return {
      action: 'wait',
      reason: 'polled less than a minute ago (OTH-5)',
      nextAt: new Date(
        Math.max(lastMs, nowMs - BROADCAST_POLL_INTERVAL_MS) + BROADCAST_POLL_INTERVAL_MS,
      ).toISOString(),
    };
  }
  return {
    action: 'poll',
    meetingKeys: open.map((m) => m.meetingKey),
    reason: 'meeting window open (OTH-5)',
  };
}

/**
 * The Berlin dates whose session days can hold an open window at `nowMs`: a window opens at most
 * `BROADCAST_LEAD_MINUTES` before its start day and closes at most `BROADCAST_OPEN_END_HOURS` (or a
 * scheduled end) after it — yesterday, today and tomorrow cover both for any end within a day.
 */
export function candidateDays(today: string): string[] {
  const d = new Date(`${today}T12:00:00Z`);
  const day = (offset: number) =>
    new Date(d.getTime() + offset * 24 * 60 * MINUTE_MS).toISOString().slice(0, 10);
  return [day(-1), today, day(1)];
}
