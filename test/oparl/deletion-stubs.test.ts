import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../shared/changes';
import { MirrorStore } from '../../shared/mirror';
import type { SourceScheduleState } from '../../shared/schedule/types';
import { getSourceState } from '../../shared/store/source-state';
import { processSyncBody } from '../../shared/sync/batch';
import type { SyncRunResult } from '../../shared/sync/run';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { json, type MiniCouncil, oneBodySystem, startMiniCouncil } from '../support/mini-council';
import { loopbackFetcher } from '../support/oparl-harness';
import { deliver, NOW, oparlTestEngine, plan, runDepsOf } from '../support/sync-bed';
import { putActiveSource } from '../support/sync-runtime';

/**
 * Issue 26 point 2 (SCH-3, OPT-2): OParl 1.1 lists filtered by `modified_since` carry `deleted: true`
 * stubs — also of objects this mirror never held (deleted before we first looked, or never listed to
 * us, e.g. our own API after a takedown). Such a stub is no change: no tombstone, no `deleted` event on
 * the change feed, no `changed` run that resets SCH-3's quiet doubling. Nor is a stub of an object we
 * already hold as a tombstone. A stub of an object we hold live still is a deletion.
 *
 * Real peers throughout: a loopback OParl server, the planner tick and the sync message through the
 * real queue (fauxqs), the sync run with its schedule update on the State table (dynalite), the mirror
 * on s3rver, and the change feed as the local file sink writes it.
 */

const MIN = 60_000;
const FEED = join(tmpdir(), `deletion-stubs-feed-${process.pid}.ndjson`);
const SOURCE = 'deletion-stubs';

describe('SCH-3 / OPT-2: deletion stubs of objects the mirror does not hold live are no change', () => {
  let bed: AwsTestbed;
  let council: MiniCouncil;
  /** Papers the council publishes live. */
  const live = new Set(['1', '2']);
  /** Papers deleted at the source, and when: filtered lists show their stubs. 999 we never held. */
  const deletedAt = new Map<string, number>();

  const paper = (base: string, n: string) => ({
    id: `${base}/oparl/paper/${n}`,
    type: 'https://schema.oparl.org/1.1/Paper',
    name: `Antrag ${n}`,
    modified: new Date(NOW.getTime() - 60 * MIN).toISOString(),
  });
  /** A stub as OParl 1.1 prescribes it: id, type, deleted, modified (the deletion). */
  const stub = (base: string, n: string, at: number) => ({
    id: `${base}/oparl/paper/${n}`,
    type: 'https://schema.oparl.org/1.1/Paper',
    modified: new Date(at).toISOString(),
    deleted: true,
  });
  const deleteAtSource = (n: string, at: number) => {
    live.delete(n);
    deletedAt.set(n, at);
  };

  beforeAll(async () => {
    await rm(FEED, { force: true });
    bed = await startAwsTestbed({ INGESTOR_CHANGE_FILE: FEED });
    council = await startMiniCouncil(
      oneBodySystem((list, url, base) => {
        if (list !== 'paper') return undefined;
        // Live papers, and in filtered lists the stubs of deleted ones (OParl 1.1, Filter).
        const since = Date.parse(url.searchParams.get('modified_since') ?? '');
        const items = [
          ...[...live].map((n) => paper(base, n)),
          ...(Number.isNaN(since) ? [] : [...deletedAt].map(([n, at]) => stub(base, n, at))),
        ];
        const inWindow = items.filter((o) => Number.isNaN(since) || Date.parse(o.modified) >= since);
        return json({ data: inWindow, links: {} });
      }),
    );
    await putActiveSource(bed, SOURCE, council.systemUrl);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([bed?.stop(), council?.close()]);
    await rm(FEED, { force: true });
  });

  /** One planner tick at `at` and the sync run it starts, as the sync function does it. */
  async function syncAt(at: Date): Promise<{ result: SyncRunResult; schedule: SourceScheduleState }> {
    const tick = await plan(bed, at);
    expect(tick.started.map((s) => s.sourceId)).toEqual([SOURCE]);
    const record = await deliver(bed, SOURCE);
    const now = () => at;
    const deps = { runDeps: runDepsOf(bed, oparlTestEngine(bed, loopbackFetcher(), now), now) };
    const result = await processSyncBody(deps, record.body, 15 * MIN);
    await bed.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: bed.queues.syncQueueUrl, ReceiptHandle: record.receiptHandle }),
    );
    await bed.clients.changes?.flush();
    const state = await getSourceState<SourceScheduleState>(bed.clients.doc, bed.env.STATE_TABLE, SOURCE);
    if (state?.schedule === undefined) throw new Error('no schedule state after the run');
    return { result, schedule: state.schedule };
  }

  async function feed(): Promise<Pick<ChangeEvent, 'kind' | 'originId'>[]> {
    const text = await readFile(FEED, 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as ChangeEvent)
      .map(({ kind, originId }) => ({ kind, originId }));
  }

  it('stubs of never-held objects, run after run, change nothing; a real deletion counts once; its stub again is quiet', async () => {
    const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
    const url = (n: string) => `${council.base}/oparl/paper/${n}`;
    const at = (minutes: number) => new Date(NOW.getTime() + minutes * MIN);
    const paperEvents = async () =>
      (await feed())
        .filter((e) => e.originId.includes('/paper/'))
        // By object; the file's order (commit order) within one object (the sort is stable).
        .sort((a, b) => a.originId.localeCompare(b.originId));

    // 999 was deleted at the source before we first looked: its stub is in the first run's window.
    deletedAt.set('999', at(-5).getTime());
    // The first run (an incremental from the start of the day, SCH-9) takes papers 1 and 2.
    const first = await syncAt(NOW);
    expect(first.result).toMatchObject({
      status: 'done',
      // System, body and the two papers are new; the stub of 999 is nothing.
      report: { objects: { new: 4, modified: 0, deleted: 0 } },
    });
    expect(await paperEvents()).toEqual([
      { kind: 'new', originId: url('1') },
      { kind: 'new', originId: url('2') },
    ]);

    // 998, never listed to us live, is deleted after our run (a takedown at our own API looks so).
    deletedAt.set('998', at(5).getTime());
    // Incrementals with only never-held stubs in the window: no change, the quiet streak grows.
    let streak = first.schedule.quietStreak;
    for (const minutes of [11, 22]) {
      const run = await syncAt(at(minutes));
      expect(run.result).toMatchObject({
        status: 'done',
        report: { kind: 'incremental', changed: false, objects: { new: 0, modified: 0, deleted: 0 } },
      });
      expect(run.schedule).toMatchObject({ lastSyncChanged: false, quietStreak: streak + 1 });
      streak = run.schedule.quietStreak;
    }
    const filtered = council.requests.filter((r) => r.includes('/paper?') && r.includes('modified_since'));
    expect(filtered.length).toBeGreaterThanOrEqual(3);
    for (const n of ['998', '999']) expect(await mirror.read(SOURCE, 'paper', url(n))).toBeUndefined();
    expect(await paperEvents()).toEqual([
      { kind: 'new', originId: url('1') },
      { kind: 'new', originId: url('2') },
    ]);

    // Paper 2, which we hold, is deleted at the source: its stub is a change, once.
    deleteAtSource('2', at(25).getTime());
    const deletion = await syncAt(at(33));
    expect(deletion.result).toMatchObject({
      status: 'done',
      report: { kind: 'incremental', changed: true, objects: { new: 0, modified: 0, deleted: 1 } },
    });
    expect(deletion.schedule).toMatchObject({ lastSyncChanged: true, quietStreak: 0 });
    expect((await mirror.read(SOURCE, 'paper', url('2')))?.meta.deleted).toBe(true);
    const withDeletion = [
      { kind: 'new', originId: url('1') },
      { kind: 'new', originId: url('2') },
      { kind: 'deleted', originId: url('2') },
    ];
    expect(await paperEvents()).toEqual(withDeletion);

    // Its stub again (with 998's and 999's): the tombstone stands, nothing changed.
    const again = await syncAt(at(44));
    expect(again.result).toMatchObject({
      status: 'done',
      report: { kind: 'incremental', changed: false, objects: { new: 0, modified: 0, deleted: 0 } },
    });
    expect(again.schedule).toMatchObject({ lastSyncChanged: false, quietStreak: 1 });
    expect(await paperEvents()).toEqual(withDeletion);
    expect((await mirror.read(SOURCE, 'paper', url('2')))?.meta.lastGood).toMatchObject({ name: 'Antrag 2' });
  });
});
