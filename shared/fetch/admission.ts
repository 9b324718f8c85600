import { type AddressPolicy, assertLiteralHostAllowed } from '../net';
import { type RequestScope, robotsVerdict, verdictError } from '../robots';
import { hostKey } from '../util';
import type { FetchPurpose } from './constants';
import { CircuitOpenError, HostSlotTimeoutError, RunDeadlineError } from './errors';
import type { Plan, Progress } from './plan';
import type { Clock } from './ports';
import type { RobotsGate } from './robots-gate';

/**
 * Everything before a hop may take a slot: the address check for IP literals (RED-2 (1)), the
 * run's end, the run's breaker (ERR-2) and the robots.txt verdict (ROB; robots.txt is loaded
 * through the gate when due).
 */

function scopeOf(purpose: FetchPurpose): RequestScope {
  return purpose === 'file' ? 'files' : purpose === 'scraper' ? 'html' : 'api';
}

/** A wait (robots.txt, slot) that ran into the run's end is RUN_DEADLINE, not a host without a slot. */
export function waitError(plan: Plan, progress: Progress, error: unknown): unknown {
  const runEndsAt = plan.runContext?.endsAtMs;
  if (error instanceof HostSlotTimeoutError && runEndsAt !== undefined && progress.deadline >= runEndsAt) {
    return new RunDeadlineError(progress.url.href, runEndsAt);
  }
  return error;
}

export interface AdmissionDeps {
  robotsGate: RobotsGate;
  addressPolicy: AddressPolicy;
  clock: Clock;
}

/**
 * May `progress.url` be requested now? Throws the refusal; returns the Crawl-delay that applies
 * (ROB-10; the largest of the checked agents').
 */
export async function admit(
  deps: AdmissionDeps,
  plan: Plan,
  progress: Progress,
): Promise<number | undefined> {
  const { url } = progress;
  const { clock } = deps;
  const host = hostKey(url);
  assertLiteralHostAllowed(url.hostname, deps.addressPolicy);
  const runEndsAt = plan.runContext?.endsAtMs;
  if (runEndsAt !== undefined && clock.now() >= runEndsAt) throw new RunDeadlineError(url.href, runEndsAt);
  const openUntil = plan.runContext?.breakerOpenUntil(host, clock.now());
  if (openUntil !== undefined) throw new CircuitOpenError(url.href, openUntil);
  if (plan.purpose === 'robots') return undefined; // ROB-4: /robots.txt itself is always allowed.
  // OTH-3: other fetches query service interfaces, not pages — robots.txt is neither loaded nor evaluated.
  if (plan.purpose === 'service') return undefined;

  const entry = await deps.robotsGate.entryFor(url, plan.robotsAgent, progress.deadline, {
    source: plan.source,
    hostIntervalMs: plan.hostIntervalMs,
    runContext: plan.runContext,
  });
  let crawlDelaySeconds: number | undefined;
  for (const agent of plan.checkAgents) {
    const verdict = robotsVerdict({
      entry,
      userAgent: agent,
      url,
      now: clock.now(),
      scope: scopeOf(plan.purpose),
      exception: plan.purpose === 'comparison' ? null : (plan.source.robotsException ?? null),
    });
    // RED-3: a redirect target passes here like any URL — disallowed, it is not followed; its
    // robots.txt unreachable, the fetch is put off.
    const error = verdictError(verdict, url);
    if (error) throw error;
    if (verdict.crawlDelaySeconds !== undefined) {
      crawlDelaySeconds = Math.max(crawlDelaySeconds ?? 0, verdict.crawlDelaySeconds);
    }
  }
  return crawlDelaySeconds;
}
