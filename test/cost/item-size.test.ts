import { describe, expect, it } from 'vitest';
import {
  attributeValueBytes,
  dynamoItemBytes,
  numberBytes,
  writeChangeUnits,
} from '../../bench/cost/item-size';
import { storedItemBytes } from '../../shared/store';

/**
 * The DynamoDB item size rule the cost bench measures the mirror index with ("DynamoDB item sizes and
 * formats", as known on 2026-12-01, to be re-checked). Each expected figure is counted by hand.
 */
describe('DynamoDB item size (storage of the mirror index, issue 18)', () => {
  it.each([
    ['a string is its UTF-8 bytes', { S: 'abc' }, 3],
    ['an umlaut is two bytes, not one character', { S: 'Sitzung Ausschuss für Bau' }, 26],
    ['a Boolean is 1 byte', { BOOL: false }, 1],
    ['null is 1 byte', { NULL: true }, 1],
    ['a binary is its raw bytes (not its base64)', { B: new Uint8Array(5) }, 5],
    ['a number is 1 byte per two significant digits + 1', { N: '12345' }, 4],
    ['a list is 3 bytes + each element + 1 byte per element', { L: [{ S: 'ab' }, { BOOL: true }] }, 8],
    ['a map counts its names too', { M: { id: { S: 'x' } } }, 7],
    ['an empty map is 3 bytes', { M: {} }, 3],
  ])('%s', (_, value, bytes) => {
    expect(attributeValueBytes(value)).toBe(bytes);
  });

  it('trims leading and trailing zeroes of a number before counting its digits', () => {
    expect(numberBytes('0.00120')).toBe(2);
    expect(numberBytes('-1200')).toBe(2);
    expect(numberBytes('0')).toBe(2);
    expect(numberBytes('123456789')).toBe(6);
  });

  it('sums attribute names and values of an item, and stays below the JSON bound the mirror uses', () => {
    // prepare: an index item of the mirror's shape (shared/mirror store.ts putIndex).
    const item = {
      pk: 'MIRROR#stadt#paper',
      sk: 'a'.repeat(40),
      lp: 'b'.repeat(16),
      ls: `1764493200000#${'a'.repeat(12)}`,
      deleted: false,
    };
    // act
    const bytes = dynamoItemBytes({
      pk: { S: item.pk },
      sk: { S: item.sk },
      lp: { S: item.lp },
      ls: { S: item.ls },
      deleted: { BOOL: item.deleted },
    });
    // assess: names 2+2+2+2+7 = 15; values 18 + 40 + 16 + 26 + 1 = 101.
    expect(bytes).toBe(116);
    expect(bytes).toBe(storedItemBytes(item));
  });
});

describe('issue 28: the write units of one write, table and global indexes (GSI.Writes)', () => {
  const table = {
    partitionKey: 'pk',
    sortKey: 'sk',
    globalIndexes: [
      { indexName: 'byDue', partitionKey: 'dueShard', sortKey: 'dueAt' },
      { indexName: 'byLease', partitionKey: 'leaseShard', sortKey: 'leaseUntil' },
      { indexName: 'byList', partitionKey: 'lp', sortKey: 'ls', include: ['o'] },
    ],
  };
  const pad = (bytes: number) => ({ S: 'x'.repeat(bytes) });
  // pk 2+8, sk 2+5, dueShard 8+7, dueAt 5+24 = 61 bytes before the padding.
  const state = (dueAt: string, extra: Record<string, { S: string }> = {}) => ({
    pk: { S: 'SOURCE#a' },
    sk: { S: 'STATE' },
    dueShard: { S: 'planner' },
    dueAt: { S: dueAt },
    ...extra,
  });
  const T1 = '2026-11-30T10:00:00.000Z';
  const T2 = '2026-11-30T10:20:00.000Z';

  it('the table bills the larger of before and after, per started KB', () => {
    const big = state(T1, { note: pad(1_200) });
    expect(writeChangeUnits(big, state(T1), table).table).toBe(2);
    expect(writeChangeUnits(undefined, state(T1), table).table).toBe(1);
  });

  it('an index key that changes costs two index writes (old copy deleted, new one put); ALL projects the whole item', () => {
    const before = state(T1, { note: pad(1_100) });
    const after = state(T2, { note: pad(1_100) });
    expect(writeChangeUnits(before, after, table)).toEqual({ table: 2, indexes: { byDue: 4 } });
  });

  it('entering or leaving a sparse index is one write; an unchanged copy none', () => {
    const leased = state(T1, { leaseShard: { S: 'lease' }, leaseUntil: { S: T2 } });
    expect(writeChangeUnits(state(T1), leased, table).indexes).toEqual({ byDue: 1, byLease: 1 });
    expect(writeChangeUnits(leased, state(T1), table).indexes).toEqual({ byDue: 1, byLease: 1 });
    expect(writeChangeUnits(state(T1), state(T1), table).indexes).toEqual({});
  });

  it('an INCLUDE index is written only when its keys or included attributes change, at the copy’s size', () => {
    const item = (o: string, other: string) => ({
      pk: { S: 'MIRROR#a#paper' },
      sk: { S: 'h1' },
      lp: { S: 'a#b#paper' },
      ls: { S: '1' },
      o: { S: o },
      big: pad(2_000 + other.length),
    });
    expect(writeChangeUnits(item('x', ''), item('x', 'yy'), table)).toEqual({ table: 2, indexes: {} });
    expect(writeChangeUnits(item('x', ''), item('y', ''), table)).toEqual({
      table: 2,
      indexes: { byList: 1 },
    });
  });
});
