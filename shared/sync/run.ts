import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config/source';
import { applyRunOutcome, initialScheduleState } from '../schedule';
import type {
  FailureKind,
  RunOutcome,
  ScheduleSettings,
  SourceScheduleState,
  SyncKind,
} from '../schedule/types';
import { acquireSyncLease, getSourceState, patchSourceState, releaseSyncLease } from '../store/source-state';
import { loadSource } from '../store/sources';
import type { SyncMessage } from './message';

/**
 * One sync message, end to end: check the source and the lease, run the engine within the time budget,
 * then either hand over to a continuation message (lease kept) or record the outcome in the schedule
 * state and release the lease in the same conditional write. Never throws for a problem of the source
 * itself — that is an outcome the planner learns from; it throws only when the store fails, so the
 * message is redelivered.
 */
export interface EngineReport {
  kind: SyncKind;
  requests: number;
  changed: boolean;
  complete: boolean;
  /** The engine stopped for the time budget with its cursor saved: continue in a new invocation. */
  continued: boolean;
  objects: { new: number; modified: number; deleted: number };
  failures: FailureKind[];
  failureDetails?: string[];
  sessionDays?: string[];
  filterNotHonoured?: boolean;
}

/**
 * The invocation's time: `deadlineMs` — no request starts later; `requestsEndMs` — every request has
 * ended by then, the one in flight included (its socket is closed), so the run always reaches its
 * checkpoint before the invocation ends (issue 13).
 */
export interface SyncBudget {
  deadlineMs: number;
  requestsEndMs?: number;
}

export type SyncEngine = (
  source: SourceConfig,
  message: SyncMessage,
  budget: SyncBudget & { runStartedAt: Date },
) => Promise<EngineReport>;

export interface SyncRunDeps {
  doc: DynamoDBDocumentClient;
  sqs: SQSClient;
  tables: { sources: string; state: string };
  syncQueueUrl: string;
  engine: SyncEngine;
  now: () => Date;
  leaseMinutes: number;
  settings: ScheduleSettings;
}

export type SyncRunResult =
  | { status: 'done'; sourceId: string; report: EngineReport; outcome: RunOutcome }
  | { status: 'continued'; sourceId: string; report: EngineReport; continuation: number }
  | { status: 'dropped'; sourceId: string; reason: string };

export async function runSyncMessage(
  deps: SyncRunDeps,
  message: SyncMessage,
  budget: SyncBudget,
): Promise<SyncRunResult> {
  const { sourceId, runId } = message;
  const now = deps.now();
  const parsed = await loadSource(deps.doc, deps.tables.sources, sourceId);
  if (parsed === undefined || !parsed.ok) {
    const reason =
      parsed === undefined
        ? 'source no longer exists'
        : `invalid config: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`;
    await releaseSyncLease(deps.doc, deps.tables.state, sourceId, runId);
    if (parsed !== undefined && !parsed.ok) {
      await patchSourceState(deps.doc, deps.tables.state, sourceId, { configProblems: parsed.problems });
    }
    return { status: 'dropped', sourceId, reason };
  }
  const source = parsed.source;
  // ERR-7: deactivated while queued. A manual run (CLI) may sync an inactive source once (ONB-3).
  if (!source.active && message.trigger !== 'manual') {
    await releaseSyncLease(deps.doc, deps.tables.state, sourceId, runId);
    return { status: 'dropped', sourceId, reason: 'source is inactive (ERR-7)' };
  }
  // SCH-5: renew (or, for a redelivered message after expiry, retake) the lease for this run only.
  const held = await acquireSyncLease(deps.doc, deps.tables.state, sourceId, {
    runId,
    kind: message.kind,
    until: new Date(now.getTime() + deps.leaseMinutes * 60_000),
    now,
  });
  if (!held)
    return { status: 'dropped', sourceId, reason: 'another run holds the lease (duplicate message)' };

  const runStartedAt = new Date(message.startedAt);
  let report: EngineReport;
  try {
    report = await deps.engine(source, message, { ...budget, runStartedAt });
  } catch (err) {
    // An engine bug or an unexpected fault: a failed run (ERR-4), never a crashed planner.
    report = {
      kind: message.kind,
      requests: 0,
      changed: false,
      complete: false,
      continued: false,
      objects: { new: 0, modified: 0, deleted: 0 },
      failures: ['other'],
      failureDetails: [
        err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err),
      ],
    };
  }

  if (report.continued) {
    const next: SyncMessage = { ...message, continuation: message.continuation + 1 };
    await deps.sqs.send(
      new SendMessageCommand({ QueueUrl: deps.syncQueueUrl, MessageBody: JSON.stringify(next) }),
    );
    return { status: 'continued', sourceId, report, continuation: next.continuation };
  }

  const endedAt = deps.now();
  const failed = report.failures.length > 0 && !report.complete;
  const outcome: RunOutcome = {
    kind: report.kind,
    startedAt: runStartedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    changed: report.changed,
    complete: report.complete,
    failed,
    failures: report.failures,
    ...(report.filterNotHonoured ? { filterNotHonoured: true } : {}),
    ...(report.sessionDays ? { sessionDays: report.sessionDays } : {}),
  };
  const item = await getSourceState<SourceScheduleState>(deps.doc, deps.tables.state, sourceId);
  const schedule = applyRunOutcome(item?.schedule ?? initialScheduleState(), outcome, endedAt.toISOString(), {
    config: source,
    settings: deps.settings,
  });
  await releaseSyncLease(deps.doc, deps.tables.state, sourceId, runId, {
    schedule,
    // The planner decides again at its next tick.
    dueAt: endedAt.toISOString(),
    lastRun: {
      runId,
      kind: report.kind,
      trigger: message.trigger,
      startedAt: outcome.startedAt,
      endedAt: outcome.endedAt,
      ok: !failed,
      changed: report.changed,
      complete: report.complete,
      requests: report.requests,
      objects: report.objects,
      failures: report.failures,
      ...(report.failureDetails ? { failureDetails: report.failureDetails.slice(0, 10) } : {}),
      continuations: message.continuation,
    },
  });
  return { status: 'done', sourceId, report, outcome };
}
