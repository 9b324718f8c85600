import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { CursorConflictError, SyncStateStore } from '../../shared/engine';
import { BodyRecords } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';

/**
 * Issue 28's partition snapshot (`preloadSyncState`: the run's `BODY#` … `SESSION#` items in one Query)
 * against the other writers of that range, interleaved step by step on the real local DynamoDB — each
 * outside write lands after the run's snapshot and before the run's own write of the same item. What
 * the snapshot can lose is a write made by someone else meanwhile; none is lost, because every write of
 * the run into the range names only its own attributes (a body's refresh, a session day), is
 * conditional (create-if-absent, forward-only, the cursor's `seq`), or is an item only the lease
 * holder writes (System, list marks, run reports). Tombstones (OPT-2) are not in the range at all: they
 * live in the mirror's partitions and S3, written by conditional commits (shared/mirror).
 */

const bed = useAwsTestbed();
let counter = 0;
const sourceId = () => `snapshot-writers-${++counter}`;
const T = '2026-12-03T09:00:00.000Z';
const LATER = '2026-12-03T09:10:00.000Z';

function store(id: string): SyncStateStore {
  return new SyncStateStore(bed.clients, bed.env.STATE_TABLE, id);
}

async function stored(id: string, sk: string): Promise<Record<string, unknown> | undefined> {
  const out = await bed.clients.doc.send(
    new GetCommand({ TableName: bed.env.STATE_TABLE, Key: { pk: `SOURCE#${id}`, sk }, ConsistentRead: true }),
  );
  return out.Item;
}

const fields = (name: string, lastSeenAt: string) => ({
  bodyKey: 'b1',
  id: 'https://council.test/oparl/v1/body/1',
  name,
  lists: { paper: 'https://council.test/oparl/v1/body/1/paper' },
  lastSeenAt,
});

describe('issue 28: the partition snapshot and the other writers of its items', () => {
  it('ONB-4 / OPT-2: an operator’s listing and a takedown’s mark written after the snapshot survive the run’s refresh and SCH-9 advance of the body', async () => {
    const id = sourceId();
    await store(id).upsertBody(fields('Rat', T), 'rat');
    const run = store(id);
    await run.preload();
    const operator = new BodyRecords({ doc: bed.clients.doc, table: bed.env.STATE_TABLE });
    await operator.setListed(id, 'b1', { listed: true, at: T, by: 'op' });
    await operator.markTakenDown(id, 'b1', { at: T, by: 'op' });

    // The run renames the body (its refresh) and notes its complete sync — after both outside writes.
    const refreshed = await run.upsertBody(fields('Rat der Stadt', LATER), 'rat');
    await run.markBodyComplete('b1', LATER, true);

    expect(refreshed).toMatchObject({ name: 'Rat der Stadt', listed: false, takedown: { by: 'op' } });
    expect(await stored(id, 'BODY#b1')).toMatchObject({
      name: 'Rat der Stadt',
      listed: false,
      listedChangedBy: 'op',
      takedown: { at: T, by: 'op' },
      lastCompleteSyncStart: LATER,
      lastCompleteFullSyncStart: LATER,
    });
  });

  it('SCH-5: a second instance of the run (a duplicate delivery past its lease) that writes the cursor after this one’s snapshot makes this one’s cursor write fail, never overwrites it', async () => {
    const id = sourceId();
    await store(id).putCursor({ kind: 'incremental', seq: 1 }, undefined);
    const first = store(id);
    const second = store(id);
    await first.preload();
    await second.preload();
    expect(await first.getCursor('incremental')).toMatchObject({ seq: 1 });
    await second.putCursor({ kind: 'incremental', seq: 2, by: 'second' } as never, 1);

    // `first` still reads seq 1 from its snapshot; its write is refused, the second's cursor stays.
    const seen = (await first.getCursor<{ kind: string; seq: number }>('incremental'))?.seq as number;
    await expect(first.putCursor({ kind: 'incremental', seq: seen + 1 }, seen)).rejects.toBeInstanceOf(
      CursorConflictError,
    );
    expect(await store(id).getCursor('incremental')).toMatchObject({ seq: 2, by: 'second' });
  });

  it('SCH-2: a session day written after the snapshot is kept when the run prunes past days from its snapshot', async () => {
    const id = sourceId();
    await store(id).setMeetingDay('b1', 'past', '2026-11-01');
    const run = store(id);
    await run.preload();
    await store(id).setMeetingDay('b1', 'late', '2026-12-20');

    // From the snapshot: the late day is not seen by this run (it counts from the next invocation) …
    expect(await run.upcomingSessionDays('2026-12-03')).toEqual([]);
    // … and the pruning names only the past meeting: the late one stays.
    expect(await stored(id, 'SESSION#b1')).toEqual({
      pk: `SOURCE#${id}`,
      sk: 'SESSION#b1',
      bodyKey: 'b1',
      m_late: '2026-12-20',
    });
    expect(await store(id).upcomingSessionDays('2026-12-03')).toEqual(['2026-12-20']);
  });

  it('a read of an item the run has written since its snapshot goes to the table: the run never acts on its own stale copy', async () => {
    const id = sourceId();
    await store(id).upsertBody(fields('Rat', T), 'rat');
    const run = store(id);
    await run.preload();
    await new BodyRecords({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }).setListed(id, 'b1', {
      listed: true,
      at: T,
      by: 'op',
    });
    // As of the snapshot until the run writes the body (the operator's change counts from the next
    // invocation, as the body cache of a run always did) …
    expect((await run.getBody('b1'))?.listed).toBe(false);
    await run.markBodyComplete('b1', LATER, false);
    // … then from the table.
    expect(await run.getBody('b1')).toMatchObject({ listed: true, lastCompleteSyncStart: LATER });
  });
});
