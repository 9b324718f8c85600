/**
 * Issue 28: what the Glacier Instant Retrieval transition of stored files costs and saves by file size.
 *
 * Two facts of S3 make the size matter (aws.amazon.com/s3/pricing, S3 user guide "Transitioning
 * objects"): a transition is one request per object, whatever its size; and Glacier IR bills every
 * object as at least 128 KiB. Since September 2024 a bucket's lifecycle does not transition an object
 * under 128 KiB unless a rule's `ObjectSizeGreaterThan` says otherwise (the bucket's
 * `TransitionDefaultMinimumObjectSize`). So which files move is a size threshold, and the bill follows
 * the files' size distribution, not their mean alone.
 *
 * Pure functions of a lognormal size distribution (its median and the σ of ln size) and of prices.
 */

import { PRICES } from './prices';

/** Glacier IR's minimum billable object size (and S3's default transition minimum since 2024-09). */
export const GLACIER_IR_MIN_BILLABLE_BYTES = 128 * 1024;

/** Files' sizes: lognormal, ln(size) ~ N(ln median, σ²). */
export interface FileSizeDistribution {
  medianBytes: number;
  sigma: number;
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 for erf, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export function meanBytes(d: FileSizeDistribution): number {
  return d.medianBytes * Math.exp((d.sigma * d.sigma) / 2);
}

/** Share of files larger than `bytes`. */
export function shareAbove(d: FileSizeDistribution, bytes: number): number {
  if (bytes <= 0) return 1;
  return 1 - normalCdf(Math.log(bytes / d.medianBytes) / d.sigma);
}

/** E[size · 1{size > bytes}]: bytes per file (over all files) held by files larger than `bytes`. */
export function bytesAbovePerFile(d: FileSizeDistribution, bytes: number): number {
  if (bytes <= 0) return meanBytes(d);
  return meanBytes(d) * (1 - normalCdf(Math.log(bytes / d.medianBytes) / d.sigma - d.sigma));
}

/** Prices (USD) the transition decision weighs. */
export interface TransitionPrices {
  standardGbMonth: number;
  glacierIrGbMonth: number;
  transition: number;
  standardGet: number;
  glacierIrGet: number;
  glacierIrRetrievalGb: number;
}

/** The prices of bench/cost/prices.ts the decision weighs. */
export const TRANSITION_PRICES: TransitionPrices = {
  standardGbMonth: PRICES.s3StorageGbMonth.usd,
  glacierIrGbMonth: PRICES.s3GlacierIrStorageGbMonth.usd,
  transition: PRICES.s3TransitionToGlacierIr.usd,
  standardGet: PRICES.s3GetRequest.usd,
  glacierIrGet: PRICES.s3GlacierIrGetRequest.usd,
  glacierIrRetrievalGb: PRICES.s3GlacierIrRetrievalGb.usd,
};

/** Where the old files are with a threshold: counts and bytes per file of the whole history. */
export interface TieredFiles {
  /** Share of files transitioned (larger than the threshold). */
  transitionedShare: number;
  /** Bytes per file (over all files) stored in Standard / in Glacier IR, and billed in Glacier IR. */
  standardBytesPerFile: number;
  glacierIrBytesPerFile: number;
  glacierIrBilledBytesPerFile: number;
}

/**
 * The files larger than `minBytes` transitioned (a rule's `ObjectSizeGreaterThan`); S3 moves none
 * below 128 KiB without a rule's filter, so pass GLACIER_IR_MIN_BILLABLE_BYTES for a rule without one.
 */
export function tieredFiles(d: FileSizeDistribution, minBytes: number): TieredFiles {
  const moved = shareAbove(d, minBytes);
  const movedBytes = bytesAbovePerFile(d, minBytes);
  // Those moved under 128 KiB are billed as 128 KiB each.
  const lower = Math.max(minBytes, 0);
  const billed =
    lower >= GLACIER_IR_MIN_BILLABLE_BYTES
      ? movedBytes
      : bytesAbovePerFile(d, GLACIER_IR_MIN_BILLABLE_BYTES) +
        (moved - shareAbove(d, GLACIER_IR_MIN_BILLABLE_BYTES)) * GLACIER_IR_MIN_BILLABLE_BYTES;
  return {
    transitionedShare: moved,
    standardBytesPerFile: meanBytes(d) - movedBytes,
    glacierIrBytesPerFile: movedBytes,
    glacierIrBilledBytesPerFile: billed,
  };
}

/**
 * The smallest file whose transition pays within `months` (USD): the transition's price against the
 * storage it saves a month, Glacier IR billed at least 128 KiB — reads left out (a file read once
 * after the move costs its retrieval on top, so the true break-even is higher for files read).
 */
export function transitionBreakEvenBytes(prices: TransitionPrices, months: number): number {
  const perByte = (prices.standardGbMonth * months) / 1e9;
  // For s ≥ 128 KiB: months × (std − gir) × s = transition.
  const above = prices.transition / (((prices.standardGbMonth - prices.glacierIrGbMonth) * months) / 1e9);
  if (above >= GLACIER_IR_MIN_BILLABLE_BYTES) return above;
  // For s < 128 KiB: months × (std × s − gir × 128 KiB) = transition.
  const floor = (prices.glacierIrGbMonth * months * GLACIER_IR_MIN_BILLABLE_BYTES) / 1e9;
  return Math.min((prices.transition + floor) / perByte, GLACIER_IR_MIN_BILLABLE_BYTES);
}

/** A month of the files' storage tiers in steady state: new files transitioned, the history stored, old files read. */
export interface FileTierLoad {
  newFilesPerMonth: number;
  oldFiles: number;
  /** Visits (GETs) of old files a month, spread over them evenly by count. */
  oldVisitsPerMonth: number;
}

/** USD a month of the storage tiers' lines with threshold `minBytes`. */
export function tierMonthUsd(
  d: FileSizeDistribution,
  minBytes: number,
  load: FileTierLoad,
  prices: TransitionPrices,
): number {
  const t = tieredFiles(d, minBytes);
  const gb = (bytesPerFile: number) => (load.oldFiles * bytesPerFile) / 1e9;
  const visitsIn = load.oldVisitsPerMonth * t.transitionedShare;
  return (
    load.newFilesPerMonth * t.transitionedShare * prices.transition +
    gb(t.standardBytesPerFile) * prices.standardGbMonth +
    gb(t.glacierIrBilledBytesPerFile) * prices.glacierIrGbMonth +
    (load.oldVisitsPerMonth - visitsIn) * prices.standardGet +
    visitsIn * prices.glacierIrGet +
    ((load.oldVisitsPerMonth * t.glacierIrBytesPerFile) / 1e9) * prices.glacierIrRetrievalGb
  );
}

/** The lognormal of a given mean and σ (its median is mean ÷ e^(σ²/2)). */
export function lognormalWithMean(meanFileBytes: number, sigma: number): FileSizeDistribution {
  return { medianBytes: meanFileBytes / Math.exp((sigma * sigma) / 2), sigma };
}
