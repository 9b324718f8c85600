import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { createTestResolver } from '../../shared/net';
import { plannerTick } from '../../shared/planner';
import {
  DEFAULT_LEASE_MINUTES,
  DEFAULT_SCHEDULE_SETTINGS,
  localHourOf,
  type SourceScheduleState,
} from '../../shared/schedule';
import { acquireSyncLease, getSourceState } from '../../shared/store';
import { processSyncBody, runLane } from '../../shared/sync';
import type { SyncRuntime } from '../../shared/sync/compose';
import { parseSyncMessage, type SyncMessage } from '../../shared/sync/message';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { type RedisPeer, startRedisPeer } from '../support/redis';
import { captureLog, deliver } from '../support/sync-bed';
import { putActiveSource, startSyncRuntime } from '../support/sync-runtime';

/**
 * Host lanes (issues 27/28) on issue 27's loopback case: six council systems on one host (127.0.0.1, six
 * ports — one host by RATE-2) and three on hosts of their own, all due, four slots (SCH-5). The first
 * tick starts the three lone hosts and one run on the shared host (RATE-9); that run's invocation then
 * runs the other five shared-host sources one after another — the host's budget stays in use instead of
 * idling until the next tick, paced by the real Redis host slots (RATE-1/RATE-4) — and nothing runs twice:
 * a duplicate delivery of the lane's message and a replayed lane find their entries stale (SCH-5 lease,
 * due time moved on). Real peers: dynalite, fauxqs, redis-server behind the Upstash REST adapter, the
 * fake councils on loopback. The lone hosts are `lone-N.test` names the test resolver sends to loopback
 * (the planner keys hosts by name, so three names are three hosts exactly as 127.0.0.2/3/4 would be).
 */
/**
 * The lanes here are of incremental syncs: the default full-sync window (FULL-1, from 03:00 for 5 h) is
 * put 12 hours from the hour the test runs in, for the planner and the sync function alike. Run in the
 * window, the never-synced councils' first syncs were full ones, and their lane took turns between full
 * and incremental syncs (FULL-3's share of the host's time) — another case, and a test that depended on
 * the wall clock.
 */
const FULL_SYNC_HOUR = (localHourOf(Date.now()) + 12) % 24;
const SETTINGS = { ...DEFAULT_SCHEDULE_SETTINGS, fullSyncHour: FULL_SYNC_HOUR };

/** One real planner tick with the test's settings (as test/support/sync-bed's `plan`). */
function plan(bed: AwsTestbed, now: Date) {
  return plannerTick(
    {
      doc: bed.clients.doc,
      sqs: bed.clients.sqs,
      tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
      syncQueueUrl: bed.queues.syncQueueUrl,
      settings: SETTINGS,
      leaseMinutes: DEFAULT_LEASE_MINUTES,
    },
    now,
  );
}

describe('host lanes: a run that ends hands its slot to the next waiting source of its host', () => {
  let bed: AwsTestbed;
  let redis: RedisPeer;
  let runtime: SyncRuntime;
  const shared: FakeCouncil[] = [];
  const lone: FakeCouncil[] = [];
  /** The shared host's lane message of the first tick (for the duplicate and the replay). */
  let laneMessage: SyncMessage | undefined;
  let laneBody = '';

  // Seven paced requests a run (robots.txt, system, bodies, OParl 1.0's four lists): every shared-host
  // request waits ≥ 1 s for the host slot, so the lane's six runs take ≈ 6 × 7 s. Lists declared but
  // missing would cost two requests each (the filtered ask, then the unfiltered one) and prove nothing more.
  const small = (hostname?: string) =>
    startFakeCouncil({
      bodies: ['Gemeinde'],
      objectsPerList: 1,
      oparlVersion: '1.0',
      ...(hostname === undefined ? {} : { hostname }),
    });

  beforeAll(async () => {
    [bed, redis] = await Promise.all([startAwsTestbed(), startRedisPeer()]);
    for (let i = 1; i <= 6; i += 1) shared.push(await small());
    for (let i = 2; i <= 4; i += 1) lone.push(await small(`lone-${i}.test`));
    runtime = await startSyncRuntime(bed, {
      resolver: createTestResolver(),
      extraEnv: {
        UPSTASH_REDIS_REST_URL: redis.adapter.url,
        UPSTASH_REDIS_REST_TOKEN: redis.adapter.token,
        INGESTOR_FULL_SYNC_HOUR: String(FULL_SYNC_HOUR),
      },
    });
    for (const [i, c] of shared.entries()) await putActiveSource(bed, `council-${i + 1}`, c.systemUrl);
    for (const [i, c] of lone.entries()) await putActiveSource(bed, `solo-${i + 2}`, c.systemUrl);
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await Promise.all([
      bed?.stop(),
      redis?.stop(),
      ...shared.map((c) => c.close()),
      ...lone.map((c) => c.close()),
    ]);
  });

  const requestCounts = () => [...shared, ...lone].map((c) => c.requests.length);

  it('RATE-9 / SCH-5 / RATE-1 / RATE-2 / RATE-4: the first tick starts the lone hosts and one shared run, whose invocation runs the other five one after another, 1 s apart', async () => {
    const tick = await plan(bed, new Date());
    const started = tick.started.map((s) => s.sourceId).sort();
    expect(started.filter((id) => id.startsWith('solo-'))).toEqual(['solo-2', 'solo-3', 'solo-4']);
    const heads = started.filter((id) => id.startsWith('council-'));
    expect(heads).toHaveLength(1);
    const head = heads[0] as string;

    // The four runs, at once, as four sync invocations would take them from the queue.
    const bodies = await Promise.all(started.map(async (id) => (await deliver(bed, id)).body));
    const messages = bodies.map(parseSyncMessage);
    for (const m of messages.filter((x) => x.sourceId.startsWith('solo-'))) expect(m.lane).toBeUndefined();
    laneMessage = messages.find((m) => m.sourceId === head);
    laneBody = bodies[messages.findIndex((m) => m.sourceId === head)] ?? '';
    expect(laneMessage?.lane?.host).toBe('127.0.0.1');
    const queued = (laneMessage?.lane?.entries ?? []).map((e) => e.sourceId);
    expect([...queued].sort()).toEqual(
      ['council-1', 'council-2', 'council-3', 'council-4', 'council-5', 'council-6'].filter(
        (id) => id !== head,
      ),
    );

    const { lines, log } = captureLog();
    const results = await Promise.all(
      bodies.map((body) => processSyncBody({ runDeps: runtime.runDeps, log }, body, 15 * 60_000)),
    );
    expect(results.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done']);
    const headResult = results[started.indexOf(head)];
    expect(headResult?.laneRuns?.map((r) => [r.sourceId, r.status])).toEqual(
      queued.map((id) => [id, 'done']),
    );

    // Every council served, each by exactly one run.
    expect(requestCounts().every((n) => n > 0)).toBe(true);
    const done = lines.filter((l) => l.message === 'sync message done');
    const doneIds = done.map((l) => l.fields.sourceId as string).sort();
    expect(doneIds).toEqual([...new Set(doneIds)]);
    expect(doneIds).toHaveLength(9);
    // What an operator sees: each shared-host run with its place in the lane.
    expect(
      done.filter((l) => (l.fields.sourceId as string).startsWith('council-')).map((l) => l.fields.lane),
    ).toEqual([head, ...queued].map((_, i) => ({ host: '127.0.0.1', position: i, left: queued.length - i })));

    // SCH-5: one lease at a time per lane — the shared host's runs one after another, never overlapping.
    const spans = shared
      .map((c) => c.requests.map((r) => r.at))
      .map((at) => ({ first: Math.min(...at), last: Math.max(...at) }))
      .sort((a, b) => a.first - b.first);
    for (let i = 1; i < spans.length; i += 1)
      expect(spans[i]?.first ?? 0).toBeGreaterThan(spans[i - 1]?.last ?? 0);
    // RATE-1/RATE-2 through the Redis host slots: never two requests to the shared host closer than 1 s
    // (50 ms of arrival jitter in this loaded process, as in the other loopback tests).
    const arrivals = shared.flatMap((c) => c.requests.map((r) => r.at)).sort((a, b) => a - b);
    expect(arrivals.length).toBeGreaterThan(6);
    for (let i = 1; i < arrivals.length; i += 1)
      expect((arrivals[i] ?? 0) - (arrivals[i - 1] ?? 0)).toBeGreaterThanOrEqual(950);

    // Each source's run recorded, its lease given back.
    for (const id of [head, ...queued]) {
      const item = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, id);
      expect(item?.leaseRunId).toBeUndefined();
      expect(item?.lastRun?.ok).toBe(true);
    }
    // The shared host's queue is served: the next tick has nothing of it left to start.
    const next = await plan(bed, new Date());
    expect(next.started.map((s) => s.sourceId).filter((id) => id.startsWith('council-'))).toEqual([]);
  }, 180_000);

  it('SCH-5: a duplicate delivery of the lane message runs nothing twice; a replayed lane re-plans and starts none of its stale entries', async () => {
    expect(laneMessage?.lane).toBeDefined();
    const lane = laneMessage?.lane as NonNullable<SyncMessage['lane']>;
    const before = requestCounts();

    const { lines, log } = captureLog();
    const duplicate = await processSyncBody({ runDeps: runtime.runDeps, log }, laneBody, 15 * 60_000);
    expect(duplicate).toMatchObject({ status: 'dropped', duplicate: 'finished' });
    expect(duplicate.laneRuns).toBeUndefined();
    expect(
      lines.filter((l) => l.message === 'lane entry skipped' || l.message === 'sync message done'),
    ).toEqual([]);

    // Replayed as if a second invocation had the same lane: one entry's source is leased by another run
    // (the CLI's `ingestor sync`), the others ran since the plan (their due time moved on) — all stale.
    const [leasedId] = lane.entries.map((e) => e.sourceId);
    const now = new Date();
    expect(
      await acquireSyncLease(bed.clients.doc, bed.env.STATE_TABLE, leasedId as string, {
        runId: 'operator-run',
        kind: 'incremental',
        until: new Date(now.getTime() + 60_000),
        now,
      }),
    ).toBe(true);
    const steps: { status: string; sourceId?: string; reason?: string }[] = [];
    await runLane(
      runtime.runDeps,
      lane,
      { deadlineMs: Date.now() + 10 * 60_000, endsAtMs: Date.now() + 11 * 60_000 },
      (s) => steps.push(s),
    );
    // Issue 27: the lane re-plans from the stored state — the leased source is not started, the others
    // ran since the plan and are not due: nothing is due on the host, nothing runs.
    expect(steps.map((s) => [s.status, s.reason])).toEqual([['left', 'nothing due on the host']]);
    expect(requestCounts()).toEqual(before);
    const leased = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, leasedId as string);
    expect(leased?.leaseRunId).toBe('operator-run');
  }, 60_000);
});
