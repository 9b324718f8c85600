import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ScheduleSettings, SourceScheduleState } from '../schedule';
import { decideSource, sparedUntil } from '../schedule';
import { listSourceStates, loadAllSources } from '../store';
import { scheduleStateOf } from './tick';

/**
 * What on-call looks at first: per source, whether it is active, what the planner would do now and
 * why, when it is next due, the last run and the failure streak. The same pure decision as the
 * planner's tick, so status never disagrees with what actually happens.
 */
export interface SourceStatus {
  sourceId: string;
  valid: boolean;
  active: boolean | null;
  problems: { field: string; message: string }[];
  warnings: { field: string; message: string }[];
  action: 'sync' | 'wait' | 'skip';
  kind: string | null;
  nextDueAt: string | null;
  reason: string;
  ruleIds: string[];
  paused: { until: string; reason: string } | null;
  running: { kind: string; since: string; leaseUntil: string } | null;
  failureStreak: number;
  lastRun: Record<string, unknown> | null;
}

export async function explainSources(
  doc: DynamoDBDocumentClient,
  tables: { sources: string; state: string },
  settings: ScheduleSettings,
  now: Date,
): Promise<SourceStatus[]> {
  const [{ parsed }, states] = await Promise.all([
    loadAllSources(doc, tables.sources),
    listSourceStates<SourceScheduleState>(doc, tables.state),
  ]);
  const stateById = new Map(states.map((s) => [s.sourceId, s]));
  return parsed.map((p): SourceStatus => {
    const item = stateById.get(p.ok ? p.source.sourceId : p.sourceId);
    const lastRun = (item?.lastRun as Record<string, unknown> | undefined) ?? null;
    if (!p.ok) {
      return {
        sourceId: p.sourceId,
        valid: false,
        active: null,
        problems: p.problems,
        warnings: [],
        action: 'skip',
        kind: null,
        nextDueAt: null,
        reason: `invalid config: ${p.problems.map((x) => `${x.field} ${x.message}`).join('; ')}`,
        ruleIds: [],
        paused: null,
        running: null,
        failureStreak: item?.schedule?.failureStreak ?? 0,
        lastRun,
      };
    }
    const state = scheduleStateOf(item, now);
    const decision = decideSource(p.source, state, now.toISOString(), settings);
    const spared = sparedUntil(state, now.toISOString());
    return {
      sourceId: p.source.sourceId,
      valid: true,
      active: p.source.active,
      problems: [],
      warnings: p.warnings,
      action: decision.action,
      kind: decision.kind ?? null,
      nextDueAt: decision.action === 'sync' ? now.toISOString() : (decision.dueAt ?? null),
      reason: decision.reason,
      ruleIds: decision.ruleIds,
      paused: spared.spared && spared.until ? { until: spared.until, reason: spared.reason } : null,
      running: state.running
        ? { kind: state.running.kind, since: state.running.startedAt, leaseUntil: state.running.leaseUntil }
        : null,
      failureStreak: state.failureStreak,
      lastRun,
    };
  });
}
