import { describe, expect, it } from 'vitest';
import {
  BROADCAST_LEAD_MINUTES,
  BROADCAST_OPEN_END_HOURS,
  BROADCAST_POLL_INTERVAL_MS,
  candidateDays,
  decideBroadcastPoll,
  meetingWindow,
  type ScheduledMeeting,
} from '../../shared/broadcasts';

/** OTH-5 windows and the once-a-minute cap, pure: state + now → decision. */
const MIN = 60_000;
const START = '2026-12-01T17:00:00.000Z';
const START_MS = Date.parse(START);

function meeting(extra: Partial<ScheduledMeeting> = {}): ScheduledMeeting {
  return { meetingKey: 'aaaa', meetingId: 'm-1', start: START, cancelled: false, gone: false, ...extra };
}
const active = { active: true };
const at = (ms: number) => new Date(ms);

describe('OTH-5: the meeting window', () => {
  it.each([
    ['16 min before the start', -16 * MIN, 'wait'],
    ['15 min before the start (the window opens)', -BROADCAST_LEAD_MINUTES * MIN, 'poll'],
    ['at the start', 0, 'poll'],
    ['a minute before the scheduled end', 119 * MIN, 'poll'],
    ['at the scheduled end (closed)', 120 * MIN, 'wait'],
  ])('OTH-5: with an end known, %s → %s', (_label, offset, action) => {
    const m = meeting({ end: new Date(START_MS + 120 * MIN).toISOString() });
    expect(decideBroadcastPoll(active, {}, [m], at(START_MS + offset)).action).toBe(action);
  });

  it('OTH-5: without an end the window closes 4 hours after the start', () => {
    const m = meeting();
    const openEnd = BROADCAST_OPEN_END_HOURS * 60 * MIN;
    expect(meetingWindow(m).untilMs - START_MS).toBe(openEnd);
    expect(decideBroadcastPoll(active, {}, [m], at(START_MS + openEnd - MIN)).action).toBe('poll');
    expect(decideBroadcastPoll(active, {}, [m], at(START_MS + openEnd)).action).toBe('wait');
  });

  it('OTH-5: an end not after the start counts as unknown (4 hours)', () => {
    expect(meetingWindow(meeting({ end: START })).untilMs - START_MS).toBe(
      BROADCAST_OPEN_END_HOURS * 60 * MIN,
    );
  });

  it.each([
    ['cancelled', { cancelled: true }],
    ['deleted or taken down', { gone: true }],
  ])('OTH-5: a %s meeting is never polled, even inside its window', (_label, extra) => {
    const decision = decideBroadcastPoll(active, {}, [meeting(extra)], at(START_MS));
    expect(decision).toMatchObject({ action: 'wait', reason: expect.stringContaining('no meeting window') });
  });

  it('OTH-5: the reason names the next window when one is ahead', () => {
    const decision = decideBroadcastPoll(active, {}, [meeting()], at(START_MS - 60 * MIN));
    expect(decision).toEqual({
      action: 'wait',
      reason: 'no meeting window open (OTH-5)',
      nextAt: new Date(START_MS - BROADCAST_LEAD_MINUTES * MIN).toISOString(),
    });
  });

  it('OTH-5: polls every open meeting of the body with one request', () => {
    const second = meeting({
      meetingKey: 'bbbb',
      meetingId: 'm-2',
      start: new Date(START_MS + 30 * MIN).toISOString(),
    });
    expect(decideBroadcastPoll(active, {}, [meeting(), second], at(START_MS + 20 * MIN))).toMatchObject({
      action: 'poll',
      meetingKeys: ['aaaa', 'bbbb'],
    });
  });

  it('OTH-3: an inactive source never polls, window or not', () => {
    expect(decideBroadcastPoll({ active: false }, {}, [meeting()], at(START_MS)).action).toBe('wait');
  });
});

describe('OTH-5: at most once a minute', () => {
  it.each([
    ['59 s after the last poll', 59_000, 'wait'],
    ['60 s after the last poll', BROADCAST_POLL_INTERVAL_MS, 'poll'],
  ])('OTH-5: %s → %s', (_label, since, action) => {
    const now = START_MS + 10 * MIN;
    const state = { lastPollAt: new Date(now - since).toISOString() };
    expect(decideBroadcastPoll(active, state, [meeting()], at(now)).action).toBe(action);
  });

  it('OTH-5: a last poll in the future (clock stepped back) waits a full minute after it', () => {
    const now = START_MS + 10 * MIN;
    const last = now + 30_000;
    const decision = decideBroadcastPoll(
      active,
      { lastPollAt: new Date(last).toISOString() },
      [meeting()],
      at(now),
    );
    expect(decision).toMatchObject({
      action: 'wait',
      nextAt: new Date(last + BROADCAST_POLL_INTERVAL_MS).toISOString(),
    });
  });
});

describe('OTH-5: session days that can hold an open window', () => {
  it('OTH-5: yesterday, today and tomorrow (Berlin dates), across a month end', () => {
    expect(candidateDays('2026-12-01')).toEqual(['2026-11-30', '2026-12-01', '2026-12-02']);
  });
});
