import type { SourceStateItem } from '../store';
import type { SyncMessage } from './message';

/**
 * Issue 13, pure: why a delivered sync message found its run's lease not claimable — SQS delivers at
 * least once, so the same message may arrive twice at the same time, or again after its run moved on
 * or ended. Such a delivery is dropped and touches nothing: not the lease, not the failure streak
 * (ERR-4), not the report of the run that owns it.
 */
export type DuplicateKind =
  /** Another invocation is working on this very message now. */
  | 'concurrent'
  /** The run went on to a later message (a continuation). */
  | 'overtaken'
  /** The run has ended; its report is recorded. */
  | 'finished'
  /** The lease belongs to another run now, or to none (given back, expired and taken over). */
  | 'superseded';

export interface DuplicateDelivery {
  kind: DuplicateKind;
  reason: string;
}

export function duplicateDelivery(
  item: Pick<SourceStateItem, 'leaseRunId' | 'leaseStep' | 'leaseHeldUntil' | 'lastRun'> | undefined,
  message: Pick<SyncMessage, 'runId' | 'continuation'>,
): DuplicateDelivery {
  const { runId, continuation } = message;
  const which = `run ${runId} message ${continuation}`;
  if (item?.leaseRunId === runId) {
    if ((item.leaseStep ?? 0) > continuation) {
      return {
        kind: 'overtaken',
        reason: `duplicate delivery: ${which} was overtaken by message ${item.leaseStep}`,
      };
    }
    return {
      kind: 'concurrent',
      reason: `duplicate delivery: ${which} is being worked on${item.leaseHeldUntil ? ` until ${item.leaseHeldUntil}` : ''}`,
    };
  }
  if (item?.lastRun?.runId === runId) {
    return { kind: 'finished', reason: `duplicate delivery: ${which} arrived after the run ended` };
  }
  return {
    kind: 'superseded',
    reason: `duplicate delivery: ${which} no longer holds the lease (${item?.leaseRunId ? `run ${item.leaseRunId} does` : 'free'})`,
  };
}
