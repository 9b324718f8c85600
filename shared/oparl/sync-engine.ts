import { engineReportOf, runEndOf, type SyncEngine, type SyncTables } from '../engine';
import type { PoliteFetcher } from '../fetch';
import { createRunContext } from '../fetch';
import type { AwsClients } from '../store';
import { type SyncDeps, syncSource } from './engine';
import { politeFetcherPort } from './polite-port';

/**
 * Wiring for the sync function (shared/engine `SyncEngine`): one polite fetcher per process, one
 * run context (breaker, 5xx series, ID-4) per invocation, the engine per message. The message's
 * `deadline` is the own window end (FULL-4/6); the budget's `deadlineMs` the invocation's time budget.
 */
export interface OParlEngineDeps {
  fetcher: PoliteFetcher;
  clients: Pick<AwsClients, 'doc' | 's3'>;
  tables: SyncTables;
  now?: () => Date;
  log?: SyncDeps['log'];
  /** OPT-5: the source's takedown guard per run (shared/takedown `takedownGuards`). */
  takedowns: SyncDeps['takedowns'];
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
        takedowns: deps.takedowns,
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
