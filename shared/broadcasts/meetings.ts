import { berlinDate, isRecord, type OParlObject, parseOParlTime } from '../engine';
import type { MirrorIndexEntry, MirrorStore } from '../mirror';
import { type AwsClients, BodyRecords, MirrorIndex, type MirrorTablePlacement } from '../store';
import { candidateDays } from './decide';
import type { ScheduledMeeting } from './types';

/**
 * OTH-5: the meetings of one body that can have an open broadcast window now, found cheaply in what the
 * sync already keeps. The sync notes every scheduled, not cancelled, not deleted meeting of today or
 * later as a session day (`SESSION#<bodyKey>` in the council source's partition, one attribute
 * `m_<meetingKey>` = Berlin date; shared/engine `setMeetingDay`). So one GetItem tells whether the body
 * has a meeting yesterday, today or tomorrow; on any other day nothing else is read. Only for those
 * meetings is the mirror asked — the index entry (deleted? taken down? changed?) by one Query on its key
 * prefix, the S3 record only when the entry's hash differs from the copy remembered in `known`.
 *
 * A meeting that runs past midnight loses its session day when the next sync prunes past days; it stays
 * a candidate through `known` (what the last passes read) until its window has closed.
 */

/** What a pass remembers of a meeting it read from the mirror: skips the S3 read while unchanged. */
export interface KnownMeeting extends ScheduledMeeting {
  /** The mirror index entry's content hash when this copy was read. */
  hash: string;
}

export interface BodyRef {
  councilSourceId: string;
  /** First 16 hex of SHA-256(body id), as the sync keys its State records. */
  bodyKey: string;
  bodyId: string;
}

export interface MeetingSourceDeps {
  clients: Pick<AwsClients, 'doc'>;
  stateTable: string;
  /** Issue 28: where the mirror's object items are; absent = State. */
  mirrorTable?: MirrorTablePlacement;
  mirror: Pick<MirrorStore, 'readKey'>;
}

const DAY_MS = 24 * 60 * 60_000;

/** The meeting keys noted as session days on `days` (Berlin dates). */
export async function sessionMeetingKeys(
  deps: MeetingSourceDeps,
  body: BodyRef,
  days: string[],
): Promise<string[]> {
  const item = await new BodyRecords({ doc: deps.clients.doc, table: deps.stateTable }).sessionDays(
    body.councilSourceId,
    body.bodyKey,
  );
  const wanted = new Set(days);
  return Object.entries(item)
    .filter(([attr, date]) => attr.startsWith('m_') && typeof date === 'string' && wanted.has(date))
    .map(([attr]) => attr.slice(2));
}

/** The meeting's index entry: its sort key is the full id hash, whose first 16 hex are the meeting key. */
async function meetingEntry(
  deps: MeetingSourceDeps,
  body: BodyRef,
  meetingKey: string,
): Promise<MirrorIndexEntry | undefined> {
  const entries = (await new MirrorIndex(
    { doc: deps.clients.doc, table: deps.stateTable },
    deps.mirrorTable,
  ).withHashPrefix(body.councilSourceId, 'meeting', meetingKey)) as unknown as MirrorIndexEntry[];
  // 64 bits of hash prefix: a second meeting of the same prefix is not expected; the body decides.
  return entries.find((e) => e.bodyId === undefined || e.bodyId === body.bodyId);
}

/** A meeting as the mirror holds it, pure. */
export function scheduledMeetingOf(
  meetingKey: string,
  entry: Pick<MirrorIndexEntry, 'id' | 'deleted' | 'takedown'>,
  object: unknown,
): ScheduledMeeting | undefined {
  const meeting: OParlObject = isRecord(object) ? object : {};
  const start = parseOParlTime(meeting.start);
  if (start === undefined) return undefined;
  const end = parseOParlTime(meeting.end);
  return {
    meetingKey,
    meetingId: entry.id,
    start: start.toUTC().toISO() ?? '',
    ...(end === undefined ? {} : { end: end.toUTC().toISO() ?? '' }),
    cancelled: meeting.cancelled === true || meeting.cancelled === 'true',
    gone:
      entry.deleted === true ||
      entry.takedown !== undefined ||
      meeting.deleted === true ||
      meeting.deleted === 'true',
  };
}

/**
 * The body's meetings that may be broadcast around `now`, and what to remember for the next pass
 * (every meeting read; the next pass keeps asking about those that start within a day of its time).
 */
export async function loadBodyMeetings(
  deps: MeetingSourceDeps,
  body: BodyRef,
  known: Record<string, KnownMeeting>,
  now: Date,
): Promise<{ meetings: ScheduledMeeting[]; known: Record<string, KnownMeeting> }> {
  const nowMs = now.getTime();
  const fromSessions = await sessionMeetingKeys(deps, body, candidateDays(berlinDate(nowMs)));
  const stillRecent = Object.values(known)
    .filter((m) => Math.abs(Date.parse(m.start) - nowMs) < DAY_MS)
    .map((m) => m.meetingKey);
  const keys = [...new Set([...fromSessions, ...stillRecent])].sort();
  const next: Record<string, KnownMeeting> = {};
  for (const key of keys) {
    const entry = await meetingEntry(deps, body, key);
    if (entry === undefined) continue;
    const remembered = known[key];
    let meeting: ScheduledMeeting | undefined;
    if (remembered !== undefined && remembered.hash === entry.hash) {
      meeting = { ...withoutHash(remembered), gone: entry.deleted === true || entry.takedown !== undefined };
    } else {
      const record = await deps.mirror.readKey(entry.key);
      meeting = record === undefined ? undefined : scheduledMeetingOf(key, entry, record.object);
      if (meeting && record?.meta.deleted === true) meeting.gone = true;
    }
    if (meeting !== undefined) next[key] = { ...meeting, hash: entry.hash };
  }
  return { meetings: Object.values(next).map(withoutHash), known: next };
}

function withoutHash(m: KnownMeeting): ScheduledMeeting {
  const { hash: _hash, ...meeting } = m;
  return meeting;
}
