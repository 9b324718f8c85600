import { DEL_HOSTS_IN_PARALLEL, DEL_SAMPLE_INTERVAL_MS, DEL_SERVER_SPACING_MS } from './constants';

/**
 * Does the deletion check's weekly sample (DEL-2) fit its hourly run? Pure arithmetic, shared by the
 * cost bench and the docs (issue 28): each server's samples go one after the other, RATE-6's spacing
 * plus the council's answer time apart; `DEL_HOSTS_IN_PARALLEL` servers are asked at once.
 *
 * When the samples do not fit, the run stops at its deadline and each body's walk (sample-walk.ts)
 * goes on from where it stopped next hour, so every file is still sampled — only less often:
 * `sampleIntervalMs` is that longer interval.
 */
export interface DeletionFitInput {
  /** Servers holding stored files (one per source for most councils). */
  servers: number;
  /** Stored files over all those servers. */
  storedFiles: number;
  /** Mean seconds a council takes to answer one HEAD. */
  headSeconds: number;
  /** Seconds a run may use: the function's timeout less its reserve. */
  runSeconds: number;
  /** How often the check runs (hourly). */
  runEveryMs: number;
  /** Servers asked at once; default DEL_HOSTS_IN_PARALLEL. */
  serversAtOnce?: number;
}

export interface DeletionFit {
  /** HEAD samples one run must make to keep the weekly interval. */
  samplesPerRun: number;
  /** Seconds that run needs. */
  secondsPerRun: number;
  /** The share of `runSeconds` it needs (> 1: it does not fit). */
  load: number;
  fits: boolean;
  /** The sample interval kept: DEL_SAMPLE_INTERVAL_MS when it fits, longer in proportion when not. */
  sampleIntervalMs: number;
}

export function deletionSampleFit(input: DeletionFitInput): DeletionFit {
  const atOnce = input.serversAtOnce ?? DEL_HOSTS_IN_PARALLEL;
  const samplesPerRun = (input.storedFiles * input.runEveryMs) / DEL_SAMPLE_INTERVAL_MS;
  const perSample = DEL_SERVER_SPACING_MS / 1000 + input.headSeconds;
  const perServer = input.servers > 0 ? (samplesPerRun / input.servers) * perSample : 0;
  // Servers in waves of `atOnce`; a run lasts at least one server's own chain of samples.
  const secondsPerRun = Math.max(perServer, (input.servers * perServer) / atOnce);
  const load = secondsPerRun / input.runSeconds;
  const fits = load <= 1;
  return {
    samplesPerRun,
    secondsPerRun,
    load,
    fits,
    sampleIntervalMs: fits ? DEL_SAMPLE_INTERVAL_MS : DEL_SAMPLE_INTERVAL_MS * load,
  };
}
