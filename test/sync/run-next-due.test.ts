import { describe, expect, it } from 'vitest';
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
  const { bed } = useSourceBed(sourceId);

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
});
