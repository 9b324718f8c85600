import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../../shared/changes';
import { isRecord } from '../../shared/engine';
import { apiIdHash, indexPartition, mirrorKey } from '../../shared/mirror';
import { apiUrls } from '../../shared/mirror-api';
import { listBodies } from '../../shared/onboarding';
import { unpackInline } from '../../shared/store';
import { putSourceItem } from '../../shared/store/sources';
import { takedownPartition, tombstoneIds } from '../../shared/takedown';
import { useAwsTestbed } from '../support/aws';
import { injectAwsFaults, untilCrashed } from '../support/aws-faults';
import { json, oneBodySystem, startMiniCouncil } from '../support/mini-council';
import { EMBEDDING_MIRROR, getJson, servedMirrorSeeds } from '../support/mirror-api';
import { harness, TestClock } from '../support/oparl-harness';
import { killedAfterRecorded, type PagePoint, pauseAt, takedownDepsOf } from '../support/takedown';

/**
 * OPT-5, the race of a takedown with a sync that is already running: an embedded object (a paper's
 * main file) taken down while a sync of its source runs must not be stored inside its parent again by
 * that sync — neither in the parent's S3 record nor in the inline copy (`o`) of its index item — once
 * the sync is over, wherever in the sync's page the operator's command ran.
 *
 * How the fault is injected (no mocks, no timers): the sync runs the real engine against the fake
 * council on loopback and the real local peers (dynalite, s3rver), on AWS clients of its own. It is
 * stopped at one step of the page that holds the paper — its list response held at the loopback
 * council (`council.hold`), or one of its own calls to DynamoDB or S3 held by a middleware on its
 * clients (`pauseAt`) — while `tombstone --ids` runs on the testbed's clients, to its end or killed
 * right after its registry item; then the sync goes on. The council changed the paper's name before,
 * so the running sync has something to commit at every step. The fake council's papers are too large
 * for an inline copy in their index item; a second, small council (one paper, one file) covers that.
 */

type Obj = Record<string, unknown>;

/** The keys the sync's calls for the paper carry: its index item and its S3 record. */
interface PaperKeys {
  sourceId: string;
  pk: string;
  sk: string;
  record: string;
}

/** Steps of the sync's page of papers; `undefined` point: while its list response is in flight. */
const STEPS: { step: string; point?: (k: PaperKeys) => PagePoint }[] = [
  { step: 'while the paper list response is in flight (held at the council)' },
  {
    step: 'after the page’s index lookup, before any commit',
    point: (k) => ({
      service: 'dynamodb',
      command: /BatchGet/,
      when: (t) => t.includes(k.pk) && t.includes(k.sk),
      at: 'after',
    }),
  },
  {
    step: 'before the paper’s S3 record',
    point: (k) => ({ service: 's3', command: /PutObject/, when: (t) => t.includes(k.record), at: 'before' }),
  },
  {
    step: 'between the paper’s S3 record and its index commit',
    point: (k) => ({ service: 's3', command: /PutObject/, when: (t) => t.includes(k.record), at: 'after' }),
  },
  {
    step: 'after the paper’s index commit',
    point: (k) => ({
      service: 'dynamodb',
      command: /^Put/,
      when: (t) => t.includes(k.pk) && t.includes(k.sk),
      at: 'after',
    }),
  },
  {
    step: 'after the page’s re-read of the takedowns',
    point: (k) => {
      let committed = false;
      return {
        service: 'dynamodb',
        command: /^(Put|Query)/,
        when: (t) => {
          if (t.includes('"Item"') && t.includes(k.pk) && t.includes(k.sk)) committed = true;
          return (
            committed && t.includes('KeyConditionExpression') && t.includes(takedownPartition(k.sourceId))
          );
        },
        at: 'after',
      };
    },
  },
];

const TOMBSTONES = ['runs to its end', 'is killed after its registry item'] as const;

/**
 * Every step for a command that runs to its end; for a killed one, every step up to the commit — once
 * the page re-read the takedowns, a killed command's registry item waits for the next sync or the
 * repeated command (the API hides the file meanwhile), as it does without any sync running.
 */
const CASES = TOMBSTONES.flatMap((tombstone) =>
  STEPS.filter((s) => tombstone === 'runs to its end' || !s.step.includes('re-read')).map((s) => ({
    ...s,
    tombstone,
  })),
);

describe('OPT-5: a takedown of an embedded file while a sync of its source runs', () => {
  const bed = useAwsTestbed();
  const seedMirror = servedMirrorSeeds(bed, EMBEDDING_MIRROR);
  const own: FeedClients[] = [];
  afterAll(async () => {
    for (const clients of own) destroyFeedClients(clients);
  });
  let n = 0;

  /**
   * A synced source; its council then renames a paper with a main file (the next sync writes it); the
   * sync runs on clients of its own. Returns the paper, its main file and what the file leaves behind.
   */
  async function seedRenamedPaper() {
    n += 1;
    const m = await seedMirror(`race-${n}`);
    const sourceId = m.h.source.sourceId;
    const rows = await listBodies(bed.clients.doc, m.tables, sourceId);
    const bodyId = String(rows.find((r) => r.slug === 'koeln')?.id);
    const number = [1, 2, 3].find((i) => {
      const stored = m.council.objects('paper', { body: 1 })[i - 1];
      return stored?.id === m.council.objectUrl('paper', i, 1) && isRecord(stored.mainFile);
    });
    if (number === undefined) throw new Error('no paper with a main file');
    const [paperId] = m.council.mutate({
      op: 'update',
      body: 1,
      list: 'paper',
      n: number,
      set: { name: 'Neu' },
    });
    const paper = (await m.h.mirror.read(sourceId, 'paper', String(paperId)))?.object as Obj;
    const file = paper.mainFile as Obj;
    const clients = createFeedClients(bed.env);
    own.push(clients);
    m.h.deps.clients = clients;
    const keys: PaperKeys = {
      sourceId,
      pk: indexPartition(sourceId, 'paper'),
      sk: apiIdHash(String(paper.id)),
      record: mirrorKey(sourceId, 'paper', String(paper.id)),
    };
    // What must appear in no stored copy of the paper: the file's id and its file name.
    const traces = [String(file.id), String(file.fileName)];
    return { m, sourceId, bodyId, paper, file, clients, keys, traces };
  }

  type Seeded = Awaited<ReturnType<typeof seedRenamedPaper>>;

  /** The operator's command, on the testbed's clients (not the sync's). */
  async function takeDown(s: Seeded, tombstone: (typeof TOMBSTONES)[number]): Promise<void> {
    const run = (afterRecorded?: () => never) =>
      tombstoneIds(takedownDepsOf(bed), [String(s.file.id)], {
        by: 'race',
        sourceId: s.sourceId,
        ...(afterRecorded ? { afterRecorded } : {}),
      });
    if (tombstone === 'runs to its end') await run();
    else await killedAfterRecorded(run);
  }

  /** The paper as stored: its S3 record, the inline copy of its index item, and the API's answer. */
  async function storedPaper(s: Seeded) {
    const record = await s.m.h.mirror.read(s.sourceId, 'paper', String(s.paper.id));
    const item = (
      await bed.clients.doc.send(
        new GetCommand({
          TableName: bed.env.STATE_TABLE,
          Key: { pk: s.keys.pk, sk: s.keys.sk },
          ConsistentRead: true,
        }),
      )
    ).Item;
    const api = await getJson(apiUrls(s.m.base).object(s.sourceId, 'paper', String(s.paper.id)));
    return {
      s3: record?.object as Obj | undefined,
      inline: item?.o !== undefined ? (unpackInline(item.o) as Obj) : undefined,
      commit: { hash: item?.hash, fetchedAt: item?.fetchedAt },
      api: api.json,
    };
  }

  const leaked = (copy: unknown, traces: string[]) =>
    traces.filter((t) => (JSON.stringify(copy) ?? '').includes(t));

  it.each(CASES.map((c) => [c.tombstone, c.step, c] as const))(
    'OPT-5: tombstone %s %s — after the sync no stored copy of the paper embeds the file; a second sync of the page changes nothing',
    async (_tombstone, _step, { point, tombstone }) => {
      const s = await seedRenamedPaper();
      // Proof the traces are real: the stored paper embeds the file before.
      expect(leaked((await storedPaper(s)).s3, s.traces)).toEqual(s.traces);

      let reached = 0;
      let report: Awaited<ReturnType<Seeded['m']['h']['sync']>>;
      if (point === undefined) {
        const held = s.m.council.hold(new URL(s.m.council.listUrl('paper', 1)).pathname);
        const syncing = s.m.h.sync('incremental');
        await held.arrived;
        reached = 1;
        await takeDown(s, tombstone);
        held.release();
        report = await syncing;
      } else {
        const pause = pauseAt(s.clients, point(s.keys), () => takeDown(s, tombstone));
        try {
          report = await s.m.h.sync('incremental');
        } finally {
          pause.remove();
        }
        reached = pause.fired;
      }

      expect(reached).toBe(1);
      expect(report.complete).toBe(true);
      const after = await storedPaper(s);
      // The sync's change landed (the paper is the renamed one) …
      expect(after.s3).toMatchObject({ id: s.paper.id, name: 'Neu' });
      // … and no copy of it embeds the file (these papers are too large for an inline copy: the writer's
      // own test, test/engine/write.test.ts, races a small one).
      expect({ s3: leaked(after.s3, s.traces), inline: leaked(after.inline, s.traces) }).toEqual({
        s3: [],
        inline: [],
      });
      expect(leaked(after.api, s.traces)).toEqual([]);

      // Duplicate delivery: a second sync reads the same page again and finds the paper unchanged.
      expect((await s.m.h.sync('full')).complete).toBe(true);
      const again = await storedPaper(s);
      expect(again.commit).toEqual(after.commit);
      expect({ s3: leaked(again.s3, s.traces), inline: leaked(again.inline, s.traces) }).toEqual({
        s3: [],
        inline: [],
      });
    },
  );

  it('OPT-5: a sync killed right after committing the paper with the file (taken down meanwhile) — the redelivered run commits it without', async () => {
    const s = await seedRenamedPaper();
    const faults = injectAwsFaults(s.clients);
    // The operator's command is killed after its registry item while the page is in flight; the
    // sync's paper commit lands, then its instance dies before it hears back (before any re-read).
    faults.crashAfter({
      service: 'dynamodb',
      command: /PutItem/,
      when: (input) => JSON.stringify(input).includes(s.keys.sk),
    });
    const held = s.m.council.hold(new URL(s.m.council.listUrl('paper', 1)).pathname);
    const runId = `race-resume-${n}`;
    const doomed = s.m.h.sync('incremental', { runId });
    await held.arrived;
    await takeDown(s, 'is killed after its registry item');
    held.release();
    await untilCrashed(faults, doomed);
    expect(leaked((await storedPaper(s)).s3, s.traces)).toEqual(s.traces);

    // The message is delivered again, to a live instance.
    const clients = createFeedClients(bed.env);
    own.push(clients);
    s.m.h.deps.clients = clients;
    expect((await s.m.h.sync('incremental', { runId })).complete).toBe(true);
    const after = await storedPaper(s);
    expect(after.s3).toMatchObject({ name: 'Neu' });
    expect({ s3: leaked(after.s3, s.traces), inline: leaked(after.inline, s.traces) }).toEqual({
      s3: [],
      inline: [],
    });
  });
});

describe('OPT-5: the same race for a paper small enough for an inline copy in its index item', () => {
  const bed = useAwsTestbed();
  const own: FeedClients[] = [];
  const councils: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const clients of own) destroyFeedClients(clients);
    await Promise.all(councils.map((c) => c.close()));
  });

  it.each(STEPS.filter((s) => s.point !== undefined).map((s) => [s.step, s] as const))(
    'OPT-5: tombstone %s — after the sync neither the S3 record nor the inline copy embeds the file',
    async (_step, { point }) => {
      let name = 'Antrag';
      const paperOf = (base: string) => ({
        id: `${base}/oparl/paper/1`,
        type: 'https://schema.oparl.org/1.0/Paper',
        name,
        modified: name === 'Antrag' ? '2024-06-30T12:00:00+02:00' : '2024-07-01T09:00:00+02:00',
        mainFile: {
          id: `${base}/oparl/file/1`,
          type: 'https://schema.oparl.org/1.0/File',
          fileName: 'geheim-1.pdf',
          accessUrl: `${base}/files/1.pdf`,
        },
      });
      const mini = await startMiniCouncil(
        oneBodySystem((list, _url, base) =>
          list === 'paper' ? json({ data: [paperOf(base)], links: {} }) : undefined,
        ),
      );
      councils.push(mini);
      const h = harness(
        bed,
        mini.systemUrl,
        new TestClock(Date.parse('2024-07-01T10:00:00+02:00')),
        'race-inline',
      );
      const sourceId = h.source.sourceId;
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId,
        systemUrl: mini.systemUrl,
        active: true,
      });
      expect((await h.sync('full')).complete).toBe(true);
      const paper = paperOf(mini.base);
      const keys: PaperKeys = {
        sourceId,
        pk: indexPartition(sourceId, 'paper'),
        sk: apiIdHash(paper.id),
        record: mirrorKey(sourceId, 'paper', paper.id),
      };
      const inline = async () => {
        const item = (
          await bed.clients.doc.send(
            new GetCommand({
              TableName: bed.env.STATE_TABLE,
              Key: { pk: keys.pk, sk: keys.sk },
              ConsistentRead: true,
            }),
          )
        ).Item;
        return item?.o !== undefined ? (unpackInline(item.o) as Obj) : undefined;
      };
      expect(await inline()).toMatchObject({ mainFile: { id: paper.mainFile.id } });
      name = 'Antrag (geändert)';
      const clients = createFeedClients(bed.env);
      own.push(clients);
      h.deps.clients = clients;

      const pause = pauseAt(clients, (point as NonNullable<typeof point>)(keys), () =>
        tombstoneIds(takedownDepsOf(bed), [paper.mainFile.id], { by: 'race', sourceId }),
      );
      let complete: boolean;
      try {
        complete = (await h.sync('full')).complete;
      } finally {
        pause.remove();
      }

      expect(pause.fired).toBe(1);
      expect(complete).toBe(true);
      const s3 = (await h.mirror.read(sourceId, 'paper', paper.id))?.object;
      expect({ s3, inline: await inline() }).toEqual({
        s3: { ...paperOf(mini.base), mainFile: undefined },
        inline: { ...paperOf(mini.base), mainFile: undefined },
      });
    },
  );
});
