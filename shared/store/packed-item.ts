import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/**
 * Issue 28: a run cursor packed into one compressed attribute. A cursor is rewritten after every page
 * (its checkpoint), and DynamoDB bills each write one unit per started KB: the scraper's stack of tasks
 * carries calendar rows, agenda items and page states, 1–6 KB in a run with a change and ≈ 19 KB on
 * average through a first full scrape; its URLs, names and field names compress 4–5 fold. The lock
 * attribute `seq` (the write's condition) and what on-call looks at in the raw item (`runId`, `kind`,
 * `status`) stay plain beside it. Pure; an item without the packed attribute (written before) is read
 * as it is.
 */

/** The packed attribute's name. */
export const PACKED_ATTRIBUTE = 'z';
/** Attributes kept plain beside it. */
const PLAIN = ['seq', 'runId', 'kind', 'status'] as const;
/**
 * Brotli quality 5: ≈ 1.5 ms for a 19 KB cursor, within 1 % of the size at quality 9 (which takes
 * ≈ 240 ms); measured on the cursors of a first full scrape of the fake ALLRIS site.
 */
const QUALITY = 5;

/** The item as stored: its plain attributes and the rest as compressed JSON. */
export function packItem(item: Record<string, unknown>): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    if ((PLAIN as readonly string[]).includes(name)) plain[name] = value;
    else rest[name] = value;
  }
  plain[PACKED_ATTRIBUTE] = compressed(JSON.stringify(rest));
  return plain;
}

/**
 * Issue 28 (sync CPU): a checkpoint packs its cursor twice — weighed first (OParl's riding list reports,
 * `packedBytes`), then written — so the last cursor text compressed is kept with its bytes (same text,
 * same bytes: brotli is deterministic). The cursor's alone: the mirror's inline copies, packed between
 * two checkpoints, do not evict it.
 */
let lastCompressed: { text: string; bytes: Buffer } | undefined;

function compressed(text: string): Buffer {
  if (lastCompressed?.text === text) return lastCompressed.bytes;
  const bytes = compressText(text);
  lastCompressed = { text, bytes };
  return bytes;
}

/**
 * The project's one compressor for DynamoDB attributes (a cursor here, the mirror's inline copies:
 * inline-copy.ts): UTF-8 text as brotli at `quality`. Pure and deterministic, so a rebuilt item is
 * byte for byte the item written.
 */
export function compressText(text: string, quality: number = QUALITY): Buffer {
  const json = Buffer.from(text);
  return brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: json.length },
  });
}

/** The text `compressText` packed; throws (zlib's error) on bytes that are not a brotli stream. */
export function decompressText(bytes: Uint8Array): string {
  return brotliDecompressSync(bytes).toString('utf8');
}

/** The item in its own shape again (an unpacked one as it is). */
export function unpackItem<T>(stored: Record<string, unknown> | undefined): T | undefined {
  if (stored === undefined) return undefined;
  const packed = stored[PACKED_ATTRIBUTE];
  if (!(packed instanceof Uint8Array)) return stored as T;
  const { [PACKED_ATTRIBUTE]: _packed, ...plain } = stored;
  return { ...JSON.parse(decompressText(packed)), ...plain } as T;
}

/**
 * An upper bound of a packed item's DynamoDB size (names + values): a string by its UTF-8 bytes, a
 * binary by its bytes, a number by its digits (DynamoDB stores about half that), anything else by its
 * JSON. What decides whether a write of it fits one write unit (1 KB).
 */
export function packedItemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name);
    if (value instanceof Uint8Array) bytes += value.byteLength;
    else if (typeof value === 'string') bytes += Buffer.byteLength(value);
    else bytes += Buffer.byteLength(JSON.stringify(value) ?? '');
  }
  return bytes;
}
