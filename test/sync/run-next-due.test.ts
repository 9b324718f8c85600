import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { SyncEngine } from '../../shared/engine';
import { type PlannerCache, plannerTick } from '../../shared/planner/tick';
import { DEFAULT_LEASE_MINUTES, DEFAULT_SCHEDULE_SETTINGS } from '../../shared/schedule';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState, patchSourceState } from '../../shared/store/source-state';
import { runSyncMessage } from '../../shared/sync/run';
import { loopbackFetcher } from '../support/oparl-harness';
import { deliver, NOW, oparlTestEngine, plan, runDepsOf, useSourceBed } from '../support/sync-bed';

/**
 * Issue 28: a run's release records the wait the planner would decide at the run's end — its next due
 * time and the decision — so the planner's tick a minute later does not read the source again only to
 * write that wait (a second move of the `byDueAt` key each run: 3 write units). Real planner ticks,
 * queue (fauxqs), State table (dynalite) and OParl engine; the council on loopback; the source's writes
 * recorded by a middleware on the bed's real client.
 */
describe('issue 28: the run’s end leaves the next due time', () => {
  const sourceId = 'run-next-due';
  const edited = 'run-next-due-edited';
  const { bed, council } = useSourceBed(sourceId);

  it('SCH-4 / SCH-5: released with the planner’s own wait and due time; the tick after writes nothing for it, the tick at that time starts it', async () => {
    const doc = bed.clients.doc;
    const table = bed.env.STATE_TABLE;
    expect((await plan(bed, NOW)).started.map((s) => s.sourceId)).toContain(sourceId);
    const now = () => NOW;
    const runDeps = runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now);
    const record = await deliver(bed, sourceId);
    const result = await runSyncMessage(runDeps, JSON.parse(record.body), {
      deadlineMs: Date.now() + 60_000,
      endsAtMs: Date.now() + 120_000,
    });
    expect(result.status).toBe('done');
    const ended = await getSourceState<SourceScheduleState>(doc, table, sourceId);
    expect(ended?.leaseRunId).toBeUndefined();
    expect(Date.parse(ended?.dueAt ?? '')).toBeGreaterThan(NOW.getTime());
    expect(ended?.lastDecision).toMatchObject({ action: 'wait', decidedAt: NOW.toISOString() });
    expect(ended?.lastDecision?.ruleIds).toContain('SCH-4');

    // The planner's tick a minute later: the source is not due, nothing is written for it.
    const writes: string[] = [];
    bed.clients.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        const key = (args.input as { Key?: { pk?: unknown } }).Key;
        const pk = (key?.pk as { S?: string } | undefined)?.S ?? key?.pk;
        if (/^(Put|Update|Delete)/.test(context.commandName ?? '') && pk === `SOURCE#${sourceId}`)
          writes.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize', name: 'sourceWrites' },
    );
    try {
      const after = await plan(bed, new Date(NOW.getTime() + 60_000));
      expect(after.decisions.map((d) => d.sourceId)).not.toContain(sourceId);
      expect(writes).toEqual([]);
    } finally {
      bed.clients.dynamo.middlewareStack.remove('sourceWrites');
    }

    // What the planner itself decides for the source left due at the run's end (as every release did
    // before): the same next due time — the release wrote the planner's decision, not a later one.
    await patchSourceState({ doc, table }, sourceId, { dueAt: NOW.toISOString() });
    await plan(bed, new Date(NOW.getTime() + 60_000));
    const decided = await getSourceState<SourceScheduleState>(doc, table, sourceId);
    expect(decided?.dueAt).toBe(ended?.dueAt);
    expect(decided?.lastDecision?.action).toBe('wait');

    // At that time the planner starts it (SCH-4: its cadence, as before).
    const due = await plan(bed, new Date(ended?.dueAt ?? ''));
    expect(due.started.map((s) => s.sourceId)).toContain(sourceId);
  });

  it('SCH-5 / RATE-2 / issue 28: a hand edit of the source while it runs wins — the planner made it due, the release leaves it due, the next tick decides it with the edit', async () => {
    const doc = bed.clients.doc;
    const table = bed.env.STATE_TABLE;
    // One planner instance with its warm cache, re-reading the Sources table every tick (RATE-2).
    const cache: PlannerCache = {};
    const tick = (at: Date) =>
      plannerTick(
        {
          doc,
          sqs: bed.clients.sqs,
          tables: { sources: bed.env.SOURCES_TABLE, state: table },
          syncQueueUrl: bed.queues.syncQueueUrl,
          settings: DEFAULT_SCHEDULE_SETTINGS,
          leaseMinutes: DEFAULT_LEASE_MINUTES,
          cache,
          sourcesTtlMs: 0,
        },
        at,
      );
    // One source of the council's host at a time (RATE-9 admits one run per host a tick): the first
    // test's source is switched off, this one added.
    for (const [id, active] of [
      [sourceId, false],
      [edited, true],
    ] as const)
      await doc.send(
        new PutCommand({
          TableName: bed.env.SOURCES_TABLE,
          Item: { sourceId: id, systemUrl: council.systemUrl, active },
        }),
      );
    const start = new Date(NOW.getTime() + 2 * 3_600_000);
    expect((await tick(start)).started.map((s) => s.sourceId)).toContain(edited);
    const now = () => start;
    const engine = oparlTestEngine(bed, loopbackFetcher(), now);
    // While the run fetches, on-call switches the source off (ERR-7) and the planner's tick sees the edit
    // (the item is leased: it is made due, not started).
    const editing: SyncEngine = async (source, message, budget) => {
      const report = await engine(source, message, budget);
      await doc.send(
        new PutCommand({
          TableName: bed.env.SOURCES_TABLE,
          Item: {
            sourceId: edited,
            systemUrl: council.systemUrl,
            active: false,
          },
        }),
      );
      const during = await tick(new Date(start.getTime() + 30_000));
      expect(during.started.map((s) => s.sourceId)).not.toContain(edited);
      return report;
    };
    const record = await deliver(bed, edited);
    const result = await runSyncMessage(runDepsOf(bed, editing, now), JSON.parse(record.body), {
      deadlineMs: Date.now() + 60_000,
      endsAtMs: Date.now() + 120_000,
    });
    expect(result.status).toBe('done');
    const ended = await getSourceState<SourceScheduleState>(doc, table, edited);
    expect(ended?.leaseRunId).toBeUndefined();
    // Not the wait of the config the run started with: due at its end, for the planner to decide with
    // the edit at its next tick — where the switched-off source is skipped and said so.
    expect(ended?.dueAt).toBe(start.toISOString());
    const next = await tick(new Date(start.getTime() + 60_000));
    expect(next.decisions.find((d) => d.sourceId === edited)).toMatchObject({ action: 'skip' });
    const seen = await getSourceState<SourceScheduleState>(doc, table, edited);
    expect(seen?.lastDecision?.action).toBe('skip');
  });
});
