import { describe, expect, it } from 'vitest';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../../shared/changes';
import {
  liftTakedown,
  type TakedownDeps,
  TakedownRegistry,
  tombstoneBody,
  tombstoneIds,
} from '../../shared/takedown';
import {
  documentsOf,
  indexEntries,
  liveEntries,
  pauseAt,
  type SeededSource,
  seededTestbed,
} from '../support/takedown';

/**
 * OPT-5: a new takedown always wins over an older `takedown lift` of the same object — in the registry
 * and on the mirror's index entry — when two operators act within milliseconds of each other.
 *
 * The interleaving is deterministic: the lift runs on clients of its own (a second operator's process)
 * with a client middleware (`pauseAt`, test/support/takedown.ts) that stops it at one DynamoDB call —
 * between its registry read and its registry delete, or between that delete and its removal of the
 * index entry's mark — while the new takedown runs to its end on the testbed's clients, never paused.
 * Real peers throughout: dynalite, s3rver, the fake council, the real sync engine seeding the mirror.
 */

const t = seededTestbed();

/** Each test seeds a synced council and runs two commands and a sync: slow on a loaded machine. */
const SLOW = 90_000;

/** The takedown commands' deps on a second set of clients: an operator's process of its own. */
function secondOperator(deps: TakedownDeps): {
  clients: FeedClients;
  deps: TakedownDeps;
  close(): void;
} {
  const clients = createFeedClients(t.bed.env);
  return { clients, deps: { ...deps, clients }, close: () => destroyFeedClients(clients) };
}

/** The paper's registry item and its index entry (read consistently) as the race left them. */
async function paperAfterRace(s: SeededSource, id: string) {
  const registry = new TakedownRegistry(t.bed.clients.doc, t.bed.env.STATE_TABLE);
  const item = (await registry.items(s.sourceId)).find((i) => i.id === id);
  const entry = (await s.h.mirror.lookup(s.sourceId, [{ type: 'paper', id }], { consistent: true })).get(
    `paper\n${id}`,
  );
  return { item, entry };
}

/** Lift's registry delete (marshalled input names the `TAKEDOWN#` partition). */
const registryDelete = {
  service: 'dynamodb' as const,
  command: /DeleteItem/,
  when: (input: string) => input.includes('TAKEDOWN#'),
  at: 'before' as const,
};

/** Lift's first removal of an index entry's mark. */
const markRemoval = {
  service: 'dynamodb' as const,
  command: /UpdateItem/,
  when: (input: string) => input.includes('REMOVE takedown'),
  at: 'before' as const,
};

describe('OPT-5: a takedown lift racing a new takedown of the same object', { timeout: SLOW }, () => {
  it('a takedown recorded between the lift’s registry read and its delete stays in force: registry item and index mark kept, the lift reports it renewed', async () => {
    const { s, koeln } = await t.seed('lift-race-read');
    const paper = (await liveEntries(s.h, koeln.id)).find((e) => e.type === 'paper');
    if (!paper) throw new Error('no paper');
    await tombstoneIds(s.deps, [paper.id], { by: 'first', sourceId: s.sourceId });
    const lifter = secondOperator(s.deps);
    let renewed: unknown;
    let liftedCount: number | undefined;
    const pause = pauseAt(lifter.clients, registryDelete, () =>
      tombstoneIds(s.deps, [paper.id], { by: 'second', sourceId: s.sourceId, note: 'neue Anfrage' }),
    );
    try {
      const lifted = await liftTakedown(
        lifter.deps,
        { ids: [paper.id], sourceId: s.sourceId, by: 'lifter' },
        () => undefined,
      );
      expect(pause.fired).toBe(1);
      renewed = lifted.renewed;
      liftedCount = lifted.lifted;
    } finally {
      pause.remove();
      lifter.close();
    }
    const { item, entry } = await paperAfterRace(s, paper.id);
    expect(item?.id).toBe(paper.id);
    expect(entry?.deleted).toBe(true);
    expect(entry?.takedown).toBeDefined();
    // And it holds: the next sync leaves the paper down.
    await s.h.sync('full');
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paper.id)).toBeUndefined();
    // The operator who lifted is told: nothing lifted, the takedown renewed meanwhile.
    expect(liftedCount).toBe(0);
    expect(renewed).toEqual([paper.id]);
  });

  it('a takedown recorded after the lift’s registry delete, its mark refused by the old one, keeps its index mark: the lift re-seals it', async () => {
    const { s, koeln } = await t.seed('lift-race-mark');
    const paper = (await liveEntries(s.h, koeln.id)).find((e) => e.type === 'paper');
    if (!paper) throw new Error('no paper');
    await tombstoneIds(s.deps, [paper.id], { by: 'first', sourceId: s.sourceId });
    const lifter = secondOperator(s.deps);
    let renewed: unknown;
    // At the lift's first mark removal its registry item is gone; the new takedown records a fresh one
    // and finds the old mark still on the entry (its own mark is refused: the first mark counts).
    const pause = pauseAt(lifter.clients, markRemoval, () =>
      tombstoneIds(s.deps, [paper.id], { by: 'second', sourceId: s.sourceId }),
    );
    try {
      const lifted = await liftTakedown(
        lifter.deps,
        { ids: [paper.id], sourceId: s.sourceId, by: 'lifter' },
        () => undefined,
      );
      expect(pause.fired).toBe(1);
      renewed = lifted.renewed;
    } finally {
      pause.remove();
      lifter.close();
    }
    const { item, entry } = await paperAfterRace(s, paper.id);
    expect(item?.mark.by).toBe('second');
    expect(entry?.deleted).toBe(true);
    expect(entry?.takedown).toBeDefined();
    expect(renewed).toEqual([paper.id]);
  });

  it('a takedown recorded just before a lift reads it ends in force: the lift removes its registry item before its marks land, and the takedown records it again', async () => {
    const { s, koeln } = await t.seed('lift-race-before');
    const paper = (await liveEntries(s.h, koeln.id)).find((e) => e.type === 'paper');
    if (!paper) throw new Error('no paper');
    const lifter = secondOperator(s.deps);
    let lifted: Awaited<ReturnType<typeof liftTakedown>> | undefined;
    const events: string[] = [];
    try {
      // The lift runs whole between the takedown's registry write and its first mirror write: it reads
      // the new item, removes it at the revision it read, and removes marks not yet written.
      await tombstoneIds(
        s.deps,
        [paper.id],
        {
          by: 'second',
          sourceId: s.sourceId,
          afterRecorded: async () => {
            lifted = await liftTakedown(
              lifter.deps,
              { ids: [paper.id], sourceId: s.sourceId, by: 'lifter' },
              () => undefined,
            );
          },
        },
        (event) => events.push(event),
      );
    } finally {
      lifter.close();
    }
    // The lift did win the race it saw: it removed the item it read.
    expect(lifted?.lifted).toBe(1);
    // End state consistent: down with its registry item (on-call sees why), never a mark alone.
    const { item, entry } = await paperAfterRace(s, paper.id);
    expect(item?.mark.by).toBe('second');
    expect(entry?.deleted).toBe(true);
    expect(entry?.takedown).toMatchObject({ by: 'second' });
    expect(events).toContain('TAKEDOWN LIFTED WHILE BEING RECORDED');
    await s.h.sync('full');
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paper.id)).toBeUndefined();
  });

  it('a body takedown recorded just before `takedown lift --body` reads it ends in force: registry item, every entry marked, its documents flagged', async () => {
    const { s, koeln } = await t.seed('lift-race-before-body');
    const lifter = secondOperator(s.deps);
    const events: string[] = [];
    try {
      await tombstoneBody(
        s.deps,
        'koeln',
        {
          by: 'second',
          sourceId: s.sourceId,
          afterRecorded: async () => {
            await liftTakedown(
              lifter.deps,
              { body: 'koeln', sourceId: s.sourceId, by: 'lifter' },
              () => undefined,
            );
          },
        },
        (event) => events.push(event),
      );
    } finally {
      lifter.close();
    }
    const registry = new TakedownRegistry(t.bed.clients.doc, t.bed.env.STATE_TABLE);
    expect((await registry.items(s.sourceId)).find((i) => i.id === koeln.id)?.mark.by).toBe('second');
    const entries = await indexEntries(s.h, koeln.id);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((e) => e.takedown === undefined || !e.deleted)).toEqual([]);
    const docs = await documentsOf(t.bed, s.sourceId, koeln.id);
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.filter((d) => d.takedownAt === undefined)).toEqual([]);
    expect(events).toEqual(['TAKEDOWN LIFTED WHILE BEING RECORDED']);
    await s.h.sync('full');
    expect(await liveEntries(s.h, koeln.id)).toEqual([]);
  });

  it('a takedown lifted again and again while it runs gives up after two rounds, recorded once more: in force, TAKEDOWN_LIFTED_WHILE_RECORDED, and the next sync leaves the paper down', async () => {
    const { s, koeln } = await t.seed('lift-race-again');
    const paper = (await liveEntries(s.h, koeln.id)).find((e) => e.type === 'paper');
    if (!paper) throw new Error('no paper');
    // The takedown on clients of its own; before each of its re-reads of the registry another operator
    // lifts it (on the testbed's clients, never paused).
    const taker = secondOperator(s.deps);
    const lifts: number[] = [];
    const pause = pauseAt(
      taker.clients,
      {
        service: 'dynamodb',
        command: /BatchGet/,
        when: (input) => input.includes('TAKEDOWN#'),
        at: 'before',
      },
      async () => {
        const lifted = await liftTakedown(
          s.deps,
          { ids: [paper.id], sourceId: s.sourceId, by: 'lifter' },
          () => undefined,
        );
        lifts.push(lifted.lifted);
      },
      3,
    );
    const events: string[] = [];
    try {
      await expect(
        tombstoneIds(taker.deps, [paper.id], { by: 'second', sourceId: s.sourceId }, (event) =>
          events.push(event),
        ),
      ).rejects.toMatchObject({ code: 'TAKEDOWN_LIFTED_WHILE_RECORDED' });
    } finally {
      pause.remove();
      taker.close();
    }
    expect(lifts).toEqual([1, 1, 1]);
    expect(events).toEqual([
      'TAKEDOWN LIFTED WHILE BEING RECORDED',
      'TAKEDOWN LIFTED WHILE BEING RECORDED',
      'TAKEDOWN LIFTED AGAIN AND AGAIN WHILE BEING RECORDED',
    ]);
    const registry = new TakedownRegistry(t.bed.clients.doc, t.bed.env.STATE_TABLE);
    expect((await registry.items(s.sourceId)).find((i) => i.id === paper.id)?.mark.by).toBe('second');
    await s.h.sync('full');
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', paper.id)).toBeUndefined();
  });

  it('a body takedown issued while `takedown lift --body` removes the marks ends complete: every entry of the body marked, its documents flagged', async () => {
    const { s, koeln } = await t.seed('lift-race-body');
    await tombstoneBody(s.deps, 'koeln', { by: 'first', sourceId: s.sourceId });
    const lifter = secondOperator(s.deps);
    let renewed: unknown;
    const pause = pauseAt(lifter.clients, markRemoval, () =>
      tombstoneBody(s.deps, 'koeln', { by: 'second', sourceId: s.sourceId }),
    );
    try {
      const lifted = await liftTakedown(
        lifter.deps,
        { body: 'koeln', sourceId: s.sourceId, by: 'lifter' },
        () => undefined,
      );
      expect(pause.fired).toBe(1);
      renewed = lifted.renewed;
    } finally {
      pause.remove();
      lifter.close();
    }
    const entries = await indexEntries(s.h, koeln.id);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((e) => e.takedown === undefined || !e.deleted)).toEqual([]);
    const docs = await documentsOf(t.bed, s.sourceId, koeln.id);
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.filter((d) => d.takedownAt === undefined)).toEqual([]);
    await s.h.sync('full');
    expect(await liveEntries(s.h, koeln.id)).toEqual([]);
    expect(renewed).toEqual([koeln.id]);
  });
});
