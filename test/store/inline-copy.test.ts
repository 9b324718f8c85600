import { describe, expect, it } from 'vitest';
import { isIngestorError } from '../../shared/errors';
import { fitsInline, INLINE_ITEM_MAX_BYTES, indexItemOf } from '../../shared/mirror';
import {
  InlineCopyCorruptError,
  indexKey,
  packInline,
  packInlineText,
  storedItemBytes,
  unpackInline,
} from '../../shared/store';
import { incompressibleText, paperWrite } from '../support/mirror-api';

/** Issue 28: a mirror index item's inline copy stored packed; a plain one written before still reads. */
describe('inline copies (issue 28)', () => {
  const body = 'https://ris.example.de/oparl/body/1';
  const write = paperWrite('stadt', body, 7, '2026-12-03T09:00:00.000Z', {
    reference: 'VO/2026/7',
    keyword: Array.from({ length: 30 }, (_, k) => `Schlagwort ${k}`),
  });

  it('packed: binary, smaller than the JSON, and the object again when read', () => {
    const json = JSON.stringify(write.object);
    const copy = packInline(write.object);
    expect(copy).toBeInstanceOf(Uint8Array);
    expect(copy.byteLength).toBeLessThan(Buffer.byteLength(json) / 2);
    expect(unpackInline(copy)).toEqual(write.object);
    // A plain copy packs to the same bytes (the backfill packs the old copies from their text).
    expect(Buffer.from(packInlineText(json))).toEqual(Buffer.from(copy));
  });

  it('a plain JSON copy written before reads as it is', () => {
    expect(unpackInline(JSON.stringify(write.object))).toEqual(write.object);
  });

  it('a hostile copy (not brotli, brotli of no JSON, another type) is a typed error, MIRROR_INLINE_CORRUPT', () => {
    const truncated = packInline(write.object).subarray(0, 10);
    const notJson = packInlineText('{"id": "https://x/paper/1", ');
    for (const copy of [Uint8Array.from([0xde, 0xad, 0xbe, 0xef]), truncated, notJson, '{oops', 42]) {
      let caught: unknown;
      try {
        unpackInline(copy);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InlineCopyCorruptError);
      expect(isIngestorError(caught, 'MIRROR_INLINE_CORRUPT')).toBe(true);
    }
  });

  it('the sync commit carries the packed copy; the bound is the item as stored (DynamoDB size rule)', () => {
    const { item } = indexItemOf(write, false);
    expect(item.o).toBeInstanceOf(Uint8Array);
    expect(unpackInline(item.o)).toEqual(write.object);
    const stored = { ...indexKey('stadt', 'paper', write.id), ...item };
    expect(storedItemBytes(stored)).toBeLessThanOrEqual(INLINE_ITEM_MAX_BYTES);

    // 8 KB of JSON that packs small rides inline (over the bound plain, as it was stored before).
    const repetitive = {
      ...write,
      object: { ...(write.object as object), text: 'Begründung. '.repeat(700) },
    };
    expect(Buffer.byteLength(JSON.stringify(repetitive.object))).toBeGreaterThan(2 * INLINE_ITEM_MAX_BYTES);
    expect(indexItemOf(repetitive, false).item.o).toBeInstanceOf(Uint8Array);

    // Too large packed: no copy (the API reads S3); deleted: never a copy.
    const large = { ...write, object: { ...(write.object as object), text: incompressibleText(8_000) } };
    expect(indexItemOf(large, false).item.o).toBeUndefined();
    expect(indexItemOf(write, true).item.o).toBeUndefined();
  });

  it('fitsInline: at the bound yes, one byte beyond no', () => {
    const stored = { pk: 'p', sk: 's' };
    const base = storedItemBytes({ ...stored, o: new Uint8Array(0) });
    expect(fitsInline(stored, new Uint8Array(INLINE_ITEM_MAX_BYTES - base))).toBe(true);
    expect(fitsInline(stored, new Uint8Array(INLINE_ITEM_MAX_BYTES - base + 1))).toBe(false);
  });
});
