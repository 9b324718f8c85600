import { describe, expect, it } from 'vitest';
import { ASSUMPTIONS as A } from '../../bench/cost/assumptions';
import {
  bytesAbovePerFile,
  type FileSizeDistribution,
  GLACIER_IR_MIN_BILLABLE_BYTES,
  lognormalWithMean,
  meanBytes,
  normalCdf,
  shareAbove,
  TRANSITION_PRICES,
  tieredFiles,
  tierMonthUsd,
  transitionBreakEvenBytes,
} from '../../bench/cost/file-sizes';
import { WEEKS_PER_MONTH } from '../../bench/cost/model';
import { FILES_TO_GLACIER_IR_MIN_BYTES } from '../../infra/storage-classes';

const sizes: FileSizeDistribution = lognormalWithMean(A.fileBytes, A.fileSizeSigma);

/** The same quantities by brute force: the lognormal's density summed on a fine grid of ln(size). */
function integrate(d: FileSizeDistribution, above: number): { share: number; bytes: number } {
  const mu = Math.log(d.medianBytes);
  let share = 0;
  let bytes = 0;
  const step = 0.0005;
  for (let x = mu - 10 * d.sigma; x < mu + 10 * d.sigma; x += step) {
    const size = Math.exp(x);
    if (size <= above) continue;
    const p = (Math.exp(-((x - mu) ** 2) / (2 * d.sigma ** 2)) / (d.sigma * Math.sqrt(2 * Math.PI))) * step;
    share += p;
    bytes += p * size;
  }
  return { share, bytes };
}

describe('issue 28: file sizes and the Glacier IR transition (bench/cost/file-sizes.ts)', () => {
  it('the assumed distribution has the assumed mean file size', () => {
    expect(meanBytes(sizes)).toBeCloseTo(A.fileBytes, 6);
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
  });

  it.each([0, 32_000, GLACIER_IR_MIN_BILLABLE_BYTES, 1_000_000])(
    'share and bytes of the files above %i B match the density summed numerically',
    (above) => {
      const numeric = integrate(sizes, above);
      expect(shareAbove(sizes, above)).toBeCloseTo(numeric.share, 3);
      expect(bytesAbovePerFile(sizes, above) / A.fileBytes).toBeCloseTo(numeric.bytes / A.fileBytes, 3);
    },
  );

  it('files moved under 128 KiB are billed as 128 KiB; the tiers add up to every byte', () => {
    const all = tieredFiles(sizes, 0);
    const some = tieredFiles(sizes, GLACIER_IR_MIN_BILLABLE_BYTES);
    expect(all.transitionedShare).toBe(1);
    expect(all.glacierIrBilledBytesPerFile).toBeGreaterThan(all.glacierIrBytesPerFile);
    expect(some.glacierIrBilledBytesPerFile).toBeCloseTo(some.glacierIrBytesPerFile, 6);
    for (const t of [all, some])
      expect(t.standardBytesPerFile + t.glacierIrBytesPerFile).toBeCloseTo(A.fileBytes, 3);
  });

  it.each([6, 12, 24, 60])(
    'the break-even file size over %i months pays the transition exactly',
    (months) => {
      const s = transitionBreakEvenBytes(TRANSITION_PRICES, months);
      const p = TRANSITION_PRICES;
      const saved =
        (months * (p.standardGbMonth * s - p.glacierIrGbMonth * Math.max(s, GLACIER_IR_MIN_BILLABLE_BYTES))) /
        1e9;
      expect(saved).toBeCloseTo(p.transition, 12);
    },
  );

  it('a small file pays its move only after months: ≈ 95 KB within a year, ≈ 61 KB within two', () => {
    expect(transitionBreakEvenBytes(TRANSITION_PRICES, 12)).toBeGreaterThan(90_000);
    expect(transitionBreakEvenBytes(TRANSITION_PRICES, 12)).toBeLessThan(GLACIER_IR_MIN_BILLABLE_BYTES);
    expect(transitionBreakEvenBytes(TRANSITION_PRICES, 24)).toBeLessThan(FILES_TO_GLACIER_IR_MIN_BYTES);
  });

  it("the rule's threshold (infra) is the cheapest of the cost model's steady state — cheaper than S3's default 128 KiB and than moving every file", () => {
    const load = {
      newFilesPerMonth: A.filesPerSourcePerWeek * WEEKS_PER_MONTH * 1_000,
      oldFiles: A.storedFilesPerSource * 1_000,
      oldVisitsPerMonth: A.previewVisitsPerSourcePerWeek * WEEKS_PER_MONTH * A.previewOldFileShare * 1_000,
    };
    const usd = (t: number) => tierMonthUsd(sizes, t, load, TRANSITION_PRICES);
    const chosen = usd(FILES_TO_GLACIER_IR_MIN_BYTES);
    expect(chosen).toBeLessThan(usd(GLACIER_IR_MIN_BILLABLE_BYTES));
    expect(chosen).toBeLessThan(usd(0));
    const grid = Array.from({ length: 64 }, (_, i) => (i + 1) * 4 * 1024);
    const best = Math.min(...grid.map(usd));
    expect(chosen).toBeLessThan(best * 1.005);
  });
});
