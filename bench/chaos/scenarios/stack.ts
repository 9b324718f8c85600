import { initialScheduleState } from '../../../shared/schedule';
import { patchSourceState } from '../../../shared/store';
import type { SyncRunResult } from '../../../shared/sync';
import { BUDGET_RESERVE_MS } from '../../../shared/sync';
import { startRedisPeer } from '../../../test/support/redis';
import { startTcpProxy } from '../../../test/support/tcp-proxy';
import type { WireRequest } from '../council-process';
import type { ChaosCouncil } from '../councils';
import type { Scenario, ScenarioContext } from '../scenario';
import { type Deployment, type Instance, REDELIVERY_AFTER_MS } from '../stack';
import { SOURCE, sourceOnCouncil } from './support';

/**
 * Faults of our own stack: instances that die at a page boundary, duplicate and re-ordered SQS
 * deliveries, DynamoDB / S3 / SQS errors (SDK middleware in front of the real peers), one instance's
 * Redis path stalled or killed (TCP proxy), the shared Redis killed, and jumps of the `now` the planner
 * and the run bookkeeping take. Every scenario ends with the mirror compared with a clean run.
 */
const pageRequests = (c: ChaosCouncil) => c.requests.filter((r) => r.path !== '/robots.txt');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The run's own record in State: ok, complete, and nothing held against the source. */
async function expectHealthy(ctx: ScenarioContext, d: Deployment, sourceId = SOURCE): Promise<void> {
  const state = await d.state(sourceId);
  const last = state?.lastRun as { ok?: boolean; complete?: boolean; failureDetails?: string[] } | undefined;
  ctx.check(
    last?.ok === true && last.complete === true,
    `last run not ok/complete: ${JSON.stringify(last?.failureDetails ?? last)}`,
  );
  ctx.check(state?.leaseRunId === undefined, 'the lease is still held after the run ended');
  await ctx.expectNotBlamed(d, sourceId);
}

/** Requests arriving at the council after `epochMs` (robots.txt excluded). */
const requestsSince = (c: ChaosCouncil, epochMs: number): WireRequest[] =>
  pageRequests(c).filter((r) => r.epochMs > epochMs);

function crashAtRandomPage(suffix: string): Scenario {
  return {
    name: `crash-at-random-page-${suffix}`,
    rules: ['SCH-5', 'ERR-1'],
    holds:
      'An instance that dies while page k is in flight (in-process: its AWS clients never answer again) leaves a lease and a cursor; the redelivered message resumes on a new instance and the mirror equals a clean run.',
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      // Page 2 … 10 of the 11 API requests of a full sync.
      const k = 2 + Math.floor(ctx.random() * 9);
      ctx.notes.crashAtPage = k;
      await d.tick();
      const first = await d.receive(2);
      if (!ctx.check(first !== undefined, 'no sync message')) return;
      const doomed = await d.instance();
      const dying = doomed.process(first?.body ?? '').then(
        (r) => `ended ${r.status} before page ${k}`,
        (e: Error) => `threw ${e.message} before page ${k}`,
      );
      const early = await Promise.race([dying, council.arrival(() => pageRequests(council).length >= k)]);
      doomed.faults.freeze();
      if (typeof early === 'string') ctx.notes.doomed = early;
      // SQS makes the message visible again after its visibility timeout: 2 s of the bench's wall clock,
      // the production timeout (longer than the function's) on the run bookkeeping's clock — the dead
      // invocation's claim ends with its time, which is up when the redelivery comes.
      await sleep(2_500);
      d.clock.advance(REDELIVERY_AFTER_MS);
      const heir = await d.instance();
      const results = await d.drain(heir);
      ctx.notes.afterCrash = results.map((r) => r.status);
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  };
}

/** Runs `body` on two instances at once (a duplicate delivery of one SQS message). */
async function twinDeliveries(
  d: Deployment,
  body: string,
): Promise<{ a: SyncRunResult | Error; b: SyncRunResult | Error; a1: Instance; b1: Instance }> {
  const [a1, b1] = [await d.instance(), await d.instance()];
  const settle = (p: Promise<SyncRunResult>) =>
    p.catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
  const [a, b] = await Promise.all([settle(a1.process(body)), settle(b1.process(body))]);
  return { a, b, a1, b1 };
}

export const STACK_SCENARIOS: Scenario[] = [
  crashAtRandomPage('a'),
  crashAtRandomPage('b'),
  crashAtRandomPage('c'),
  {
    name: 'budget-continuation',
    rules: ['SCH-5', 'FULL-6'],
    holds:
      'A run whose invocation budget ends after a few pages saves its cursor and continues in a new message; the mirror equals a clean run.',
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      await d.tick();
      const m = await d.receive();
      const instance = await d.instance();
      // 4 s of budget beyond the reserve: about four pages, then a continuation.
      const first = await instance.processAlone(m?.body ?? '', BUDGET_RESERVE_MS + 4_000);
      await d.ack(m?.receiptHandle ?? '');
      ctx.check(first.status === 'continued', `the first invocation ended ${first.status}, not continued`);
      const rest = await d.drain(instance);
      ctx.notes.invocations = 1 + rest.length;
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  },
  {
    name: 'duplicate-delivery-concurrent',
    rules: ['SCH-5', 'ERR-4'],
    defect: 3,
    holds:
      'Two concurrent deliveries of one message: the twin is dropped without touching the lease, the failure streak or the report of the run that owns it.',
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      await d.tick();
      const m = await d.receive();
      await d.ack(m?.receiptHandle ?? '');
      const body = m?.body ?? '';
      // The lease must stay taken for as long as either twin still runs.
      let leaseFreedWhileRunning = false;
      let running = true;
      const watch = (async () => {
        while (running) {
          const state = await d.state(SOURCE);
          if (running && state?.leaseRunId === undefined) leaseFreedWhileRunning = true;
          await sleep(200);
        }
      })();
      const { a, b } = await twinDeliveries(d, body);
      running = false;
      await watch;
      ctx.notes.twins = [a, b].map((r) => (r instanceof Error ? `threw ${r.message}` : r.status));
      ctx.check(!leaseFreedWhileRunning, 'the lease was freed while a twin still ran');
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  },
  staleDelivery({
    name: 'duplicate-delivery-after-done',
    holds:
      'A late duplicate of a message whose run has ended is dropped: no request to the council, the report and the schedule stay as the run left them.',
  }),
  staleDelivery({
    name: 'reordered-continuation',
    holds:
      'A stale continuation 0 delivered after continuation 1 finished the run (re-ordered SQS delivery) changes nothing: no request, the report and the schedule stay, the mirror equals a clean run.',
    firstBudgetMs: BUDGET_RESERVE_MS + 4_000,
  }),
  {
    name: 'dynamodb-throttle-absorbed',
    rules: ['ERR-4'],
    holds:
      'Two throttled DynamoDB attempts are absorbed by the SDK retries: the run completes, nothing is held against the source.',
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      const instance = await d.instance();
      instance.faults.fail({
        service: 'dynamodb',
        command: /BatchWrite|PutItem|UpdateItem/,
        kind: 'throttle',
        times: 2,
      });
      await d.tick();
      await d.drain(instance);
      ctx.notes.failedAttempts = instance.faults.failed;
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  },
  {
    name: 's3-500-absorbed',
    rules: ['ERR-4'],
    holds: 'Two S3 500s on mirror writes are absorbed by the SDK retries: the run completes, nothing lost.',
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      const instance = await d.instance();
      instance.faults.fail({ service: 's3', command: /PutObject/, kind: 'server-error', times: 2 });
      await d.tick();
      await d.drain(instance);
      ctx.notes.failedAttempts = instance.faults.failed;
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  },
  ourOutage({
    name: 'dynamodb-throttle-persistent',
    service: 'dynamodb',
    command: /BatchWrite|PutItem|UpdateItem/,
    kind: 'throttle',
    when: (input) => JSON.stringify(input).includes('MIRROR#'),
  }),
  ourOutage({
    name: 's3-500-persistent',
    service: 's3',
    command: /PutObject/,
    kind: 'server-error',
    when: (input) => String(input.Key ?? '').startsWith('mirror/'),
  }),
  {
    name: 'sqs-continuation-send-fails',
    rules: ['SCH-5'],
    holds:
      'When the continuation cannot be sent (SQS throttled past the retries), the message is redelivered and the run resumes from its cursor; nothing is held against the source.',
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      await d.tick();
      const m = await d.receive(2);
      const instance = await d.instance();
      const handle = instance.faults.fail({ service: 'sqs', command: /SendMessage/, kind: 'throttle' });
      const first = await instance
        .processAlone(m?.body ?? '', BUDGET_RESERVE_MS + 4_000)
        .catch((e: Error) => e);
      handle.remove();
      ctx.notes.first = first instanceof Error ? `threw ${first.name}` : first.status;
      await sleep(2_500);
      await d.drain(instance);
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  },
  redisOneInstance('stall'),
  redisOneInstance('kill'),
  {
    name: 'redis-killed-mid-run',
    rules: ['RATE-7', 'RATE-1', 'RATE-4'],
    holds:
      'The shared Redis dies during a run: the instance falls back to its own pace (interval × INGESTOR_MAX_INSTANCES) and the run completes; spacing and in-flight hold.',
    async run(ctx) {
      const own = await startRedisPeer();
      ctx.onClose(() => own.stop());
      const { council, d } = await sourceOnCouncil(ctx, {
        UPSTASH_REDIS_REST_URL: own.adapter.url,
        UPSTASH_REDIS_REST_TOKEN: own.adapter.token,
        INGESTOR_MAX_INSTANCES: 2,
      });
      const instance = await d.instance();
      await d.tick();
      const drained = d.drain(instance);
      await council.arrival(() => pageRequests(council).length >= 3);
      await own.redisServer.stop();
      await drained;
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  },
  {
    name: 'clock-jump-forward-mid-run',
    rules: ['SCH-5', 'RATE-4'],
    holds:
      'The planner clock jumps 2 h forward while a run holds the lease: a second run may start, but both share the host pace and in-flight cap, nothing is held against the source and the mirror equals a clean run.',
    async run(ctx) {
      const { council, d, m1, first, tick } = await clockJumpMidRun(ctx, 2 * 60 * 60_000);
      ctx.notes.secondTick = tick.decisions.map((x) => x.reason);
      const b = await d.instance();
      const second = d.drain(b);
      const [r1] = await Promise.all([first, second]);
      ctx.notes.firstRun = r1 instanceof Error ? `threw ${r1.message}` : r1.status;
      await d.ack(m1?.receiptHandle ?? '');
      await ctx.expectNotBlamed(d, SOURCE);
      await ctx.compare(d, SOURCE, council);
    },
  },
  {
    name: 'clock-jump-back-mid-run',
    rules: ['SCH-5'],
    holds:
      'The planner clock jumps 1 h back while a run holds the lease: no second run starts, the run completes and nothing is held against the source.',
    async run(ctx) {
      const { council, d, m1, first, tick } = await clockJumpMidRun(ctx, -60 * 60_000);
      ctx.check(tick.started.length === 0, 'a second run started while the first held the lease');
      const r = await first;
      ctx.check(!(r instanceof Error), `the run's end threw: ${r instanceof Error ? r.message : ''}`);
      await d.ack(m1?.receiptHandle ?? '');
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  },
  {
    name: 'clock-jump-forward-3-days',
    rules: ['FULL-1', 'SCH-4'],
    holds:
      'After a 3-day jump of the clock between runs the next run is a full sync that leaves the mirror equal to a clean run.',
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      const instance = await d.instance();
      await d.tick();
      await d.drain(instance);
      d.clock.advance(3 * 24 * 60 * 60_000);
      const tick = await d.tick();
      ctx.notes.afterJump = tick.decisions.map((x) => `${x.action} ${x.kind ?? ''}: ${x.reason}`);
      await d.drain(instance);
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  },
];

/** A run in flight (three pages sent), then the planner's clock jumps by `jumpMs` and it ticks. */
async function clockJumpMidRun(ctx: ScenarioContext, jumpMs: number) {
  const { council, d } = await sourceOnCouncil(ctx);
  await d.tick();
  const m1 = await d.receive();
  const a = await d.instance();
  const first = a.process(m1?.body ?? '').catch((e: Error) => e);
  await council.arrival(() => pageRequests(council).length >= 3);
  d.clock.advance(jumpMs);
  const tick = await d.tick();
  return { council, d, m1, first, tick };
}

/**
 * Defect 3: a message delivered again after its run ended — a late duplicate, or (with a first budget
 * that ends in a continuation) a stale continuation 0 after continuation 1 finished the run.
 */
function staleDelivery(spec: { name: string; holds: string; firstBudgetMs?: number }): Scenario {
  return {
    name: spec.name,
    rules: ['SCH-5'],
    defect: 3,
    holds: spec.holds,
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      await d.tick();
      const m = await d.receive();
      const instance = await d.instance();
      const body = m?.body ?? '';
      await (spec.firstBudgetMs === undefined
        ? instance.process(body)
        : instance.processAlone(body, spec.firstBudgetMs));
      await d.ack(m?.receiptHandle ?? '');
      await d.drain(instance);
      const before = await d.state(SOURCE);
      await council.settle();
      const doneAt = Date.now();
      const stale = await instance.process(body);
      await council.settle();
      ctx.notes.staleDelivery = stale.status;
      const extra = requestsSince(council, doneAt).length;
      ctx.check(extra === 0, `the stale delivery sent ${extra} requests to the council`);
      const after = await d.state(SOURCE);
      ctx.check(
        JSON.stringify(after?.lastRun) === JSON.stringify(before?.lastRun) &&
          JSON.stringify(after?.schedule) === JSON.stringify(before?.schedule),
        'the stale delivery rewrote the report or the schedule of the run it duplicates',
      );
      await expectHealthy(ctx, d);
      await ctx.compare(d, SOURCE, council);
    },
  };
}

/**
 * Defect 8: our store failing past the SDK's retries, three deliveries in a row. The message must be
 * redelivered (the sync function's body throws: partial batch failure) and the source must not pay
 * for it (no failure streak, no ERR-4 pause); once the store is back the redelivered message completes the run.
 */
function ourOutage(spec: {
  name: string;
  service: 'dynamodb' | 's3';
  command: RegExp;
  kind: 'throttle' | 'server-error';
  when: (input: Record<string, unknown>) => boolean;
}): Scenario {
  return {
    name: spec.name,
    rules: ['ERR-4', 'ERR-5'],
    defect: 8,
    holds: `${spec.service === 's3' ? 'S3 5xx' : 'DynamoDB throttling'} on every mirror write, past the SDK retries, for three deliveries: the message is redelivered each time, the source is neither failed nor paused, and once the store is back the next delivery completes the run and the mirror equals a clean run.`,
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      const instance = await d.instance();
      const outage = instance.faults.fail({
        service: spec.service,
        command: spec.command,
        kind: spec.kind,
        when: spec.when,
      });
      await d.tick();
      const outcomes: string[] = [];
      for (let delivery = 0; delivery < 3; delivery += 1) {
        const m = await d.receive(1);
        if (!m) {
          // The run was recorded as ended (a failure of the source); the planner starts the next one.
          d.clock.advance(31 * 60_000);
          await d.tick();
          outcomes.push('tick');
          continue;
        }
        const r = await instance.process(m.body).catch((e: Error) => e);
        outcomes.push(r instanceof Error ? 'redelivered' : r.status);
        if (!(r instanceof Error)) await d.ack(m.receiptHandle);
        // Back after 1 s here; on the run's clock after the production visibility timeout, which the
        // lease renewed by each delivery's claim outlasts: the planner never takes the run over meanwhile.
        await sleep(1_100);
        d.clock.advance(REDELIVERY_AFTER_MS);
      }
      ctx.notes.deliveries = outcomes;
      await ctx.expectNotBlamed(d, SOURCE);
      outage.remove();
      // The store is back: the next delivery of the run's message resumes it from its cursor.
      const after = await d.drain(instance);
      ctx.notes.afterOutage = after.map((r) => (r.status === 'dropped' ? `dropped: ${r.reason}` : r.status));
      await expectHealthy(ctx, d);
      ctx.notes.failedAttempts = instance.faults.failed;
      await ctx.compare(d, SOURCE, council);
    },
  };
}

/**
 * Defect 6: two instances sync two sources on one host; one instance's path to Redis is stalled (a
 * black hole: its calls time out) or killed (refused) mid-run, so it falls back to its own pace while
 * the other keeps reserving in Redis. The server must never see two requests < 1 s apart. The stalled
 * instance is given up after 60 s (it may rightly wait long before sending again).
 */
function redisOneInstance(mode: 'stall' | 'kill'): Scenario {
  return {
    name: `redis-${mode}-one-instance`,
    rules: ['RATE-7', 'RATE-1', 'RATE-4'],
    defect: 6,
    holds: `One of two instances loses Redis (${mode === 'stall' ? 'calls time out' : 'connections refused'}) while the other still uses it: the server never sees two requests < 1 s apart, never more than 2 at once.`,
    async run(ctx) {
      const council = await ctx.council();
      const d = await ctx.deploy({ INGESTOR_MAX_INSTANCES: 2 });
      await d.addSource({ sourceId: 'src-a', systemUrl: council.systemUrl });
      await d.addSource({ sourceId: 'src-b', systemUrl: council.systemUrl });
      // RATE-9: the planner starts a second run on one host only for a server slower than its pace; the
      // sources' last runs say so (3 s per request at 1 s), so both start and two instances share the host.
      for (const sourceId of ['src-a', 'src-b'])
        await patchSourceState({ doc: d.admin.doc, table: d.env.STATE_TABLE }, sourceId, {
          schedule: {
            ...initialScheduleState(),
            recentRuns: [{ kind: 'incremental', requests: 10, seconds: 30 }],
          },
        });
      const proxy = await startTcpProxy({ port: Number(new URL(ctx.stack.redis.adapter.url).port) });
      ctx.onClose(() => proxy.close());
      const healthy = await d.instance();
      const cut = await d.instance({ redisUrl: proxy.url });
      await d.tick();
      const [m1, m2] = [await d.receive(), await d.receive()];
      ctx.notes.started = [m1, m2].filter((m) => m !== undefined).length;
      const runs = [healthy.process(m1?.body ?? ''), cut.process(m2?.body ?? '')].map((p) =>
        p.catch((e: Error) => e),
      );
      await council.arrival(() => pageRequests(council).length >= 4);
      if (mode === 'stall') proxy.stall();
      else proxy.kill();
      const given = await Promise.race([Promise.all(runs), sleep(60_000).then(() => 'gave up' as const)]);
      ctx.notes.runs =
        given === 'gave up'
          ? 'gave up after 60 s'
          : given.map((r) => (r instanceof Error ? r.message : r.status));
    },
  };
}
