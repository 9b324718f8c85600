import { performance } from 'node:perf_hooks';
import { AddressNotPublicError } from '../net';
import { SendLateError } from './errors';
import type { Plan } from './plan';
import type { Clock } from './ports';
import type { AttemptOutcome } from './run-context';
import type { FetchEvent } from './types';

/**
 * What the fetcher tells about each attempt: one event per request or refusal (the `onRequest`
 * hook: logs, metrics) and the run's record of the server's answers (breaker ERR-2, series ERR-3).
 */
export interface AttemptLog {
  /** A refusal before anything was sent (address, breaker, robots.txt, no slot); returns `error`. */
  refused(plan: Plan, url: URL, attempt: number, hop: number, error: unknown): unknown;
  /** A request that was made, with its status or its error. */
  request(
    plan: Plan,
    url: URL,
    attempt: number,
    hop: number,
    startedPerfMs: number,
    result: { status?: number; error?: unknown },
  ): void;
  /** The server's answer into the run's breaker and series — unless the plan is diagnosis (ID-4). */
  record(plan: Plan, host: string, outcome: AttemptOutcome): void;
}

function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'ERROR';
}

export function createAttemptLog(
  onRequest: ((event: FetchEvent) => void) | undefined,
  clock: Clock,
): AttemptLog {
  const emit = (event: FetchEvent) => {
    try {
      onRequest?.(event);
    } catch {
      // A failing logger must not change what is fetched.
    }
  };
  const eventOf = (plan: Plan, url: URL, attempt: number, hop: number) => ({
    sourceId: plan.source.sourceId,
    host: url.hostname.toLowerCase(),
    url: url.href,
    purpose: plan.purpose,
    method: plan.method,
    attempt,
    hop,
  });
  return {
    refused(plan, url, attempt, hop, error) {
      const code =
        error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : 'ERROR';
      emit({ kind: 'refused', ...eventOf(plan, url, attempt, hop), errorCode: code, durationMs: 0 });
      return error;
    },
    request(plan, url, attempt, hop, startedPerfMs, result) {
      const event: FetchEvent = {
        // Refused: nothing left this process (the address guard, or a slot that passed before writing).
        kind:
          result.error instanceof AddressNotPublicError || result.error instanceof SendLateError
            ? 'refused'
            : 'request',
        ...eventOf(plan, url, attempt, hop),
        durationMs: Math.round(performance.now() - startedPerfMs),
      };
      if (result.status !== undefined) event.status = result.status;
      if (result.error !== undefined) event.errorCode = errorCodeOf(result.error);
      emit(event);
    },
    record(plan, host, outcome) {
      if (plan.recordAttempts) plan.runContext?.recordAttempt(host, outcome, clock.now());
    },
  };
}
