import { DIMENSIONS, logger, METRICS, metrics, type ObservabilityTargets } from '../observability';
import type { SlotEvent } from './types';

/**
 * Structured log lines and metrics for the host slots' operational events (`SlotEvent`):
 * every switch to and from the RATE-7 fallback is a warning with a stable `code` and a count of
 * `SlotStoreFallback` by `Switch`. Errors are told by their code and kind only — a store error's
 * message may carry parts of a request, and the Upstash token never goes near a log.
 */

export const SLOT_EVENT_CODES = {
  fallbackEntered: 'SLOTS_FALLBACK_ENTERED',
  fallbackRetryFailed: 'SLOTS_FALLBACK_RETRY_FAILED',
  fallbackLeft: 'SLOTS_FALLBACK_LEFT',
  releaseFailed: 'SLOTS_RELEASE_FAILED',
  ledgerFailed: 'SLOTS_LEDGER_FAILED',
} as const;

/** Switches are warnings, unlike the request log's info lines. */
const defaultTargets: ObservabilityTargets = {
  log: (message, fields) => logger.warn(message, fields),
  metrics,
};

/** What went wrong, without the error's text: its code, and whether it was a timeout. */
function errorFields(error: unknown): Record<string, string> {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : '';
  return {
    errorCode: typeof code === 'string' ? code : 'ERROR',
    failure: /no answer within/.test(message) ? 'timeout' : 'error',
  };
}

export function logSlotEvent(event: SlotEvent, targets: ObservabilityTargets = defaultTargets): void {
  switch (event.type) {
    case 'shared-store-failed': {
      const code = event.entered ? SLOT_EVENT_CODES.fallbackEntered : SLOT_EVENT_CODES.fallbackRetryFailed;
      targets.log('slot store fallback', {
        code,
        ...errorFields(event.error),
        retryInMs: event.retryInMs,
        quietUntil: new Date(event.quietUntilMs).toISOString(),
      });
      targets.metrics.count(METRICS.slotStoreFallback, {
        [DIMENSIONS.switch]: event.entered ? 'entered' : 'retry-failed',
      });
      return;
    }
    case 'shared-store-restored':
      targets.log('slot store fallback', {
        code: SLOT_EVENT_CODES.fallbackLeft,
        fallbackMs: Math.round(event.fallbackMs),
      });
      targets.metrics.count(METRICS.slotStoreFallback, { [DIMENSIONS.switch]: 'left' });
      return;
    case 'release-failed':
      targets.log('slot release failed', {
        code: SLOT_EVENT_CODES.releaseFailed,
        host: event.host,
        ...errorFields(event.error),
      });
      return;
    case 'ledger-failed':
      // The planner then plans without this note (RATE-8 / ROB-10 stay enforced by the slot keys).
      targets.log('host ledger write failed', {
        code: SLOT_EVENT_CODES.ledgerFailed,
        host: event.host,
        ...errorFields(event.error),
      });
      return;
    case 'slot-forfeited':
      // Routine (a late wake-up re-times its slot); counted in the slots' stats, not logged.
      return;
  }
}
