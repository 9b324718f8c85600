import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireSyncLease,
  getSourceState,
  listSourceStates,
  patchSourceState,
  releaseSyncLease,
} from '../../shared/store/source-state';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';

describe('source STATE item and sync lease (SCH-5)', () => {
  let bed: AwsTestbed;
  const table = () => bed.env.STATE_TABLE;
  const t0 = new Date('2026-11-30T10:00:00Z');
  const plus = (ms: number) => new Date(t0.getTime() + ms);

  beforeAll(async () => {
    bed = await startAwsTestbed();
  });
  afterAll(async () => bed.stop());

  it('SCH-5: of two concurrent acquisitions exactly one wins', async () => {
    const results = await Promise.all(
      ['run-a', 'run-b', 'run-c'].map((runId) =>
        acquireSyncLease(bed.clients.doc, table(), 'src-race', {
          runId,
          kind: 'incremental',
          until: plus(60_000),
          now: t0,
        }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('SCH-5: a held lease blocks other runs, admits its own continuation, and frees itself on expiry', async () => {
    const doc = bed.clients.doc;
    expect(
      await acquireSyncLease(doc, table(), 'src-1', {
        runId: 'r1',
        kind: 'incremental',
        until: plus(60_000),
        now: t0,
      }),
    ).toBe(true);
    expect(
      await acquireSyncLease(doc, table(), 'src-1', {
        runId: 'r2',
        kind: 'full',
        until: plus(60_000),
        now: plus(1000),
      }),
    ).toBe(false);
    expect(
      await acquireSyncLease(doc, table(), 'src-1', {
        runId: 'r1',
        kind: 'incremental',
        until: plus(120_000),
        now: plus(1000),
      }),
    ).toBe(true);
    // An instance that died leaves the lease to expire; after `until` another run may take it.
    expect(
      await acquireSyncLease(doc, table(), 'src-1', {
        runId: 'r3',
        kind: 'full',
        until: plus(300_000),
        now: plus(121_000),
      }),
    ).toBe(true);
    expect(await releaseSyncLease(doc, table(), 'src-1', 'r1', { lastRun: { ok: true } })).toBe(false);
    expect(await releaseSyncLease(doc, table(), 'src-1', 'r3', { lastRun: { ok: true } })).toBe(true);
    const item = await getSourceState(doc, table(), 'src-1');
    expect(item?.leaseRunId).toBeUndefined();
    expect(item?.lastRun).toEqual({ ok: true });
  });

  it('patches keep the lease and make new items visible to the planner index', async () => {
    const doc = bed.clients.doc;
    await acquireSyncLease(doc, table(), 'src-2', {
      runId: 'x',
      kind: 'incremental',
      until: plus(60_000),
      now: t0,
    });
    await patchSourceState(doc, table(), 'src-2', {
      lastDecision: { action: 'wait', reason: 'cadence', decidedAt: t0.toISOString() },
    });
    await patchSourceState(doc, table(), 'src-3', { dueAt: plus(3_600_000).toISOString() });
    const item = await getSourceState(doc, table(), 'src-2');
    expect(item?.leaseRunId).toBe('x');
    expect(item?.lastDecision?.reason).toBe('cadence');
    const due = await listSourceStates(doc, table(), { dueBefore: plus(1000).toISOString() });
    const ids = due.map((s) => s.sourceId);
    expect(ids).toContain('src-2');
    expect(ids).not.toContain('src-3');
  });
});
