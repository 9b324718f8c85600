import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  apiIdHash,
  copyWanted,
  type MirrorIndexEntry,
  MirrorMovePhaseError,
  MirrorStore,
  moveMirrorTable,
  sameVersion,
} from '../../shared/mirror';
import { indexKey, MirrorIndex, type MirrorTablePlacement, mirrorItemTables } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';
import { aroundItemPut } from '../support/aws-faults';
import { paperWrite, seedListedBody, walkList, withApi } from '../support/mirror-api';

/**
 * Issue 28: the move of the mirror's index items from State to the Mirror table under live syncs and
 * takedowns (shared/mirror move.ts), on the local DynamoDB. The writers are the real MirrorStore in the
 * phase of deploy 1 (`dual`: State, then Mirror); the races are made by a middleware on the real
 * client that runs a writer at a chosen point of the copy (just before its write of one item, or just
 * after it), and reads the Mirror table right after the copy's write — what a reader of the new
 * table would see at that moment.
 */
const bed = useAwsTestbed();
const T0 = Date.parse('2025-03-01T08:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const fast = { ratePerSecond: 1_000_000, sleep: async () => undefined };

let sourceSeq = 0;
/** A source of its own per test (the tables are shared by the file). */
function source() {
  sourceSeq += 1;
  const sourceId = `move-${sourceSeq}`;
  const body = `https://ris-move-${sourceSeq}.test/oparl/body/1`;
  return {
    sourceId,
    paper: (n: number, s: number, fields = {}) => paperWrite(sourceId, body, n, at(s), fields),
  };
}

function stores() {
  const mirrorTable = (phase: MirrorTablePlacement['phase']) => ({
    bucket: bed.env.BUCKET,
    stateTable: bed.env.STATE_TABLE,
    mirrorTable: { table: bed.env.MIRROR_TABLE, phase },
  });
  return {
    /** The release before: State only. */
    before: new MirrorStore(bed.clients, mirrorTable('state')),
    /** Deploy 1. */
    dual: new MirrorStore(bed.clients, mirrorTable('dual')),
    own: new MirrorStore(bed.clients, mirrorTable('own')),
  };
}

const tables = () => ({ state: bed.env.STATE_TABLE, mirror: bed.env.MIRROR_TABLE });

async function item(
  table: string,
  sourceId: string,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const out = await bed.clients.doc.send(
    new GetCommand({ TableName: table, Key: indexKey(sourceId, 'paper', id), ConsistentRead: true }),
  );
  return out.Item;
}

/** The Mirror table's write of one item, staged by `aroundItemPut` (test/support/aws-faults.ts). */
const aroundCopyOf = (
  key: { pk: string; sk: string },
  around: { before?: () => Promise<void>; after?: () => Promise<void> },
) => aroundItemPut(bed.clients.doc, bed.env.MIRROR_TABLE, key, around);

describe('migrate mirror-table (issue 28)', () => {
  it('copies every State item the Mirror table lacks; a duplicate run writes nothing; reads then come from Mirror', async () => {
    const { sourceId, paper } = source();
    const { before, own } = stores();
    for (let n = 1; n <= 5; n++) await before.writeLive(paper(n, n));
    expect(await item(bed.env.MIRROR_TABLE, sourceId, paper(1, 1).id)).toBeUndefined();

    const first = await moveMirrorTable(bed.clients, tables(), {
      step: 'copy',
      phase: 'dual',
      ...fast,
      restart: true,
    });
    expect(first.done).toBe(true);
    expect(first.counts.written).toBeGreaterThanOrEqual(5);
    for (let n = 1; n <= 5; n++) {
      const copied = await item(bed.env.MIRROR_TABLE, sourceId, paper(n, n).id);
      expect(copied).toEqual(await item(bed.env.STATE_TABLE, sourceId, paper(n, n).id));
    }
    // Deploy 2 reads the Mirror table: the same entries, the list keys with them.
    const listed = await own.lookup(sourceId, [{ type: 'paper', id: paper(3, 3).id }]);
    expect([...listed.values()].map((e) => e.hash)).toEqual([paper(3, 3).hash]);

    const again = await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast });
    expect(again.alreadyDone).toBe(true);
    const restarted = await moveMirrorTable(bed.clients, tables(), {
      step: 'copy',
      phase: 'dual',
      ...fast,
      restart: true,
    });
    expect(restarted.counts.written).toBe(0);
    expect(restarted.counts.present).toBe(restarted.counts.scanned);
  });

  it('OPT-5: a takedown during the copy — the Mirror item never loses its mark, not even for a moment', async () => {
    const { sourceId, paper } = source();
    const { before, dual } = stores();
    const entry = await before.writeLive(paper(1, 10));
    const seen: (Record<string, unknown> | undefined)[] = [];
    const remove = aroundCopyOf(indexKey(sourceId, 'paper', entry.id), {
      // The operator's `tombstone` between the copy's read of State and its write: State, then Mirror.
      before: async () => {
        expect(await dual.markTakenDown(entry, { at: at(20) })).toBe(true);
      },
      after: async () => {
        seen.push(await item(bed.env.MIRROR_TABLE, sourceId, entry.id));
      },
    });
    try {
      await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    } finally {
      remove();
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]?.takedown).toEqual({ at: at(20) });
    const final = await item(bed.env.MIRROR_TABLE, sourceId, entry.id);
    expect(final).toMatchObject({ deleted: true, takedown: { at: at(20) } });
    expect(final?.o).toBeUndefined();
  });

  it('OPT-5: a takedown that died between its two writes (State marked, Mirror not) is copied with its mark', async () => {
    const { sourceId, paper } = source();
    const { before } = stores();
    const entry = await before.writeLive(paper(1, 10));
    const remove = aroundCopyOf(indexKey(sourceId, 'paper', entry.id), {
      // Marks State only — the takedown's process died before its Mirror write.
      before: async () => {
        expect(await before.markTakenDown(entry, { at: at(20) })).toBe(true);
      },
    });
    try {
      await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    } finally {
      remove();
    }
    expect(await item(bed.env.MIRROR_TABLE, sourceId, entry.id)).toMatchObject({
      deleted: true,
      takedown: { at: at(20) },
    });
  });

  it('OPT-5: a takedown lift during the copy leaves no stale mark in the Mirror table', async () => {
    const { sourceId, paper } = source();
    const { before } = stores();
    const entry = await before.writeLive(paper(1, 10));
    // Taken down before deploy 1: State marked, the Mirror table has no item yet.
    expect(await before.markTakenDown(entry, { at: at(20) })).toBe(true);
    const remove = aroundCopyOf(indexKey(sourceId, 'paper', entry.id), {
      // `takedown lift` between the copy's read of State (marked) and its write: the lift's own write
      // (shared/takedown lift.ts `unmark`, deploy 1: State, then Mirror) unmarks State and finds no
      // Mirror item to unmark — then the copy lands the mark there.
      before: async () => {
        await new MirrorIndex(
          { doc: bed.clients.doc, table: bed.env.STATE_TABLE },
          { table: bed.env.MIRROR_TABLE, phase: 'dual' },
        ).removeTakedownMark(sourceId, 'paper', entry.id);
      },
    });
    let report: Awaited<ReturnType<typeof moveMirrorTable>>;
    try {
      report = await moveMirrorTable(bed.clients, tables(), {
        step: 'copy',
        phase: 'dual',
        ...fast,
        restart: true,
      });
    } finally {
      remove();
    }
    expect((await item(bed.env.STATE_TABLE, sourceId, entry.id))?.takedown).toBeUndefined();
    // The Mirror item is State's: lifted, so the next sync's commit is not refused there (OPT-5 lifted).
    const moved = await item(bed.env.MIRROR_TABLE, sourceId, entry.id);
    expect(moved?.takedown).toBeUndefined();
    expect(moved).toEqual(await item(bed.env.STATE_TABLE, sourceId, entry.id));
    expect(report.counts.raced).toBe(0);
  });

  it('OPT-5: a takedown while the copy clears a lifted mark, then the copy crashes — the Mirror item keeps the new mark; the rerun leaves it', async () => {
    const { sourceId, paper } = source();
    const { dual } = stores();
    const entry = await dual.writeLive(paper(1, 10));
    expect(await dual.markTakenDown(entry, { at: at(20) })).toBe(true);
    // `takedown lift` died between its two writes (State first, deploy 1): State unmarked, the Mirror
    // table still marked — the stale mark the copy clears (`copyWanted`'s `lifted`).
    await new MirrorIndex({ doc: bed.clients.doc, table: bed.env.STATE_TABLE }).removeTakedownMark(
      sourceId,
      'paper',
      entry.id,
    );
    const remove = aroundCopyOf(indexKey(sourceId, 'paper', entry.id), {
      // A new takedown between the copy's read of State (unmarked) and its write clearing the stale
      // mark: State, then Mirror (its follower write meets the stale mark).
      before: async () => {
        expect(await dual.markTakenDown(entry, { at: at(30) })).toBe(true);
      },
      // The copy's process dies once its write is answered: it never reads State again.
      after: async () => {
        throw new Error('crash: the process died after the copy write');
      },
    });
    try {
      await expect(
        moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true }),
      ).rejects.toThrow('crash');
    } finally {
      remove();
    }
    expect((await item(bed.env.STATE_TABLE, sourceId, entry.id))?.takedown).toMatchObject({ at: at(30) });
    // What deploy 2 would read if nobody ran the copy again: marked.
    expect(await item(bed.env.MIRROR_TABLE, sourceId, entry.id)).toMatchObject({
      deleted: true,
      takedown: { at: at(30) },
    });
    // The pass before deploy 2 leaves State's item there.
    await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    expect(await item(bed.env.MIRROR_TABLE, sourceId, entry.id)).toEqual(
      await item(bed.env.STATE_TABLE, sourceId, entry.id),
    );
  });

  it('a sync writing a newer version during the copy keeps it: the copy never goes over a newer commit', async () => {
    const { sourceId, paper } = source();
    const { before, dual } = stores();
    await before.writeLive(paper(1, 10));
    const newer = paper(1, 30, { name: 'Vorlage 1 (geändert)' });
    const seen: (Record<string, unknown> | undefined)[] = [];
    const remove = aroundCopyOf(indexKey(sourceId, 'paper', newer.id), {
      before: async () => {
        await dual.writeLive(newer);
      },
      after: async () => {
        seen.push(await item(bed.env.MIRROR_TABLE, sourceId, newer.id));
      },
    });
    try {
      await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    } finally {
      remove();
    }
    expect(seen[0]).toMatchObject({ fetchedAt: at(30), hash: newer.hash });
    expect(await item(bed.env.MIRROR_TABLE, sourceId, newer.id)).toMatchObject({
      fetchedAt: at(30),
      hash: newer.hash,
    });
  });

  it('a sync whose Mirror write died is repaired: the copy goes over an older Mirror item, never a newer one', async () => {
    const { sourceId, paper } = source();
    const { before, dual } = stores();
    await dual.writeLive(paper(1, 10));
    // The next commit reached State only (its process died before the Mirror write).
    await before.writeLive(paper(1, 40, { name: 'neu' }));
    await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    expect(await item(bed.env.MIRROR_TABLE, sourceId, paper(1, 40).id)).toMatchObject({ fetchedAt: at(40) });
  });

  it('OPT-3: an item purged during the copy does not come back in the Mirror table', async () => {
    const { sourceId, paper } = source();
    const { before, dual } = stores();
    const entry = await before.writeLive(paper(1, 10));
    const remove = aroundCopyOf(indexKey(sourceId, 'paper', entry.id), {
      // `purge-deleted` between the copy's read of State and its write (deploy 1: State, then Mirror):
      // its delete passed the Mirror table before the copy landed there.
      before: async () => {
        await dual.purgeEntry(sourceId, 'paper', entry.id, at(50));
      },
    });
    try {
      await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    } finally {
      remove();
    }
    expect(await item(bed.env.MIRROR_TABLE, sourceId, entry.id)).toBeUndefined();
  });

  it('resumable: a crash mid-way, then a rerun continues where the last page ended and copies the rest', async () => {
    const { sourceId, paper } = source();
    const { before } = stores();
    for (let n = 1; n <= 12; n++) await before.writeLive(paper(n, n));
    let puts = 0;
    const name = 'move-crash';
    bed.clients.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { TableName?: string };
        if (/PutItem/.test(context.commandName ?? '') && input.TableName === bed.env.MIRROR_TABLE) {
          puts += 1;
          if (puts === 8) throw new Error('crash: the process died mid-copy');
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await expect(
        moveMirrorTable(bed.clients, tables(), {
          step: 'copy',
          phase: 'dual',
          ...fast,
          restart: true,
          pageSize: 5,
        }),
      ).rejects.toThrow('crash');
    } finally {
      bed.clients.doc.middlewareStack.remove(name);
    }
    const rerun = await scanPages(() =>
      moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, pageSize: 5 }),
    );
    expect(rerun.result.done).toBe(true);
    // A pass over the whole table, for comparison (it copies nothing: all there).
    const whole = await scanPages(() =>
      moveMirrorTable(bed.clients, tables(), {
        step: 'copy',
        phase: 'dual',
        ...fast,
        pageSize: 5,
        restart: true,
      }),
    );
    expect(whole.result.counts.written).toBe(0);
    // The rerun began at the last checkpoint, not at the table's start.
    expect(rerun.pages).toBeLessThan(whole.pages);
    for (let n = 1; n <= 12; n++)
      expect(await item(bed.env.MIRROR_TABLE, sourceId, paper(n, n).id)).toMatchObject({ fetchedAt: at(n) });
  });

  it('a restart pass that dies on its first page is continued by a plain rerun, not reported done', async () => {
    const { sourceId, paper } = source();
    const { before } = stores();
    await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    // Written by the release before after the step finished: what the pass before deploy 2 is for.
    const late = await before.writeLive(paper(1, 1));
    const remove = aroundCopyOf(indexKey(sourceId, 'paper', late.id), {
      before: async () => {
        throw new Error('crash: the process died before the copy write');
      },
    });
    // One page over the whole table: the crash comes before any checkpoint of this pass.
    const whole = { step: 'copy' as const, phase: 'dual' as const, ...fast, pageSize: 100_000 };
    try {
      await expect(moveMirrorTable(bed.clients, tables(), { ...whole, restart: true })).rejects.toThrow(
        'crash',
      );
    } finally {
      remove();
    }
    const rerun = await moveMirrorTable(bed.clients, tables(), whole);
    expect(rerun.alreadyDone).toBe(false);
    expect(await item(bed.env.MIRROR_TABLE, sourceId, late.id)).toEqual(
      await item(bed.env.STATE_TABLE, sourceId, late.id),
    );
  });

  it('deploy 2 (own): the API lists from the Mirror table — moved items, a new commit, a takedown mark (OPT-5) written there only', async () => {
    const { sourceId, paper } = source();
    const body = paper(1, 1).bodyId as string;
    await seedListedBody(bed, sourceId, body, at(0));
    const { before, own } = stores();
    for (let n = 1; n <= 3; n++) await before.writeLive(paper(n, n));
    await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    await own.writeLive(paper(4, 4));
    const taken = await own.lookup(sourceId, [{ type: 'paper', id: paper(2, 2).id }]);
    expect(await own.markTakenDown([...taken.values()][0] as MirrorIndexEntry, { at: at(9) })).toBe(true);
    // Written to the Mirror table only: State still has paper 2 unmarked and no paper 4.
    expect(await item(bed.env.STATE_TABLE, sourceId, paper(4, 4).id)).toBeUndefined();
    expect((await item(bed.env.STATE_TABLE, sourceId, paper(2, 2).id))?.takedown).toBeUndefined();
    const ownBed = { ...bed, env: { ...bed.env, MIRROR_TABLE_PHASE: 'own' as const } };
    const listed = await withApi(ownBed, (api) =>
      walkList(`${api.base}/oparl/v1/${sourceId}/body/${apiIdHash(body)}/paper?limit=2`),
    );
    expect(listed.objects.map((o) => o.name).sort()).toEqual(['Vorlage 1', 'Vorlage 3', 'Vorlage 4']);
  });

  it('refuses the wrong phase: copy only in dual, delete-old only in own', async () => {
    await expect(
      moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'own', ...fast }),
    ).rejects.toThrow(MirrorMovePhaseError);
    await expect(
      moveMirrorTable(bed.clients, tables(), { step: 'delete-old', phase: 'dual', ...fast }),
    ).rejects.toThrow(MirrorMovePhaseError);
  });

  it('delete-old (deploy 2): deletes the State items the Mirror table holds, keeps and names the others', async () => {
    const { sourceId, paper } = source();
    const { before } = stores();
    await before.writeLive(paper(1, 1));
    await moveMirrorTable(bed.clients, tables(), { step: 'copy', phase: 'dual', ...fast, restart: true });
    // Written after the copy by the release before (never by deploy 1 or 2): not in the Mirror table.
    await before.writeLive(paper(2, 2));
    const report = await moveMirrorTable(bed.clients, tables(), {
      step: 'delete-old',
      phase: 'own',
      ...fast,
      restart: true,
    });
    expect(await item(bed.env.STATE_TABLE, sourceId, paper(1, 1).id)).toBeUndefined();
    expect(await item(bed.env.MIRROR_TABLE, sourceId, paper(1, 1).id)).toBeDefined();
    expect(await item(bed.env.STATE_TABLE, sourceId, paper(2, 2).id)).toBeDefined();
    expect(report.counts.missing).toBe(1);
    expect(report.missing[0]).toContain(`MIRROR#${sourceId}#paper`);
  });
});

describe('the move, decided (pure)', () => {
  const item = (fields: Record<string, unknown>) => ({ pk: 'p', sk: 's', deleted: false, ...fields });
  it('copyWanted: absent or older is copied; a mark in Mirror wins; a mark in State is copied', () => {
    expect(copyWanted(item({ fetchedAt: at(1) }), undefined)).toBe(true);
    expect(copyWanted(item({ fetchedAt: at(2) }), item({ fetchedAt: at(1) }))).toBe(true);
    expect(copyWanted(item({ fetchedAt: at(1) }), item({ fetchedAt: at(2) }))).toBe(false);
    expect(copyWanted(item({ fetchedAt: at(1) }), item({ fetchedAt: at(1) }))).toBe(false);
    expect(copyWanted(item({ fetchedAt: at(3) }), item({ fetchedAt: at(1), takedown: {} }))).toBe(false);
    expect(copyWanted(item({ fetchedAt: at(1), takedown: {} }), item({ fetchedAt: at(1) }))).toBe(true);
    // A Mirror mark State (read after it) lacks was lifted: State's item goes over it, never a newer one.
    expect(copyWanted(item({ fetchedAt: at(1) }), item({ fetchedAt: at(1), takedown: {} }), true)).toBe(true);
    expect(copyWanted(item({ fetchedAt: at(1) }), item({ fetchedAt: at(2), takedown: {} }), true)).toBe(
      false,
    );
  });
  it('sameVersion: commit, deletion and mark', () => {
    expect(sameVersion(item({ fetchedAt: at(1) }), item({ fetchedAt: at(1) }))).toBe(true);
    expect(sameVersion(item({ fetchedAt: at(1) }), item({ fetchedAt: at(1), takedown: {} }))).toBe(false);
    expect(sameVersion(item({ fetchedAt: at(1) }), item({ fetchedAt: at(2) }))).toBe(false);
  });
  it('mirrorItemTables: dual reads State and writes State first; own is Mirror only', () => {
    expect(mirrorItemTables('S', undefined)).toEqual({ read: 'S', write: ['S'] });
    expect(mirrorItemTables('S', { table: 'M', phase: 'dual' })).toEqual({ read: 'S', write: ['S', 'M'] });
    expect(mirrorItemTables('S', { table: 'M', phase: 'own' })).toEqual({ read: 'M', write: ['M'] });
  });
});

/** Runs `run`, counting the Scan pages it reads (of State, the copy's source). */
async function scanPages<T>(run: () => Promise<T>): Promise<{ result: T; pages: number }> {
  let pages = 0;
  const name = 'move-scan-pages';
  bed.clients.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (/^Scan/.test(context.commandName ?? '')) pages += 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await run(), pages };
  } finally {
    bed.clients.doc.middlewareStack.remove(name);
  }
}
