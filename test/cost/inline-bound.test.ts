import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  type ApiPageModel,
  IA_REQUEST_FACTOR,
  IA_STORAGE_FACTOR,
  inlineBoundFigures,
  inlineItemShape,
  mirrorTableWithoutPitr,
  pageReadUnits,
  pageS3Gets,
  standardIaDeltaEur,
  usageAtBound,
} from '../../bench/cost/inline-bound';
import { dynamoItemBytes } from '../../bench/cost/item-size';
import { emptyUsage } from '../../bench/cost/model';
import { storedItemBytes } from '../../shared/store';

/**
 * Issue 28 (inline bound, PITR and table class of the mirror index decided by cost): the re-pricing
 * arithmetic of bench/cost/inline-bound.ts on small items counted by hand.
 */
describe('inline bound grid (issue 28)', () => {
  // Two listed objects, one 2,000 B inline copy and one 500 B one, and one deleted listed entry.
  const big = { bytes: 300, inlineBytes: 2_000, boundBytes: 2_400, copyBytes: 100 };
  const small = { bytes: 300, inlineBytes: 500, boundBytes: 900, copyBytes: 100 };
  const gone = { bytes: 250, inlineBytes: 0, boundBytes: 300, copyBytes: 100 };
  const samples = [{ weightPerSource: 1, items: [big, small, gone] }];

  it('an item rides inline only when it does now and its measure fits the bound', () => {
    const at4k = inlineBoundFigures(samples, 4096);
    const at1k = inlineBoundFigures(samples, 1024);
    const at0 = inlineBoundFigures(samples, 0);
    // Table: bytes + inline copy + 100 B overhead each.
    expect(at4k.tableBytes).toBe(300 + 2_000 + 300 + 500 + 250 + 300);
    expect(at1k.tableBytes).toBe(300 + 300 + 500 + 250 + 300);
    expect(at0.tableBytes).toBe(300 + 300 + 250 + 300);
    // Index: the copy + its inline part + 100 B each.
    expect(at4k.indexBytes).toBe(100 + 2_000 + 100 + 500 + 100 + 300);
    expect(at0.indexBytes).toBe(3 * 200);
    // Write units per commit: table ⌈2300/1024⌉ = 3, ⌈800/1024⌉ = 1, 1; index twice ⌈2100/1024⌉ = 3, 1, 1.
    expect(at4k.tableWriteUnits).toBe(5);
    expect(at4k.indexWriteUnits).toBe(2 * (3 + 1 + 1));
    expect(at0.tableWriteUnits).toBe(3);
    expect(at0.indexWriteUnits).toBe(6);
    // The deleted entry is never read from S3; the big object is at 1 KB, both at 0.
    expect([at4k.listedFromS3, at1k.listedFromS3, at0.listedFromS3]).toEqual([0, 1, 2]);
  });

  it('a page reads 0.5 unit per started 4 KB of its entries and one S3 GET per live object not inline', () => {
    const at4k = inlineBoundFigures(samples, 4096);
    // Mean entry (2100 + 600 + 100) / 3 ≈ 933 B; 51 entries ≈ 47.6 KB → 12 × 4 KB → 6 units.
    expect(pageReadUnits(at4k, 50)).toBe(6);
    expect(pageS3Gets(at4k, 50)).toBe(0);
    const at0 = inlineBoundFigures(samples, 0);
    // 51 entries of 100 B = 5.1 KB: two started 4 KB.
    expect(pageReadUnits(at0, 50)).toBe(1);
    expect(pageS3Gets(at0, 50)).toBeCloseTo((50 * 2) / 3, 9);
  });

  it('re-prices storage, writes, API reads, GETs and the API function from the measured bound', () => {
    const measured = inlineBoundFigures(samples, 4096);
    const at = inlineBoundFigures(samples, 0);
    const usage = emptyUsage();
    usage.dynamodb = { readUnits: 1_000, writeUnits: 500, storageGb: 10, indexStorageGb: 5, pitr: true };
    usage.lambda.mirrorApi = { invocations: 10, seconds: 1, memoryMb: 512, arch: 'arm64' };
    const api: ApiPageModel = {
      requests: 10,
      pageSize: 50,
      concurrency: 16,
      s3RoundSeconds: 0.03,
      billedReadUnitsPerRequest: 2,
    };
    const out = usageAtBound({
      usage,
      sources: 1e6,
      measured,
      at,
      mirrorWrites: { table: 50, index: 100 },
      api,
    });
    // Storage per source − 2,500 B (table) and − 2,500 B (index), at a million sources: − 2.5 GB each.
    expect(out.dynamodb.storageGb).toBeCloseTo(7.5, 9);
    expect(out.dynamodb.indexStorageGb).toBeCloseTo(2.5, 9);
    // Writes: table 50 × (3/5 − 1) = −20, index 100 × (6/10 − 1) = −40.
    expect(out.dynamodb.writeUnits).toBeCloseTo(440, 9);
    // Reads: 10 pages × (1 − 2).
    expect(out.dynamodb.readUnits).toBeCloseTo(990, 9);
    // 33.3 GETs a page: 10 pages; ⌈33.3 / 16⌉ = 3 rounds of 30 ms each.
    expect(out.s3.getRequests).toBeCloseTo((10 * 100) / 3, 9);
    expect(out.lambda.mirrorApi?.seconds).toBeCloseTo(1 + 10 * 3 * 0.03, 9);
    // The input is not changed.
    expect(usage.dynamodb.storageGb).toBe(10);
  });

  it('Standard-IA: storage × 0.4, request units × 1.25; a table of its own saves its share of PITR', () => {
    const lines = { readEur: 4, writeEur: 16, storageEur: 5, indexStorageEur: 3, pitrEur: 4 };
    expect(standardIaDeltaEur(lines)).toBeCloseTo(
      8 * (IA_STORAGE_FACTOR - 1) + 20 * (IA_REQUEST_FACTOR - 1),
      9,
    );
    expect(standardIaDeltaEur(lines)).toBeCloseTo(-4.8 + 5, 9);
    const at = inlineBoundFigures(samples, 4096);
    const move = mirrorTableWithoutPitr({
      lines,
      storageGb: 20,
      mirrorTableGb: 15,
      mirrorRequestEur: 2,
      at,
      sources: 1_000,
      eurPerReadUnit: 1e-7,
      eurPerWriteUnit: 1e-6,
    });
    expect(move.savesEurPerMonth).toBeCloseTo(3, 9);
    // Its storage (15/20 of the table's € 5, all of the index's € 3) × 0.6 saved, its € 2 of units × 0.25 more.
    expect(move.standardIaSavesEurPerMonth).toBeCloseTo((3.75 + 3) * 0.6 - 2 * 0.25, 9);
    // Each item once (5 units) and each copy once (10 / 2), per source.
    expect(move.moveWriteUnits).toBe(1_000 * (5 + 5));
    expect(move.moveReadUnits).toBeCloseTo((0.5 * 15e9) / 4096, 6);
  });

  it('takes a stored mirror item apart as the bench samples it', () => {
    const o = JSON.stringify({ id: 'https://x/paper/1', name: 'Antrag' });
    const stored = {
      pk: 'MIRROR#stadt#paper',
      sk: 'a'.repeat(40),
      lp: 'b'.repeat(16),
      ls: `1764000000000#${'c'.repeat(12)}`,
      deleted: false,
      hash: 'd'.repeat(64),
      fetchedAt: '2026-12-03T09:00:00.000Z',
      o,
    };
    const shape = inlineItemShape(marshall(stored));
    const { o: _, ...rest } = stored;
    expect(shape.bytes).toBe(dynamoItemBytes(marshall(rest)));
    expect(shape.inlineBytes).toBe(1 + Buffer.byteLength(o));
    expect(shape.boundBytes).toBe(storedItemBytes(stored));
    // The copy: table keys, list keys and `deleted` (not hash, fetchedAt).
    const { hash: _h, fetchedAt: _f, ...copy } = rest;
    expect(shape.copyBytes).toBe(dynamoItemBytes(marshall(copy)));
    // Not listed: no copy.
    const { lp: _lp, ...unlisted } = stored;
    expect(inlineItemShape(marshall(unlisted)).copyBytes).toBe(0);
  });
});
