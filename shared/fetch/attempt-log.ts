import { performance } from 'node:perf_hooks';
import { AddressNotPublicError } from '../net';
import { hostKey } from '../util';
import { SendLateError } from './errors';
import type { Plan } from './plan';
import type { Clock } from './ports';
import { attemptOutcomeOf } from './retry';
import type { AttemptOutcome } from './run-context';
import type { FetchEvent } from './types';

/**
 * What the fetcher tells about each attempt: one event per request or refusal (the `onRequest`
 * hook: logs, metrics) and the run's record of the server's answers (breaker ERR-2, series ERR-3).
 */

/** A request that left (or was about to): where, which attempt and hop, since when (performance.now()). */
export interface SentRequest {
  url: URL;
  attempt: number;
  hop: number;
  started: number;
}

export interface AttemptLog {
  /** A refusal before anything was sent (address, breaker, robots.txt, no slot); returns `error`. */
  refused(plan: Plan, at: Omit<SentRequest, 'started'>, error: unknown): unknown;
  /** The server answered `status`: an event, and the answer into the run's breaker and series. */
  answered(plan: Plan, sent: SentRequest, status: number): void;
  /** The request failed: an event, and — for what the server did (status, timeout, network) — a record. */
  failed(plan: Plan, sent: SentRequest, error: unknown): void;
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
  const eventOf = (plan: Plan, sent: SentRequest) => ({
    sourceId: plan.source.sourceId,
    host: hostKey(sent.url),
    url: sent.url.href,
    purpose: plan.purpose,
    method: plan.method,
    attempt: sent.attempt,
    hop: sent.hop,
    durationMs: Math.round(performance.now() - sent.started),
  });
  // The server's answers into the run's breaker (ERR-2) and series (ERR-3) — unless the plan is diagnosis (ID-4).
  const record = (plan: Plan, url: URL, outcome: AttemptOutcome) => {
    if (plan.recordAttempts) plan.runContext?.recordAttempt(hostKey(url), outcome, clock.now());
  };
  return {
    refused(plan, at, error) {
      const code =
        error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : 'ERROR';
      emit({
        kind: 'refused',
        ...eventOf(plan, { ...at, started: 0 }),
        errorCode: code,
        durationMs: 0,
      });
      return error;
    },
    answered(plan, sent, status) {
      emit({ kind: 'request', ...eventOf(plan, sent), status });
      record(plan, sent.url, { kind: 'status', status });
    },
    failed(plan, sent, error) {
      // Refused: nothing left this process (the address guard, or a slot that passed before writing).
      const nothingSent = error instanceof AddressNotPublicError || error instanceof SendLateError;
      emit({
        kind: nothingSent ? 'refused' : 'request',
        ...eventOf(plan, sent),
        errorCode: errorCodeOf(error),
      });
      const outcome = attemptOutcomeOf(error);
      if (outcome) record(plan, sent.url, outcome);
    },
  };
}
