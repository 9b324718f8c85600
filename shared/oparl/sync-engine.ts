import type { SyncReport } from '../engine';
import type { PoliteFetcher } from '../fetch';
import { createRunContext } from '../fetch';
import type { AwsClients } from '../store/clients';
import type { EngineReport, SyncEngine } from '../sync/run';
import { type SyncDeps, type SyncTables, syncSource } from './engine';
import { politeFetcherPort } from './polite-port';

/**
 * Wiring for the sync function (shared/sync/run.ts `SyncEngine`): one polite fetcher per process, one
 * run context (breaker, 5xx series, ID-4) per invocation, the engine per message. The message's
 * `deadline` is the own window end (FULL-4/6); the budget's `deadlineMs` the invocation's time budget.
 */
export interface OParlEngineDeps {
  fetcher: PoliteFetcher;
  clients: Pick<AwsClients, 'doc' | 's3'>;
  tables: SyncTables;
  now?: () => Date;
  log?: SyncDeps['log'];
  /** RATE-2: the largest interval of any source on the source's host, ms. */
  hostIntervalMs?: (sourceId: string) => number | undefined;
}

export function createOParlSyncEngine(deps: OParlEngineDeps): SyncEngine {
  return async (source, message, budget) => {
    const hostIntervalMs = deps.hostIntervalMs?.(source.sourceId);
    const fetcher = politeFetcherPort({
      fetcher: deps.fetcher,
      source,
      runContext: createRunContext(source.sourceId, runEndOf(budget)),
      ...(hostIntervalMs !== undefined ? { hostIntervalMs } : {}),
    });
    const report = await syncSource(
      {
        fetcher,
        clients: deps.clients,
        tables: deps.tables,
        now: deps.now ?? (() => new Date()),
        ...(deps.log ? { log: deps.log } : {}),
      },
      source,
      {
        kind: message.kind,
        runId: message.runId,
        deadlineMs: budget.deadlineMs,
        startedAt: budget.runStartedAt,
        ...(budget.signal ? { signal: budget.signal } : {}),
        ...(message.deadline ? { windowEndMs: Date.parse(message.deadline) } : {}),
      },
    );
    return engineReportOf(report);
  };
}

/** The run context's end (RunContext.endsAtMs) from the invocation's budget, when it sets one. */
export function runEndOf(budget: { requestsEndMs?: number }): { endsAtMs?: number } {
  return budget.requestsEndMs === undefined ? {} : { endsAtMs: budget.requestsEndMs };
}

/** The parts of an OParl or scrape report the planner reads. */
export type PlannerReportParts = Pick<
  SyncReport,
  'kind' | 'requests' | 'changed' | 'complete' | 'continued' | 'objects' | 'failures' | 'sessionDays'
> & { filterNotHonoured?: boolean };

/** The planner's view of a report: failure kinds (ERR-5) with their details. */
export function engineReportOf(report: PlannerReportParts): EngineReport {
  return {
    kind: report.kind,
    requests: report.requests,
    changed: report.changed,
    complete: report.complete,
    continued: report.continued,
    objects: report.objects,
    failures: [...new Set(report.failures.map((f) => f.kind))],
    ...(report.failures.length > 0
      ? { failureDetails: report.failures.map((f) => `${f.kind}${f.list ? ` ${f.list}` : ''}: ${f.detail}`) }
      : {}),
    sessionDays: report.sessionDays,
    ...(report.filterNotHonoured ? { filterNotHonoured: true } : {}),
  };
}
