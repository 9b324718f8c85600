import { describe, expect, it } from 'vitest';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
import { runSyncMessage } from '../../shared/sync/run';
import { loopbackFetcher } from '../support/oparl-harness';
import { deliver, NOW, oparlTestEngine, plan, runDepsOf, useSourceBed } from '../support/sync-bed';

/**
 * Issue 28: what a run's message path reads of the source's `STATE` and `LASTRUN` items beside its
 * engine — the claim and release are conditional writes; the outcome is applied to the schedule read
 * once, at the end, from the `STATE` item alone (the last run's item was read with it: one read unit
 * more a run, 2.55 M a month at 1,000 sources). Real queue (fauxqs), State table (dynalite), OParl
 * engine; the council on loopback; reads recorded by a middleware on the bed's real client.
 */
describe('issue 28: the reads of a run’s own State items', () => {
  const sourceId = 'run-reads';
  const { bed } = useSourceBed(sourceId);

  it('SCH-5: the run ends, its report and outcome are written, and only the STATE item was read for it', async () => {
    await plan(bed, NOW);
    const now = () => NOW;
    const runDeps = runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now);
    const reads: string[] = [];
    const plain = (v: unknown) => String((v as { S?: string } | undefined)?.S ?? v ?? '');
    bed.clients.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as {
          Key?: Record<string, unknown>;
          RequestItems?: Record<string, { Keys?: Record<string, unknown>[] }>;
        };
        const keys = [
          ...(input.Key ? [input.Key] : []),
          ...Object.values(input.RequestItems ?? {}).flatMap((r) => r.Keys ?? []),
        ];
        if (/^(Get|BatchGet)/.test(context.commandName ?? ''))
          for (const key of keys)
            if (plain(key.pk) === `SOURCE#${sourceId}` && ['STATE', 'LASTRUN'].includes(plain(key.sk)))
              reads.push(`${context.commandName} ${plain(key.sk)}`);
        return next(args);
      },
      { step: 'initialize', name: 'runStateReads' },
    );
    try {
      const record = await deliver(bed, sourceId);
      const result = await runSyncMessage(runDeps, JSON.parse(record.body), {
        deadlineMs: Date.now() + 60_000,
        endsAtMs: Date.now() + 120_000,
      });
      expect(result.status).toBe('done');
      expect(reads).toEqual(['GetItemCommand STATE']);
    } finally {
      bed.clients.dynamo.middlewareStack.remove('runStateReads');
    }
    // On-call still sees the last run beside the released lease.
    const state = await getSourceState<SourceScheduleState & { lastRun?: { ok: boolean; endedAt: string } }>(
      bed.clients.doc,
      bed.env.STATE_TABLE,
      sourceId,
    );
    expect(state?.leaseRunId).toBeUndefined();
    expect(state?.lastRun).toMatchObject({ ok: true, endedAt: NOW.toISOString() });
    expect(state?.schedule).toBeDefined();
  });
});
