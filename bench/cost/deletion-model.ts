import {
  DEL_SAMPLE_INTERVAL_MS,
  type DeletionFit,
  deletionSampleFit,
  deletionShardsFor,
} from '../../shared/documents';
import { cpuSlowdown } from './model';

/**
 * Issue 28: the hourly deletion check of a fleet, as the cost model bills it (pure). The run is split
 * into `deletionShardsFor(sources)` shards by host, each its own invocation; within a shard servers are
 * asked `serversAtOnce` at a time, each server's samples RATE-6's spacing plus the answer apart
 * (`deletionSampleFit`), and the function's CPU does the shard's per-source loads and its samples. A
 * shard lasts the longer of its waits and its CPU; one that does not fit stops at its deadline (billed
 * its budget) and its walks go on next hour, so every file is still sampled, only less often.
 */
export interface DeletionRunInput {
  sources: number;
  storedFilesPerSource: number;
  /** Mean seconds a council takes to answer one HEAD. */
  headSeconds: number;
  /** Seconds a run may use: the function's timeout less its reserve. */
  runSeconds: number;
  memoryMb: number;
  serversAtOnce: number;
  /** CPU seconds on one full vCPU: of one sample, and of one source's loads and queue reads a run. */
  cpuSecondsPerCheck: number;
  cpuSecondsPerSourceRun: number;
}

export interface DeletionRun {
  shards: number;
  /** One shard's weekly fit (its waits). */
  fit: DeletionFit;
  /** Seconds of RATE-6 waits one shard's run needs for the weekly sample. */
  waitSecondsPerRun: number;
  /** CPU seconds one shard's run needs at the function's memory: its sources' loads and weekly samples. */
  cpuSecondsPerRun: number;
  /** Billed seconds of one shard's run (≤ runSeconds). */
  secondsPerRun: number;
  /** The interval every stored file is sampled at (DEL_SAMPLE_INTERVAL_MS when it fits). */
  sampleIntervalMs: number;
}

export function deletionRun(input: DeletionRunInput): DeletionRun {
  const shards = deletionShardsFor(input.sources);
  const perShard = input.sources / shards;
  const fit = deletionSampleFit({
    servers: perShard,
    storedFiles: perShard * input.storedFilesPerSource,
    headSeconds: input.headSeconds,
    runSeconds: input.runSeconds,
    runEveryMs: 3_600_000,
    serversAtOnce: input.serversAtOnce,
  });
  const slowdown = cpuSlowdown(input.memoryMb);
  // The loads are paid every run whatever is sampled; the samples' CPU and waits stretch the interval.
  const loadCpu = perShard * input.cpuSecondsPerSourceRun * slowdown;
  const sampleCpu = fit.samplesPerRun * input.cpuSecondsPerCheck * slowdown;
  const forSamples = input.runSeconds - loadCpu;
  const stretch = Math.max(
    1,
    forSamples > 0 ? sampleCpu / forSamples : Number.POSITIVE_INFINITY,
    fit.secondsPerRun / input.runSeconds,
  );
  return {
    shards,
    fit,
    waitSecondsPerRun: fit.secondsPerRun,
    cpuSecondsPerRun: loadCpu + sampleCpu,
    secondsPerRun: Math.min(input.runSeconds, Math.max(fit.secondsPerRun, loadCpu + sampleCpu)),
    sampleIntervalMs: DEL_SAMPLE_INTERVAL_MS * stretch,
  };
}
