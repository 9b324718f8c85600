import type { HttpStatusError } from './errors';
import type { Plan } from './plan';
import type { Clock } from './ports';
import type { UserAgentComparison } from './run-context';
import type { FetchOptions, FetchResult } from './types';

/**
 * ID-4: after a 403, exactly one request per server and source run with the library's default
 * identification, to the address that answered 403, within pace and limit, following no
 * redirect. Only 2xx means "our User-Agent is blocked". Diagnosis only — recorded in the run
 * context (ERR-5), never used to fetch anything.
 */

type ComparisonFinding = Exclude<UserAgentComparison, { state: 'pending' }>;

/** Refusals that mean the comparison was not made (not "open"): robots.txt or the breaker said no. */
const NOT_MADE_CODES: ReadonlySet<string> = new Set([
  'ROBOTS_DISALLOWED',
  'ROBOTS_UNREACHABLE',
  'CIRCUIT_OPEN',
]);

/** What the comparison's answer (a status) or failure (an error) says about our User-Agent. */
export function comparisonFinding(
  outcome: { status: number } | { error: unknown },
  url: string,
  at: number,
): ComparisonFinding {
  if ('status' in outcome) {
    const { status } = outcome;
    return status >= 200 && status < 300
      ? { state: 'blocked', status, url, at }
      : { state: 'open', status, url, at };
  }
  const code = (outcome.error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && NOT_MADE_CODES.has(code))
    return { state: 'skipped', reason: code, url, at };
  return { state: 'open', errorCode: typeof code === 'string' ? code : 'ERROR', url, at };
}

export interface ComparisonDeps {
  clock: Clock;
  /** Plans the comparison request (boundary checks, ID-4's own agent and limits). */
  planFor(url: string, options: FetchOptions, overrides: Partial<Plan>): Plan;
  /** Sends it through the whole fetcher (robots.txt, slot, limits), into memory. */
  fetch(url: string, plan: Plan): Promise<FetchResult>;
}

/** Makes the ID-4 comparison after `error` (a 403) when this plan's run has not made it for the host. */
export async function compareAfter403(
  deps: ComparisonDeps,
  plan: Plan,
  error: HttpStatusError,
): Promise<void> {
  const context = plan.runContext;
  // "A sync request": API and scraper pages. Files follow DOC-4 (a 403 is retried weekly) and
  // robots.txt 403 means "absent" (ROB-6); neither triggers a comparison.
  if (!context || (plan.purpose !== 'api' && plan.purpose !== 'scraper')) return;
  const host = error.host;
  if (!context.claimComparison(host)) return;
  const at = deps.clock.now();
  let finding: ComparisonFinding;
  try {
    const comparisonPlan = deps.planFor(
      error.url,
      { purpose: 'comparison', source: plan.source },
      {
        method: plan.method,
        hostIntervalMs: plan.hostIntervalMs,
        maxWaitMs: plan.maxWaitMs,
        runContext: context,
        maxAttempts: 1,
      },
    );
    const result = await deps.fetch(error.url, comparisonPlan);
    finding = comparisonFinding({ status: result.status }, error.url, at);
  } catch (comparisonError) {
    finding = comparisonFinding({ error: comparisonError }, error.url, at);
  }
  context.recordComparison(host, finding);
}
