import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { PRICES_READ_ON } from './prices';

/**
 * DynamoDB's item size rule, pure: what an item stored in a table or copied into an index counts
 * towards the bill. The bench measures the mirror index with it (bench/cost.ts), on the items as the
 * local peer returns them (AttributeValue form, so a number is sized as a number and a string in UTF-8,
 * which the JSON length of `itemSizeBound` in shared/mirror/keys.ts over-states by its punctuation).
 *
 * Rule from "DynamoDB item sizes and formats" (docs.aws.amazon.com/amazondynamodb/latest/developerguide/
 * CapacityUnitCalculations.html), as known on the date below, to be re-checked: an item is the sum of
 * its attribute names (UTF-8 bytes) and values; a string is its UTF-8 bytes, a binary its raw bytes, a
 * number about 1 byte per two significant digits + 1, a Boolean or null 1 byte; a list or map 3 bytes +
 * its elements, each element 1 byte more.
 */
export const ITEM_SIZE_RULE_READ_ON = PRICES_READ_ON;

/**
 * Storage only: DynamoDB bills every item 100 bytes beyond its size "for indexing" — in the table, and
 * again for its copy in each global secondary index ("DynamoDB item sizes and formats", storage
 * overhead; "Global secondary indexes", storage considerations: "100 bytes of overhead per index item").
 * As known on 2026-12-01, to be re-checked. Request units are sized without it.
 */
export const STORAGE_OVERHEAD_BYTES_PER_ITEM = 100;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A number's stored size: leading and trailing zeroes are trimmed, 1 byte per two digits left, + 1. */
export function numberBytes(text: string): number {
  const digits = text
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

/** The size of one attribute value (its name apart). */
export function attributeValueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberBytes(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.byteLength, 0);
  if (value.L !== undefined) return value.L.reduce((sum, e) => sum + 1 + attributeValueBytes(e), 3);
  if (value.M !== undefined)
    return Object.entries(value.M).reduce(
      (sum, [name, e]) => sum + 1 + utf8(name) + attributeValueBytes(e),
      3,
    );
  throw new TypeError(`not a DynamoDB attribute value: ${JSON.stringify(value)}`);
}

/** An item's DynamoDB size: attribute names + values (without the storage overhead above). */
export function dynamoItemBytes(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + utf8(name) + attributeValueBytes(value),
    0,
  );
}
