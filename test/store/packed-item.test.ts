import { describe, expect, it } from 'vitest';
import { PACKED_ATTRIBUTE, packItem, unpackItem } from '../../shared/store/packed-item';

/** Issue 28: a run cursor packed into one compressed attribute, the lock and on-call's fields plain. */
describe('packed items (issue 28)', () => {
  const cursor = {
    sourceId: 'src',
    runId: 'run-1',
    kind: 'incremental',
    status: 'running',
    seq: 7,
    tasks: Array.from({ length: 40 }, (_, i) => ({
      op: 'paper',
      url: `https://ratsinfo.example.de/bi/vo020.asp?VOLFDNR=${1_000_000 + i}`,
    })),
    totals: { requests: 12, pages: 11 },
  };

  it('SCH-5: reads back equal; `seq` (the write condition), `runId`, `kind` and `status` stay plain; the rest is ≥ 4× smaller', () => {
    const packed = packItem(cursor);
    expect(packed).toMatchObject({ seq: 7, runId: 'run-1', kind: 'incremental', status: 'running' });
    expect(packed.tasks).toBeUndefined();
    const bytes = (packed[PACKED_ATTRIBUTE] as Uint8Array).byteLength;
    expect(bytes * 4).toBeLessThan(JSON.stringify(cursor).length);
    expect(unpackItem(packed)).toEqual(cursor);
  });

  it('SCH-5: packed again (weighed, then written) it is the same bytes; another item in between packs as its own', () => {
    const first = packItem(cursor);
    const other = packItem({ ...cursor, seq: 8, totals: { requests: 13, pages: 12 } });
    const again = packItem({ ...cursor });
    expect(Buffer.from(again[PACKED_ATTRIBUTE] as Uint8Array)).toEqual(
      Buffer.from(first[PACKED_ATTRIBUTE] as Uint8Array),
    );
    expect(unpackItem(again)).toEqual(cursor);
    expect(unpackItem(other)).toEqual({ ...cursor, seq: 8, totals: { requests: 13, pages: 12 } });
    expect(unpackItem(packItem(cursor))).toEqual(cursor);
  });

  it('issue 28: an item written plain before reads as it is', () => {
    expect(unpackItem(cursor)).toEqual(cursor);
    expect(unpackItem(undefined)).toBeUndefined();
  });
});
