import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putBroadcastItem } from '../../shared/broadcasts';
import { BROADCAST_ITEM_KIND, resetEnvCache } from '../../shared/config';
import { berlinDate, SyncStateStore } from '../../shared/engine';
import { apiIdHash, idHash, MirrorStore } from '../../shared/mirror';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { ok, routes, startTestServer, type TestServer } from '../support/fetch-kit';

/**
 * The Lambda handler as deployed (functions/broadcasts.ts): environment only, real peers (dynalite,
 * s3rver), a provider on loopback (local mode's INGESTOR_ALLOW_LOOPBACK), the real clock — one pass
 * polls the one broadcast whose meeting runs now.
 */
describe('functions/broadcasts.ts', () => {
  let bed: AwsTestbed;
  let server: TestServer;
  const saved = { ...process.env };

  beforeAll(async () => {
    bed = await startAwsTestbed();
    server = await startTestServer(routes({ '/live.m3u8': ok('#EXTM3U\n#EXTINF:6.0,\nseg1.ts\n') }));
    Object.assign(process.env, bed.peers.env, { INGESTOR_ALLOW_LOOPBACK: 'true' });
    resetEnvCache();
  }, 60_000);
  afterAll(async () => {
    process.env = saved;
    resetEnvCache();
    await server?.close();
    await bed?.stop();
  });

  it('OTH-5: one pass polls the broadcast whose meeting runs now, once', async () => {
    const bodyId = 'https://council.test/oparl/v1/bodies/1';
    const meetingId = 'https://council.test/oparl/v1/meetings/1';
    const now = Date.now();
    const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
    const meeting = { id: meetingId, start: new Date(now - 5 * 60_000).toISOString() };
    await mirror.writeLive({
      sourceId: 'ris-a',
      type: 'meeting',
      id: meetingId,
      object: meeting,
      sourceUrl: 'https://council.test/oparl/v1/meetings',
      fetchedAt: new Date(now).toISOString(),
      hash: 'h1',
      bodyId,
    });
    await new SyncStateStore(bed.clients, bed.env.STATE_TABLE, 'ris-a').setMeetingDay(
      idHash(bodyId).slice(0, 16),
      apiIdHash(meetingId).slice(0, 16),
      berlinDate(now - 5 * 60_000),
    );
    await putBroadcastItem(bed.clients, bed.env.SOURCES_TABLE, {
      sourceId: 'broadcast-rat',
      itemKind: BROADCAST_ITEM_KIND,
      body: 'rat',
      councilSourceId: 'ris-a',
      bodyId,
      streamUrl: `http://127.0.0.1:${server.port}/live.m3u8`,
      active: true,
    });
    const { handler } = await import('../../functions/broadcasts');

    const first = await handler();
    const second = await handler();

    expect(first).toMatchObject({ broadcasts: 1, requests: 1, live: 1, errors: 0 });
    expect(second).toMatchObject({ requests: 0 });
    expect(server.callsTo('/live.m3u8')).toHaveLength(1);
    expect(server.callsTo('/robots.txt')).toHaveLength(0);
  });
});
