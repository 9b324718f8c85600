import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_STREAM_POINTERS, DEMO_STREAM_STATUS_PATH, startFakeCouncil } from '../../demo';
import {
  addBroadcast,
  BROADCAST_ERROR_TEXTS,
  BROADCAST_POLL_INTERVAL_MS,
  type BroadcastDeps,
  BroadcastStore,
  broadcastStatus,
  putBroadcastItem,
  runBroadcastPass,
} from '../../shared/broadcasts';

import { BROADCAST_ITEM_KIND, type BroadcastItem } from '../../shared/config';
import { berlinDate, SyncStateStore } from '../../shared/engine';
import { MAX_REDIRECTS } from '../../shared/fetch';
import { createHostIntervalIndex } from '../../shared/fetch-runtime';
import { apiIdHash, idHash, MirrorStore } from '../../shared/mirror';
import { createOtherFetch, OTHER_FETCH_ERROR_TEXTS } from '../../shared/other-fetch';
import { putSourceItem } from '../../shared/store';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import {
  closeAfterEach,
  type Handler,
  type Kit,
  ok,
  routes,
  startTestServer,
  status,
  type TestServer,
} from '../support/fetch-kit';

/**
 * OTH-5 end to end on real peers: dynalite (Sources, State: session days, mirror index, broadcast
 * state), s3rver (the mirror's meeting records, written by the production MirrorStore), loopback HTTP
 * servers as streaming providers, and the polite fetcher's other-fetch mode on the process-local slot
 * store with a virtual clock (test/fetch/support) — the same slots a council fetch on that host takes.
 */

const { track, kit } = closeAfterEach();
const MIN = 60_000;
/** 18:00 Berlin on a Tuesday. */
const T0 = Date.parse('2026-12-01T17:00:00.000Z');
const COUNCIL = 'ris-a';
/** Each test has its own body, so no meeting of another test opens a window in it. */
let BODY_ID = '';
let BODY_KEY = '';

let bed: AwsTestbed;
let mirror: MirrorStore;
let sessions: SyncStateStore;
let tables: { sources: string; state: string };
let counter = 0;

beforeAll(async () => {
  bed = await startAwsTestbed();
  tables = { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE };
  mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  sessions = new SyncStateStore(bed.clients, bed.env.STATE_TABLE, COUNCIL);
}, 60_000);
afterAll(async () => {
  await bed?.stop();
});
beforeEach(() => {
  counter += 1;
  BODY_ID = `https://council.test/oparl/v1/bodies/${counter}`;
  BODY_KEY = idHash(BODY_ID).slice(0, 16);
});

/** A meeting as a council sync leaves it: the mirror record and index, and its session day (SCH-2). */
async function mirrorMeeting(fields: {
  startMs: number;
  endMs?: number;
  cancelled?: boolean;
  deleted?: boolean;
  sessionDay?: boolean;
}): Promise<string> {
  counter += 1;
  const id = `https://council.test/oparl/v1/meetings/${counter}-${Math.random().toString(36).slice(2)}`;
  const object = {
    id,
    type: 'https://schema.oparl.org/1.1/Meeting',
    name: `${counter}. Sitzung`,
    start: new Date(fields.startMs).toISOString(),
    ...(fields.endMs === undefined ? {} : { end: new Date(fields.endMs).toISOString() }),
    ...(fields.cancelled ? { cancelled: true } : {}),
  };
  const write = {
    sourceId: COUNCIL,
    type: 'meeting',
    id,
    object: fields.deleted ? { id, type: object.type, deleted: true } : object,
    sourceUrl: 'https://council.test/oparl/v1/bodies/1/meetings',
    fetchedAt: new Date(T0 - 60 * MIN).toISOString(),
    hash: idHash(JSON.stringify(object)),
    bodyId: BODY_ID,
  };
  if (fields.deleted) {
    const previous = await mirror.writeLive({ ...write, object });
    await mirror.writeTombstone({ ...write, hash: 'tomb' }, previous);
  } else {
    await mirror.writeLive(write);
  }
  const meetingKey = apiIdHash(id).slice(0, 16);
  if (fields.sessionDay !== false)
    await sessions.setMeetingDay(BODY_KEY, meetingKey, berlinDate(fields.startMs));
  return meetingKey;
}

async function broadcastSource(streamUrl: string, extra: Partial<BroadcastItem> = {}): Promise<string> {
  counter += 1;
  const sourceId = `broadcast-${counter}`;
  await putBroadcastItem(bed.clients, tables.sources, {
    sourceId,
    itemKind: BROADCAST_ITEM_KIND,
    body: 'rat',
    councilSourceId: COUNCIL,
    bodyId: BODY_ID,
    streamUrl,
    active: true,
    ...extra,
  });
  return sourceId;
}

/** The pass's deps on the kit's fetcher; counts how often the fetcher is even built. */
function depsFor(k: Kit): BroadcastDeps & { fetchBuilt: number } {
  const deps = {
    fetchBuilt: 0,
    clients: bed.clients,
    tables,
    mirror,
    fetch: () => {
      deps.fetchBuilt += 1;
      return createOtherFetch({
        fetcher: k.fetcher,
        hostIntervals: createHostIntervalIndex(bed.clients, bed.env, k.clock.now),
      });
    },
  };
  return deps;
}

const LIVE_PLAYLIST = '#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6.0,\nseg1.ts\n#EXTINF:6.0,\nseg2.ts\n';
const ENDED_PLAYLIST = `${LIVE_PLAYLIST}#EXT-X-ENDLIST\n`;

async function provider(table: Record<string, Handler>): Promise<TestServer> {
  return track(await startTestServer(routes(table)));
}

/** The outcome of `id` in a pass (other sources of the shared table are polled alongside). */
async function pass(deps: BroadcastDeps, id: string, atMs: number) {
  const report = await runBroadcastPass(deps, new Date(atMs), { broadcastId: id });
  return report.outcomes[0];
}

describe('OTH-5: polled only around scheduled meetings', () => {
  it('OTH-5: no meeting window open → no request, not even a fetcher built', async () => {
    const k = kit();
    const server = await provider({ '/live.m3u8': ok(LIVE_PLAYLIST) });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    await mirrorMeeting({ startMs: T0 + 24 * 60 * MIN }); // tomorrow
    await mirrorMeeting({ startMs: T0 - 5 * 60 * MIN, endMs: T0 - 2 * 60 * MIN }); // over
    const deps = depsFor(k);

    const outcome = await pass(deps, id, T0);

    expect(outcome).toMatchObject({ action: 'wait', reason: 'no meeting window open (OTH-5)' });
    expect(server.calls).toEqual([]);
    expect(deps.fetchBuilt).toBe(0);
  });

  it('OTH-5: 15 minutes before the start the window opens; an HLS stream without ENDLIST is recorded live', async () => {
    const k = kit();
    const server = await provider({
      '/live.m3u8': ok(LIVE_PLAYLIST, { 'content-type': 'application/vnd.apple.mpegurl' }),
    });
    const streamUrl = server.url('/live.m3u8', 'stream.test');
    const id = await broadcastSource(streamUrl);
    const start = T0 + 3 * 60 * MIN;
    const meetingKey = await mirrorMeeting({ startMs: start, endMs: start + 120 * MIN });
    const deps = depsFor(k);

    expect((await pass(deps, id, start - 16 * MIN))?.action).toBe('wait');
    expect(server.calls).toHaveLength(0);
    const outcome = await pass(deps, id, start - 15 * MIN);

    expect(outcome).toMatchObject({ action: 'poll', live: true });
    expect(server.callsTo('/live.m3u8')).toHaveLength(1);
    const [record] = await new BroadcastStore(bed.clients, tables.state, id).listMeetings();
    expect(record).toMatchObject({
      meetingKey,
      liveNow: true,
      firstLiveAt: new Date(start - 15 * MIN).toISOString(),
      lastLiveAt: new Date(start - 15 * MIN).toISOString(),
      streamUrl,
    });
    // After the scheduled end: no request any more.
    await pass(deps, id, start + 120 * MIN);
    expect(server.callsTo('/live.m3u8')).toHaveLength(1);
  });

  it('OTH-5: without a scheduled end, polled until 4 hours after the start', async () => {
    const k = kit();
    const server = await provider({ '/live.m3u8': ok(LIVE_PLAYLIST) });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    const start = T0 - 4 * 60 * MIN + 2 * MIN;
    await mirrorMeeting({ startMs: start });
    const deps = depsFor(k);

    expect((await pass(deps, id, T0))?.action).toBe('poll');
    expect((await pass(deps, id, start + 4 * 60 * MIN))?.action).toBe('wait');
    expect(server.calls).toHaveLength(1);
  });

  it.each([
    ['cancelled', { cancelled: true }],
    ['deleted at the source (tombstone)', { deleted: true }],
  ])('OTH-5: a %s meeting is never polled, even inside its window', async (_label, extra) => {
    const k = kit();
    const server = await provider({ '/live.m3u8': ok(LIVE_PLAYLIST) });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN, ...extra });
    const deps = depsFor(k);

    expect((await pass(deps, id, T0))?.action).toBe('wait');
    expect(server.calls).toEqual([]);
  });

  it('OTH-5: a meeting running past midnight stays polled after its session day was pruned', async () => {
    const k = kit();
    const server = await provider({ '/live.m3u8': ok(LIVE_PLAYLIST) });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    // 22:30 Berlin, until 00:30: the next sync after midnight prunes yesterday's session days.
    const start = Date.parse('2026-12-01T21:30:00.000Z');
    const meetingKey = await mirrorMeeting({ startMs: start, endMs: start + 120 * MIN });
    const deps = depsFor(k);
    expect((await pass(deps, id, start))?.action).toBe('poll');

    await sessions.pruneMeetingDays(BODY_KEY, [meetingKey]);
    expect((await pass(deps, id, start + 100 * MIN))?.action).toBe('poll');
    expect(server.calls).toHaveLength(2);
  });
});

describe('OTH-5: at most once a minute', () => {
  it('OTH-5: passes 30 s apart send one request; the next minute another', async () => {
    const k = kit();
    const server = await provider({ '/live.m3u8': ok(LIVE_PLAYLIST) });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });
    const deps = depsFor(k);

    await pass(deps, id, T0);
    const second = await pass(deps, id, T0 + 30_000);
    expect(second).toMatchObject({ action: 'wait', reason: 'polled less than a minute ago (OTH-5)' });
    expect(server.calls).toHaveLength(1);
    await pass(deps, id, T0 + BROADCAST_POLL_INTERVAL_MS);
    expect(server.calls).toHaveLength(2);
  });

  it('OTH-5: two passes at the same moment (overlapping invocations) send one request: the claim is conditional', async () => {
    const k = kit();
    const server = await provider({ '/live.m3u8': ok(LIVE_PLAYLIST) });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });
    const deps = depsFor(k);

    const outcomes = await Promise.all([pass(deps, id, T0), pass(deps, id, T0), pass(deps, id, T0)]);

    expect(outcomes.filter((o) => o?.action === 'poll')).toHaveLength(1);
    expect(server.calls).toHaveLength(1);
    expect((await new BroadcastStore(bed.clients, tables.state, id).getStatus()).polls).toBe(1);
  });

  it('OTH-5: a 503 is asked once in its minute (no in-poll retries) and recorded as a fixed text', async () => {
    const k = kit();
    const server = await provider({
      '/live.m3u8': status(503, { 'content-type': 'text/plain' }, 'upstream ris-internal-01.local down'),
    });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });

    const outcome = await pass(depsFor(k), id, T0);

    expect(outcome).toMatchObject({ action: 'poll', error: 'Dienst antwortete mit HTTP 503' });
    expect(server.calls).toHaveLength(1);
    expect(k.clock.retryPauses).toEqual([]);
    const [row] = (await broadcastStatus(bed.clients, tables, new Date(T0))).filter(
      (r) => r.broadcastId === id,
    );
    expect(row).toMatchObject({ errors: 1, polls: 1, lastError: { text: 'Dienst antwortete mit HTTP 503' } });
    expect(row?.lastSuccessAt).toBeUndefined();
    // The recorded error names neither the answer's text nor the URL or host.
    expect(JSON.stringify(row?.lastError)).not.toMatch(/ris-internal|stream\.test|live\.m3u8/);
  });

  it('RED-1: a redirect loop at the provider is recorded with the text a geo refresh records (one mapping)', async () => {
    const k = kit();
    const server = await provider({ '/live.m3u8': status(302, { location: '/live.m3u8' }) });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });

    const outcome = await pass(depsFor(k), id, T0);

    expect(outcome).toMatchObject({ action: 'poll', error: OTHER_FETCH_ERROR_TEXTS.tooManyRedirects });
    // The first request and its 5 followed redirects; the sixth redirect is not followed.
    expect(server.calls).toHaveLength(MAX_REDIRECTS + 1);
  });
});

describe('OTH-5: live detection', () => {
  it('OTH-5: #EXT-X-ENDLIST → not live, which is no error; first/last seen live are kept', async () => {
    const k = kit();
    let playlist = LIVE_PLAYLIST;
    const server = await provider({
      '/live.m3u8': (_req, res) => {
        res.end(playlist);
      },
    });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'));
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });
    const deps = depsFor(k);
    await pass(deps, id, T0);

    playlist = ENDED_PLAYLIST;
    const outcome = await pass(deps, id, T0 + MIN);

    expect(outcome).toMatchObject({ action: 'poll', live: false });
    const store = new BroadcastStore(bed.clients, tables.state, id);
    const [record] = await store.listMeetings();
    expect(record).toMatchObject({
      liveNow: false,
      firstLiveAt: new Date(T0).toISOString(),
      lastLiveAt: new Date(T0).toISOString(),
      lastCheckedAt: new Date(T0 + MIN).toISOString(),
    });
    expect(await store.getStatus()).toMatchObject({
      polls: 2,
      errors: 0,
      liveSeen: 1,
      lastSuccessAt: new Date(T0 + MIN).toISOString(),
    });
  });

  it("OTH-5: the demo council's JSON status endpoint, read through RFC 6901 pointers", async () => {
    const k = kit();
    const council = track(await startFakeCouncil({ hostname: 'council.test' }));
    const statusUrl = `${council.url}${DEMO_STREAM_STATUS_PATH}`;
    const id = await broadcastSource(statusUrl, { ...DEMO_STREAM_POINTERS });
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });

    expect(await pass(depsFor(k), id, T0)).toMatchObject({ action: 'poll', live: true });
    const [record] = await new BroadcastStore(bed.clients, tables.state, id).listMeetings();
    expect(record?.streamUrl).toBe(`${council.url}/stream/live.m3u8`);
    // OTH-3: a status endpoint is a service interface — no robots.txt was asked for.
    expect(council.requests.map((r) => r.path)).toEqual([DEMO_STREAM_STATUS_PATH]);
  });

  it('OTH-5: a JSON answer without the configured live flag is an error with a fixed text', async () => {
    const k = kit();
    const server = await provider({ '/status': ok('{"state":"unknown"}') });
    const id = await broadcastSource(server.url('/status', 'stream.test'), { livePointer: '/live' });
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });

    expect(await pass(depsFor(k), id, T0)).toMatchObject({ error: BROADCAST_ERROR_TEXTS.pointerMissing });
  });
});

describe('OTH-3 / OTH-2 for broadcasts', () => {
  it('OTH-3: an inactive broadcast source is never fetched, window or not', async () => {
    const k = kit();
    const server = await provider({ '/live.m3u8': ok(LIVE_PLAYLIST) });
    const id = await broadcastSource(server.url('/live.m3u8', 'stream.test'), { active: false });
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });
    const deps = depsFor(k);

    expect(await pass(deps, id, T0)).toMatchObject({
      action: 'wait',
      reason: 'inactive (OTH-3: switched off)',
    });
    expect(server.calls).toEqual([]);
    expect(deps.fetchBuilt).toBe(0);
  });

  it("OTH-2: a stream on the host of a council system keeps that council source's larger interval (inactive too)", async () => {
    const k = kit();
    const times: number[] = [];
    const inner = routes({ '/oparl/v1/system': ok(), '/live.m3u8': ok(LIVE_PLAYLIST) });
    const server = track(
      await startTestServer((req, res, call) => {
        if (!(req.url ?? '').startsWith('/robots.txt')) times.push(k.clock.now());
        return inner(req, res, call);
      }),
    );
    await putSourceItem(bed.clients.doc, tables.sources, {
      sourceId: 'ris-shared-host',
      systemUrl: server.url('/oparl/v1/system', 'shared.test'),
      active: false,
      requestIntervalSeconds: 6,
    });
    const id = await broadcastSource(server.url('/live.m3u8', 'shared.test'));
    await mirrorMeeting({ startMs: T0 - 10 * MIN, endMs: T0 + 60 * MIN });
    // A council request to the same host just before the poll.
    await k.fetcher.fetch(server.url('/oparl/v1/system', 'shared.test'), {
      purpose: 'api',
      source: { sourceId: 'ris-shared-host', requestIntervalSeconds: 6 },
      hostIntervalMs: 6000,
    });

    expect(await pass(depsFor(k), id, T0)).toMatchObject({ action: 'poll', live: true });

    expect(times).toHaveLength(2);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(6000);
  });
});

describe('broadcasts add and status', () => {
  it('OTH-5: add resolves the body by slug and stores the source inactive; it never counts as a council source', async () => {
    await sessions.upsertBody(
      {
        bodyKey: BODY_KEY,
        id: BODY_ID,
        name: 'Stadt Musterstadt',
        lists: {},
        lastSeenAt: new Date(T0).toISOString(),
      },
      'musterstadt',
    );
    await putSourceItem(bed.clients.doc, tables.sources, {
      sourceId: COUNCIL,
      systemUrl: 'https://council.test/oparl/v1/system',
    });

    const added = await addBroadcast(bed.clients, tables, {
      body: 'musterstadt',
      streamUrl: 'https://stream.example/status',
      livePointer: '/live',
      by: 'test',
      now: new Date(T0),
    });

    expect(added).toEqual({
      id: 'broadcast-musterstadt',
      active: false,
      body: 'musterstadt',
      councilSourceId: COUNCIL,
      format: 'json',
    });
    await expect(
      addBroadcast(bed.clients, tables, {
        body: 'musterstadt',
        streamUrl: 'https://stream.example/x.m3u8',
        by: 'test',
        now: new Date(T0),
      }),
    ).rejects.toMatchObject({ code: 'BROADCAST_EXISTS' });
    const rows = await broadcastStatus(bed.clients, tables, new Date(T0));
    expect(rows.find((r) => r.broadcastId === 'broadcast-musterstadt')).toMatchObject({
      active: false,
      polls: 0,
      valid: true,
    });
  });

  it('OTH-5: a broken broadcast item is reported per field and skipped, never fatal', async () => {
    await bed.clients.doc.send(
      new (await import('@aws-sdk/lib-dynamodb')).PutCommand({
        TableName: tables.sources,
        Item: {
          sourceId: 'broadcast-broken',
          itemKind: BROADCAST_ITEM_KIND,
          body: 'x',
          councilSourceId: COUNCIL,
          bodyId: BODY_ID,
          streamUrl: 'ftp://x',
          livePointer: 'live',
        },
      }),
    );
    const report = await runBroadcastPass(depsFor(kit()), new Date(T0), { broadcastId: 'broadcast-broken' });
    expect(report.invalid).toBe(1);
    expect(report.outcomes[0]?.reason).toMatch(
      /streamUrl must be an http\(s\) URL.*livePointer must be an RFC 6901/,
    );
  });
});
