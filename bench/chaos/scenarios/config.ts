import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { BUDGET_RESERVE_MS } from '../../../shared/sync';
import type { Scenario } from '../scenario';
import { sourceOnCouncil } from './support';

/**
 * Operator input and the invocation budget: an invalid Sources item must not loosen its host's pace
 * (RATE-2; issue 13 #7), and no request may outlive the invocation that sent it (issue 13 #10).
 */
export const CONFIG_SCENARIOS: Scenario[] = [
  {
    name: 'invalid-item-keeps-host-pace',
    rules: ['RATE-2', 'OPT-4'],
    defect: 7,
    holds:
      'Two sources on one host, one with requestIntervalSeconds=3; after its item is broken by hand, its sibling is still paced at 3 s (a new instance, cold start).',
    async run(ctx) {
      const council = await ctx.council();
      ctx.owe(council, 3_000);
      const d = await ctx.deploy();
      // RATE-9: the planner starts one run per pace-bound host, so the sibling is added (and started)
      // after the slow source's run, once its item is broken.
      await d.addSource({ sourceId: 'src-slow', systemUrl: council.systemUrl, requestIntervalSeconds: 3 });
      await d.tick();
      const slow = await d.receive();
      const first = await d.instance();
      await first.process(slow?.body ?? '');
      await d.ack(slow?.receiptHandle ?? '');
      // An on-call engineer's typo in the DynamoDB console.
      await d.admin.doc.send(
        new PutCommand({
          TableName: d.env.SOURCES_TABLE,
          Item: {
            sourceId: 'src-slow',
            systemUrl: council.systemUrl,
            active: true,
            requestIntervalSeconds: 'drei',
          },
        }),
      );
      // Five quiet minutes on the host: the pace notes the slots keep in Redis (5 min TTL) are gone.
      const redis = ctx.stack.redis.redis;
      const keys = await redis.keys(`ingestor:slots:*${new URL(council.url).hostname}*`);
      if (keys.length > 0) await redis.del(...keys);
      ctx.notes.expiredSlotKeys = keys.length;
      // …and those minutes pass at the server too: the sibling's first request comes > 3 s after the last.
      await new Promise((r) => setTimeout(r, 3_500));
      await d.addSource({ sourceId: 'src-b', systemUrl: `${council.systemUrl}?b` });
      await d.tick();
      const b = await d.receive();
      const cold = await d.instance();
      const r = await cold.process(b?.body ?? '');
      await d.ack(b?.receiptHandle ?? '');
      ctx.notes.sibling = r.status;
    },
  },
  {
    name: 'request-outlives-invocation',
    rules: ['SCH-12', 'RATE-4'],
    defect: 10,
    holds:
      'A page whose head comes after 50 s and whose body then trickles: with 62 s of invocation left the request is cut in time, the run checkpoints and returns before the invocation ends.',
    async run(ctx) {
      const { council, d } = await sourceOnCouncil(ctx);
      await council.setFault('/oparl/v1/system', { kind: 'delay', delayMs: 50_000 }, { times: 1 });
      await council.setFault(
        '/oparl/v1/system',
        { kind: 'slowBody', intervalMs: 1_000, chunkBytes: 4 },
        { times: 1 },
      );
      await d.tick();
      const m = await d.receive();
      const instance = await d.instance();
      const remainingMs = BUDGET_RESERVE_MS + 2_000;
      const invocationEnd = Date.now() + remainingMs;
      const outcome = await Promise.race([
        instance.processAlone(m?.body ?? '', remainingMs).then(
          (r) => r.status,
          (e: Error) => `threw ${e.message}`,
        ),
        new Promise<'killed'>((resolve) => setTimeout(() => resolve('killed'), remainingMs + 2_000)),
      ]);
      ctx.notes.outcome = outcome;
      ctx.notes.returnedBeforeEndMs = invocationEnd - Date.now();
      ctx.check(
        outcome !== 'killed' && Date.now() <= invocationEnd,
        'the run had not returned when the invocation ended',
      );
      await council.settle();
      const system = council.requests.find((r) => r.path === '/oparl/v1/system');
      // The council's clock: arrival (wall clock) plus how long its exchange lasted.
      const closedAt = system?.endAt === undefined ? undefined : system.epochMs + (system.endAt - system.at);
      ctx.check(
        closedAt !== undefined && closedAt <= invocationEnd,
        'the slow request was still open at the council when the invocation ended',
      );
      if (closedAt !== undefined) ctx.notes.requestClosedBeforeEndMs = Math.round(invocationEnd - closedAt);
    },
  },
];
