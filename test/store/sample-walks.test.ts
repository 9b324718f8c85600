import { describe, expect, it } from 'vitest';
import { SampleWalks } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';

/**
 * Issue 28 / DEL-2: a deletion run reads every listed body's walk cursor in one BatchGet (`getMany`)
 * at its start. Real local DynamoDB: the split at 100 keys, cursors never written, and that nothing
 * read is kept for the next call (another run's advance in between is what the next run starts from).
 */
describe('SampleWalks.getMany', () => {
  const bed = useAwsTestbed();

  it('DEL-2: answers every cursor across the 100-keys-a-call split, leaves unwritten ones out, and reads afresh each call', async () => {
    const walks = new SampleWalks({ doc: bed.clients.doc, table: bed.env.DOCUMENTS_TABLE });
    const ids = Array.from({ length: 150 }, (_, i) => `walk#test#src#body-${i}`);
    for (const [i, id] of ids.entries()) {
      if (i % 5 === 0) continue;
      expect(
        await walks.advance(id, undefined, { position: `walk#p${i}`, at: '2026-12-01T00:00:00.000Z' }),
      ).toBe(true);
    }
    const first = await walks.getMany(ids);
    expect(first.size).toBe(120);
    for (const [i, id] of ids.entries()) {
      expect(first.get(id)).toEqual(
        i % 5 === 0 ? undefined : { position: `walk#p${i}`, at: '2026-12-01T00:00:00.000Z' },
      );
    }
    // another run moves one cursor (duplicate delivery): the next read sees it
    const moved = { position: 'walk#moved', at: '2026-12-01T01:00:00.000Z' };
    expect(await walks.advance(ids[7] ?? '', 'walk#p7', moved)).toBe(true);
    expect((await walks.getMany(ids)).get(ids[7] ?? '')).toEqual(moved);
    // a key named twice (DynamoDB refuses duplicates in one BatchGet) is asked once
    expect((await walks.getMany([ids[7] ?? '', ids[7] ?? ''])).get(ids[7] ?? '')).toEqual(moved);
    expect((await walks.getMany([])).size).toBe(0);
  });
});
