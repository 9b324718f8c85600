import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createTableInput } from '../../shared/store/provision';
import {
  acquireSyncLease,
  claimSyncRun,
  getSourceState,
  listLeasedSourceStates,
  listSourceStates,
  patchSourceState,
  readSourceStates,
  releaseSyncClaim,
  releaseSyncLease,
} from '../../shared/store/source-state';
import { retiringIndexes, STATE_TABLE } from '../../shared/store/tables';
import { useAwsTestbed } from '../support/aws';

describe('source STATE item and sync lease (SCH-5)', () => {
  const bed = useAwsTestbed();
  const table = () => bed.env.STATE_TABLE;
  const t0 = new Date('2026-11-30T10:00:00Z');
  const plus = (ms: number) => new Date(t0.getTime() + ms);

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

  it('SCH-5: a held lease blocks other runs, admits its own next message, and frees itself on expiry', async () => {
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
    // The run's own messages claim the lease it holds (acquire is for new runs only).
    expect(
      await claimSyncRun(doc, table(), 'src-1', {
        runId: 'r1',
        step: 0,
        holder: 'h1',
        heldUntil: plus(61_000),
        leaseUntil: plus(120_000),
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
    expect(await releaseSyncLease({ doc, table: table() }, 'src-1', 'r1', { lastRun: { ok: true } })).toBe(
      false,
    );
    expect(await releaseSyncLease({ doc, table: table() }, 'src-1', 'r3', { lastRun: { ok: true } })).toBe(
      true,
    );
    const item = await getSourceState(doc, table(), 'src-1');
    expect(item?.leaseRunId).toBeUndefined();
    expect(item?.lastRun).toEqual({ ok: true });
  });

  it('SCH-5 / issue 13: one invocation per message of a run — a duplicate is refused, a continuation takes over, a stale or dead one does not block', async () => {
    const doc = bed.clients.doc;
    const claim = (step: number, holder: string, at: number, heldMs = 60_000) =>
      claimSyncRun(doc, table(), 'src-claims', {
        runId: 'run',
        step,
        holder,
        heldUntil: plus(at + heldMs),
        leaseUntil: plus(at + 1_200_000),
        now: plus(at),
      });
    expect(
      await acquireSyncLease(doc, table(), 'src-claims', {
        runId: 'run',
        kind: 'full',
        until: plus(1_200_000),
        now: t0,
      }),
    ).toBe(true);
    // Another run's message never claims; the first delivery of message 0 does, its twin does not.
    expect(
      await claimSyncRun(doc, table(), 'src-claims', {
        runId: 'other',
        step: 0,
        holder: 'x',
        heldUntil: plus(60_000),
        leaseUntil: plus(60_000),
        now: t0,
      }),
    ).toBe(false);
    expect(await claim(0, 'a', 0)).toBe(true);
    expect(await claim(0, 'twin', 1000)).toBe(false);
    // Message 0 hands over to its continuation; a late copy of message 0 is stale from then on.
    expect(
      await releaseSyncClaim(
        { doc, table: table() },
        'src-claims',
        { runId: 'run', step: 0, holder: 'a' },
        1,
      ),
    ).toBe(true);
    expect(await claim(0, 'late', 2000)).toBe(false);
    expect(await claim(1, 'b', 3000)).toBe(true);
    // A continuation takes over even before the sender handed over (it sends first, then hands over).
    expect(await claim(2, 'c', 4000)).toBe(true);
    expect(
      await releaseSyncClaim(
        { doc, table: table() },
        'src-claims',
        { runId: 'run', step: 1, holder: 'b' },
        2,
      ),
    ).toBe(false);
    // The holder of message 2 dies: once its invocation's time is up, the redelivery claims.
    expect(await claim(2, 'redelivery', 30_000)).toBe(false);
    expect(await claim(2, 'redelivery', 64_001)).toBe(true);
    // Only the claimant ends the run.
    expect(
      await releaseSyncLease({ doc, table: table() }, 'src-claims', { runId: 'run', step: 2, holder: 'c' }),
    ).toBe(false);
    expect(
      await releaseSyncLease({ doc, table: table() }, 'src-claims', {
        runId: 'run',
        step: 2,
        holder: 'redelivery',
      }),
    ).toBe(true);
    const item = await getSourceState(doc, table(), 'src-claims');
    expect(item?.leaseRunId).toBeUndefined();
    expect(item?.leaseStep).toBeUndefined();
    expect(item?.leaseHolder).toBeUndefined();
  });

  it('patches keep the lease and make new items visible to the planner index', async () => {
    const doc = bed.clients.doc;
    await acquireSyncLease(doc, table(), 'src-2', {
      runId: 'x',
      kind: 'incremental',
      until: plus(60_000),
      now: t0,
    });
    await patchSourceState({ doc, table: table() }, 'src-2', {
      lastDecision: { action: 'wait', reason: 'cadence', decidedAt: t0.toISOString() },
    });
    await patchSourceState({ doc, table: table() }, 'src-3', { dueAt: plus(3_600_000).toISOString() });
    const item = await getSourceState(doc, table(), 'src-2');
    expect(item?.leaseRunId).toBe('x');
    expect(item?.lastDecision?.reason).toBe('cadence');
    const due = await listSourceStates(doc, table(), { dueBefore: plus(1000).toISOString() });
    const ids = due.map((s) => s.sourceId);
    expect(ids).toContain('src-2');
    expect(ids).not.toContain('src-3');
  });

  it('SCH-5 / issue 28: the planner index holds no lease, the lease index lists it, readSourceStates whole items', async () => {
    const doc = bed.clients.doc;
    await acquireSyncLease(doc, table(), 'src-4', {
      runId: 'r4',
      kind: 'full',
      until: plus(60_000),
      now: t0,
      extra: { dueAt: t0.toISOString() },
    });
    const due = (await listSourceStates(doc, table(), { dueBefore: plus(1000).toISOString() })).find(
      (s) => s.sourceId === 'src-4',
    );
    expect(due?.dueAt).toBe(t0.toISOString());
    expect(due?.leaseRunId).toBeUndefined();
    const leased = (await listLeasedSourceStates(doc, table())).find((s) => s.sourceId === 'src-4');
    expect(leased).toMatchObject({ leaseKind: 'full', leaseUntil: plus(60_000).toISOString() });
    const whole = (await readSourceStates({ doc, table: table() })).find((s) => s.sourceId === 'src-4');
    expect(whole).toMatchObject({ leaseRunId: 'r4', leaseKind: 'full', dueAt: t0.toISOString() });
  });

  it('issue 28: while the new indexes are being built, the ones they replace answer (one table with only those)', async () => {
    const legacy = `${table()}-legacy`;
    await bed.clients.dynamo.send(
      new CreateTableCommand(
        createTableInput({ ...STATE_TABLE, globalIndexes: retiringIndexes(STATE_TABLE) }, legacy),
      ),
    );
    const doc = bed.clients.doc;
    await acquireSyncLease(doc, legacy, 'src-old', {
      runId: 'r',
      kind: 'incremental',
      until: plus(60_000),
      now: t0,
      extra: { dueAt: t0.toISOString() },
    });
    expect((await listSourceStates(doc, legacy)).map((s) => s.sourceId)).toEqual(['src-old']);
    expect((await listLeasedSourceStates(doc, legacy)).map((s) => s.sourceId)).toEqual(['src-old']);
    expect((await readSourceStates({ doc, table: legacy })).map((s) => s.leaseRunId)).toEqual(['r']);
  });
});
