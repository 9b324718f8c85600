import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import type { SyncEngine } from '../../shared/engine';
import { createTestResolver } from '../../shared/net';
import {
  composePlanner,
  runPlannerInvocation,
  syncWorkersToStart,
  wakeSyncWorkers,
} from '../../shared/planner';
import { initialScheduleState, type SourceScheduleState } from '../../shared/schedule';
import { getSourceState, loadSource, type QueuedMessage, SyncQueue } from '../../shared/store';
import type { SyncRuntime } from '../../shared/sync/compose';
import { parseSyncMessage, type SyncMessage } from '../../shared/sync/message';
import { startRun } from '../../shared/sync/start';
import {
  handleSyncBatch,
  SYNC_WAKE_BODY,
  type SyncQueuePort,
  WORKER_POLL_WAIT_SECONDS,
  WORKER_RUNS_PER_HOST,
  WORKER_START_MIN_MS,
} from '../../shared/sync/worker';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { loopbackFetcher } from '../support/oparl-harness';
import { type RedisPeer, startRedisPeer } from '../support/redis';
import {
  captureLog,
  eventOf,
  NOW,
  oparlTestEngine,
  plan,
  runDepsOf,
  useSourceBed,
} from '../support/sync-bed';
import { putActiveSource, startSyncRuntime } from '../support/sync-runtime';

/**
 * The sync worker (issue 28, "pay per work"): one invocation keeps runs of distinct hosts in flight and
 * refills from the sync queue, so their politeness waits (RATE-1) overlap and are billed once. Real peers:
 * dynalite, fauxqs, redis-server behind the Upstash REST adapter, fake councils on loopback.
 */

const queueOf = (bed: AwsTestbed) =>
  new SyncQueue({ sqs: bed.clients.sqs, queueUrl: bed.queues.syncQueueUrl });

/** A Lambda event record of `m` (the event source took it with the queue's visibility timeout). */
const recordOf = (m: QueuedMessage) => ({
  messageId: m.messageId,
  receiptHandle: m.receiptHandle,
  body: m.body,
  attributes: {} as never,
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-central-1:000000000000:sync',
  awsRegion: 'eu-central-1',
});

/** The source's message as the event source would hand it over; every other message stays visible. */
async function take(bed: AwsTestbed, sourceId: string): Promise<QueuedMessage> {
  const queue = queueOf(bed);
  const got = await queue.receive({ max: 10, waitSeconds: 1 });
  const mine = got.find((m) => parseSyncMessage(m.body).sourceId === sourceId);
  for (const m of got) if (m !== mine) await queue.changeVisibility(m.receiptHandle, 0);
  if (mine === undefined) throw new Error(`no sync message for ${sourceId}`);
  return mine;
}

/** What is visible in the queue now (left visible). */
async function visible(bed: AwsTestbed): Promise<SyncMessage[]> {
  const queue = queueOf(bed);
  const got = await queue.receive({ max: 10, waitSeconds: 1, visibilitySeconds: 0 });
  return got.map((m) => parseSyncMessage(m.body));
}

describe('sync worker: runs of distinct hosts overlap in one invocation (issue 28)', () => {
  let bed: AwsTestbed;
  let redis: RedisPeer;
  let runtime: SyncRuntime;
  const councils: FakeCouncil[] = [];

  beforeAll(async () => {
    [bed, redis] = await Promise.all([startAwsTestbed(), startRedisPeer()]);
    for (const name of ['host-a', 'host-b', 'host-c'])
      councils.push(
        await startFakeCouncil({
          bodies: ['Gemeinde'],
          objectsPerList: 1,
          missingLists: [
            'agendaItem',
            'membership',
            'consultation',
            'file',
            'locationList',
            'legislativeTerm',
          ],
          hostname: `${name}.test`,
        }),
      );
    runtime = await startSyncRuntime(bed, {
      resolver: createTestResolver(),
      extraEnv: { UPSTASH_REDIS_REST_URL: redis.adapter.url, UPSTASH_REDIS_REST_TOKEN: redis.adapter.token },
    });
    for (const [i, c] of councils.entries()) await putActiveSource(bed, `worker-${i}`, c.systemUrl);
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await Promise.all([bed?.stop(), redis?.stop(), ...councils.map((c) => c.close())]);
  });

  it('RATE-1 / RATE-4 / SCH-5: handed one message, the invocation takes the other two hosts’ from the queue; wall time ≈ the longest run, not the sum; each host 1 s apart', async () => {
    const tick = await plan(bed, new Date());
    expect(tick.started.map((s) => s.sourceId).sort()).toEqual(['worker-0', 'worker-1', 'worker-2']);
    const first = await take(bed, 'worker-0');
    expect(parseSyncMessage(first.body).host).toBe('host-a.test');

    const { lines, log } = captureLog();
    const t0 = Date.now();
    const response = await handleSyncBatch(
      { runDeps: runtime.runDeps, queue: runtime.queue, log },
      eventOf(recordOf(first)),
      () => 15 * 60_000 - (Date.now() - t0),
    );
    const wall = Date.now() - t0;
    expect(response.batchItemFailures).toEqual([]);
    const done = lines.find((l) => l.message === 'sync worker done')?.fields;
    expect(done).toMatchObject({ runs: 3, received: 2, givenBack: 0, maxInFlight: 3 });

    // Every run completed, its lease given back (SCH-5); the messages it took were deleted.
    for (const id of ['worker-0', 'worker-1', 'worker-2']) {
      const item = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, id);
      expect(item?.lastRun?.ok).toBe(true);
      expect(item?.leaseRunId).toBeUndefined();
    }
    expect(await visible(bed)).toEqual([]);

    // RATE-1 per host through the Redis slots: each council's requests ≥ 1 s apart (50 ms jitter).
    const spans = councils.map((c) => {
      const at = c.requests.map((r) => r.at).sort((a, b) => a - b);
      expect(at.length).toBeGreaterThan(3);
      for (let i = 1; i < at.length; i += 1)
        expect((at[i] ?? 0) - (at[i - 1] ?? 0)).toBeGreaterThanOrEqual(950);
      return { first: at[0] ?? 0, last: at[at.length - 1] ?? 0 };
    });
    // The three hosts were worked at the same time: each started before any other ended…
    const firstEnd = Math.min(...spans.map((s) => s.last));
    for (const s of spans) expect(s.first).toBeLessThan(firstEnd);
    // …so the billed wall time is about the longest run, well below the runs one after another.
    const sum = spans.reduce((n, s) => n + (s.last - s.first), 0);
    const longest = Math.max(...spans.map((s) => s.last - s.first));
    expect(wall).toBeGreaterThanOrEqual(longest);
    expect(wall).toBeLessThan(0.6 * sum);
  }, 120_000);
});

describe('sync worker: refill, give back, crash (issue 28; SCH-5)', () => {
  const ids = ['wk-a', 'wk-b', 'wk-c', 'wk-d'];
  const { bed, council } = useSourceBed(...ids);
  let clock = NOW;
  const now = () => clock;

  /** The source's run started as the planner starts it (lease taken, SCH-5), its message returned. */
  async function started(sourceId: string): Promise<SyncMessage> {
    const parsed = await loadSource(bed.clients.doc, bed.env.SOURCES_TABLE, sourceId);
    if (!parsed?.ok) throw new Error(`no source ${sourceId}`);
    const message = await startRun(
      { doc: bed.clients.doc, tables: { state: bed.env.STATE_TABLE }, leaseMinutes: 10 },
      {
        source: parsed.source,
        decision: { kind: 'incremental', reason: 'due', ruleIds: ['SCH-1'] },
        state: initialScheduleState(),
        now: clock,
        runId: randomUUID(),
      },
    );
    if (message === undefined) throw new Error(`lease of ${sourceId} held`);
    return message;
  }

  /** The real OParl engine; a source named in `gates` waits at its start until the gate opens. */
  function gatedEngine(gates: Map<string, Promise<void>>, runs: string[]): SyncEngine {
    const real = oparlTestEngine(bed, loopbackFetcher(), now);
    return async (source, message, budget) => {
      runs.push(source.sourceId);
      await gates.get(source.sourceId);
      return real(source, message, budget);
    };
  }

  function gate(): { opened: Promise<void>; open: () => void } {
    let open: () => void = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { opened, open };
  }

  it('SCH-5: while a run is in flight the worker keeps looking and runs what arrives meanwhile, deleting it when done', async () => {
    const queue = queueOf(bed);
    await queue.send(JSON.stringify(await started('wk-a')));
    const a = await take(bed, 'wk-a');
    const runs: string[] = [];
    const g = gate();
    const { lines, log } = captureLog();
    const worker = handleSyncBatch(
      { runDeps: runDepsOf(bed, gatedEngine(new Map([['wk-a', g.opened]]), runs), now), queue, log },
      eventOf(recordOf(a)),
      () => 15 * 60_000,
    );
    // wk-a is in flight (held at its gate) and the queue was empty; wk-b's message arrives only now,
    // and runs beside wk-a — before wk-a ends.
    await expect.poll(() => runs, { timeout: 5_000 }).toEqual(['wk-a']);
    await new Promise((r) => setTimeout(r, 1_500));
    // Another host: the same loopback council named `localhost` (RATE-2 keys hosts by name).
    const url = new URL(council.systemUrl);
    url.hostname = 'localhost';
    await putActiveSource(bed, 'wk-b', url.toString());
    await queue.send(JSON.stringify(await started('wk-b')));
    await expect.poll(() => runs, { timeout: 10_000 }).toEqual(['wk-a', 'wk-b']);
    g.open();
    expect((await worker).batchItemFailures).toEqual([]);
    expect(runs).toEqual(['wk-a', 'wk-b']);
    expect(lines.find((l) => l.message === 'sync worker done')?.fields).toMatchObject({
      runs: 2,
      received: 1,
    });
    const b = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'wk-b');
    expect(b?.lastRun?.ok).toBe(true);
    expect(await visible(bed)).toEqual([]);
  }, 60_000);

  it(`RATE-4 / SCH-5: a second run of a busy host waits in the invocation (≤ ${WORKER_RUNS_PER_HOST} per host); what cannot start in time goes back visible at once and runs on redelivery`, async () => {
    const queue = queueOf(bed);
    // Both sources on the same council: one host (RATE-2).
    const [mc, md] = [await started('wk-c'), await started('wk-d')];
    expect(mc.host).toBe(md.host);
    await queue.send(JSON.stringify(mc));
    await queue.send(JSON.stringify(md));
    const c = await take(bed, 'wk-c');
    const d = await take(bed, 'wk-d');
    const runs: string[] = [];
    const g = gate();
    let left = 15 * 60_000;
    const worker = handleSyncBatch(
      {
        runDeps: runDepsOf(bed, gatedEngine(new Map([['wk-c', g.opened]]), runs), now),
        queue,
        log: captureLog().log,
      },
      eventOf(recordOf(c), recordOf(d)),
      () => left,
    );
    await expect.poll(() => runs, { timeout: 5_000 }).toEqual(['wk-c']);
    await new Promise((r) => setTimeout(r, 1_500));
    // Still one run of the host: wk-d waits. Then the invocation's time runs short before wk-c ends.
    expect(runs).toEqual(['wk-c']);
    left = WORKER_START_MIN_MS - 1;
    g.open();
    const response = await worker;
    expect(runs).toEqual(['wk-c']);
    // Not deleted by Lambda (a batch item failure) and visible again at once, not after 15 minutes.
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: d.messageId }]);
    const again = await take(bed, 'wk-d');
    expect(parseSyncMessage(again.body).runId).toBe(md.runId);
    const retry = await handleSyncBatch(
      { runDeps: runDepsOf(bed, gatedEngine(new Map(), runs), now), queue, log: captureLog().log },
      eventOf(recordOf(again)),
      () => 15 * 60_000,
    );
    expect(retry.batchItemFailures).toEqual([]);
    expect(runs).toEqual(['wk-c', 'wk-d']);
    const item = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'wk-d');
    expect(item?.lastRun).toMatchObject({ runId: md.runId, ok: true });
  }, 60_000);

  it('SCH-5: an invocation that dies mid-run leaves the message it took; redelivered after its visibility timeout it runs once to the end, and nothing runs twice', async () => {
    const queue = queueOf(bed);
    clock = new Date(NOW.getTime() + 60 * 60_000);
    const m = await started('wk-a');
    await queue.send(JSON.stringify(m));
    // The dying invocation: handed nothing, it takes wk-a itself, and its run never comes back.
    const runs: string[] = [];
    const never = new Promise<void>(() => {});
    const taken: QueuedMessage[] = [];
    // A frozen instance's clients never answer again: after the crash its queue port hangs.
    let frozen = false;
    const seen: SyncQueuePort = {
      receive: async (o) => {
        if (frozen) return new Promise<QueuedMessage[]>(() => {});
        const got = await queue.receive(o);
        taken.push(...got);
        return got;
      },
      delete: (h) => queue.delete(h),
      changeVisibility: (h, s) => queue.changeVisibility(h, s),
    };
    void handleSyncBatch(
      {
        runDeps: runDepsOf(bed, gatedEngine(new Map([['wk-a', never]]), runs), now),
        queue: seen,
        log: captureLog().log,
      },
      eventOf(),
      () => 15 * 60_000,
    );
    await expect.poll(() => runs, { timeout: 5_000 }).toEqual(['wk-a']);
    frozen = true;
    // Meanwhile another invocation finds nothing to take: the message is invisible while it may still run.
    const other = await handleSyncBatch(
      { runDeps: runDepsOf(bed, gatedEngine(new Map(), runs), now), queue, log: captureLog().log },
      eventOf(),
      () => 15 * 60_000,
    );
    expect(other.batchItemFailures).toEqual([]);
    expect(runs).toEqual(['wk-a']);

    // The visibility timeout (longer than the invocation may live) passes: SQS hands it out again.
    // (The dead instance's last long poll, if one was open, has ended by now: WORKER_POLL_WAIT_SECONDS.)
    const [lost] = await queue.receive({ max: 10, waitSeconds: 1, visibilitySeconds: 0 });
    expect(lost).toBeUndefined();
    await new Promise((r) => setTimeout(r, WORKER_POLL_WAIT_SECONDS * 1_000));
    expect(taken).toHaveLength(1);
    await queue.changeVisibility(taken[0]?.receiptHandle ?? '', 0);
    clock = new Date(clock.getTime() + 20 * 60_000);
    const { lines, log } = captureLog();
    const redelivery = await handleSyncBatch(
      { runDeps: runDepsOf(bed, gatedEngine(new Map(), runs), now), queue, log },
      eventOf(),
      () => 15 * 60_000,
    );
    expect(redelivery.batchItemFailures).toEqual([]);
    expect(runs).toEqual(['wk-a', 'wk-a']);
    const item = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'wk-a');
    expect(item?.lastRun).toMatchObject({ runId: m.runId, ok: true });
    expect(item?.leaseRunId).toBeUndefined();
    expect(lines.find((l) => l.message === 'sync worker done')?.fields).toMatchObject({
      runs: 1,
      received: 1,
    });
    // Done and deleted: a further look finds nothing, and a late copy of it would be dropped (finished).
    expect(await visible(bed)).toEqual([]);
  }, 60_000);
  /**
   * The planner's wake step as its composition root builds it from the stack's environment (cap 1: one
   * worker of 34, as at 1,000 sources), over the real queues.
   */
  async function wakeOf() {
    const env = {
      ...bed.env,
      SYNC_WAKE_QUEUE_URL: bed.queues.syncWakeQueueUrl,
      INGESTOR_SYNC_WORKERS_MAX: 1,
      INGESTOR_SYNC_RUNS_AT_ONCE: 34,
    };
    expect((await composePlanner(bed.env)).wake).toBeUndefined(); // no wake queue: the event source's
    const wake = (await composePlanner(env)).wake;
    expect(wake).toMatchObject({ runsAtOnce: 34, maxWorkers: 1 });
    if (wake === undefined) throw new Error('no wake step');
    return { ...wake, wakeQueue: new SyncQueue({ sqs: bed.clients.sqs, queueUrl: env.SYNC_WAKE_QUEUE_URL }) };
  }

  /** The wake queue's event source: takes one wake (batch size 1) as Lambda would. */
  async function takeWake(wake: SyncQueue): Promise<QueuedMessage> {
    const [m] = await wake.receive({ max: 1, waitSeconds: 1 });
    if (m === undefined) throw new Error('no wake message');
    expect(m.body).toBe(SYNC_WAKE_BODY);
    return m;
  }

  it('issue 28 / SCH-5: with runs waiting and no worker alive the planner starts one; while it lives the next tick starts none; it runs the queue dry and leaves', async () => {
    const wake = await wakeOf();
    clock = new Date(NOW.getTime() + 3 * 60 * 60_000);
    // Nothing waits: no worker.
    expect(await wakeSyncWorkers(wake)).toMatchObject({ started: 0, waiting: 0 });
    const queue = queueOf(bed);
    await queue.send(JSON.stringify(await started('wk-c')));
    expect(await wakeSyncWorkers(wake)).toMatchObject({ started: 1, alive: 0, waiting: 1 });
    const w = await takeWake(wake.wakeQueue);
    const runs: string[] = [];
    const g = gate();
    const { lines, log } = captureLog();
    const worker = handleSyncBatch(
      {
        runDeps: runDepsOf(bed, gatedEngine(new Map([['wk-c', g.opened]]), runs), now),
        queue,
        wakeQueue: wake.wakeQueue,
        log,
      },
      eventOf(recordOf(w)),
      () => 15 * 60_000,
    );
    // The wake names no run: the worker took wk-c from the sync queue itself.
    await expect.poll(() => runs, { timeout: 5_000 }).toEqual(['wk-c']);
    // Another run waits (wk-d), but one worker is alive (its wake hidden) and the cap is one: none started.
    await queue.send(JSON.stringify(await started('wk-d')));
    expect(await wakeSyncWorkers(wake)).toMatchObject({ started: 0, alive: 1 });
    g.open();
    expect((await worker).batchItemFailures).toEqual([]);
    // Both ran in this one worker, which left when the queue was empty.
    expect([...runs].sort()).toEqual(['wk-c', 'wk-d']);
    expect(lines.find((l) => l.message === 'sync worker done')?.fields).toMatchObject({
      runs: 2,
      received: 2,
    });
    expect(await visible(bed)).toEqual([]);
    // Lambda deletes the wake of a worker that returned: nothing alive, nothing waiting, none started.
    await wake.wakeQueue.delete(w.receiptHandle);
    expect(await wakeSyncWorkers(wake)).toEqual({ started: 0, alive: 0, waiting: 0 });
  }, 60_000);

  it('issue 28 / SCH-5: a killed worker’s wake turns visible after its lease and starts the next worker, which runs the killed one’s message once', async () => {
    const wake = await wakeOf();
    clock = new Date(NOW.getTime() + 5 * 60 * 60_000);
    const queue = queueOf(bed);
    const m = await started('wk-a');
    await queue.send(JSON.stringify(m));
    expect((await wakeSyncWorkers(wake)).started).toBe(1);
    const w = await takeWake(wake.wakeQueue);
    const runs: string[] = [];
    const taken: QueuedMessage[] = [];
    // The killed instance: after the kill its clients never answer again (no receive, no renewal).
    let frozen = false;
    const hang = <T>() => new Promise<T>(() => {});
    const dying: SyncQueuePort = {
      receive: async (o) => {
        if (frozen) return hang();
        const got = await queue.receive(o);
        taken.push(...got);
        return got;
      },
      delete: (h) => queue.delete(h),
      changeVisibility: (h, sec) => queue.changeVisibility(h, sec),
    };
    const dyingWake = {
      changeVisibility: (h: string, sec: number) =>
        frozen ? hang<void>() : wake.wakeQueue.changeVisibility(h, sec),
    };
    void handleSyncBatch(
      {
        runDeps: runDepsOf(bed, gatedEngine(new Map([['wk-a', hang()]]), runs), now),
        queue: dying,
        wakeQueue: dyingWake,
        // A short lease, so the test waits seconds, not two minutes (the renewal every second).
        wakeLease: { leaseSeconds: 2, renewSeconds: 1 },
        log: captureLog().log,
      },
      eventOf(recordOf(w)),
      () => 15 * 60_000,
    );
    await expect.poll(() => runs, { timeout: 5_000 }).toEqual(['wk-a']);
    frozen = true;
    // Alive by its wake while the lease runs: the planner starts no second worker (cap 1).
    expect((await wakeSyncWorkers(wake)).started).toBe(0);
    // The lease lapses unrenewed: the wake is visible again — the event source's next worker takes it.
    let next: QueuedMessage | undefined;
    await expect
      .poll(
        async () => {
          next = (await wake.wakeQueue.receive({ max: 1, waitSeconds: 1 }))[0];
          return next;
        },
        { timeout: 10_000 },
      )
      .toBeDefined();
    // The killed run's message comes back after the sync queue's visibility timeout (shortened here).
    await new Promise((r) => setTimeout(r, WORKER_POLL_WAIT_SECONDS * 1_000));
    expect(taken).toHaveLength(1);
    await queue.changeVisibility(taken[0]?.receiptHandle ?? '', 0);
    clock = new Date(clock.getTime() + 20 * 60_000);
    const report = await handleSyncBatch(
      { runDeps: runDepsOf(bed, gatedEngine(new Map(), runs), now), queue, log: captureLog().log },
      eventOf(),
      () => 15 * 60_000,
    );
    expect(report.batchItemFailures).toEqual([]);
    expect(runs).toEqual(['wk-a', 'wk-a']);
    const item = await getSourceState(bed.clients.doc, bed.env.STATE_TABLE, 'wk-a');
    expect(item?.lastRun).toMatchObject({ runId: m.runId, ok: true });
    expect(await visible(bed)).toEqual([]);
    // The next worker returned: Lambda deletes its wake.
    await wake.wakeQueue.delete(next?.receiptHandle ?? '');
  }, 60_000);
  it('issue 28 / SCH-5: a tick whose wake step fails still leases and hands out; the next tick’s wake starts a worker for what waits', async () => {
    const wake = await wakeOf();
    clock = new Date(NOW.getTime() + 48 * 60 * 60_000);
    const planner = await composePlanner(bed.env);
    // The wake queue unreachable for this tick (a client that refuses): the tick itself must not fail.
    const refused = () => Promise.reject(new Error('wake queue unreachable'));
    const result = await runPlannerInvocation(
      {
        ...planner,
        wake: {
          ...wake,
          syncQueue: { depth: refused },
          wakeQueue: { depth: refused, sendBatch: (e) => wake.wakeQueue.sendBatch(e) },
        },
      },
      clock,
    );
    expect(result.started.length).toBeGreaterThan(0);
    const waiting = await wake.syncQueue.depth();
    expect(waiting.visible).toBe(result.started.length);
    // The next look (the next tick) starts a worker for them.
    expect(await wakeSyncWorkers(wake)).toMatchObject({
      started: 1,
      alive: 0,
      waiting: result.started.length,
    });
  }, 60_000);
});

describe('syncWorkersToStart (issue 28, pure)', () => {
  const depth = (visible: number, inFlight = 0, delayed = 0) => ({ visible, inFlight, delayed });
  const at = (sync: ReturnType<typeof depth>, wakes: ReturnType<typeof depth>, maxWorkers = 3) =>
    syncWorkersToStart({ sync, wakes, runsAtOnce: 34, maxWorkers });

  it('SCH-5: ⌈(taken + waiting) ÷ width⌉ at most the cap, less the workers alive or starting; none when nothing waits', () => {
    expect(at(depth(0, 20), depth(0))).toBe(0); // runs in flight, none waiting: their worker suffices
    expect(at(depth(1), depth(0))).toBe(1); // nothing alive, one waits: one
    expect(at(depth(58, 20), depth(0, 1))).toBe(2); // 78 ÷ 34 → 3, one alive
    expect(at(depth(58, 20), depth(0, 1), 1)).toBe(0); // the cap: the burst waits for the one
    expect(at(depth(200), depth(1, 1))).toBe(1); // a started wake (visible) counts as alive
    expect(at(depth(0, 0, 5), depth(0))).toBe(1); // delayed runs wait too
  });
});
