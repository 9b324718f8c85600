import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, robotsScripts, startFakeCouncil } from '../../demo';
import type { SyncEngine } from '../../shared/engine';
import { createTestResolver } from '../../shared/net';
import { listBodies } from '../../shared/onboarding';
import { DEFAULT_SCHEDULE_SETTINGS, type SourceScheduleState } from '../../shared/schedule';
import {
  getSourceItem,
  getSourceState,
  listHostSources,
  putSourceItem,
  SOURCES_BY_HOST_INDEX,
  SyncQueue,
} from '../../shared/store';
import type { SyncRuntime } from '../../shared/sync';
import { processSyncBody } from '../../shared/sync';
import { parseSyncMessage } from '../../shared/sync/message';
import type { SyncRunDeps } from '../../shared/sync/run';
import { tombstoneBody } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { type RedisPeer, startRedisPeer } from '../support/redis';
import { captureLog, deliver, NOW, plan } from '../support/sync-bed';
import { putActiveSource, startSyncRuntime } from '../support/sync-runtime';
import { takedownDepsOf } from '../support/takedown';

/**
 * Issue 27, host lanes that re-plan, end to end: a real planner tick, the real sync message path (the
 * queue, `processSyncBody`, the lane), real local DynamoDB (dynalite), SQS (fauxqs) and Redis (the host
 * slots, through the Upstash REST adapter), the fake councils on loopback HTTP servers — one host by
 * RATE-2 (one hostname, several ports). The schedule runs on a clock the test moves (`deps.now`); the
 * host slots keep real time, so RATE-1's spacing is measured at the councils.
 *
 * Fault/edit injection: the run engine is the sync runtime's own, wrapped to call the test after each run
 * (the clock moved on, a hand edit of the Sources table as on-call makes it in the console) — the lane
 * that goes on is untouched.
 */
describe('host lanes re-plan their host while they run (RATE-9, SCH-5, RATE-1)', () => {
  let bed: AwsTestbed;
  let redis: RedisPeer;
  let runtime: SyncRuntime;
  const councils = new Map<string, FakeCouncil>();
  let simNow = NOW;
  /** Called by the engine after each run, with the run's source (the test's hook into a running lane). */
  let afterRun: (sourceId: string) => Promise<void> = async () => {};
  /** Queries of the Sources table's `byHost` index, with the read units dynalite reports. */
  const hostQueries: { units: number | undefined }[] = [];

  const council = (id: string, hostname?: string) =>
    startFakeCouncil({
      bodies: ['Gemeinde'],
      objectsPerList: 1,
      oparlVersion: '1.0',
      ...(hostname === undefined ? {} : { hostname }),
    }).then((c) => {
      councils.set(id, c);
      return c;
    });

  beforeAll(async () => {
    [bed, redis] = await Promise.all([startAwsTestbed(), startRedisPeer()]);
    runtime = await startSyncRuntime(bed, {
      resolver: createTestResolver(),
      extraEnv: { UPSTASH_REDIS_REST_URL: redis.adapter.url, UPSTASH_REDIS_REST_TOKEN: redis.adapter.token },
    });
    // Counts the lane's host-index reads (ReturnConsumedCapacity asked for, so the units are dynalite's).
    bed.clients.doc.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { IndexName?: string; ReturnConsumedCapacity?: string };
        if (input.IndexName !== SOURCES_BY_HOST_INDEX) return next(args);
        input.ReturnConsumedCapacity = 'TOTAL';
        const out = await next(args);
        const consumed = (out.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
        hostQueries.push({ units: consumed?.CapacityUnits });
        return out;
      },
      { step: 'initialize', name: 'countHostQueries' },
    );
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await Promise.all([bed?.stop(), redis?.stop(), ...[...councils.values()].map((c) => c.close())]);
  });

  /** The sync runtime's deps on the test's clock, its engine calling `afterRun` after each run. */
  function laneDeps(): SyncRunDeps {
    const engine: SyncEngine = async (source, message, budget) => {
      const report = await runtime.runDeps.engine(source, message, budget);
      await afterRun(source.sourceId);
      return report;
    };
    return { ...runtime.runDeps, engine, now: () => simNow };
  }

  /** One delivery of `sourceId`'s message processed as the sync function does (its lane included). */
  async function processHead(sourceId: string) {
    const body = (await deliver(bed, sourceId)).body;
    const { lines, log } = captureLog();
    const result = await processSyncBody({ runDeps: laneDeps(), log }, body, 15 * 60_000);
    return { message: parseSyncMessage(body), result, lines };
  }

  /** Messages of earlier ticks left in the queue (`deliver` leaves them visible) are deleted. */
  async function drainQueue(): Promise<void> {
    const queue = new SyncQueue({ sqs: bed.clients.sqs, queueUrl: bed.queues.syncQueueUrl });
    for (;;) {
      const got = await queue.receive({ max: 10, waitSeconds: 0 });
      if (got.length === 0) return;
      for (const m of got) await queue.delete(m.receiptHandle);
    }
  }

  /**
   * One tick on the test's clock that starts one of the pair (the other waits for the busy host, in its
   * lane); `hook` runs when the head's run has ended, before the lane goes on. The lane runs the other.
   */
  async function laneOnce(
    pair: readonly [string, string],
    at: Date,
    hook: (head: string, other: string) => Promise<void>,
  ) {
    await drainQueue();
    simNow = at;
    afterRun = async () => {};
    const tick = await plan(bed, simNow);
    const heads = tick.started.map((s) => s.sourceId).filter((id) => pair.includes(id));
    expect(heads).toHaveLength(1);
    const head = heads[0] as string;
    const other = head === pair[0] ? pair[1] : pair[0];
    afterRun = async (id) => {
      if (id === head) await hook(head, other);
    };
    const { result } = await processHead(head);
    expect(result.laneRuns?.map((r) => [r.sourceId, r.status])).toEqual([[other, 'done']]);
    return { head, other };
  }

  /** Requests of a council other than robots.txt (always allowed, ROB-4), from the `from`-th on. */
  const bodyOrApiRequests = (id: string, from = 0) =>
    (councils.get(id)?.requests ?? []).slice(from).filter((r) => !r.path.startsWith('/robots.txt'));

  const arrivalsOf = (ids: string[]) =>
    ids.flatMap((id) => (councils.get(id)?.requests ?? []).map((r) => r.at)).sort((a, b) => a - b);
  const span = (id: string) => {
    const at = (councils.get(id)?.requests ?? []).map((r) => r.at);
    return { first: Math.min(...at), last: Math.max(...at) };
  };
  /** RATE-1 through the Redis host slots: ≥ 1 s between two requests to the host (50 ms arrival jitter). */
  const expectSpaced = (arrivals: number[]) => {
    for (let i = 1; i < arrivals.length; i += 1)
      expect((arrivals[i] ?? 0) - (arrivals[i - 1] ?? 0)).toBeGreaterThanOrEqual(950);
  };

  it('RATE-9 / SCH-5 / RATE-1: a source that became due minutes after the tick is run next by the running lane, with no new tick', async () => {
    const interval = DEFAULT_SCHEDULE_SETTINGS.weekdayDayBaseMinutes;
    // "late" ran alone 3 minutes short of one interval before the tick: it is due 3 minutes after it.
    const late = await council('late');
    await putActiveSource(bed, 'late', late.systemUrl);
    simNow = new Date(NOW.getTime() - (interval - 3) * 60_000);
    expect((await plan(bed, simNow)).started.map((s) => s.sourceId)).toEqual(['late']);
    expect((await processHead('late')).result.status).toBe('done');
    const lateRequestsBefore = late.requests.length;

    const head = await council('head');
    await putActiveSource(bed, 'head', head.systemUrl);
    simNow = NOW;
    const tick = await plan(bed, simNow);
    expect(tick.started.map((s) => s.sourceId)).toEqual(['head']);
    // Not due at the tick: not in any list the planner handed out, only in the pool, with a hint of when.
    // Issue 28: its run's release recorded the wait and its due time, so the tick does not decide it again.
    expect(tick.decisions.find((d) => d.sourceId === 'late')).toBeUndefined();
    const lateWaiting = await getSourceState<SourceScheduleState>(
      bed.clients.doc,
      bed.env.STATE_TABLE,
      'late',
    );
    expect(lateWaiting?.lastDecision?.action).toBe('wait');
    expect(Date.parse(lateWaiting?.dueAt ?? '')).toBe(NOW.getTime() + 3 * 60_000);
    const lateDueMs = NOW.getTime() + 3 * 60_000;

    // The head's run takes four (simulated) minutes: when it ends, "late" is one minute overdue.
    afterRun = async (id) => {
      if (id === 'head') simNow = new Date(NOW.getTime() + 4 * 60_000);
    };
    const { message, result } = await processHead('head');
    expect(message.lane?.entries).toEqual([]);
    const hint = message.lane?.pool?.find((p) => p.sourceId === 'late');
    expect(Date.parse(hint?.dueAt ?? '')).toBeGreaterThan(NOW.getTime());
    expect(result.status).toBe('done');
    expect(result.laneRuns?.map((r) => [r.sourceId, r.status])).toEqual([['late', 'done']]);

    // The lane's run of "late": after the head's, one request at a time on the host, ≥ 1 s apart.
    expect(late.requests.length).toBeGreaterThan(lateRequestsBefore);
    const lateInLane = late.requests.slice(lateRequestsBefore).map((r) => r.at);
    expect(Math.min(...lateInLane)).toBeGreaterThan(span('head').last);
    expectSpaced(arrivalsOf(['head', 'late']).filter((at) => at >= span('head').first));
    const state = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, 'late');
    expect(state?.lastRun?.ok).toBe(true);
    expect(Date.parse(state?.schedule?.lastSyncEndedAt ?? '')).toBeGreaterThanOrEqual(lateDueMs);
  }, 120_000);

  it('RATE-9 / SCH-5 / ERR-7 / ONB-3: a source added to the host or switched active while the lane runs is run by it next; one switched off is not', async () => {
    // A second host ("join.test", one hostname on several ports), clear of the first test's sources.
    const host = 'join.test';
    const [first, off, added, reactivated] = await Promise.all(
      ['first', 'off', 'added', 'reactivated'].map((id) => council(id, host)),
    );
    const trail = { updatedAt: NOW.toISOString(), updatedBy: 'test' };
    for (const [id, c] of [
      ['first', first],
      ['off', off],
    ] as const)
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId: id,
        systemUrl: c?.systemUrl ?? '',
        active: true,
        ...trail,
      });
    // ONB-3: a tool adds a source inactive; on-call switches it on later.
    await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
      sourceId: 'reactivated',
      systemUrl: reactivated?.systemUrl ?? '',
      active: false,
      ...trail,
    });
    simNow = new Date(NOW.getTime() + 60 * 60_000);
    const tick = await plan(bed, simNow);
    const onHost = tick.started.map((s) => s.sourceId).filter((id) => id === 'first' || id === 'off');
    expect(onHost).toHaveLength(1);
    const headId = onHost[0] as string;
    const waitingId = headId === 'first' ? 'off' : 'first';
    expect(tick.decisions.find((d) => d.sourceId === 'added')).toBeUndefined();
    expect(tick.decisions.find((d) => d.sourceId === 'reactivated')?.action).toBe('skip');

    // While the head runs: on-call adds one source, switches one on and the waiting one off, by hand.
    afterRun = async (id) => {
      if (id !== headId) return;
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId: 'added',
        systemUrl: added?.systemUrl ?? '',
        active: true,
        ...trail,
      });
      for (const [sourceId, active] of [
        ['reactivated', true],
        [waitingId, false],
      ] as const)
        await bed.clients.doc.send(
          new UpdateCommand({
            TableName: bed.env.SOURCES_TABLE,
            Key: { sourceId },
            UpdateExpression: 'SET active = :a',
            ExpressionAttributeValues: { ':a': active },
          }),
        );
      simNow = new Date(simNow.getTime() + 60_000);
    };
    const queriesBefore = hostQueries.length;
    const waitingCouncil = councils.get(waitingId) as FakeCouncil;
    const { message, result } = await processHead(headId);
    expect(message.lane?.entries.map((e) => e.sourceId)).toEqual([waitingId]);
    expect(result.status).toBe('done');
    // Both run by the lane, before any other tick; the source switched off is not (ERR-7): no request.
    expect(result.laneRuns?.map((r) => [r.sourceId, r.status])).toEqual([
      ['added', 'done'],
      ['reactivated', 'done'],
    ]);
    expect(waitingCouncil.requests).toEqual([]);
    for (const id of ['added', 'reactivated']) expect(span(id).first).toBeGreaterThan(span(headId).last);
    expectSpaced(arrivalsOf([headId, 'added', 'reactivated']));
    // The price: one Query of the host index per step (two runs and the step that found nothing due).
    const queries = hostQueries.slice(queriesBefore);
    expect(queries).toHaveLength(3);
    // dynalite's count: half a read unit each (keys and `active` of the host's four items, eventually consistent).
    expect(queries.map((q) => q.units)).toEqual([0.5, 0.5, 0.5]);
  }, 180_000);

  it('OPT-5 / RATE-9: a body taken down while the lane runs is not fetched by the lane’s later run of its source', async () => {
    const host = 'takedown.test';
    const trail = { updatedAt: NOW.toISOString(), updatedBy: 'test' };
    for (const id of ['keep', 'gone']) {
      const c = await council(id, host);
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId: id,
        systemUrl: c.systemUrl,
        active: true,
        ...trail,
      });
    }
    // Not the list, robots.txt, the System or the body list: a request for the body's lists or objects.
    const bodyRequests = (id: string, from = 0) =>
      (councils.get(id)?.requests ?? [])
        .slice(from)
        .filter((r) => !/\/(robots\.txt|system|bodies)$/.test(new URL(r.path, 'http://x').pathname));

    // First sync of both (the body becomes known), then, a few intervals later, a lane whose head's run
    // ends with the other source's body taken down by the operator (`tombstone --body`).
    const first = await laneOnce(['keep', 'gone'], new Date(NOW.getTime() + 3 * 60 * 60_000), async () => {});
    expect(bodyRequests(first.other).length).toBeGreaterThan(0);
    let from = 0;
    const second = await laneOnce(
      ['keep', 'gone'],
      new Date(NOW.getTime() + 4 * 60 * 60_000),
      async (_head, other) => {
        const [body] = await listBodies(
          bed.clients.doc,
          { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
          other,
        );
        expect(body?.slug).toBeDefined();
        await tombstoneBody(takedownDepsOf(bed), body?.slug ?? '', { sourceId: other, by: 'test' });
        from = councils.get(other)?.requests.length ?? 0;
        simNow = new Date(simNow.getTime() + 60_000);
      },
    );
    // The lane ran the source (its System and body list), but asked nothing of the body taken down.
    expect(councils.get(second.other)?.requests.length ?? 0).toBeGreaterThan(from);
    expect(bodyRequests(second.other, from)).toEqual([]);
  }, 180_000);

  it('ROB-9 / OPT-1 / RATE-9: a robots.txt exception withdrawn by hand while the lane runs — the lane’s run of that source asks its council nothing', async () => {
    // A host whose robots.txt allows us nothing; both councils synced under an approved exception (ROB-9).
    const host = 'robots.test';
    const trail = { updatedAt: NOW.toISOString(), updatedBy: 'test' };
    const approval = {
      scope: 'both' as const,
      approvalNote: 'Stadt, Mail vom 2.11.2026',
      approvedBy: 'test',
    };
    for (const id of ['approved', 'withdrawn']) {
      const c = await startFakeCouncil({
        bodies: ['Gemeinde'],
        objectsPerList: 1,
        oparlVersion: '1.0',
        hostname: host,
        robots: robotsScripts.disallowAll,
      });
      councils.set(id, c);
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId: id,
        systemUrl: c.systemUrl,
        active: true,
        robotsException: approval,
        ...trail,
      });
    }
    let from = 0;
    const { head, other } = await laneOnce(
      ['approved', 'withdrawn'],
      new Date(NOW.getTime() + 5 * 60 * 60_000),
      async (_head, other) => {
        // The municipality withdrew its approval: on-call removes the exception in the console.
        await bed.clients.doc.send(
          new UpdateCommand({
            TableName: bed.env.SOURCES_TABLE,
            Key: { sourceId: other },
            UpdateExpression: 'REMOVE robotsException',
          }),
        );
        from = councils.get(other)?.requests.length ?? 0;
        simNow = new Date(simNow.getTime() + 60_000);
      },
    );
    // The head ran under its exception; the lane's run of the other asked nothing but (at most) robots.txt.
    expect(bodyOrApiRequests(head).length).toBeGreaterThan(0);
    expect(bodyOrApiRequests(other, from)).toEqual([]);
  }, 180_000);

  it('RATE-9 / SCH-5 / RATE-2: a source put by hand without hostKey is stamped by the next tick, and the lane running on its host runs it next', async () => {
    const host = 'hand.test';
    const sources = { doc: bed.clients.doc, table: bed.env.SOURCES_TABLE };
    const trail = { updatedAt: NOW.toISOString(), updatedBy: 'test' };
    for (const id of ['tool-a', 'tool-b']) {
      const c = await council(id, host);
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId: id,
        systemUrl: c.systemUrl,
        active: true,
        ...trail,
      });
    }
    // The earlier tests' sources, all due by now, would take the four sync slots: switched off.
    for (const sourceId of [...councils.keys()].filter((id) => !id.startsWith('tool-')))
      await bed.clients.doc.send(
        new UpdateCommand({
          TableName: bed.env.SOURCES_TABLE,
          Key: { sourceId },
          UpdateExpression: 'SET active = :a',
          ExpressionAttributeValues: { ':a': false },
        }),
      );
    const handmade = await council('handmade', host);
    await drainQueue();
    simNow = new Date(NOW.getTime() + 6 * 60 * 60_000);
    afterRun = async () => {};
    const tick = await plan(bed, simNow);
    const heads = tick.started.map((s) => s.sourceId).filter((id) => id.startsWith('tool-'));
    expect(heads).toHaveLength(1);
    const head = heads[0] as string;
    const other = head === 'tool-a' ? 'tool-b' : 'tool-a';

    // While the head runs, on-call adds a source in the console, as a plain item (no hostKey): the host
    // index does not list it. A planner tick comes meanwhile (the host is busy: it starts nothing there).
    let meanwhile: Awaited<ReturnType<typeof plan>> | undefined;
    let listedBefore: string[] = [];
    afterRun = async (id) => {
      if (id !== head) return;
      await bed.clients.doc.send(
        new PutCommand({
          TableName: bed.env.SOURCES_TABLE,
          Item: { sourceId: 'handmade', systemUrl: handmade.systemUrl, active: true, ...trail },
        }),
      );
      listedBefore = (await listHostSources(sources, host)).map((s) => s.sourceId);
      simNow = new Date(simNow.getTime() + 60_000);
      meanwhile = await plan(bed, simNow);
    };
    const { result } = await processHead(head);
    expect(listedBefore).not.toContain('handmade');
    // The running lane found it through the index at its next step: both run, no tick between.
    expect(result.status).toBe('done');
    expect(result.laneRuns?.map((r) => [r.sourceId, r.status]).sort()).toEqual([
      ['handmade', 'done'],
      [other, 'done'],
    ]);
    // The tick stamped it (RATE-2's key, from its systemUrl) and started nothing on the busy host.
    expect(meanwhile?.hostKeysStamped).toEqual(['handmade']);
    const onHost = ['tool-a', 'tool-b', 'handmade'];
    expect(meanwhile?.started.map((s) => s.sourceId).filter((id) => onHost.includes(id))).toEqual([]);
    expect((await getSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, 'handmade'))?.hostKey).toBe(host);
    expect(bodyOrApiRequests('handmade').length).toBeGreaterThan(0);
    expectSpaced(arrivalsOf([head, other, 'handmade']));
    // Once: the next read finds the key right and writes nothing.
    expect((await plan(bed, simNow)).hostKeysStamped).toBeUndefined();
  }, 180_000);
});
