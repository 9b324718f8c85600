import { describe, expect, it } from 'vitest';
import { attributeValueBytes, dynamoItemBytes, numberBytes } from '../../bench/cost/item-size';
import { itemSizeBound } from '../../shared/mirror/keys';

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
    expect(bytes).toBeLessThan(itemSizeBound(item));
  });
});
