import { AddressNotPublicError } from '../net';
import { type RobotsFetchOutcome, RobotsUnreachableError } from '../robots';
import { hostKey } from '../util';
import { isTransientStatus, MAX_REDIRECTS } from './constants';
import { FetchError, TooManyRedirectsError } from './errors';
import type { Plan } from './plan';
import type { Clock } from './ports';
import { attemptOutcomeOf, retryAfterOf } from './retry';
import type { RobotsTxtFetch } from './robots-gate';
import type { AttemptOutcome } from './run-context';
import type { FetchOptions, FetchResult } from './types';

/**
 * The robots.txt request (ROB-5/6/7) for the robots gate: made with the same agent (ID-3) and in
 * the same pace (RATE-1) as the request that needs it, through the whole fetcher. Its answers feed
 * the run's breaker only as ROB-7 sees them: a 4xx is "absent" (an answer), 408, 429, 5xx and no
 * answer are failures.
 */

/** Failures that are no outcome of the server: the caller's, passed on as they are. */
const CALLER_FAILURE_CODES: ReadonlySet<string> = new Set([
  'HOST_SLOT_TIMEOUT',
  'CIRCUIT_OPEN',
  'RUN_DEADLINE',
]);

/** What a robots.txt answer is for the gate, and for the run's breaker (ROB-7). */
export function robotsAnswer(
  result: Pick<FetchResult, 'status' | 'body' | 'etag' | 'lastModified' | 'headers'>,
  nowMs: number,
): { outcome: RobotsFetchOutcome; attempt: AttemptOutcome } {
  const attempt: AttemptOutcome = isTransientStatus(result.status)
    ? { kind: 'status', status: result.status }
    : { kind: 'answer' };
  const outcome: RobotsFetchOutcome = { kind: 'response', status: result.status };
  if (result.status >= 200 && result.status < 300) outcome.body = result.body;
  if (result.etag !== undefined) outcome.etag = result.etag;
  if (result.lastModified !== undefined) outcome.lastModified = result.lastModified;
  const retryAfterMs = retryAfterOf(result.status, result.headers, nowMs);
  if (retryAfterMs !== undefined) outcome.retryAfterMs = retryAfterMs;
  return { outcome, attempt };
}

/**
 * What a failed robots.txt request is: an outcome for the gate (ROB-7: too many redirects, no
 * answer) with what it tells the breaker, or — `undefined` — the caller's failure to pass on.
 */
export function robotsFailure(
  error: unknown,
  robotsUrl: URL,
): { outcome: RobotsFetchOutcome; attempt: AttemptOutcome | undefined } | undefined {
  if (error instanceof TooManyRedirectsError) {
    return { outcome: { kind: 'too-many-redirects', redirects: MAX_REDIRECTS + 1 }, attempt: undefined };
  }
  // The host itself is not public: that is the caller's answer, not robots.txt's.
  if (error instanceof AddressNotPublicError && error.hostname === robotsUrl.hostname) return undefined;
  if (error instanceof FetchError && CALLER_FAILURE_CODES.has(error.code)) return undefined;
  if (error instanceof RobotsUnreachableError) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return { outcome: { kind: 'network-error', message }, attempt: attemptOutcomeOf(error) };
}

export interface RobotsFetchDeps {
  clock: Clock;
  /** Plans the robots.txt request (boundary checks, the purpose's limits). */
  planFor(url: string, options: FetchOptions, overrides: Partial<Plan>): Plan;
  /** Sends it through the whole fetcher, into memory. */
  fetch(url: string, plan: Plan): Promise<FetchResult>;
}

export function createRobotsTxtFetch(deps: RobotsFetchDeps): RobotsTxtFetch {
  return async (request) => {
    const { source, hostIntervalMs, runContext } = request.context;
    const plan = deps.planFor(
      request.robotsUrl.href,
      { purpose: 'robots', source, hostIntervalMs, runContext },
      {
        sentUserAgent: request.userAgent,
        robotsAgent: request.userAgent,
        checkAgents: [],
        maxWaitMs: request.maxWaitMs,
        extraHeaders: Object.fromEntries(
          Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]),
        ),
        maxAttempts: 1,
        // Recorded here, as ROB-7 sees the answer — not as the fetcher would (a 404 is no failure).
        recordAttempts: false,
      },
    );
    const host = hostKey(request.robotsUrl);
    const note = (attempt: AttemptOutcome) => runContext?.recordAttempt(host, attempt, deps.clock.now());
    try {
      const result = await deps.fetch(request.robotsUrl.href, plan);
      const { outcome, attempt } = robotsAnswer(result, deps.clock.now());
      note(attempt);
      return outcome;
    } catch (error) {
      const failure = robotsFailure(error, request.robotsUrl);
      if (!failure) throw error;
      if (failure.attempt) note(failure.attempt);
      return failure.outcome;
    }
  };
}
