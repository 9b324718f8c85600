import { DUE_INDEX, STATE_TABLE, type TableDefinition } from './tables';

/**
 * Issue 28: what one UpdateItem costs a global secondary index, derived from the update itself — the
 * attribute names its UpdateExpression sets and removes — and the index's definition (tables.ts), so
 * the count cannot drift from the writes the store makes. Pure.
 *
 * DynamoDB's rule ("Provisioned throughput considerations for global secondary indexes", writes:
 * docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes,
 * read 2026-12-03): a table write costs an index 0, 1 or 2 writes — one when the item enters the index
 * (an index key attribute defined that was not), one when it leaves it (a key attribute removed), two
 * when an index key attribute changes value (the old entry deleted, the new one put), one when only
 * projected attributes change, none when nothing the index holds changes. Each such write is billed on
 * the projected entry's size, in 1 KB units (`indexWriteUnits`).
 *
 * From names alone a SET is taken to change its attribute, except two cases the store writes on
 * purpose: `x = if_not_exists(x, …)` (changes nothing on an item that has `x`), and the attributes in
 * `unchanging` (written with the value every write gives them, e.g. the planner's shard — so the item
 * exists in the index with it). So the count is an upper bound the bench's before/after measure meets
 * on every write kind (test/store/index-writes.test.ts).
 */
export type IndexCopies = 0 | 1 | 2;

/** The part of an UpdateItem input the count reads. */
export interface UpdateShape {
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
}

type IndexDefinition = TableDefinition['globalIndexes'][number];

/** The top-level attributes an UpdateExpression sets (with whether only if absent) and removes. */
export interface UpdatedAttributes {
  set: string[];
  /** Set as `x = if_not_exists(x, …)`: a change only on an item without `x`. */
  setIfAbsent: string[];
  remove: string[];
}

/** A clause keyword stands alone (not `:set`, `#add`, an attribute `deleted`). */
const CLAUSE_KEYWORDS = /(?<=^|\s)(SET|REMOVE|ADD|DELETE)(?=\s)/gi;

/** Splits at commas outside parentheses (`if_not_exists(a, :b)`, `list_append(…)`). */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** The top-level attribute of a path (`#s.#r` → the name of `#s`; `a[2]` → `a`). */
function topAttribute(path: string, names: Record<string, string>): string {
  const head = path.trim().split(/[.[]/)[0] ?? '';
  return head.startsWith('#') ? (names[head] ?? head) : head;
}

/** Pure: the attributes an UpdateExpression touches, by clause (ADD as a set, DELETE as a set). */
export function updatedAttributes(update: UpdateShape): UpdatedAttributes {
  const names = update.ExpressionAttributeNames ?? {};
  const expression = update.UpdateExpression ?? '';
  const out: UpdatedAttributes = { set: [], setIfAbsent: [], remove: [] };
  const marks = [...expression.matchAll(CLAUSE_KEYWORDS)];
  marks.forEach((mark, i) => {
    const body = expression.slice(
      (mark.index ?? 0) + mark[0].length,
      marks[i + 1]?.index ?? expression.length,
    );
    const keyword = mark[0].toUpperCase();
    for (const part of topLevelParts(body)) {
      if (keyword === 'REMOVE') {
        out.remove.push(topAttribute(part, names));
        continue;
      }
      // SET a = v; ADD a v; DELETE a v — the attribute is the first path.
      const [path = '', value = ''] = keyword === 'SET' ? part.split('=', 2) : part.split(/\s+/, 2);
      const attribute = topAttribute(path, names);
      const ifAbsent = /^\s*if_not_exists\s*\(\s*([^,\s]+)/.exec(value);
      const guarded = ifAbsent !== null && topAttribute(ifAbsent[1] ?? '', names) === attribute;
      (guarded && !path.includes('.') ? out.setIfAbsent : out.set).push(attribute);
    }
  });
  return out;
}

/**
 * Pure: the index writes one UpdateItem costs `index` (0, 1 or 2; the rule above). `inIndex`: whether
 * the item is in the index before the write (both key attributes defined). `unchanging`: attributes
 * this kind of item always holds with the value a write gives them.
 */
export function indexCopiesOfUpdate(
  update: UpdateShape,
  index: Pick<IndexDefinition, 'partitionKey' | 'sortKey' | 'include'>,
  { inIndex, unchanging = [] }: { inIndex: boolean; unchanging?: readonly string[] },
): IndexCopies {
  const touched = updatedAttributes(update);
  const keys = [index.partitionKey, index.sortKey];
  const isKey = (name: string) => keys.includes(name);
  // An index without `include` projects every attribute.
  const isHeld = (name: string) => isKey(name) || index.include === undefined || index.include.includes(name);
  const changed = [
    ...touched.set.filter((n) => !unchanging.includes(n)),
    ...(inIndex ? [] : touched.setIfAbsent),
  ];
  if (!inIndex) {
    // Entering takes a key attribute set (the other one held already or set in the same write).
    return [...touched.set, ...touched.setIfAbsent].some(isKey) && !touched.remove.some(isKey) ? 1 : 0;
  }
  if (touched.remove.some(isKey)) return 1;
  if (changed.some(isKey)) return 2;
  return changed.some(isHeld) || touched.remove.some(isHeld) ? 1 : 0;
}

/** Write units of `copies` index writes of an entry of `entryBytes` (each in 1 KB units, at least one). */
export function indexWriteUnits(copies: IndexCopies, entryBytes: number): number {
  return copies * Math.max(1, Math.ceil(entryBytes / 1024));
}

/**
 * Attributes every write of a STATE item gives the same value (source-state.ts: the source's id, the
 * planner's one shard): setting them again changes nothing the index holds.
 */
export const STATE_UNCHANGING_ATTRIBUTES = ['sourceId', 'dueShard'] as const;

const DUE_INDEX_DEFINITION = STATE_TABLE.globalIndexes.find((index) => index.indexName === DUE_INDEX);

/** Pure: the `byDueAt` writes one UpdateItem of a STATE item costs (`indexCopiesOfUpdate`). */
export function dueIndexCopiesOf(update: UpdateShape, inIndex: boolean): IndexCopies {
  if (DUE_INDEX_DEFINITION === undefined) return 0;
  return indexCopiesOfUpdate(update, DUE_INDEX_DEFINITION, {
    inIndex,
    unchanging: STATE_UNCHANGING_ATTRIBUTES,
  });
}
