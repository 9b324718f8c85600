import { describe, expect, it } from 'vitest';
import { bodiesCommand } from '../../cli/commands/bodies';
import { liftCommand, tombstoneCommand } from '../../cli/commands/takedown';
import type { LocalRuntime } from '../../cli/local/runtime';
import { embeddedObjects, isRecord } from '../../shared/engine';
import { apiIdHash, mirrorKey } from '../../shared/mirror';
import { listBodies, setBodyListed } from '../../shared/onboarding';
import type { OParlFetcher } from '../../shared/oparl/ports';
import {
  liftTakedown,
  purgeDeleted,
  type TakedownMeta,
  TakedownRegistry,
  tombstoneBody,
  tombstoneIds,
} from '../../shared/takedown';
import { getJson, serveApi, stopServer } from '../support/mirror-api';
import { SimulatedCrash } from '../support/oparl-harness';
import {
  beforeFirstWriteTo,
  documentsOf,
  indexEntries,
  killedAfterRecorded,
  liveEntries,
  type SeededSource,
  seededTestbed,
} from '../support/takedown';

/**
 * OPT-5: a takedown is permanent until an operator lifts it — through a purge, later syncs, a
 * redelivered sync message, a `tombstone` killed half-way, and a takedown issued while a sync runs.
 * Real peers: dynalite, s3rver, the fake council on loopback, the real sync engine.
 */

/** A paper of the body with embedded files: its id, its files' ids, every embedded object's id. */
async function paperWithFiles(
  s: SeededSource,
  bodyId: string,
): Promise<{ id: string; files: string[]; embedded: string[] }> {
  for (const e of await liveEntries(s.h, bodyId)) {
    if (e.type !== 'paper') continue;
    const record = await s.h.mirror.read(s.sourceId, 'paper', e.id);
    const object = record?.object;
    const embedded = isRecord(object) ? embeddedObjects(object) : [];
    const files = embedded.filter((c) => c.type === 'file').map((c) => c.id);
    if (files.length > 0) return { id: e.id, files, embedded: embedded.map((c) => c.id) };
  }
  throw new Error('no paper with files');
}

/** The harness's port with an awaited hook after a matching page was fetched, before it is written. */
function hookedFetcher(
  inner: OParlFetcher,
  match: (url: string) => boolean,
  hook: () => Promise<void>,
): OParlFetcher & { fired: number } {
  const port = {
    fired: 0,
    async get(url: string, options: Parameters<OParlFetcher['get']>[1]) {
      const res = await inner.get(url, options);
      if (port.fired === 0 && match(url)) {
        port.fired += 1;
        await hook();
      }
      return res;
    },
  };
  return port;
}

describe('OPT-5: a takedown is permanent until an operator lifts it (OParl sync)', () => {
  const t = seededTestbed();
  const seed = (prefix: string) => t.seed(prefix);

  it('OPT-5: tombstone --ids, purge-deleted --yes, then a full sync: the paper and its files stay gone', async () => {
    const { s, koeln } = await seed('perm-ids');
    const paper = await paperWithFiles(s, koeln.id);
    const liveBefore = (await liveEntries(s.h)).length;
    const taken = await tombstoneIds(s.deps, [paper.id], { by: 'test', sourceId: s.sourceId });
    const gone = Object.values(taken.tombstoned).reduce((a, b) => a + b, 0);
    await purgeDeleted(s.deps, 'koeln', { sourceId: s.sourceId, yes: true });
    // The purge really removed the mirror copy and its index entry (the old memory of the takedown).
    expect(await s.h.mirror.read(s.sourceId, 'paper', paper.id)).toBeUndefined();

    // The council still publishes the paper and its files; a full sync reads every list again.
    const report = await s.h.sync('full');

    expect(report.complete).toBe(true);
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paper.id)).toBeUndefined();
    const live = (await liveEntries(s.h)).map((e) => e.id);
    expect(live).not.toContain(paper.id);
    for (const f of paper.files) expect(live).not.toContain(f);
    expect(live.length).toBe(liveBefore - gone);
    // Its files are not recorded again, so no document function fetches them.
    const docs = await documentsOf(t.bed, s.sourceId);
    expect(docs.filter((d) => paper.files.includes(String(d.fileId)))).toEqual([]);
  });

  it('OPT-5: tombstone --body, purge, then full syncs — also when the body list cannot be read — bring nothing of the body back', async () => {
    const { s, koeln } = await seed('perm-body');
    await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    await purgeDeleted(s.deps, 'koeln', { sourceId: s.sourceId, yes: true });
    expect(await indexEntries(s.h, koeln.id)).toEqual([]);
    const koelnPath = new URL(koeln.id).pathname;

    s.council.clearRequests();
    const first = await s.h.sync('full');
    // The body list refused (403): the sync falls back to the bodies it knows (SCH-8).
    s.council.setFault(new URL(s.council.bodyListUrl).pathname, { kind: 'status', status: 403 });
    const second = await s.h.sync('full');
    s.council.clearFaults();

    expect(first.complete).toBe(true);
    expect(second.lists.length).toBeGreaterThan(0);
    expect(await liveEntries(s.h, koeln.id)).toEqual([]);
    expect(await indexEntries(s.h, koeln.id)).toEqual([]);
    expect(s.council.requests.filter((r) => r.path.startsWith(`${koelnPath}/`))).toEqual([]);
    expect(await documentsOf(t.bed, s.sourceId, koeln.id)).toEqual([]);
  });

  it('OPT-5: purge-deleted keeps the takedown registry; only `takedown lift` ends it, and then the next sync restores the paper', async () => {
    const { s, koeln } = await seed('perm-lift');
    const paper = await paperWithFiles(s, koeln.id);
    await tombstoneIds(s.deps, [paper.id], { by: 'test', sourceId: s.sourceId, note: 'Anfrage' });
    const registry = new TakedownRegistry(t.bed.clients.doc, t.bed.env.STATE_TABLE);
    const before = await registry.items(s.sourceId);
    await purgeDeleted(s.deps, 'koeln', { sourceId: s.sourceId, yes: true });
    expect(await registry.items(s.sourceId)).toEqual(before);
    expect(before.map((i) => i.id).sort()).toEqual([paper.id, ...paper.embedded].sort());
    expect(before[0]?.mark).toMatchObject({ by: 'test', note: 'Anfrage' });

    const logged: string[] = [];
    const lifted = await liftTakedown(
      s.deps,
      { ids: [paper.id, ...paper.embedded], sourceId: s.sourceId, by: 'test' },
      (event) => logged.push(event),
    );
    expect(lifted.lifted).toBe(before.length);
    expect(logged).toContain('TAKEDOWN LIFTED');
    expect(await registry.items(s.sourceId)).toEqual([]);
    await s.h.sync('full');
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paper.id)).toBeDefined();
  });

  it('OPT-5: `takedown lift --body` ends a body takedown: the next sync mirrors the body again', async () => {
    const { s, koeln } = await seed('perm-lift-body');
    const before = (await liveEntries(s.h, koeln.id)).length;
    await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    await s.h.sync('full');
    expect(await liveEntries(s.h, koeln.id)).toEqual([]);

    const lifted = await liftTakedown(
      s.deps,
      { body: 'koeln', sourceId: s.sourceId, by: 'test' },
      () => undefined,
    );
    await s.h.sync('full');

    expect(lifted.lifted).toBe(1);
    expect((await liveEntries(s.h, koeln.id)).length).toBe(before);
  });

  it('OPT-5: a takedown issued while a sync of the source runs wins over that sync’s later writes (changed paper)', async () => {
    const { s } = await seed('perm-race');
    // The council changes paper 1 of body 1: the next sync will write it.
    const [paperId] = s.council.mutate({ op: 'update', body: 1, list: 'paper', n: 1, set: { name: 'Neu' } });
    if (!paperId) throw new Error('no paper');
    let takedown: Awaited<ReturnType<typeof tombstoneIds>> | undefined;
    // The moment the sync sends its live copy of the paper — after it read the index, before its
    // commit — an operator takes it down, all steps complete; the sync's write lands on the tombstone.
    const { fired } = await beforeFirstWriteTo(
      t.bed,
      mirrorKey(s.sourceId, 'paper', paperId),
      async () => {
        takedown = await tombstoneIds(s.deps, [paperId], { by: 'race', sourceId: s.sourceId });
      },
      () => s.h.sync('incremental'),
      (input, command) => command === 'PutObjectCommand' && input.Metadata?.takedown === undefined,
    );

    expect(fired).toBe(1);
    expect(takedown?.tombstoned.paper).toBe(1);
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paperId)).toBeUndefined();
    const record = await s.h.mirror.read(s.sourceId, 'paper', paperId);
    const meta = record?.meta as TakedownMeta | undefined;
    expect(meta?.takedown).toMatchObject({ by: 'race' });
    expect(meta?.lastGood).toMatchObject({ name: 'Neu' });
    expect((await liveEntries(s.h)).map((e) => e.id)).not.toContain(paperId);
    // A later sync leaves it so.
    await s.h.sync('full');
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paperId)).toBeUndefined();
  });

  it('OPT-5: a takedown of a paper the running sync is about to mirror for the first time wins too', async () => {
    const { s } = await seed('perm-race-new');
    const [paperId] = s.council.mutate({ op: 'add', body: 1, list: 'paper', set: { name: 'Ganz neu' } });
    if (!paperId) throw new Error('no paper');
    const paperList = s.council.listUrl('paper', 1);
    let takedown: Awaited<ReturnType<typeof tombstoneIds>> | undefined;
    const port = hookedFetcher(
      s.h.deps.fetcher,
      (url) => url.startsWith(paperList),
      async () => {
        takedown = await tombstoneIds(s.deps, [paperId], { by: 'race', sourceId: s.sourceId });
      },
    );
    s.h.deps.fetcher = port;

    await s.h.sync('incremental');

    expect(port.fired).toBe(1);
    // Not in the mirror yet when the operator acted: recorded in the registry all the same.
    expect(takedown?.notFound).toEqual([paperId]);
    expect(takedown?.registered).toEqual([paperId]);
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paperId)).toBeUndefined();
    expect((await liveEntries(s.h)).map((e) => e.id)).not.toContain(paperId);
  });

  it('OPT-5: tombstone killed after writing the takedown item: the next sync does not revive (it seals), re-running completes', async () => {
    const { s, koeln } = await seed('perm-crash');
    const paper = await paperWithFiles(s, koeln.id);
    await killedAfterRecorded((afterRecorded) =>
      tombstoneIds(s.deps, [paper.id], { by: 'test', sourceId: s.sourceId, afterRecorded }),
    );
    // The council changes the paper: the sync would write it.
    s.council.mutate({ id: paper.id, op: 'update', set: { name: 'Geändert' } });

    await s.h.sync('full');

    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paper.id)).toBeUndefined();
    const live = (await liveEntries(s.h)).map((e) => e.id);
    expect(live).not.toContain(paper.id);
    for (const f of paper.files) expect(live).not.toContain(f);
    // Re-running the command completes the rest (the Documents flags) and is harmless.
    const again = await tombstoneIds(s.deps, [paper.id], { by: 'test', sourceId: s.sourceId });
    expect(again.notFound).toEqual([]);
    const docs = (await documentsOf(t.bed, s.sourceId)).filter((d) => paper.files.includes(String(d.fileId)));
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.every((d) => typeof d.takedownAt === 'string')).toBe(true);
  });

  it('OPT-5: tombstone --body killed after writing the takedown item: the next sync fetches nothing of the body, re-running completes', async () => {
    const { s, koeln } = await seed('perm-crash-body');
    await killedAfterRecorded((afterRecorded) =>
      tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId, afterRecorded }),
    );
    s.council.mutate({ op: 'update', body: 1, list: 'paper', n: 1, set: { name: 'Geändert' } });
    const koelnPath = new URL(koeln.id).pathname;
    s.council.clearRequests();

    await s.h.sync('full');

    expect(s.council.requests.filter((r) => r.path.startsWith(`${koelnPath}/`))).toEqual([]);
    const again = await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    expect(Object.values(again.tombstoned).reduce((a, b) => a + b, 0)).toBeGreaterThan(10);
    expect(await liveEntries(s.h, koeln.id)).toEqual([]);
    const docs = await documentsOf(t.bed, s.sourceId, koeln.id);
    expect(docs.every((d) => typeof d.takedownAt === 'string')).toBe(true);
  });

  it('OPT-5: tombstone --body killed after writing the takedown item: the OParl API stops serving the body at once — not listed, not by id, none of its lists or objects — although its record still says listed', async () => {
    const { s, koeln } = await seed('perm-crash-body-api');
    await setBodyListed(t.bed.clients.doc, s.deps.tables, 'koeln', {
      listed: true,
      sourceId: s.sourceId,
      by: 'test',
    });
    const paper = (await liveEntries(s.h, koeln.id)).find((e) => e.type === 'paper');
    if (!paper) throw new Error('no paper');
    const api = await serveApi(t.bed);
    try {
      const base = `${api.base}/oparl/v1/${s.sourceId}`;
      const urls = {
        body: `${base}/body/${apiIdHash(koeln.id)}`,
        papers: `${base}/body/${apiIdHash(koeln.id)}/paper`,
        paper: `${base}/paper/${apiIdHash(paper.id)}`,
      };
      const bodyIds = async () => {
        const system = await getJson(`${api.base}/oparl/v1/system`);
        const list = await getJson(String(system.json.body));
        return (list.json.data as { id: string }[]).map((b) => b.id);
      };
      // Served before: the checks below can fail.
      expect(await bodyIds()).toContain(urls.body);
      for (const url of Object.values(urls)) expect((await getJson(url)).status, url).toBe(200);

      await killedAfterRecorded((afterRecorded) =>
        tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId, afterRecorded }),
      );
      await s.h.sync('full');
      // The kill left the record as it was: only the registry knows.
      const record = (await listBodies(t.bed.clients.doc, s.deps.tables, s.sourceId)).find(
        (b) => b.slug === 'koeln',
      );
      expect(record?.listed).toBe(true);
      // Nor can an operator list it again by accident: `bodies list` asks the registry too (--force can).
      const rt: LocalRuntime = { env: t.bed.env, clients: t.bed.clients, dataDir: '', close: async () => {} };
      await expect(bodiesCommand(rt, ['list', 'koeln'], { source: s.sourceId })).rejects.toMatchObject({
        code: 'BODY_TAKEN_DOWN',
      });

      // A fresh reader (a new process, nothing cached) — the serving instance's cache lasts BODIES_TTL_MS.
      const fresh = await serveApi(t.bed);
      try {
        const freshBase = `${fresh.base}/oparl/v1/${s.sourceId}`;
        const system = await getJson(`${fresh.base}/oparl/v1/system`);
        const list = await getJson(String(system.json.body));
        expect((list.json.data as { id: string }[]).map((b) => b.id)).not.toContain(
          `${freshBase}/body/${apiIdHash(koeln.id)}`,
        );
        // Gone, and said so (issue 25): the body's URL and lists answer 410, its objects 404.
        for (const path of [`/body/${apiIdHash(koeln.id)}`, `/body/${apiIdHash(koeln.id)}/paper`]) {
          expect((await getJson(`${freshBase}${path}`)).status, path).toBe(410);
        }
        expect((await getJson(`${freshBase}/paper/${apiIdHash(paper.id)}`)).status).toBe(404);
      } finally {
        await stopServer(fresh.server);
      }
    } finally {
      await stopServer(api.server);
    }
  });

  it('OPT-5: a redelivered sync message (same run, resumed after a kill) after takedown and purge does not revive', async () => {
    const { s, koeln } = await seed('perm-redeliver');
    const paper = await paperWithFiles(s, koeln.id);
    // A full sync killed after three of its own requests (the port's count runs on from the seed's sync,
    // so the bound is relative to it — an absolute 3 crashed before the run's first request): its message
    // will be delivered again, with the run's first pages done.
    const before = s.h.fetcher.count;
    s.h.fetcher.crashAfter = before + 3;
    await expect(s.h.sync('full', { runId: 'dup-1' })).rejects.toBeInstanceOf(SimulatedCrash);
    expect(s.h.fetcher.count - before).toBe(3);
    delete s.h.fetcher.crashAfter;
    await tombstoneIds(s.deps, [paper.id], { by: 'test', sourceId: s.sourceId });
    await purgeDeleted(s.deps, 'koeln', { sourceId: s.sourceId, yes: true });

    const resumed = await s.h.sync('full', { runId: 'dup-1' });
    const again = await s.h.sync('full', { runId: 'dup-1' });

    expect(resumed.complete).toBe(true);
    expect(again.runId).toBe(resumed.runId);
    const live = (await liveEntries(s.h)).map((e) => e.id);
    expect(live).not.toContain(paper.id);
    for (const f of paper.files) expect(live).not.toContain(f);
  });

  it('OPT-5: the CLI — `tombstone --ids` reports the registry, `takedown lift` ends it loudly, a lift without target is a usage error', async () => {
    const { s, koeln } = await seed('perm-cli');
    const paper = await paperWithFiles(s, koeln.id);
    const rt: LocalRuntime = {
      env: t.bed.env,
      clients: t.bed.clients,
      dataDir: '',
      close: async () => undefined,
    };

    const down = await tombstoneCommand(rt, { ids: [paper.id], source: s.sourceId });
    const warned: string[] = [];
    const original = console.warn;
    console.warn = (line: string) => warned.push(line);
    let lifted: Awaited<ReturnType<typeof liftCommand>>;
    try {
      lifted = await liftCommand(rt, { ids: [paper.id], source: s.sourceId });
    } finally {
      console.warn = original;
    }

    expect(down.exitCode).toBe(0);
    expect(down.text.join('\n')).toContain('in force until lifted (OPT-5)');
    expect(lifted.exitCode).toBe(0);
    expect(lifted.text[0]).toMatch(/^TAKEDOWN LIFTED: 1 takedown/);
    expect(warned.join('\n')).toContain('TAKEDOWN LIFTED');
    expect(warned.join('\n')).toContain(paper.id);
    // Neither --body nor --ids, or both: the command table refuses the line (test/cli/args.test.ts).
  });

  it('OPT-5 cost: one registry read per sync invocation, plus one per page that created index entries or committed objects embedding others — none per object', async () => {
    const { s } = await seed('perm-cost');
    // Counted as client middleware around the real DynamoDB peer: Queries of a TAKEDOWN# partition.
    let reads = 0;
    const name = `opt5-count-${Date.now()}`;
    t.bed.clients.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { ExpressionAttributeValues?: Record<string, unknown> };
        const pk = input.ExpressionAttributeValues?.[':pk'];
        if (context.commandName === 'QueryCommand' && typeof pk === 'string' && pk.startsWith('TAKEDOWN#')) {
          reads += 1;
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      // Unchanged: every list answers one page, nothing is written.
      const unchanged = await s.h.sync('incremental');
      const unchangedReads = reads;
      // Two papers modified (index entries exist), both on one page: written; as they embed files, the
      // page reads the registry once more (a file taken down meanwhile must leave them, OPT-5).
      s.council.mutate([
        { op: 'update', body: 1, list: 'paper', n: 1, set: { name: 'Eins' } },
        { op: 'update', body: 1, list: 'paper', n: 2, set: { name: 'Zwei' } },
      ]);
      reads = 0;
      const modified = await s.h.sync('incremental');
      const modifiedReads = reads;
      // One paper added: its page created an index entry, re-checked once after the page.
      s.council.mutate({ op: 'add', body: 1, list: 'paper', set: { name: 'Drei' } });
      reads = 0;
      const added = await s.h.sync('incremental');
      const addedReads = reads;

      const pages = (r: typeof unchanged) => r.lists.reduce((n, l) => n + l.pages, 0);
      expect(pages(unchanged)).toBeGreaterThan(5);
      expect(unchangedReads).toBe(1);
      expect(modified.objects.modified).toBeGreaterThanOrEqual(2);
      expect(modifiedReads).toBe(2);
      expect(added.objects.new).toBeGreaterThanOrEqual(1);
      expect(addedReads).toBeLessThanOrEqual(1 + pages(added));
      expect(addedReads).toBe(2);
    } finally {
      t.bed.clients.doc.middlewareStack.remove(name);
    }
  });
});
