import {
  BREAKER_FAILURE_THRESHOLD,
  BREAKER_IGNORED_STATUSES,
  BREAKER_OPEN_MS,
  SERVER_ERROR_SERIES_LENGTH,
} from './constants';

/**
 * Per-source-run fetch state: the ERR-2 circuit breaker, the ERR-3 "5xx series" and the ID-4
 * comparison results. The sync creates one per source run (`createRunContext(sourceId)`) and
 * passes it to every fetch of that run; it reads `summary()` for its report and the sparing
 * decision (ERR-5). Process-local on purpose: the rules count "in one source run".
 */

/** ID-4 outcome for one server: `blocked` only when the comparison answered 2xx. */
export type UserAgentComparison =
  | { state: 'pending' }
  | { state: 'blocked'; status: number; url: string; at: number }
  | { state: 'open'; status?: number; errorCode?: string; url: string; at: number }
  | { state: 'skipped'; reason: string; url: string; at: number };

/** What one attempt against a server ended with, as the breaker and the series see it. */
export type AttemptOutcome =
  | { kind: 'status'; status: number }
  /** An answer that is neither a failure nor a server error (e.g. robots.txt 404 = absent, ROB-6). */
  | { kind: 'answer' }
  | { kind: 'network' }
  | { kind: 'timeout' };

interface HostState {
  failures: number;
  openUntil?: number;
  /** Server errors in a row (ERR-3). */
  serverErrorsInRow: number;
  /** True once the series reached its length in this run (stays true: it is a finding). */
  serverErrorSeries: boolean;
  totalRequests: number;
  failedAttempts: number;
  breakerOpenings: number;
  comparison?: UserAgentComparison;
}

export interface HostRunSummary {
  host: string;
  requests: number;
  failedAttempts: number;
  breakerOpenings: number;
  serverErrorSeries: boolean;
  comparison?: UserAgentComparison;
}

export interface RunFetchSummary {
  sourceId: string;
  hosts: HostRunSummary[];
  /** ERR-3 / ERR-5: servers with a 5xx series in this run. */
  serverErrorSeriesHosts: string[];
  /** ID-4 / ERR-5: servers where our User-Agent is blocked (comparison answered 2xx). */
  userAgentBlockedHosts: string[];
}

export interface RunContext {
  readonly sourceId: string;
  /**
   * Epoch ms (fetcher clock) by which every request of this run has ended: none starts later, and a
   * socket still open then is closed (RUN_DEADLINE). The sync sets it from the invocation's remaining
   * time, so a slow server cannot keep a page past the checkpoint (issue 13). Undefined: no cap.
   */
  readonly endsAtMs?: number;
  /** ERR-2: epoch ms until which `host` must not be asked, or undefined when the breaker is closed. */
  breakerOpenUntil(host: string, nowMs: number): number | undefined;
  /** Called by the fetcher after every attempt that reached (or tried to reach) the server. */
  recordAttempt(host: string, outcome: AttemptOutcome, nowMs: number): void;
  /** ERR-3: true once `host` answered with 5 server errors in a row in this run. */
  hasServerErrorSeries(host: string): boolean;
  /** ID-4: whether the comparison for `host` still has to be made; marks it pending when so. */
  claimComparison(host: string): boolean;
  recordComparison(host: string, result: Exclude<UserAgentComparison, { state: 'pending' }>): void;
  comparison(host: string): UserAgentComparison | undefined;
  summary(): RunFetchSummary;
}

/** ERR-2: what counts as a failed attempt — no answer, or an error status other than 404. */
export function isFailedAttempt(outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'answer') return false;
  if (outcome.kind !== 'status') return true;
  return outcome.status >= 400 && !BREAKER_IGNORED_STATUSES.has(outcome.status);
}

export function createRunContext(sourceId: string, options: { endsAtMs?: number } = {}): RunContext {
  const hosts = new Map<string, HostState>();
  const stateOf = (host: string): HostState => {
    const name = host.toLowerCase();
    let state = hosts.get(name);
    if (!state) {
      state = {
        failures: 0,
        serverErrorsInRow: 0,
        serverErrorSeries: false,
        totalRequests: 0,
        failedAttempts: 0,
        breakerOpenings: 0,
      };
      hosts.set(name, state);
    }
    return state;
  };

  return {
    sourceId,
    ...(options.endsAtMs === undefined ? {} : { endsAtMs: options.endsAtMs }),
    breakerOpenUntil(host, nowMs) {
      const until = hosts.get(host.toLowerCase())?.openUntil;
      return until !== undefined && nowMs < until ? until : undefined;
    },
    recordAttempt(host, outcome, nowMs) {
      const state = stateOf(host);
      state.totalRequests += 1;
      if (isFailedAttempt(outcome)) {
        state.failedAttempts += 1;
        state.failures += 1;
        if (state.failures >= BREAKER_FAILURE_THRESHOLD) {
          // ERR-2: 60 s of silence; the count starts again, so 5 more failures re-open it.
          state.openUntil = nowMs + BREAKER_OPEN_MS;
          state.failures = 0;
          state.breakerOpenings += 1;
        }
      }
      if (outcome.kind === 'status' || outcome.kind === 'answer') {
        if (outcome.kind === 'status' && outcome.status >= 500) {
          state.serverErrorsInRow += 1;
          if (state.serverErrorsInRow >= SERVER_ERROR_SERIES_LENGTH) state.serverErrorSeries = true;
        } else {
          // Any other answer breaks the row; no answer (network, timeout) neither counts nor breaks it.
          state.serverErrorsInRow = 0;
        }
      }
    },
    hasServerErrorSeries(host) {
      return hosts.get(host.toLowerCase())?.serverErrorSeries ?? false;
    },
    claimComparison(host) {
      const state = stateOf(host);
      if (state.comparison !== undefined) return false;
      state.comparison = { state: 'pending' };
      return true;
    },
    recordComparison(host, result) {
      stateOf(host).comparison = result;
    },
    comparison(host) {
      return hosts.get(host.toLowerCase())?.comparison;
    },
    summary() {
      const list: HostRunSummary[] = [...hosts.entries()].map(([host, state]) => ({
        host,
        requests: state.totalRequests,
        failedAttempts: state.failedAttempts,
        breakerOpenings: state.breakerOpenings,
        serverErrorSeries: state.serverErrorSeries,
        ...(state.comparison ? { comparison: state.comparison } : {}),
      }));
      return {
        sourceId,
        hosts: list,
        serverErrorSeriesHosts: list.filter((h) => h.serverErrorSeries).map((h) => h.host),
        userAgentBlockedHosts: list.filter((h) => h.comparison?.state === 'blocked').map((h) => h.host),
      };
    },
  };
}
