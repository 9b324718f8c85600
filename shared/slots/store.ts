/**
 * A slot store decides reservations; `HostSlots` (host-slots.ts) does the waiting around them. Times
 * cross this boundary as delays relative to the store's own clock, so instances whose clocks disagree
 * still agree on the pace: only the Redis server's clock orders reservations.
 */
export interface SlotStore {
  readonly mode: 'shared' | 'local';
  /** One reservation attempt: a single round trip for the shared store. */
  reserve(req: ReserveRequest): Promise<ReserveDecision>;
  release(host: string, leaseId: string): Promise<void>;
  noteRetryAfter(host: string, delayMs: number): Promise<void>;
  noteCrawlDelay(host: string, delayMs: number, validForMs: number): Promise<void>;
  state(host: string): Promise<StoreHostState>;
}

export interface ReserveRequest {
  host: string;
  /** Caller's interval, already within MIN_INTERVAL_MS … MAX_INTERVAL_MS. */
  intervalMs: number;
  leaseId: string;
  leaseTtlMs: number;
  /** Reserve nothing unless the send may happen within this delay. */
  maxWaitMs?: number;
  /** Send no earlier than this delay from now (this process's own sends the store may not know of). */
  notBeforeDelayMs: number;
  /** How late after its slot this send may still leave; the next slot comes after it (PACE_MARGIN_MS). */
  sendAllowanceMs: number;
  /** RATE-5: a lease of this store to free first, in the same round trip. */
  release?: { host: string; leaseId: string };
}

export type ReserveDecision =
  /**
   * Slot and in-flight place taken; send in `sendInMs`. `answerDelayMs`: how much longer than usual
   * the answer was under way — by that much the caller already runs behind the store's clock.
   */
  | { kind: 'granted'; sendInMs: number; intervalMs: number; answerDelayMs: number }
  /** The slot is beyond the wait budget; nothing was written. `freeInMs`: when it would be. */
  | { kind: 'refused'; freeInMs: number; intervalMs: number }
  /** Both in-flight places taken; nothing was written. `placeFreeInMs`: the earliest lease expiry. */
  | { kind: 'busy'; freeInMs: number; placeFreeInMs: number; intervalMs: number };

/** Absolute times here are in the store's clock; `nowMs` is that clock's reading. */
export interface StoreHostState {
  nowMs: number;
  lastSendAtMs?: number;
  inFlight: number;
  notedIntervalMs?: number;
  crawlDelayMs?: number;
  retryAfterUntilMs?: number;
}
