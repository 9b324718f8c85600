/**
 * Issue 28 (s3-files): the S3 side of a stored council file, weighed by the cost model's own numbers —
 * what the bench bills as built against the alternatives the issue asked about.
 *
 * - PUT-class calls of a stored file (shared/documents objects.ts `storeVerifiedCopy`): a file within
 *   one upload part is one PutObject; a larger one a multipart upload to the incoming key (create,
 *   parts, complete) and the promotion's CopyObject; its text one PutObject.
 * - A file over the rule's threshold written in Glacier IR at PUT instead of Standard + the transition
 *   at FILES_TO_GLACIER_IR_AFTER_DAYS: the PUT's price, the transition and a young file's Standard
 *   storage saved, against Glacier IR reads of young files (the preview's visits, the files pass's text
 *   extraction right after the store) and the class's 90-day minimum for copies deleted or replaced
 *   early (takedowns, purges, the deletion check's re-fetch).
 * - S3 Intelligent-Tiering for every file copy instead of the rule (no retrieval fee, a monitoring fee
 *   per object ≥ 128 KB).
 * - A later transition: the visits a month a file must get for keeping it in Standard to pay.
 *
 * Pure functions of the size distribution, the load and prices (USD a month).
 */

import {
  bytesAbovePerFile,
  type FileSizeDistribution,
  GLACIER_IR_MIN_BILLABLE_BYTES,
  shareAbove,
  TRANSITION_PRICES,
  type TransitionPrices,
  tieredFiles,
} from './file-sizes';
import { PRICES } from './prices';

/** Average days a month (365.25 / 12): storage is billed per GB-month. */
const DAYS_PER_MONTH = 365.25 / 12;

/** Glacier IR bills a deleted or overwritten object for 90 days at the least. */
export const GLACIER_IR_MIN_DAYS = 90;

/** Intelligent-Tiering moves an object not read for 30 days to Infrequent, for 90 days to Archive Instant. */
const IT_INFREQUENT_AFTER_DAYS = 30;
const IT_ARCHIVE_INSTANT_AFTER_DAYS = 90;

export interface ClassPrices extends TransitionPrices {
  standardPut: number;
  glacierIrPut: number;
  itMonitoring: number;
  itInfrequentGbMonth: number;
}

export const CLASS_PRICES: ClassPrices = {
  ...TRANSITION_PRICES,
  standardPut: PRICES.s3PutRequest.usd,
  glacierIrPut: PRICES.s3GlacierIrPutRequest.usd,
  itMonitoring: PRICES.s3IntelligentTieringMonitoring.usd,
  itInfrequentGbMonth: PRICES.s3IntelligentTieringInfrequentGbMonth.usd,
};

/**
 * PUT-class calls per stored file by family: the file's own (one PutObject within a part; else
 * CreateMultipartUpload, its UploadParts — ⌈size ÷ part⌉, taken as size ÷ part + ½ — and
 * CompleteMultipartUpload to the incoming key, then the promotion's CopyObject), and its text's PutObject.
 */
export function putsPerStoredFile(d: FileSizeDistribution, partBytes: number): Record<string, number> {
  const over = shareAbove(d, partBytes);
  return {
    'PutObject file (within one part)': 1 - over,
    'multipart upload file (incoming, over one part)':
      2 * over + bytesAbovePerFile(d, partBytes) / partBytes + over / 2,
    'CopyObject file (promote, over one part)': over,
    'PutObject text': 1,
  };
}

/** A month of the fleet's files as the storage-class choice sees them. */
export interface FileClassLoad {
  newFilesPerMonth: number;
  /** The history: files older than the transition age. */
  oldFiles: number;
  /** The preview's visits a month to files younger / older than the transition age. */
  youngVisitsPerMonth: number;
  oldVisitsPerMonth: number;
  /** Reads of a new file's stored copy by the files pass (its text extraction reads it once). */
  readsPerNewFile: number;
  /** Share of new files whose copy is deleted or replaced within 90 days (takedown, purge, re-fetch). */
  earlyDeletedShare: number;
  transitionAgeDays: number;
}

/**
 * The files over `minBytes` in their first `transitionAgeDays` (USD a month): as built (Standard, then
 * a transition) or written in Glacier IR at PUT. Everything after the transition age is the same both
 * ways and left out. The as-built side's own early deletions (in Glacier IR within 60 days of the
 * transition) are left out too, so the comparison leans towards the direct write.
 */
export function youngFilesMonthUsd(
  d: FileSizeDistribution,
  minBytes: number,
  load: FileClassLoad,
  p: ClassPrices,
): { asBuilt: number; directGlacierIr: number } {
  const t = tieredFiles(d, minBytes);
  const files = load.newFilesPerMonth * t.transitionedShare;
  const months = load.transitionAgeDays / DAYS_PER_MONTH;
  // Bytes a month of young copies (each kept `months`), as stored and as Glacier IR bills them.
  const gbMonths = (load.newFilesPerMonth * months * t.glacierIrBytesPerFile) / 1e9;
  const billedGbMonths = (load.newFilesPerMonth * months * t.glacierIrBilledBytesPerFile) / 1e9;
  // Reads of young copies over the threshold: the preview's visits and the text extraction's read.
  const reads = load.youngVisitsPerMonth * t.transitionedShare + files * load.readsPerNewFile;
  const readGb =
    ((load.youngVisitsPerMonth + load.newFilesPerMonth * load.readsPerNewFile) * t.glacierIrBytesPerFile) /
    1e9;
  const earlyGbMonths =
    (load.newFilesPerMonth * load.earlyDeletedShare * t.glacierIrBilledBytesPerFile * GLACIER_IR_MIN_DAYS) /
    DAYS_PER_MONTH /
    1e9;
  return {
    asBuilt: files * (p.standardPut + p.transition) + gbMonths * p.standardGbMonth + reads * p.standardGet,
    directGlacierIr:
      files * p.glacierIrPut +
      billedGbMonths * p.glacierIrGbMonth +
      reads * p.glacierIrGet +
      readGb * p.glacierIrRetrievalGb +
      earlyGbMonths * p.glacierIrGbMonth,
  };
}

/**
 * Every file copy's storage and reads a month (USD): as built (Standard, then Glacier IR over
 * `minBytes` after the transition age) or written in Intelligent-Tiering (no lifecycle rule): copies
 * of 128 KB and more monitored and moved down as they go unread — the first 30 days at Standard's
 * price, to 90 days at Infrequent's, then at Glacier IR's — smaller ones at Standard's for good; no
 * retrieval fee. A visit that moves a copy back up is left out, so the comparison leans towards it.
 */
export function fileStockMonthUsd(
  d: FileSizeDistribution,
  minBytes: number,
  load: FileClassLoad,
  p: ClassPrices,
): { asBuilt: number; intelligentTiering: number } {
  const young = youngFilesMonthUsd(d, minBytes, load, p).asBuilt;
  const youngSmall =
    (load.newFilesPerMonth *
      (load.transitionAgeDays / DAYS_PER_MONTH) *
      (meanOf(d) - bytesAbovePerFile(d, minBytes))) /
    1e9;
  const youngReadsSmall =
    (load.youngVisitsPerMonth + load.newFilesPerMonth * load.readsPerNewFile) *
    (1 - tieredFiles(d, minBytes).transitionedShare);
  const t = tieredFiles(d, minBytes);
  const oldIn = load.oldVisitsPerMonth * t.transitionedShare;
  const asBuilt =
    young +
    youngSmall * p.standardGbMonth +
    youngReadsSmall * p.standardGet +
    (load.oldFiles * t.standardBytesPerFile * p.standardGbMonth) / 1e9 +
    (load.oldFiles * t.glacierIrBilledBytesPerFile * p.glacierIrGbMonth) / 1e9 +
    (load.oldVisitsPerMonth - oldIn) * p.standardGet +
    oldIn * p.glacierIrGet +
    ((load.oldVisitsPerMonth * t.glacierIrBytesPerFile) / 1e9) * p.glacierIrRetrievalGb;

  // Intelligent-Tiering: files by age band, those ≥ 128 KB tiered, the rest at Standard's price.
  const youngFiles = (load.newFilesPerMonth * IT_INFREQUENT_AFTER_DAYS) / DAYS_PER_MONTH;
  const infrequentFiles =
    (load.newFilesPerMonth * (IT_ARCHIVE_INSTANT_AFTER_DAYS - IT_INFREQUENT_AFTER_DAYS)) / DAYS_PER_MONTH;
  const allFiles = load.oldFiles + (load.newFilesPerMonth * load.transitionAgeDays) / DAYS_PER_MONTH;
  const archiveFiles = Math.max(0, allFiles - youngFiles - infrequentFiles);
  const tieredBytes = bytesAbovePerFile(d, GLACIER_IR_MIN_BILLABLE_BYTES);
  const smallBytes = meanOf(d) - tieredBytes;
  const reads =
    load.youngVisitsPerMonth + load.oldVisitsPerMonth + load.newFilesPerMonth * load.readsPerNewFile;
  const intelligentTiering =
    allFiles * shareAbove(d, GLACIER_IR_MIN_BILLABLE_BYTES) * p.itMonitoring +
    ((allFiles * smallBytes + youngFiles * tieredBytes) * p.standardGbMonth) / 1e9 +
    (infrequentFiles * tieredBytes * p.itInfrequentGbMonth) / 1e9 +
    (archiveFiles * tieredBytes * p.glacierIrGbMonth) / 1e9 +
    reads * p.standardGet;
  return { asBuilt, intelligentTiering };
}

function meanOf(d: FileSizeDistribution): number {
  return bytesAbovePerFile(d, 0);
}

/**
 * Visits a month at which a file of `bytes` costs the same kept in Standard or in Glacier IR: a later
 * transition pays only for files read more often than this while it keeps them in Standard.
 */
export function standardBreakEvenVisitsPerMonth(p: TransitionPrices, bytes: number): number {
  const storageSaved =
    (p.standardGbMonth * bytes - p.glacierIrGbMonth * Math.max(bytes, GLACIER_IR_MIN_BILLABLE_BYTES)) / 1e9;
  const perVisit = p.glacierIrGet - p.standardGet + (bytes * p.glacierIrRetrievalGb) / 1e9;
  return storageSaved / perVisit;
}
