/**
 * DynamoDB's size of an item as the document client stores it (attribute names + values): the rule
 * bench/cost/item-size.ts applies to the marshalled form (a string its UTF-8 bytes, a number about one
 * byte per two significant digits + 1, a Boolean or null 1, a list or map 3 + each element with 1 more
 * and a map's names), here on plain values, so the store can tell before a write whether an item stays
 * within one write unit (issue 28). A test holds the two equal on stored items.
 */
export function storedItemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item))
    if (value !== undefined) bytes += utf8(name) + valueBytes(value);
  return bytes;
}

/** One write unit's bytes: a write of an item up to this size (the larger of before and after) bills 1. */
export const WRITE_UNIT_BYTES = 1024;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * A number's stored size: leading and trailing zeroes trimmed, 1 byte per two digits left, + 1 — for a
 * plain number here and for a marshalled one (its `N` text) in the cost bench's item sizes.
 */
export function storedNumberBytes(value: number | bigint | string): number {
  const digits = String(value)
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return storedNumberBytes(value);
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((sum, e) => sum + valueBytes(e), 0);
  if (Array.isArray(value))
    return value.reduce<number>((sum, e) => sum + (e === undefined ? 0 : 1 + valueBytes(e)), 3);
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>).reduce<number>(
      (sum, [name, e]) => sum + (e === undefined ? 0 : 1 + utf8(name) + valueBytes(e)),
      3,
    );
  return 0;
}
