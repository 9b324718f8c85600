import { SHARED_STORE_RETRY_MS } from './constants';

/**
 * RATE-7 as a pure decision: where this process's reservations go (Redis, nowhere, or its own pace)
 * and how a store call's outcome moves that. State + now → decision; PacedHostSlots does the I/O.
 *
 * Why three modes and not two: a store call that failed is not proof that Redis is gone for everyone.
 * Pacing alone is safe only while no other instance uses Redis — its sends are invisible to them, and
 * theirs to it. So after the first failure a process stays *quiet* (sends nothing) until it has asked
 * Redis again (issue 13), and a call that got no answer in time is *ambiguous*: Redis may have run it
 * (its slot is then spent, never sent) and its answer may still come — a starved or slow Redis, not a
 * dead one. Its answer, however late, puts the process back on Redis; a retry that got no answer in
 * time is waited for (quiet) until SHARED_STORE_ANSWER_PATIENCE_MS have passed without it. Only a
 * retry that failed outright (an error: connection refused, 5xx) or whose answer never came pace the
 * process *alone* (interval × instances, RATE-7).
 */
export interface FailoverState {
  /** When this process left Redis; `undefined` while on it. */
  sinceMs: number | undefined;
  /** Nothing is sent before this (+∞ while a retry's answer is awaited). */
  quietUntilMs: number;
  /** Redis is asked again at this time (+∞ while a retry's answer is awaited). */
  retryAtMs: number;
  /** A retry sent at this time got no answer in time; its answer is awaited. */
  awaitedSentMs: number | undefined;
}

export type StoreOutcome =
  /** Redis answered — in time or late (an ambiguous call's answer arriving after all). */
  | { kind: 'answered' }
  /** Redis failed outright (an error reply, a refused connection). */
  | { kind: 'failed' }
  /** No answer within the store timeout: ambiguous — it may still come. */
  | { kind: 'no-answer'; sentMs: number }
  /** The answer of a call sent at `sentMs` is not coming (its patience ran out, or it failed late). */
  | { kind: 'answer-lost'; sentMs: number };

/** What a transition means for the logs and metrics (SlotEvent). */
export type FailoverSwitch = 'entered' | 'retry-failed' | 'restored';

export type StoreUse = 'shared' | 'quiet' | 'alone';

export const ON_SHARED_STORE: FailoverState = {
  sinceMs: undefined,
  quietUntilMs: Number.NEGATIVE_INFINITY,
  retryAtMs: Number.NEGATIVE_INFINITY,
  awaitedSentMs: undefined,
};

export function storeUse(state: FailoverState, nowMs: number): StoreUse {
  if (state.sinceMs === undefined) return 'shared';
  if (nowMs < state.quietUntilMs) return 'quiet';
  if (nowMs < state.retryAtMs) return 'alone';
  return 'shared'; // the retry
}

export function afterOutcome(
  state: FailoverState,
  outcome: StoreOutcome,
  nowMs: number,
): { state: FailoverState; switched?: FailoverSwitch } {
  const away = state.sinceMs !== undefined;
  switch (outcome.kind) {
    case 'answered':
      return away ? { state: ON_SHARED_STORE, switched: 'restored' } : { state };
    case 'failed':
    case 'no-answer': {
      if (!away) {
        const untilMs = nowMs + SHARED_STORE_RETRY_MS;
        return {
          state: { sinceMs: nowMs, quietUntilMs: untilMs, retryAtMs: untilMs, awaitedSentMs: undefined },
          switched: 'entered',
        };
      }
      // A late failure of a call begun before the switch, or while a retry's answer is awaited: the
      // retry decides, not this one.
      if (nowMs < state.retryAtMs) return { state };
      if (outcome.kind === 'no-answer') {
        return {
          state: {
            ...state,
            quietUntilMs: Number.POSITIVE_INFINITY,
            retryAtMs: Number.POSITIVE_INFINITY,
            awaitedSentMs: outcome.sentMs,
          },
        };
      }
      return { state: aloneFrom(state, nowMs), switched: 'retry-failed' };
    }
    case 'answer-lost':
      // Only the awaited retry's answer (or a later call's) decides; an older call's loss says nothing new.
      if (state.awaitedSentMs === undefined || outcome.sentMs < state.awaitedSentMs) return { state };
      return { state: aloneFrom(state, nowMs), switched: 'retry-failed' };
  }
}

/** Paced alone from now; Redis asked again SHARED_STORE_RETRY_MS later (RATE-7). */
function aloneFrom(state: FailoverState, nowMs: number): FailoverState {
  return {
    sinceMs: state.sinceMs,
    quietUntilMs: Math.min(state.quietUntilMs, nowMs),
    retryAtMs: nowMs + SHARED_STORE_RETRY_MS,
    awaitedSentMs: undefined,
  };
}
