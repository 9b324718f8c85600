import type { SourceDecision } from './types';

/** A decision as it is stored on the source's STATE item (`lastDecision`) for on-call (`status`, `explain`). */
export interface DecisionRecord {
  action: SourceDecision['action'];
  kind?: NonNullable<SourceDecision['kind']>;
  reason: string;
  decidedAt: string;
  ruleIds: string[];
}

/**
 * The one stored form of a decision — written by the planner's tick, a run's start and a run's release
 * (issue 28), so on-call reads the same fields whoever decided last.
 */
export function decisionRecord(
  decision: Pick<SourceDecision, 'action' | 'kind' | 'reason' | 'ruleIds'>,
  decidedAt: string,
): DecisionRecord {
  return {
    action: decision.action,
    reason: decision.reason,
    decidedAt,
    ruleIds: decision.ruleIds,
    ...(decision.kind ? { kind: decision.kind } : {}),
  };
}
