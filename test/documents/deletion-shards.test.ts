import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import {
  DEL_SAMPLE_INTERVAL_MS,
  DEL_SOURCES_PER_SHARD,
  DEL_WALK_CHECKPOINT,
  type DeletionReport,
  type DeletionShard,
  deletionShardsFor,
  hostShard,
  runDeletionCheck,
  runFilesPass,
  shardOfEvent,
  WALK_KEY_PREFIX,
} from '../../shared/documents';
import { hostKey } from '../../shared/util';
import {
  type DocumentsBed,
  getDoc,
  HOUR,
  putBody,
  putSource,
  recordFile,
  startDocumentsBed,
} from '../support/documents-bed';

/**
 * Issue 28, DEL-2 at 10,000+ sources: the hourly deletion check split into shards by host, each shard
 * its own invocation (`{ shard: { index, of } }`). Real local DynamoDB and S3, fake councils on
 * loopback (one host name each), a fake clock. The crash is injected by a middleware on the real
 * DynamoDB client (the peer itself is untouched), as in sample-walk.test.ts.
 */
const SHARDS = 3;
const FILES = 4;

/** Host names `ris-shard-<k>.test`, at least `perShard` in every one of `shards` shards. */
function namesCoveringShards(shards: number, perShard: number): string[] {
  const names: string[] = [];
  const count = new Array<number>(shards).fill(0);
  for (let k = 0; count.some((n) => n < perShard); k++) {
    const name = `ris-shard-${k}.test`;
    const shard = hostShard(hostKey(`http://${name}/`), shards);
    if ((count[shard] ?? 0) >= perShard) continue;
    count[shard] = (count[shard] ?? 0) + 1;
    names.push(name);
  }
  return names;
}

describe('DEL-2 at 10,000+ sources: the hourly run in shards by host (issue 28)', () => {
  let bed: DocumentsBed;
  const councils: { council: FakeCouncil; sourceId: string; docIds: string[]; shard: number }[] = [];
  let crashWrite: ((key: string) => boolean) | undefined;
  const CRASH = 'process died (injected)';

  async function storedSource(name: string, files: number) {
    const council = await startFakeCouncil({ hostname: name, objectsPerList: { file: files } });
    const sourceId = `stadt-${name.replace(/\.test$/, '')}`;
    const bodyId = `https://${name}/oparl/v1/bodies/1`;
    await putSource(bed, { sourceId, systemUrl: council.systemUrl });
    await putBody(bed, sourceId, { id: bodyId, listed: true });
    const docIds: string[] = [];
    for (let n = 1; n <= files; n++) {
      docIds.push(await recordFile(bed, { sourceId, bodyId, url: `${council.url}/files/1/${n}.pdf` }));
    }
    const entry = { council, sourceId, docIds, shard: hostShard(hostKey(council.systemUrl), SHARDS) };
    councils.push(entry);
    return entry;
  }

  /** Paths HEADed at a council since its last clear. */
  const heads = (c: FakeCouncil) => c.requests.filter((r) => r.method === 'HEAD').map((r) => r.path);
  const check = (shard: DeletionShard): Promise<DeletionReport> =>
    runDeletionCheck(bed.deps, { now: bed.now(), shard });

  beforeAll(async () => {
    bed = await startDocumentsBed();
    bed.aws.clients.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        if (/^(Put|Update|Delete)/.test(context.commandName ?? '')) {
          const input = args.input as { Item?: { docId?: unknown }; Key?: { docId?: unknown } };
          const raw = input.Item?.docId ?? input.Key?.docId;
          if (crashWrite?.(String((raw as { S?: string } | undefined)?.S ?? raw ?? '')))
            throw new Error(CRASH);
        }
        return next(args);
      },
      { step: 'initialize', name: 'shardCrash' },
    );
    for (const name of namesCoveringShards(SHARDS, 2)) await storedSource(name, FILES);
    for (let pass = 0; pass < 3; pass++) await runFilesPass(bed.deps, { now: bed.now() });
    for (const c of councils) {
      for (const docId of c.docIds) expect((await getDoc(bed, docId)).state).toBe('stored');
      c.council.clearRequests();
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(councils.map((c) => c.council.close()));
    await bed?.close();
  });

  it('DEL-2 / RATE-6: every sample due is checked exactly once across the shards, no server in two shards', async () => {
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    const byShard: Map<string, number>[] = [];
    let sampled = 0;
    for (let index = 0; index < SHARDS; index++) {
      const report = await check({ index, of: SHARDS });
      expect(report.shard).toEqual({ index, of: SHARDS });
      expect(report.shardsNeeded).toBe(1);
      sampled += report.checks['sample:unchanged'] ?? 0;
      // Which servers this shard asked, and how often.
      const asked = new Map<string, number>();
      for (const c of councils) {
        const n = heads(c.council).length;
        if (n > 0) asked.set(c.sourceId, n);
        c.council.clearRequests();
      }
      byShard.push(asked);
    }
    // Every server asked by exactly one shard — the shard of its host — and each file once.
    for (const c of councils) {
      const askedBy = byShard.flatMap((asked, index) => (asked.has(c.sourceId) ? [index] : []));
      expect(askedBy).toEqual([c.shard]);
      expect(byShard[c.shard]?.get(c.sourceId)).toBe(FILES);
    }
    expect(sampled).toBe(councils.length * FILES);
    // More than one shard had work: the split is real.
    expect(byShard.filter((asked) => asked.size > 0).length).toBe(SHARDS);
  });

  // retry: on a CPU-starved machine a sample's slot can be refused as late (SEND_LATE, nothing sent); its
  // document is then moved to the due queue a day later (decide.ts: not-asked) — settled without a HEAD — which
  // this test's HEAD counts do not model (CI on a fresh clone: 9 HEADs at the first checkpoint). Open, with the
  // late refusals the HEAD keep-alive brought under load (session 22's note); a retry, not a looser assertion.
  it('DEL-2: a crashed shard resumes from its walk checkpoint — no file skipped, at most one checkpoint repeated, other shards untouched', {
    timeout: 90_000,
    retry: 2,
  }, async () => {
    // prepare: one more server with 25 files, sampled once (into its walk), its second round due
    const s = await storedSource('ris-shard-crash.test', 25);
    for (let pass = 0; pass < 2; pass++) await runFilesPass(bed.deps, { now: bed.now() });
    const others = councils.filter((c) => c !== s);
    const shard = { index: s.shard, of: SHARDS };
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    await check(shard);
    expect(new Set(heads(s.council)).size).toBe(25);
    for (const c of councils) c.council.clearRequests();
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    // act: the shard's process dies three HEADs after its walk's first checkpoint landed
    let headsAtCheckpoint: number | undefined;
    let headsAtCrash: number | undefined;
    crashWrite = (key) => {
      const n = heads(s.council).length;
      if (headsAtCrash === undefined && headsAtCheckpoint !== undefined && n >= headsAtCheckpoint + 3)
        headsAtCrash = headsAtCheckpoint + 3;
      if (headsAtCrash !== undefined) return true;
      if (key.startsWith(WALK_KEY_PREFIX) && key.includes(s.sourceId)) headsAtCheckpoint = n;
      return false;
    };
    await check(shard).catch((error: Error) => expect(error.message).toBe(CRASH));
    crashWrite = undefined;
    expect(headsAtCheckpoint).toBeGreaterThanOrEqual(DEL_WALK_CHECKPOINT);
    const beforeCrash = heads(s.council).slice(0, headsAtCrash ?? heads(s.council).length);
    s.council.clearRequests();
    // the next hour's run of the same shard
    bed.clock.advance(HOUR);
    await check(shard);
    const resumed = heads(s.council);
    // assess: together every file, the repeated ones fewer than a checkpoint, none twice in the resumed run
    const paths = new Set(s.docIds.map((_, i) => `/files/1/${i + 1}.pdf`));
    expect(new Set([...beforeCrash, ...resumed])).toEqual(paths);
    expect(resumed.filter((p) => beforeCrash.includes(p)).length).toBeLessThanOrEqual(DEL_WALK_CHECKPOINT);
    expect(new Set(resumed).size).toBe(resumed.length);
    // the other servers of that shard were checked as usual; those of other shards never by it
    for (const c of others.filter((o) => o.shard !== s.shard)) expect(heads(c.council)).toEqual([]);
  });
  it('issue 28: the shards a fleet needs, and a malformed shard refused', () => {
    expect(deletionShardsFor(1_000)).toBe(1);
    expect(deletionShardsFor(DEL_SOURCES_PER_SHARD + 1)).toBe(2);
    expect(deletionShardsFor(100_000)).toBe(Math.ceil(100_000 / DEL_SOURCES_PER_SHARD));
    expect(shardOfEvent({})).toBeUndefined();
    expect(shardOfEvent({ shard: { index: 2, of: 3 } })).toEqual({ index: 2, of: 3 });
    for (const bad of [
      { index: 3, of: 3 },
      { index: -1, of: 2 },
      { index: 0, of: 0 },
      { index: '1', of: 2 },
      null,
    ]) {
      expect(() => shardOfEvent({ shard: bad })).toThrow(
        expect.objectContaining({ code: 'DELETION_SHARD_INVALID' }),
      );
    }
    // Every host lands in one shard of the N, and the split is even enough (FNV-1a over host keys).
    const counts = new Array<number>(10).fill(0);
    for (let k = 0; k < 10_000; k++) {
      const shard = hostShard(`ris-${k}.example.de`, 10);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1_200);
  });
});
