import { beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../../shared/engine';
import {
  classifyChange,
  countDelta,
  idHash,
  MirrorStore,
  type MirrorWrite,
  mirrorKey,
} from '../../shared/mirror';
import { useAwsTestbed } from '../support/aws';

describe('mirror keys (deterministic, B-4)', () => {
  it('mirror/<sourceId>/<type>/<sha256(id) first 40 hex>.json', () => {
    const key = mirrorKey('ris-a', 'meeting', 'https://ris.test/meeting/1');
    expect(key).toMatch(/^mirror\/ris-a\/meeting\/[0-9a-f]{40}\.json$/);
    expect(key).toBe(mirrorKey('ris-a', 'meeting', 'https://ris.test/meeting/1'));
    expect(idHash('x')).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1');
  });
});

describe('countDelta: what one commit changes in the API list counters (pure)', () => {
  const L = 'b'.repeat(16);
  const live = { lp: L, deleted: false };
  const gone = { lp: L, deleted: true };
  const down = { lp: L, deleted: true, takedown: { at: 't' } };
  it.each([
    ['new object', undefined, live, [{ list: L, entries: 1, live: 1 }]],
    ['modified live object: no write', live, { ...live, hash: 'h2' }, []],
    ['tombstone of a live object (origin deleted it)', live, gone, [{ list: L, entries: 0, live: -1 }]],
    ['deleted, then live again', gone, live, [{ list: L, entries: 0, live: 1 }]],
    [
      'takedown mark of a live entry (stays in the partition)',
      live,
      down,
      [{ list: L, entries: 0, live: -1 }],
    ],
    ['takedown mark of a tombstone', gone, down, []],
    ['lift (the mark goes, the tombstone stays)', down, gone, []],
    ['purge of a tombstone', gone, undefined, [{ list: L, entries: -1, live: 0 }]],
    ['purge of a live entry', live, undefined, [{ list: L, entries: -1, live: -1 }]],
    ['an item of no list (a body, an object of no body)', { deleted: false }, { deleted: false }, []],
    [
      'an old item (no list keys) written again joins the list',
      { deleted: false },
      live,
      [{ list: L, entries: 1, live: 1 }],
    ],
    [
      'moved to another list',
      live,
      { lp: 'c'.repeat(16), deleted: false },
      [
        { list: L, entries: -1, live: -1 },
        { list: 'c'.repeat(16), entries: 1, live: 1 },
      ],
    ],
  ])('%s', (_name, before, after, expected) => {
    expect(countDelta(before, after)).toEqual(expected);
  });
});

describe('classifyChange: new vs modified vs unchanged without reading S3', () => {
  const prev = { hash: 'h1', deleted: false, modifiedMs: 1000 };
  it.each([
    ['never seen → new', undefined, { hash: 'h1', deleted: false, modifiedMs: 1000 }, false, 'new'],
    ['same content → unchanged', prev, { hash: 'h1', deleted: false, modifiedMs: 1000 }, false, 'unchanged'],
    ['other content → modified', prev, { hash: 'h2', deleted: false, modifiedMs: 2000 }, false, 'modified'],
    [
      'older copy never rolls back',
      prev,
      { hash: 'h2', deleted: false, modifiedMs: 500 },
      false,
      'unchanged',
    ],
    ['deleted entry → deleted (OPT-2)', prev, { hash: 'h3', deleted: true }, false, 'deleted'],
    [
      'deletion stub of an object never held → unchanged (SCH-3: no invented change)',
      undefined,
      { hash: 'h3', deleted: true },
      false,
      'unchanged',
    ],
    [
      'deleted twice → unchanged',
      { ...prev, deleted: true },
      { hash: 'h3', deleted: true },
      false,
      'unchanged',
    ],
    [
      'back from the dead → modified',
      { ...prev, deleted: true },
      { hash: 'h4', deleted: false },
      false,
      'modified',
    ],
    [
      'embedded abridged copy, same modified → unchanged',
      prev,
      { hash: 'h2', deleted: false, modifiedMs: 1000 },
      true,
      'unchanged',
    ],
    [
      'embedded newer copy → modified',
      prev,
      { hash: 'h2', deleted: false, modifiedMs: 2000 },
      true,
      'modified',
    ],
    [
      'embedded stub without modified never replaces a dated object',
      prev,
      { hash: 'h2', deleted: false },
      true,
      'unchanged',
    ],
  ] as const)('%s', (_name, previous, incoming, embedded, expected) => {
    expect(classifyChange(previous, incoming, { embedded })).toBe(expected);
  });
});

describe('MirrorStore against the local S3 and DynamoDB peers', () => {
  const bed = useAwsTestbed();
  let mirror: MirrorStore;
  beforeAll(() => {
    mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  });

  const write = (object: Record<string, unknown>, extra: Partial<MirrorWrite> = {}): MirrorWrite => ({
    sourceId: 'mirror-test',
    type: 'paper',
    id: String(object.id),
    object,
    sourceUrl: 'https://ris.test/papers?page=1',
    fetchedAt: '2026-10-16T10:00:00.000Z',
    bodyId: 'https://ris.test/body/1',
    hash: contentHash(object),
    ...(typeof object.modified === 'string' ? { modified: object.modified } : {}),
    ...extra,
  });

  it('B-4: stores the object as received with its source URL and fetch time', async () => {
    const paper = {
      id: 'https://ris.test/paper/1',
      type: 'https://schema.oparl.org/1.1/Paper',
      name: 'A',
      modified: '2026-10-01T10:00:00+02:00',
    };
    await mirror.writeLive(write(paper));
    const record = await mirror.read('mirror-test', 'paper', paper.id);
    expect(record?.object).toEqual(paper);
    expect(record?.meta).toMatchObject({
      id: paper.id,
      type: 'paper',
      sourceId: 'mirror-test',
      sourceUrl: 'https://ris.test/papers?page=1',
      fetchedAt: '2026-10-16T10:00:00.000Z',
      bodyId: 'https://ris.test/body/1',
    });
    const found = await mirror.lookup('mirror-test', [
      { type: 'paper', id: paper.id },
      { type: 'paper', id: 'https://ris.test/paper/none' },
    ]);
    expect(found.size).toBe(1);
  });

  it('OPT-2: a deleted object becomes a tombstone that keeps the last good copy and leaves every listing', async () => {
    const good = {
      id: 'https://ris.test/paper/2',
      type: 'https://schema.oparl.org/1.1/Paper',
      name: 'Haushalt',
      modified: '2026-10-01T10:00:00+02:00',
    };
    const entry = await mirror.writeLive(write(good));
    expect((await collect(mirror.listLive('mirror-test', 'paper'))).map((e) => e.id)).toContain(good.id);

    const tomb = { id: good.id, deleted: true, modified: '2026-10-02T10:00:00+02:00' };
    await mirror.writeTombstone(write(tomb, { fetchedAt: '2026-10-16T11:00:00.000Z' }), entry);

    const record = await mirror.read('mirror-test', 'paper', good.id);
    expect(record?.meta.deleted).toBe(true);
    expect(record?.meta.lastGood).toEqual(good);
    expect(record?.meta.lastGoodFetchedAt).toBe('2026-10-16T10:00:00.000Z');
    expect(await mirror.readLive('mirror-test', 'paper', good.id)).toBeUndefined();
    expect((await collect(mirror.listLive('mirror-test', 'paper'))).map((e) => e.id)).not.toContain(good.id);
    expect((await collect(mirror.listAll('mirror-test', 'paper'))).map((e) => e.id)).toContain(good.id);

    // A second tombstone keeps the original last good copy.
    const again = await mirror.lookup('mirror-test', [{ type: 'paper', id: good.id }]);
    await mirror.writeTombstone(write(tomb), again.get(`paper\n${good.id}`));
    expect((await mirror.read('mirror-test', 'paper', good.id))?.meta.lastGood).toEqual(good);
  });

  it('listings filter by body', async () => {
    const other = { id: 'https://ris.test/paper/3', name: 'B' };
    await mirror.writeLive(write(other, { bodyId: 'https://ris.test/body/2' }));
    const ids = (
      await collect(mirror.listLive('mirror-test', 'paper', { bodyId: 'https://ris.test/body/2' }))
    ).map((e) => e.id);
    expect(ids).toEqual([other.id]);
  });
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
