import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainFleet, plannerTick } from '../../shared/planner';
import { DEFAULT_LEASE_MINUTES, DEFAULT_SCHEDULE_SETTINGS } from '../../shared/schedule';
import { type PacedHostSlots, RedisHostLedger } from '../../shared/slots';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';
import { instance, KEY_PREFIX } from '../support/slot-instances';
import { putActiveSource } from '../support/sync-runtime';

/**
 * Issue 27 item 5 / "What must exist" 1: the planner reads, per host, the RATE-8 pause and ROB-10
 * Crawl-delay the fetchers' slots noted, and the other fetches' share, from the host ledger (one read
 * per tick) — before, it had no slot-store client and admitted runs onto a paused host blind. Real
 * redis-server (Upstash protocol), real DynamoDB (dynalite) and queue (fauxqs); the planner never fetches,
 * so the sources' hosts need not answer.
 */
describe('the planner reads pauses, Crawl-delays and other fetches from the host ledger', () => {
  let bed: AwsTestbed;
  let peer: RedisPeer;
  let sync: PacedHostSlots;
  let ledger: RedisHostLedger;

  beforeAll(async () => {
    [bed, peer] = await Promise.all([startAwsTestbed(), startRedisPeer()]);
    sync = instance(peer);
    ledger = new RedisHostLedger(createTestRedisClient(peer.adapter), KEY_PREFIX);
    await putActiveSource(bed, 'paused-council', 'https://paused.example/oparl/system');
    await putActiveSource(bed, 'calm-council', 'https://calm.example/oparl/system');
    await putActiveSource(bed, 'crawl-council', 'https://crawl.example/oparl/system');
    await putActiveSource(bed, 'docs-council', 'https://docs.example/oparl/system');
  }, 60_000);
  afterAll(async () => Promise.all([bed?.stop(), peer?.stop()]));

  const tables = () => ({ sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE });

  it('RATE-8 / RATE-9: a host paused by a Retry-After gets no run; the others start; status and hosts say until when', async () => {
    // A sync instance's 503 with Retry-After 30 min (the slots note it, and copy it into the ledger).
    await sync.noteRetryAfter('https://paused.example/oparl/body/1/paper', 30 * 60_000);
    await sync.noteCrawlDelay('crawl.example', 20_000);
    // Other fetches (a files pass) sent 600 requests to docs.example in this bucket.
    await ledger.recordOtherFetches(new Map([['docs.example', 600]]));

    const now = new Date();
    const tick = await plannerTick(
      {
        doc: bed.clients.doc,
        sqs: bed.clients.sqs,
        tables: tables(),
        syncQueueUrl: bed.queues.syncQueueUrl,
        settings: DEFAULT_SCHEDULE_SETTINGS,
        leaseMinutes: DEFAULT_LEASE_MINUTES,
        hostLedger: ledger,
      },
      now,
    );
    expect(tick.hostLedgerUnavailable).toBeUndefined();
    const started = tick.started.map((s) => s.sourceId).sort();
    expect(started).toEqual(['calm-council', 'crawl-council', 'docs-council']);
    const paused = tick.decisions.find((d) => d.sourceId === 'paused-council');
    expect(paused).toMatchObject({ action: 'wait', started: false });
    expect(paused?.reason).toMatch(/host paused\.example paused until \S+ \(RATE-8\): 1 run queued/);
    const pausedHost = tick.hosts.find((h) => h.host === 'paused.example');
    expect(Date.parse(pausedHost?.pausedUntil ?? '')).toBeGreaterThan(now.getTime() + 29 * 60_000);

    // status / hosts: the same picture, with the Crawl-delay's pace and the other fetches' share.
    const fleet = await explainFleet(
      { doc: bed.clients.doc, tables: tables(), hostLedger: ledger },
      DEFAULT_SCHEDULE_SETTINGS,
      now,
    );
    const host = (name: string) => fleet.hosts.find((h) => h.host === name);
    expect(host('paused.example')?.pausedUntil).toBe(pausedHost?.pausedUntil);
    expect(host('paused.example')?.runLimit).toBe(0);
    expect(host('crawl.example')).toMatchObject({ crawlDelayMs: 20_000, paceRequestsPerSecond: 0.05 });
    const docs = host('docs.example');
    expect(docs?.otherRequestsPerSecond).toBeGreaterThan(0.4);
    // RATE-1: the syncs' capacity is the pace less the other fetches' share (at most half of it).
    expect(docs?.capacity).toBeCloseTo(1 - (docs?.otherRequestsPerSecond ?? 0), 6);
    expect(host('calm.example')).toMatchObject({ otherRequestsPerSecond: 0, pausedUntil: null, capacity: 1 });
  }, 60_000);

  it('a ledger that cannot be read never fails the tick: it plans without it and says so', async () => {
    const broken = new RedisHostLedger(
      createTestRedisClient({ url: 'http://127.0.0.1:1', token: 'nobody' }),
      KEY_PREFIX,
    );
    const fleet = await explainFleet(
      { doc: bed.clients.doc, tables: tables(), hostLedger: broken },
      DEFAULT_SCHEDULE_SETTINGS,
      new Date(),
    );
    expect(fleet.hostLedgerUnavailable).toBe('SLOT_STORE_UNAVAILABLE');
    expect(fleet.hosts.find((h) => h.host === 'paused.example')?.pausedUntil).toBeNull();
  }, 30_000);
});
