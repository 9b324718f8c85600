import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { writeChangeUnits } from '../../bench/cost/item-size';
import { initialScheduleState, markSyncStarted } from '../../shared/schedule';
import {
  dueIndexCopiesOf,
  indexCopiesOfUpdate,
  indexWriteUnits,
  type UpdateShape,
  updatedAttributes,
} from '../../shared/store/index-writes';
import {
  acquireSyncLease,
  claimSyncRun,
  patchSourceState,
  releaseSyncClaim,
  releaseSyncRun,
  requestManualSync,
} from '../../shared/store/source-state';
import { STATE_TABLE } from '../../shared/store/tables';
import { useAwsTestbed } from '../support/aws';

/**
 * Issue 28: what each kind of STATE write costs `byDueAt`, derived from the update's attribute names and
 * the index definition (shared/store index-writes.ts) — pinned per write kind, and checked against the
 * copies DynamoDB's rule gives on the item before and after the write (bench/cost item-size.ts, the
 * cost bench's meter) on the real local peer. The updates are taken off the real client by a
 * middleware (the peer is real; nothing is stubbed).
 */
describe('byDueAt writes per STATE write kind (issue 28)', () => {
  const index = { partitionKey: 'dueShard', sortKey: 'dueAt', include: ['schedule', 'leaseUntil'] };

  it('reads SET, if_not_exists, nested paths and REMOVE from an UpdateExpression', () => {
    expect(
      updatedAttributes({
        UpdateExpression:
          'SET #s = if_not_exists(#s, :i), sourceId = :sid, #s.#r = :req, dueAt = if_not_exists(dueAt, :e) REMOVE a, #b',
        ExpressionAttributeNames: { '#s': 'schedule', '#r': 'mr', '#b': 'leaseHolder' },
      }),
    ).toEqual({
      set: ['sourceId', 'schedule'],
      setIfAbsent: ['schedule', 'dueAt'],
      remove: ['a', 'leaseHolder'],
    });
    // Keywords stand alone: a value named `:set` or an attribute `deleted` is not a clause.
    expect(updatedAttributes({ UpdateExpression: 'SET deleted = :set ADD n :add' })).toEqual({
      set: ['deleted', 'n'],
      setIfAbsent: [],
      remove: [],
    });
  });

  it('0, 1 or 2 by the rule: key moved 2, key removed or added 1, projected 1, else 0', () => {
    const copies = (UpdateExpression: string, inIndex = true) =>
      indexCopiesOfUpdate({ UpdateExpression }, index, { inIndex, unchanging: ['dueShard'] });
    expect(copies('SET dueAt = :d')).toBe(2);
    expect(copies('REMOVE dueAt')).toBe(1);
    expect(copies('SET dueAt = :d', false)).toBe(1);
    expect(copies('SET leaseUntil = :u')).toBe(1);
    expect(copies('REMOVE leaseUntil')).toBe(1);
    expect(copies('SET leaseHolder = :h, leaseStep = :s')).toBe(0);
    expect(copies('SET dueShard = :shard, other = :o')).toBe(0);
    expect(copies('SET other = :o', false)).toBe(0);
    expect(copies('SET dueAt = if_not_exists(dueAt, :e)')).toBe(0);
    // Size-rounded on the projected entry: two copies of a 1.5 KB entry are four units.
    expect(indexWriteUnits(2, 1536)).toBe(4);
    expect(indexWriteUnits(1, 200)).toBe(1);
    expect(indexWriteUnits(0, 900)).toBe(0);
  });

  const bed = useAwsTestbed();
  const table = () => bed.env.STATE_TABLE;
  const t0 = new Date('2026-12-09T08:00:00Z');
  const plus = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
  type Item = NonNullable<Parameters<typeof writeChangeUnits>[0]>;

  it('SCH-5 / SCH-7 / ERR-4: each write kind of a run and around it, derived = measured = pinned; the claim guards and writes no copy', async () => {
    const sourceId = 'src-index-writes';
    const doc = bed.clients.doc;
    const ctx = { doc, table: table() };
    const updates: UpdateShape[] = [];
    bed.clients.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        // The document client's commands reach this stack as `UpdateCommand`, their keys plain.
        const input = args.input as UpdateShape & { Key?: { sk?: unknown } };
        const sk = input.Key?.sk;
        const isState = sk === 'STATE' || (sk as { S?: string } | undefined)?.S === 'STATE';
        if (/^Update(Item)?Command$/.test(context.commandName ?? '') && isState) updates.push(input);
        return next(args);
      },
      { step: 'initialize', name: 'captureStateUpdates' },
    );
    const raw = async (): Promise<Item | undefined> =>
      (
        await bed.clients.dynamo.send(
          new GetItemCommand({
            TableName: table(),
            Key: { pk: { S: `SOURCE#${sourceId}` }, sk: { S: 'STATE' } },
            ConsistentRead: true,
          }),
        )
      ).Item as Item | undefined;
    const rows: Record<string, { derived: number[]; measured: number }> = {};
    // A write that answers whether it held must hold here (patches and requests answer nothing).
    const step = async (kind: string, write: () => Promise<unknown>) => {
      const before = await raw();
      const from = updates.length;
      expect(await write()).not.toBe(false);
      const after = await raw();
      const inIndex = before?.dueShard !== undefined && before?.dueAt !== undefined;
      // Each update of the step against the item as it was before it (one write per step but the
      // operator's request, whose first write changes nothing on an item that exists).
      const derived = updates.slice(from).map((u) => dueIndexCopiesOf(u, inIndex));
      rows[kind] = { derived, measured: writeChangeUnits(before, after, STATE_TABLE).indexes.byDueAt ?? 0 };
    };
    const run = { runId: 'r1', step: 0, holder: 'h1' };
    await step('planner: a new source made due', () =>
      patchSourceState(
        ctx,
        sourceId,
        { dueAt: t0.toISOString(), lastValidPace: { host: 'x', requestIntervalSeconds: 1 } },
        ['configProblems'],
      ),
    );
    await step('planner: a wait', () =>
      patchSourceState(ctx, sourceId, {
        dueAt: plus(1).toISOString(),
        lastDecision: { action: 'wait', reason: 'cadence', decidedAt: t0.toISOString() },
      }),
    );
    await step('lease (planner, due as read)', () =>
      acquireSyncLease(doc, table(), sourceId, {
        runId: 'r1',
        kind: 'incremental',
        until: plus(27),
        now: plus(2),
        dueBy: plus(1),
        extra: {
          schedule: markSyncStarted(initialScheduleState(), { kind: 'incremental' }, plus(2).toISOString()),
          lastDecision: {
            action: 'sync',
            kind: 'incremental',
            reason: 'due',
            decidedAt: plus(2).toISOString(),
          },
        },
      }),
    );
    await step('claim (keeps the lease)', () =>
      claimSyncRun(doc, table(), sourceId, {
        ...run,
        heldUntil: plus(17),
        leaseUntil: plus(27),
        now: plus(2),
        keepLease: true,
      }),
    );
    // The guard: a duplicate delivery of the same message is refused and changes nothing.
    const claimedItem = await raw();
    expect(
      await claimSyncRun(doc, table(), sourceId, {
        ...run,
        holder: 'twin',
        heldUntil: plus(18),
        leaseUntil: plus(28),
        now: plus(3),
        keepLease: true,
      }),
    ).toBe(false);
    expect(await raw()).toEqual(claimedItem);
    await step('claim given back (store outage, ERR-4)', () => releaseSyncClaim(ctx, sourceId, run));
    await step('claim (renews the lease)', () =>
      claimSyncRun(doc, table(), sourceId, {
        ...run,
        heldUntil: plus(40),
        leaseUntil: plus(45),
        now: plus(4),
      }),
    );
    await step('hand-over to a continuation', () => releaseSyncClaim(ctx, sourceId, run, 1));
    const next = { ...run, step: 1, holder: 'h2' };
    await step('claim (continuation, renews)', () =>
      claimSyncRun(doc, table(), sourceId, {
        ...next,
        heldUntil: plus(60),
        leaseUntil: plus(70),
        now: plus(20),
      }),
    );
    await step('sync: config problems', () =>
      patchSourceState(ctx, sourceId, { configProblems: [{ field: 'x', message: 'y' }] }),
    );
    await step('release with the next wait', () =>
      releaseSyncRun(ctx, sourceId, {
        run: next,
        patch: { schedule: initialScheduleState(), dueAt: plus(90).toISOString() },
      }),
    );
    await step('operator: a sync requested (SCH-7)', () =>
      requestManualSync(
        ctx,
        sourceId,
        { kind: 'sync', requestedAt: plus(91).toISOString() },
        initialScheduleState(),
      ),
    );
    await step('lease (CLI, no due time read)', () =>
      acquireSyncLease(doc, table(), sourceId, {
        runId: 'r2',
        kind: 'full',
        until: plus(120),
        now: plus(95),
      }),
    );
    await step('release, due again at once', () =>
      releaseSyncRun(ctx, sourceId, { run: 'r2', patch: { dueAt: plus(100).toISOString() } }),
    );
    expect(rows).toEqual({
      'planner: a new source made due': { derived: [1], measured: 1 },
      'planner: a wait': { derived: [2], measured: 2 },
      'lease (planner, due as read)': { derived: [1], measured: 1 },
      'claim (keeps the lease)': { derived: [0], measured: 0 },
      'claim given back (store outage, ERR-4)': { derived: [0], measured: 0 },
      'claim (renews the lease)': { derived: [1], measured: 1 },
      'hand-over to a continuation': { derived: [0], measured: 0 },
      'claim (continuation, renews)': { derived: [1], measured: 1 },
      'sync: config problems': { derived: [1], measured: 1 },
      'release with the next wait': { derived: [2], measured: 2 },
      'operator: a sync requested (SCH-7)': { derived: [0, 2], measured: 2 },
      'lease (CLI, no due time read)': { derived: [2], measured: 2 },
      'release, due again at once': { derived: [2], measured: 2 },
    });
  });
});
