import { IngestorError } from '../errors';
import { compressText, decompressText } from './packed-item';

/**
 * Issue 28: the inline copy of a small live object in its mirror index item (`INLINE_ATTRIBUTE`, keys.ts)
 * is stored compressed — a binary attribute, the object's JSON as received packed by the one compressor
 * (packed-item.ts `compressText`). The copy is most of the Mirror table's bytes: storage, its `byList`
 * copy, the write units of every commit (per started KB) and the read units of the sync's BatchGet and
 * the API's list pages (per 4 KB of the items read). An item written before (a plain JSON string) stays
 * readable as it is; `ingestor backfill-index` packs it.
 */

/** Stored form of an inline copy: packed JSON (binary), or a plain JSON string written before. */
export type InlineCopy = Uint8Array | string;

/**
 * Brotli quality of an inline copy, measured on the demo council's 2,712 objects (`npm run bench --
 * inline-copy`; docs/mirror-api.md, Packed copies): 325 bytes a copy on average at 5, the same at 6 and
 * 7, 307 at 11 (6 % smaller) for 30× the CPU (1.2 ms against 38 µs a copy); 4 is 8 % larger for no
 * less CPU. The cursors' quality (packed-item.ts) is the same.
 */
export const INLINE_QUALITY = 5;

/** Pure: the stored form of an object's inline copy. */
export function packInline(object: unknown): Uint8Array {
  return packInlineText(JSON.stringify(object));
}

/** Pure: the stored form of an object's JSON text (a legacy plain copy packed as the sync would). */
export function packInlineText(json: string): Uint8Array {
  return compressText(json, INLINE_QUALITY);
}

/** An inline copy that does not read back as JSON: corrupt bytes, a hand edit, a foreign writer. */
export class InlineCopyCorruptError extends IngestorError {
  constructor(cause: unknown) {
    super('MIRROR_INLINE_CORRUPT', `inline copy unreadable: ${(cause as Error).message ?? String(cause)}`, {
      cause,
    });
  }
}

/** The object an inline copy holds, either form; throws InlineCopyCorruptError when it holds none. */
export function unpackInline(copy: unknown): unknown {
  try {
    if (typeof copy === 'string') return JSON.parse(copy);
    if (copy instanceof Uint8Array) return JSON.parse(decompressText(copy));
  } catch (error) {
    throw new InlineCopyCorruptError(error);
  }
  throw new InlineCopyCorruptError(new TypeError(`neither binary nor string but ${typeof copy}`));
}
