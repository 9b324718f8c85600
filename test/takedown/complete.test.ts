import { describe, expect, it } from 'vitest';
import { backfillIndexCommand } from '../../cli/commands/backfill';
import type { LocalRuntime } from '../../cli/local/runtime';
import { embeddedObjects, isRecord } from '../../shared/engine';
import { apiIdHash, lookupKey, mirrorKey } from '../../shared/mirror';
import { listBodies, setBodyListed } from '../../shared/onboarding';
import {
  byMark,
  completeTakedowns,
  liftTakedown,
  type TakedownEvidence,
  type TakedownItem,
  takedownProgress,
  tombstoneBody,
  tombstoneIds,
} from '../../shared/takedown';
import { getJson, walkList, withApi } from '../support/mirror-api';
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
 * OPT-5 "re-running completes the rest", without an operator repeating the command: `ingestor
 * backfill-index` completes, from the takedown registry alone, what a `tombstone` killed after its
 * registry item left undone — with the takedown's own mark. Real peers (dynalite, s3rver, the fake
 * council, the real sync engine, the real API on loopback); the kill is the command's own seam.
 */

/** When the operator's command ran: distinct from the repair's time, which must not show anywhere. */
const TAKEN_DOWN_AT = new Date('2024-07-02T09:00:00.000Z');
const MARK = { at: TAKEN_DOWN_AT.toISOString(), by: 'cli', note: 'Anfrage vom 2.7.' };

const item = (over: Partial<TakedownItem> = {}): TakedownItem => ({
  sourceId: 's',
  scope: 'object',
  id: 'https://ris.test/oparl/paper/1',
  mark: MARK,
  ...over,
});

function evidence(
  entries: [string, string, unknown][] = [],
  bodies: [string, unknown][] = [],
): TakedownEvidence {
  return {
    entries: new Map(entries.map(([type, id, takedown]) => [lookupKey(type, id), { takedown }])),
    bodies: new Map(bodies.map(([id, takedown]) => [id, { takedown }])),
  } as TakedownEvidence;
}

describe('OPT-5: how far a recorded takedown got (pure)', () => {
  const paper = 'https://ris.test/oparl/paper/1';
  const body = 'https://ris.test/oparl/body/1';
  it.each([
    ['typed, its entry marked', item({ type: 'paper' }), evidence([['paper', paper, MARK]]), 'complete'],
    [
      'typed, its entry unmarked',
      item({ type: 'paper' }),
      evidence([['paper', paper, undefined]]),
      'incomplete',
    ],
    [
      'untyped (recorded before the type was known): found under its type',
      item(),
      evidence([['paper', paper, undefined]]),
      'incomplete',
    ],
    ['untyped, marked', item(), evidence([['paper', paper, MARK]]), 'complete'],
    [
      'typed: an entry of another type is not its',
      item({ type: 'file' }),
      evidence([['paper', paper, undefined]]),
      'not-mirrored',
    ],
    ['never mirrored (or purged since): nothing to mark', item(), evidence(), 'not-mirrored'],
    [
      'body record without the mark',
      item({ scope: 'body', id: body }),
      evidence([], [[body, undefined]]),
      'incomplete',
    ],
    ['body record marked', item({ scope: 'body', id: body }), evidence([], [[body, MARK]]), 'complete'],
    ['body never mirrored', item({ scope: 'body', id: body }), evidence(), 'not-mirrored'],
  ] as const)('OPT-5: %s', (_name, it0, ev, progress) => {
    expect(takedownProgress(it0, ev).progress).toBe(progress);
  });

  it('OPT-5: one `tombstone --ids` run per original mark', () => {
    const other = { ...MARK, at: '2024-07-03T00:00:00.000Z' };
    const groups = byMark([item({ id: 'a' }), item({ id: 'b', mark: other }), item({ id: 'c' })]);
    expect(groups).toEqual([
      { mark: MARK, ids: ['a', 'c'] },
      { mark: other, ids: ['b'] },
    ]);
  });
});

describe('OPT-5: `ingestor backfill-index` completes a killed tombstone (OParl sync, API)', () => {
  const t = seededTestbed();
  const rt = () =>
    ({ env: t.bed.env, clients: t.bed.clients, dataDir: '.', close: async () => {} }) as LocalRuntime;
  const backfill = (s: SeededSource, dryRun = false) =>
    backfillIndexCommand(rt(), { source: s.sourceId, dryRun, rate: 1000 }, { sleep: async () => {} });
  /** The operator's command at TAKEN_DOWN_AT, killed right after its registry item. */
  const killedIds = (s: SeededSource, ids: string[]) =>
    killedAfterRecorded((afterRecorded) =>
      tombstoneIds({ ...s.deps, now: () => TAKEN_DOWN_AT }, ids, {
        by: MARK.by,
        note: MARK.note,
        sourceId: s.sourceId,
        afterRecorded,
      }),
    );
  /** A paper of the body that embeds files: its id and its files' ids. */
  const paperWithFiles = async (s: SeededSource, bodyId: string) => {
    for (const e of await liveEntries(s.h, bodyId)) {
      if (e.type !== 'paper') continue;
      const object = (await s.h.mirror.read(s.sourceId, 'paper', e.id))?.object;
      const files = (isRecord(object) ? embeddedObjects(object) : []).filter((c) => c.type === 'file');
      if (files.length > 0) return { id: e.id, files: files.map((f) => f.id) };
    }
    throw new Error('no paper with files');
  };
  const paperOf = async (s: SeededSource, bodyId: string, n = 0) => {
    const papers = (await liveEntries(s.h, bodyId)).filter((e) => e.type === 'paper');
    const paper = papers[n];
    if (!paper) throw new Error('no paper');
    return paper;
  };

  it('OPT-5: killed `tombstone --ids`: backfill-index marks the paper with the original time, the API list counter agrees with the list, a second run completes nothing; an id never mirrored is counted, not retried', async () => {
    const { s, koeln } = await t.seed('complete-ids');
    await setBodyListed(t.bed.clients.doc, s.deps.tables, 'koeln', {
      listed: true,
      sourceId: s.sourceId,
      by: 'test',
    });
    const paper = await paperWithFiles(s, koeln.id);
    const never = `${new URL(paper.id).origin}/oparl/paper/never-mirrored`;
    await killedIds(s, [paper.id, never]);
    // A fresh API instance each time: the reader caches list counters (BODIES_TTL_MS).
    const served = () =>
      withApi(t.bed, async (api) => {
        const list = `${api.base}/oparl/v1/${s.sourceId}/body/${apiIdHash(koeln.id)}/paper`;
        const { objects } = await walkList(list);
        const { totalElements } = (await getJson(list)).json.pagination as { totalElements: number };
        return { shown: objects.map((o) => o['mandari:originId']), totalElements };
      });
    // The gap: the API hides the paper (registry) but its counter still counts it.
    const before = await served();
    expect(before.shown).not.toContain(paper.id);
    expect(before.totalElements).toBe(before.shown.length + 1);

    const run = await backfill(s);

    expect(run.json).toMatchObject({
      takedowns: { checked: 2, completed: 1, notMirrored: 1, complete: 0 },
    });
    expect(run.text.join('\n')).toContain('1 interrupted and completed');
    const [entry] = (await s.h.mirror.lookup(s.sourceId, [{ type: 'paper', id: paper.id }])).values();
    expect(entry?.takedown).toEqual(MARK);
    const record = await s.h.mirror.read(s.sourceId, 'paper', paper.id);
    expect(record?.meta).toMatchObject({ deleted: true, deletedAt: MARK.at, takedown: MARK });
    const after = await served();
    expect(after.shown).toEqual(before.shown);
    expect(after.totalElements).toBe(after.shown.length);
    // Its files too, as the command itself would have done, and their Documents flagged.
    const files = (await indexEntries(s.h)).filter((e) => paper.files.includes(e.id));
    expect(files).toHaveLength(paper.files.length);
    for (const f of files) expect(f.takedown, f.id).toEqual(MARK);
    const docs = (await documentsOf(t.bed, s.sourceId)).filter((d) => paper.files.includes(String(d.fileId)));
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) expect(d.takedownAt).toBe(MARK.at);

    const again = await backfill(s);
    expect(again.json).toMatchObject({ takedowns: { completed: 0, notMirrored: 1 }, recounted: 0 });
    expect(again.text.join('\n')).toContain('1 with nothing mirrored to mark');
  });

  it('OPT-5: killed `tombstone --body`: backfill-index unlists and marks the body record, marks its entries and flags its Documents with the original time', async () => {
    const { s, koeln } = await t.seed('complete-body');
    await setBodyListed(t.bed.clients.doc, s.deps.tables, 'koeln', {
      listed: true,
      sourceId: s.sourceId,
      by: 'test',
    });
    const entries = await liveEntries(s.h, koeln.id);
    await killedAfterRecorded((afterRecorded) =>
      tombstoneBody({ ...s.deps, now: () => TAKEN_DOWN_AT }, 'koeln', {
        by: MARK.by,
        note: MARK.note,
        sourceId: s.sourceId,
        afterRecorded,
      }),
    );
    const row = async () =>
      (await listBodies(t.bed.clients.doc, s.deps.tables, s.sourceId)).find((b) => b.id === koeln.id);
    expect(await row()).toMatchObject({ listed: true, takedown: false });

    const run = await backfill(s);

    expect(run.json).toMatchObject({ takedowns: { completed: 1, tombstoned: entries.length } });
    expect(await row()).toMatchObject({ listed: false, takedown: true });
    expect(await liveEntries(s.h, koeln.id)).toEqual([]);
    for (const e of await indexEntries(s.h, koeln.id)) expect(e.takedown, e.id).toEqual(MARK);
    const docs = await documentsOf(t.bed, s.sourceId, koeln.id);
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) expect(d).toMatchObject({ listed: false, takedownAt: MARK.at });
    expect((await backfill(s)).json).toMatchObject({ takedowns: { completed: 0, complete: 1 } });
  });

  it('OPT-5: `tombstone --body` killed half-way through its entries (the record not yet marked) is completed too', async () => {
    const { s, koeln } = await t.seed('complete-body-half');
    const paper = await paperOf(s, koeln.id);
    const kill = await beforeFirstWriteTo(
      t.bed,
      mirrorKey(s.sourceId, 'paper', paper.id),
      async () => {
        throw new Error('simulated kill while sealing');
      },
      () => tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId }).catch((e: Error) => e),
    );
    expect(kill.fired).toBe(1);
    expect((await liveEntries(s.h, koeln.id)).length).toBeGreaterThan(0);
    // Half done is not done: the record's mark comes last.
    expect(
      (await listBodies(t.bed.clients.doc, s.deps.tables, s.sourceId)).find((b) => b.id === koeln.id),
    ).toMatchObject({
      listed: false,
      takedown: false,
    });

    const report = await completeTakedowns(s.deps, s.sourceId);

    expect(report.completed.map((c) => c.scope)).toEqual(['body']);
    expect(await liveEntries(s.h, koeln.id)).toEqual([]);
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paper.id)).toBeUndefined();
  });

  it('OPT-5: `backfill-index --dry-run` reports the interrupted takedown and writes nothing', async () => {
    const { s, koeln } = await t.seed('complete-dry');
    const paper = await paperOf(s, koeln.id);
    await killedIds(s, [paper.id]);
    const lookup = async () =>
      [...(await s.h.mirror.lookup(s.sourceId, [{ type: 'paper', id: paper.id }])).values()][0];
    const entryBefore = await lookup();

    const dry = await backfill(s, true);

    expect(dry.json).toMatchObject({
      dryRun: true,
      takedowns: { completed: 1, tombstoned: 0, items: [{ scope: 'object', id: paper.id, mark: MARK }] },
    });
    expect(dry.text.join('\n')).toContain('1 interrupted, would complete');
    expect(await lookup()).toEqual(entryBefore);
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paper.id)).toBeDefined();
    expect((await backfill(s)).json).toMatchObject({ takedowns: { completed: 1 } });
  });

  it('OPT-5: a lifted takedown is not done again — the other interrupted one is completed', async () => {
    const { s, koeln } = await t.seed('complete-lift');
    const [lifted, kept] = [await paperOf(s, koeln.id, 0), await paperOf(s, koeln.id, 1)];
    await killedIds(s, [lifted.id]);
    await killedIds(s, [kept.id]);
    await liftTakedown(s.deps, { ids: [lifted.id], sourceId: s.sourceId, by: 'test' }, () => {});

    const run = await backfill(s);

    expect(run.json).toMatchObject({ takedowns: { checked: 1, completed: 1, items: [{ id: kept.id }] } });
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', kept.id)).toBeUndefined();
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', lifted.id)).toBeDefined();
    const [entry] = (await s.h.mirror.lookup(s.sourceId, [{ type: 'paper', id: lifted.id }])).values();
    expect(entry?.takedown).toBeUndefined();
  });
});
