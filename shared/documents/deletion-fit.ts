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
    sampleIntervalMs: sampleIntervalOfLoad(load),
  };
}

/** DEL-2: the interval the walks keep at a run's load — weekly while it fits, longer in proportion. */
export function sampleIntervalOfLoad(load: number): number {
  return load <= 1 ? DEL_SAMPLE_INTERVAL_MS : DEL_SAMPLE_INTERVAL_MS * load;
}

/** What one deletion-check run (one shard) measured — stored for `status` (issue 28, DEL-2). */
export interface DeletionRunMeasure {
  /** The run's start (the pass's `now`). */
  at: string;
  /** `whole`, or the shard as `i/of` (1-based, as operators count). */
  shard: string;
  /** Seconds its checks took. */
  seconds: number;
  /** Seconds it had (its deadline less its start); absent without a deadline (a CLI run). */
  budgetSeconds?: number;
  /** Checks (DEL-1 re-fetches, DEL-3 re-checks, DEL-2 samples) asked, and those its deadline left. */
  asked: number;
  leftAtDeadline: number;
  /** DEL-2 samples among the checks asked. */
  samples: number;
  /** Listed bodies whose walk reached DEL_SAMPLES_PER_BODY: more of theirs waited behind (sampled less often). */
  bodiesAtCap: number;
}

export interface DeletionRunFit {
  /** The run's need over its budget: the seconds it took, or would have taken to ask all (> 1: no fit). */
  load?: number;
  fits: boolean;
  /** The sample interval this run keeps; absent when nothing was asked before the deadline. */
  sampleIntervalMs?: number;
}

/**
 * DEL-2, pure: the interval a measured run keeps — `deletionSampleFit`'s rule on what the run needed:
 * the seconds it took, or, when its deadline left checks unasked, those seconds scaled to all its checks.
 */
export function measuredSampleFit(m: DeletionRunMeasure): DeletionRunFit {
  const all = m.asked + m.leftAtDeadline;
  if (m.leftAtDeadline > 0 && m.asked === 0) return { fits: false };
  const needed = m.leftAtDeadline === 0 ? m.seconds : (m.seconds * all) / m.asked;
  if (m.budgetSeconds === undefined || m.budgetSeconds <= 0) {
    const fits = m.leftAtDeadline === 0;
    return fits ? { fits, sampleIntervalMs: DEL_SAMPLE_INTERVAL_MS } : { fits };
  }
  const load = needed / m.budgetSeconds;
  return { load, fits: load <= 1, sampleIntervalMs: sampleIntervalOfLoad(load) };
}
