import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { storedNumberBytes } from '../../shared/store';
import { PRICES_READ_ON } from './prices';

/**
 * DynamoDB's item size rule, pure: what an item stored in a table or copied into an index counts
 * towards the bill. The bench measures the mirror index with it (bench/cost.ts), on the items as the
 * local peer returns them (AttributeValue form, so a number is sized as a number and a string in UTF-8,
 * the same rule shared/store item-bytes.ts applies to plain values before a write).
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

/** A number's stored size (the one rule, shared/store item-bytes.ts). */
export const numberBytes = (text: string): number => storedNumberBytes(text);

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

/** A table's keys and global indexes, as shared/store tables.ts describes them. */
export interface TableShape {
  partitionKey: string;
  sortKey?: string;
  globalIndexes: { indexName: string; partitionKey: string; sortKey: string; include?: string[] }[];
}

type Item = Record<string, AttributeValue>;

/** Write units of `bytes`: one per started KB, at least one (a write that changes nothing still costs). */
export const writeUnitsOfBytes = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));
const unitsOf = writeUnitsOfBytes;

/**
 * Issue 28: what one write really costs, table and global indexes, from the item before and after it
 * (undefined = absent). The table bills the larger of the two; each global index whose copy changes
 * bills a write of the projected copy — two when an index key changes (the old copy deleted, the new
 * one put), one when the item enters or leaves the index or a projected attribute changes, none
 * otherwise ("Global secondary indexes", writes: docs.aws.amazon.com/amazondynamodb/latest/
 * developerguide/GSI.html#GSI.Writes; as known on the date above, to be re-checked). An index without
 * `include` projects every attribute.
 */
export function writeChangeUnits(
  before: Item | undefined,
  after: Item | undefined,
  table: TableShape,
): { table: number; indexes: Record<string, number> } {
  const tableUnits = unitsOf(
    Math.max(before ? dynamoItemBytes(before) : 0, after ? dynamoItemBytes(after) : 0),
  );
  const indexes: Record<string, number> = {};
  const tableKeys = [table.partitionKey, ...(table.sortKey ? [table.sortKey] : [])];
  for (const index of table.globalIndexes) {
    const inIndex = (item: Item | undefined): item is Item =>
      item?.[index.partitionKey] !== undefined && item[index.sortKey] !== undefined;
    const projected = (item: Item): Item =>
      index.include === undefined
        ? item
        : Object.fromEntries(
            Object.entries(item).filter(([name]) =>
              [...tableKeys, index.partitionKey, index.sortKey, ...(index.include ?? [])].includes(name),
            ),
          );
    const same = (a: AttributeValue | undefined, b: AttributeValue | undefined) =>
      JSON.stringify(a) === JSON.stringify(b);
    let units = 0;
    const was = inIndex(before) ? projected(before) : undefined;
    const is = inIndex(after) ? projected(after) : undefined;
    if (was && is) {
      const keyChanged =
        !same(was[index.partitionKey], is[index.partitionKey]) ||
        !same(was[index.sortKey], is[index.sortKey]);
      if (keyChanged) units = unitsOf(dynamoItemBytes(was)) + unitsOf(dynamoItemBytes(is));
      else if (!sameItem(was, is)) units = unitsOf(Math.max(dynamoItemBytes(was), dynamoItemBytes(is)));
    } else if (was) units = unitsOf(dynamoItemBytes(was));
    else if (is) units = unitsOf(dynamoItemBytes(is));
    if (units > 0) indexes[index.indexName] = units;
  }
  return { table: tableUnits, indexes };
}

/** Two items equal attribute by attribute (order apart). */
function sameItem(a: Item, b: Item): boolean {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const name of names) if (JSON.stringify(a[name]) !== JSON.stringify(b[name])) return false;
  return true;
}
