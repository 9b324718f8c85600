import { describe, expect, it } from 'vitest';
import { ASSUMPTIONS as A } from '../../bench/cost/assumptions';
import {
  CLASS_PRICES,
  type FileClassLoad,
  fileStockMonthUsd,
  GLACIER_IR_MIN_DAYS,
  putsPerStoredFile,
  standardBreakEvenVisitsPerMonth,
  youngFilesMonthUsd,
} from '../../bench/cost/file-class-choice';
import { GLACIER_IR_MIN_BILLABLE_BYTES, lognormalWithMean, tieredFiles } from '../../bench/cost/file-sizes';
import { WEEKS_PER_MONTH } from '../../bench/cost/model';
import { FILES_TO_GLACIER_IR_AFTER_DAYS, FILES_TO_GLACIER_IR_MIN_BYTES } from '../../infra/storage-classes';
import { UPLOAD_PART_BYTES } from '../../shared/documents/constants';

const sizes = lognormalWithMean(A.fileBytes, A.fileSizeSigma);
const MIN = FILES_TO_GLACIER_IR_MIN_BYTES;
const visits = A.previewVisitsPerSourcePerWeek * WEEKS_PER_MONTH * 1000;
/** The cost model's load at 1,000 sources. */
const load: FileClassLoad = {
  newFilesPerMonth: A.filesPerSourcePerWeek * WEEKS_PER_MONTH * 1000,
  oldFiles: A.storedFilesPerSource * 1000,
  youngVisitsPerMonth: visits * (1 - A.previewOldFileShare),
  oldVisitsPerMonth: visits * A.previewOldFileShare,
  readsPerNewFile: 1,
  earlyDeletedShare: 0,
  transitionAgeDays: FILES_TO_GLACIER_IR_AFTER_DAYS,
};

describe('issue 28 (s3-files): the file copies’ storage class by the model’s numbers (bench/cost/file-class-choice.ts)', () => {
  it('a file within one upload part costs two PUT-class calls (its PutObject and its text’s), a larger one more', () => {
    const small = putsPerStoredFile(lognormalWithMean(200_000, 0.01), UPLOAD_PART_BYTES);
    expect(Object.values(small).reduce((a, b) => a + b, 0)).toBeCloseTo(2, 6);
    // ≈ 10.4 MiB files: create + 3 parts + complete to the incoming key, the CopyObject, the text.
    const big = putsPerStoredFile(lognormalWithMean(2.08 * UPLOAD_PART_BYTES, 0.001), UPLOAD_PART_BYTES);
    expect(big['PutObject file (within one part)']).toBeCloseTo(0, 6);
    expect(big['multipart upload file (incoming, over one part)']).toBeCloseTo(2 + 2.58, 2);
    expect(big['CopyObject file (promote, over one part)']).toBeCloseTo(1, 6);
    // The assumed sizes: ≈ 0.56 % over one part, ≈ 2.03 calls a file (3 before s3-files).
    const mix = Object.values(putsPerStoredFile(sizes, UPLOAD_PART_BYTES)).reduce((a, b) => a + b, 0);
    expect(mix).toBeGreaterThan(2);
    expect(mix).toBeLessThan(2.05);
  });

  it('Glacier IR at PUT would save the transition and a young file’s Standard month — if nobody read young files', () => {
    const unread = youngFilesMonthUsd(
      sizes,
      MIN,
      { ...load, youngVisitsPerMonth: 0, readsPerNewFile: 0 },
      CLASS_PRICES,
    );
    expect(unread.directGlacierIr).toBeLessThan(unread.asBuilt);
  });

  it('with the preview’s visits of young files and the text extraction’s read it costs more than twice as built', () => {
    const y = youngFilesMonthUsd(sizes, MIN, load, CLASS_PRICES);
    expect(y.directGlacierIr).toBeGreaterThan(2 * y.asBuilt);
    // Not even the text extraction's read alone is paid for: the preview's visits are needed to lose more.
    const textOnly = youngFilesMonthUsd(sizes, MIN, { ...load, youngVisitsPerMonth: 0 }, CLASS_PRICES);
    expect(textOnly.directGlacierIr).toBeLessThan(y.directGlacierIr);
  });

  it('an early deletion (takedown, purge, re-fetch) bills the direct write 90 days of Glacier IR more', () => {
    const none = youngFilesMonthUsd(sizes, MIN, load, CLASS_PRICES);
    const all = youngFilesMonthUsd(sizes, MIN, { ...load, earlyDeletedShare: 1 }, CLASS_PRICES);
    const t = tieredFiles(sizes, MIN);
    const expected =
      ((load.newFilesPerMonth * t.glacierIrBilledBytesPerFile * GLACIER_IR_MIN_DAYS) / (365.25 / 12) / 1e9) *
      CLASS_PRICES.glacierIrGbMonth;
    expect(all.directGlacierIr - none.directGlacierIr).toBeCloseTo(expected, 9);
    expect(all.asBuilt).toBe(none.asBuilt);
  });

  it('Intelligent-Tiering costs more than the rule: its monitoring fee alone passes the Glacier IR reads it would save', () => {
    const s = fileStockMonthUsd(sizes, MIN, load, CLASS_PRICES);
    expect(s.intelligentTiering).toBeGreaterThan(s.asBuilt);
    const t = tieredFiles(sizes, MIN);
    const copies = load.oldFiles + (load.newFilesPerMonth * FILES_TO_GLACIER_IR_AFTER_DAYS) / (365.25 / 12);
    const monitoring =
      copies * (1 - normalShareBelow(GLACIER_IR_MIN_BILLABLE_BYTES)) * CLASS_PRICES.itMonitoring;
    const glacierReads =
      load.oldVisitsPerMonth * t.transitionedShare * CLASS_PRICES.glacierIrGet +
      ((load.oldVisitsPerMonth * t.glacierIrBytesPerFile) / 1e9) * CLASS_PRICES.glacierIrRetrievalGb;
    expect(monitoring).toBeGreaterThan(glacierReads);
  });

  it('a later transition pays only for files read ≈ 0.4 times a month; old files are read ≈ 0.03 times', () => {
    const t = tieredFiles(sizes, MIN);
    const bytes = t.glacierIrBytesPerFile / t.transitionedShare;
    const v = standardBreakEvenVisitsPerMonth(CLASS_PRICES, bytes);
    const p = CLASS_PRICES;
    const standard = (p.standardGbMonth * bytes) / 1e9 + v * p.standardGet;
    const glacier =
      (p.glacierIrGbMonth * bytes) / 1e9 + v * (p.glacierIrGet + (bytes * p.glacierIrRetrievalGb) / 1e9);
    expect(glacier).toBeCloseTo(standard, 12);
    expect(v).toBeGreaterThan(0.3);
    expect(load.oldVisitsPerMonth / load.oldFiles).toBeLessThan(v / 5);
  });
});

function normalShareBelow(bytes: number): number {
  return 1 - tieredFiles(sizes, bytes).transitionedShare;
}
