import {
  BROADCAST_ITEM_KIND,
  type BroadcastConfig,
  type ParsedBroadcast,
  parseBroadcastItem,
} from '../config';
import type { MirrorStore } from '../mirror';
import { idHash } from '../mirror';
import { type OtherFetch, otherFetchErrorText } from '../other-fetch';
import type { AwsClients, StoreTables } from '../store';
import { loadAllSources } from '../store';
import { mapLimit } from '../util';
import {
  BROADCAST_ATTEMPTS_PER_POLL,
  BROADCAST_MAX_BYTES,
  BROADCAST_MAX_WAIT_MS,
  BROADCAST_POLLS_IN_FLIGHT,
} from './constants';
import { decideBroadcastPoll, openMeetings } from './decide';
import { type LiveReading, readHlsPlaylist, readJsonStatus } from './detect';
import { loadBodyMeetings } from './meetings';
import { BroadcastStore } from './store';

/**
 * OTH-5: one pass over the broadcast sources (the once-a-minute schedule, `ingestor broadcasts poll`).
 * Per active source: the body's meetings from the mirror, the pure decision, then — only while a meeting
 * window is open and the minute's claim is won — one request to the provider through the other-fetch
 * mode (OTH-1…3), read as HLS or JSON status and recorded per open meeting.
 */

/** The one request a poll makes: the other-fetch mode of the polite fetcher (OTH-1…3). */
export type BroadcastFetch = Pick<OtherFetch, 'fetch'>;

export interface BroadcastDeps {
  clients: Pick<AwsClients, 'doc'>;
  tables: Pick<StoreTables, 'sources' | 'state' | 'mirror'>;
  mirror: Pick<MirrorStore, 'readKey'>;
  /** Built lazily: a pass with no open window never builds the fetcher. */
  fetch: () => BroadcastFetch | Promise<BroadcastFetch>;
}

export interface BroadcastOutcome {
  broadcastId: string;
  action: 'poll' | 'wait' | 'skip';
  reason: string;
  live?: boolean;
  error?: string;
}

export interface BroadcastPassReport {
  at: string;
  broadcasts: number;
  invalid: number;
  requests: number;
  live: number;
  errors: number;
  outcomes: BroadcastOutcome[];
}

/** The broadcast sources of the Sources table, parsed (a broken item is reported, never fatal). */
export async function loadBroadcasts(
  clients: Pick<AwsClients, 'doc'>,
  sourcesTable: string,
): Promise<ParsedBroadcast[]> {
  const { others } = await loadAllSources(clients.doc, sourcesTable);
  return (others.get(BROADCAST_ITEM_KIND) ?? [])
    .map(parseBroadcastItem)
    .sort((a, b) => idOfBroadcast(a).localeCompare(idOfBroadcast(b)));
}

export function idOfBroadcast(p: ParsedBroadcast): string {
  return p.ok ? p.broadcast.broadcastId : p.broadcastId;
}

/** Reads the provider's answer as configured. */
export function readBroadcast(broadcast: BroadcastConfig, body: Buffer): LiveReading {
  const text = body.toString('utf-8');
  return broadcast.format === 'json' && broadcast.livePointer !== undefined
    ? readJsonStatus(
        text,
        {
          livePointer: broadcast.livePointer,
          ...(broadcast.streamPointer === undefined ? {} : { streamPointer: broadcast.streamPointer }),
        },
        broadcast.streamUrl,
      )
    : readHlsPlaylist(text, broadcast.streamUrl);
}

const ACCEPT: Record<BroadcastConfig['format'], string> = {
  hls: 'application/vnd.apple.mpegurl, application/x-mpegurl;q=0.9, */*;q=0.5',
  json: 'application/json',
};

export async function runBroadcastPass(
  deps: BroadcastDeps,
  now: Date,
  options: { broadcastId?: string } = {},
): Promise<BroadcastPassReport> {
  const parsed = (await loadBroadcasts(deps.clients, deps.tables.sources)).filter(
    (p) => options.broadcastId === undefined || idOfBroadcast(p) === options.broadcastId,
  );
  const report: BroadcastPassReport = {
    at: now.toISOString(),
    broadcasts: parsed.length,
    invalid: 0,
    requests: 0,
    live: 0,
    errors: 0,
    outcomes: [],
  };
  for (const p of parsed) {
    if (p.ok) continue;
    report.invalid += 1;
  }
  // One outcome per source, in the sources' order, whatever order the polls finish in.
  report.outcomes = await mapLimit(parsed, BROADCAST_POLLS_IN_FLIGHT, (p) =>
    p.ok
      ? pollOne(deps, p.broadcast, now, report)
      : Promise.resolve<BroadcastOutcome>({
          broadcastId: p.broadcastId,
          action: 'skip',
          reason: `invalid: ${p.problems.map((x) => `${x.field} ${x.message}`).join('; ')}`,
        }),
  );
  return report;
}

async function pollOne(
  deps: BroadcastDeps,
  broadcast: BroadcastConfig,
  now: Date,
  report: BroadcastPassReport,
): Promise<BroadcastOutcome> {
  const id = broadcast.broadcastId;
  // OTH-3: a source switched off is not even looked at — no State read, no mirror read, no request.
  if (!broadcast.active) {
    const decision = decideBroadcastPoll(broadcast, {}, [], now);
    return { broadcastId: id, action: 'wait', reason: decision.reason };
  }
  const store = new BroadcastStore(deps.clients, deps.tables.state, id);
  const status = await store.getStatus();
  const { meetings, known } = await loadBodyMeetings(
    {
      clients: deps.clients,
      stateTable: deps.tables.state,
      mirrorTable: deps.tables.mirror,
      mirror: deps.mirror,
    },
    {
      councilSourceId: broadcast.councilSourceId,
      bodyId: broadcast.bodyId,
      bodyKey: idHash(broadcast.bodyId).slice(0, 16),
    },
    status.known ?? {},
    now,
  );
  if (JSON.stringify(known) !== JSON.stringify(status.known ?? {})) await store.putKnown(known);
  const decision = decideBroadcastPoll(broadcast, status, meetings, now);
  if (decision.action === 'wait') return { broadcastId: id, action: 'wait', reason: decision.reason };
  if (!(await store.claimPoll(now))) {
    return { broadcastId: id, action: 'wait', reason: 'another pass polled this minute (OTH-5)' };
  }
  const open = openMeetings(meetings, now.getTime());
  report.requests += 1;
  let reading: LiveReading;
  try {
    const fetcher = await deps.fetch();
    const answer = await fetcher.fetch(broadcast.streamUrl, {
      sourceId: id,
      maxBytes: BROADCAST_MAX_BYTES,
      maxWaitMs: BROADCAST_MAX_WAIT_MS,
      maxAttempts: BROADCAST_ATTEMPTS_PER_POLL,
      headers: { accept: ACCEPT[broadcast.format] },
    });
    reading = readBroadcast(broadcast, answer.body);
  } catch (error) {
    reading = { ok: false, error: otherFetchErrorText(error) };
  }
  if (!reading.ok) {
    report.errors += 1;
    await store.recordError(now, reading.error);
    return { broadcastId: id, action: 'poll', reason: decision.reason, error: reading.error };
  }
  if (reading.live) report.live += 1;
  await store.recordSuccess(now, reading.live);
  for (const meeting of open) await store.recordMeeting(meeting, reading, now);
  return { broadcastId: id, action: 'poll', reason: decision.reason, live: reading.live };
}
