import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeCouncil } from '../../demo';
import {
  type ChangeEvent,
  ChangeFeed,
  createFeedClients,
  destroyFeedClients,
  type FeedClients,
  fileSink,
  OUTBOX_DRAIN_INTERVAL_MS,
  OUTBOX_PARTITION,
} from '../../shared/changes';
import { resetEnvCache } from '../../shared/config';
import { apiObjectPath, type MirrorIndexEntry } from '../../shared/mirror';
import { listBodies } from '../../shared/onboarding';
import { purgeDeleted, type TakedownDeps, tombstoneIds } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { type AwsFaults, injectAwsFaults, untilCrashed } from '../support/aws-faults';
import { type Harness, syncedTwoBodyCouncil } from '../support/oparl-harness';

/**
 * Issue 16, OPT-3/OPT-5: a takedown's or a purge's change event survives the death of the process
 * between the commit and the feed's flush. The crash is real at the fault point: client middleware
 * around the real peer (dynalite) lets the commit land and freezes the instance before it hears back
 * (test/support/aws-faults `crashAfter`): nothing after the commit runs. The next process — fresh
 * clients and change feed, as the next CLI command, sync or planner tick builds them — drains the
 * outbox. The local sink is the JSON lines file a consumer tails.
 */
const T0 = Date.parse('2025-03-01T08:00:00Z');
const file = join(tmpdir(), `changes-crash-${process.pid}-${Date.now()}.jsonl`);
let bed: AwsTestbed;
let council: FakeCouncil;
let h: Harness;
const open: FeedClients[] = [];

beforeAll(async () => {
  bed = await startAwsTestbed({ INGESTOR_CHANGE_FILE: file });
  ({ council, h } = await syncedTwoBodyCouncil(bed, 'crash', T0, {
    objectsPerList: { paper: 4 },
    pageSize: 10,
  }));
  await bed.clients.changes?.flush();
}, 120_000);
afterAll(async () => {
  for (const clients of open) destroyFeedClients(clients);
  await council?.close();
  await bed?.stop();
  await rm(file, { force: true });
});

function deps(clients: FeedClients): TakedownDeps {
  return {
    clients,
    tables: {
      sources: bed.env.SOURCES_TABLE,
      state: bed.env.STATE_TABLE,
      documents: bed.env.DOCUMENTS_TABLE,
    },
    bucket: bed.env.BUCKET,
  };
}

/** A new process: its own clients and change feed, built as every entry point builds them. */
function process_(): { clients: FeedClients; faults: AwsFaults } {
  const clients = createFeedClients(bed.env);
  open.push(clients);
  return { clients, faults: injectAwsFaults(clients) };
}

/**
 * The next process's first flush (the next CLI command ends with one, as does every sync message): a
 * fresh feed looks into the outbox at once. The planner's tick drains the same way (planner test).
 */
async function nextDrain(): Promise<void> {
  const { clients } = process_();
  await clients.changes?.flush();
}

async function feed(): Promise<ChangeEvent[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ChangeEvent);
}

async function papers(): Promise<MirrorIndexEntry[]> {
  const out: MirrorIndexEntry[] = [];
  for await (const entry of h.mirror.listAll(h.source.sourceId, 'paper', { consistent: true }))
    out.push(entry);
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

async function bodySlugOf(entry: MirrorIndexEntry): Promise<string> {
  const rows = await listBodies(bed.clients.doc, deps(bed.clients).tables, entry.sourceId);
  const row = rows.find((r) => r.id === entry.bodyId);
  if (!row) throw new Error(`no body ${entry.bodyId}`);
  return row.slug;
}

const apiIdOf = (entry: MirrorIndexEntry) => apiObjectPath(entry.sourceId, entry.type, entry.id);
const kindsOf = (events: ChangeEvent[], apiId: string) =>
  events.filter((e) => e.apiId === apiId).map((e) => e.kind);

/** The index's mark on an object (the takedown committed). */
const isTakedownMark = (input: Record<string, unknown>) =>
  String(input.UpdateExpression ?? '').includes('takedown = :t');
/** The removal of a mirror index entry (the purge committed). */
const isIndexRemoval = (input: Record<string, unknown>) =>
  JSON.stringify(input.Key ?? {}).includes('MIRROR#');

describe('takedown and purge events survive a crash between commit and flush (issue 16, OPT-5, OPT-3)', () => {
  it('OPT-5: tombstone --ids dies right after the mark committed → the next process drains the `takendown` event', async () => {
    const [paper] = await papers();
    if (!paper) throw new Error('no paper mirrored');
    const doomed = process_();
    doomed.faults.crashAfter({ service: 'dynamodb', command: /UpdateItem/, when: isTakedownMark });
    await untilCrashed(doomed.faults, tombstoneIds(deps(doomed.clients), [paper.id], { by: 'test' }));
    // The mark is committed: the mirror says taken down …
    expect((await papers()).find((p) => p.id === paper.id)?.takedown).toBeDefined();
    expect(kindsOf(await feed(), apiIdOf(paper))).not.toContain('takendown');
    // … and the feed learns it from the next process, without the dead one.
    await nextDrain();
    expect(kindsOf(await feed(), apiIdOf(paper))).toEqual(['new', 'takendown']);
  });

  it('OPT-5: the operator repeats the takedown after the crash (a second delivery of the same takedown) → duplicates at most, never none', async () => {
    const [, paper] = await papers();
    if (!paper) throw new Error('no second paper');
    const doomed = process_();
    doomed.faults.crashAfter({ service: 'dynamodb', command: /UpdateItem/, when: isTakedownMark });
    await untilCrashed(doomed.faults, tombstoneIds(deps(doomed.clients), [paper.id], { by: 'test' }));
    // The operator repeats the command in a new process: the object is marked already (no new change);
    // the command's flush delivers the dead one's event, but removing it from the outbox fails (fault
    // injected by client middleware around the real peer) …
    const again = process_();
    const cleanup = again.faults.fail({
      service: 'dynamodb',
      command: /DeleteItem/,
      when: (input) => JSON.stringify(input.Key ?? {}).includes(OUTBOX_PARTITION),
      kind: 'server-error',
    });
    await tombstoneIds(deps(again.clients), [paper.id], { by: 'test' });
    expect(cleanup.hits).toBeGreaterThan(0);
    // … so the next drain delivers it a second time: a duplicate, never none.
    await nextDrain();
    expect(kindsOf(await feed(), apiIdOf(paper))).toEqual(['new', 'takendown', 'takendown']);
    // Every copy is the same change (one `at`): a consumer recognises the duplicate.
    const copies = (await feed()).filter((e) => e.apiId === apiIdOf(paper) && e.kind === 'takendown');
    expect(new Set(copies.map((e) => e.at)).size).toBe(1);
  });

  it('OPT-3: purge-deleted dies right after an index entry was removed → `purged` is delivered, and a resync revives nothing for a feed consumer', async () => {
    const before = await papers();
    const paper = before.find((p) => p.takedown === undefined);
    if (!paper) throw new Error('no live paper left');
    await tombstoneIds(deps(bed.clients), [paper.id], { by: 'test' });
    const body = await bodySlugOf(paper);
    const doomed = process_();
    doomed.faults.crashAfter({ service: 'dynamodb', command: /DeleteItem/, when: isIndexRemoval });
    await untilCrashed(doomed.faults, purgeDeleted(deps(doomed.clients), body, { yes: true }));
    expect((await feed()).filter((e) => e.kind === 'purged')).toEqual([]);
    // The next full sync of the council, which still publishes the paper (OPT-5: it stays down).
    const report = await h.sync('full');
    expect(report.complete).toBe(true);
    await bed.clients.changes?.flush();
    await nextDrain();
    const events = await feed();
    const purged = events.filter((e) => e.kind === 'purged').map((e) => e.apiId);
    expect(purged.length).toBeGreaterThanOrEqual(1);
    // A feed consumer's view: per object the latest change by `at` (duplicates and late ones fold in).
    const latest = new Map<string, ChangeEvent>();
    for (const e of events) {
      const seen = latest.get(e.apiId);
      if (!seen || e.at >= seen.at) latest.set(e.apiId, e);
    }
    for (const apiId of purged) expect(['purged', 'takendown']).toContain(latest.get(apiId)?.kind);
    expect(latest.get(apiIdOf(paper))?.kind).toMatch(/^(purged|takendown)$/);
    // No `new`/`modified` of a purged object after its takedown.
    for (const apiId of purged) {
      const kinds = kindsOf(events, apiId);
      const down = kinds.indexOf('takendown');
      expect(kinds.slice(down === -1 ? kinds.indexOf('purged') : down)).not.toContain('new');
      expect(kinds.slice(down === -1 ? kinds.indexOf('purged') : down)).not.toContain('modified');
    }
  });
});

describe('the planner tick drains the outbox while no sync runs (issue 16)', () => {
  afterAll(() => {
    vi.unstubAllEnvs();
    resetEnvCache();
  });

  it('a takedown whose command died after its commit reaches the feed at the next planner tick', async () => {
    const paper = (await papers()).find((p) => p.takedown === undefined);
    if (!paper) throw new Error('no live paper left');
    const doomed = process_();
    doomed.faults.crashAfter({ service: 'dynamodb', command: /UpdateItem/, when: isTakedownMark });
    await untilCrashed(doomed.faults, tombstoneIds(deps(doomed.clients), [paper.id], { by: 'test' }));
    expect(kindsOf(await feed(), apiIdOf(paper))).not.toContain('takendown');
    // The planner Lambda's handler, cold, on the deployment's environment (the feed a file here).
    for (const [name, value] of Object.entries(bed.peers.env)) vi.stubEnv(name, value);
    vi.stubEnv('INGESTOR_CHANGE_FILE', file);
    vi.stubEnv('SYNC_QUEUE_URL', bed.env.SYNC_QUEUE_URL ?? '');
    resetEnvCache();
    const { handler } = await import('../../functions/planner');
    await handler();
    expect(kindsOf(await feed(), apiIdOf(paper))).toEqual(['new', 'takendown']);
  });

  it('a warm feed looks into the outbox once per OUTBOX_DRAIN_INTERVAL_MS: one Query with a Limit, nothing in between', async () => {
    const { clients } = process_();
    const queries: Record<string, unknown>[] = [];
    clients.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') queries.push(args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'initialize', name: 'countOutboxQueries' },
    );
    let now = T0;
    const feed = new ChangeFeed({
      sink: fileSink(file),
      outbox: { doc: clients.doc, table: bed.env.STATE_TABLE },
      now: () => now,
    });
    await feed.drain();
    now += OUTBOX_DRAIN_INTERVAL_MS - 1;
    await feed.drain();
    expect(queries).toHaveLength(1);
    expect(queries[0]?.Limit).toBeGreaterThan(0);
    now += 1;
    await feed.drain();
    expect(queries).toHaveLength(2);
  });
});
