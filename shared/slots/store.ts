/**
 * A slot store decides reservations; `PacedHostSlots` (host-slots.ts) does the waiting around them. Times
 * cross this boundary as delays relative to the store's own clock, so instances whose clocks disagree
 * still agree on the pace: only the Redis server's clock orders reservations.
 */
export interface SlotStore {
  readonly mode: 'shared' | 'local';
  /** One reservation attempt: a single round trip for the shared store. */
  reserve(req: ReserveRequest): Promise<ReserveDecision>;
  release(host: string, leaseId: string): Promise<void>;
  /** A requester answered "busy" gives up waiting (see RESERVE_SLOT_SCRIPT's waiting line). */
  leaveWaitingLine(host: string, requesterId: string): Promise<void>;
  noteRetryAfter(host: string, delayMs: number): Promise<void>;
  noteCrawlDelay(host: string, delayMs: number, validForMs: number): Promise<void>;
  state(host: string): Promise<StoreHostState>;
  /**
   * How far ahead of "now" a slot should lie so that its answer reaches this process in time (an idle
   * host's slot is otherwise already past when the answer arrives). 0 for the local store.
   */
  sendLeadMs(): number;
}

export interface ReserveRequest {
  host: string;
  /** Caller's interval, already within MIN_INTERVAL_MS … MAX_INTERVAL_MS. */
  intervalMs: number;
  leaseId: string;
  /** The same for every attempt of one acquire: its place in the host's waiting line. */
  requesterId: string;
  leaseTtlMs: number;
  /** Reserve nothing unless the send may happen within this delay. */
  maxWaitMs?: number;
  /** Send no earlier than this delay from now (this process's own sends the store may not know of). */
  notBeforeDelayMs: number;
  /** How late after its slot this send may still leave; the next slot comes after it (PACE_MARGIN_MS). */
  sendAllowanceMs: number;
  /** RATE-5: a lease of this store to free first, in the same round trip. */
  release?: { host: string; leaseId: string };
  /**
   * Re-timing a slot of this host that its holder could not use in time (with `release` of its lease):
   * when nothing was reserved after it, the new send time replaces it instead of queueing behind it.
   */
  retime?: SlotToken;
}

/** What identifies a granted slot to its store, for re-timing it. Store clock. */
export interface SlotToken {
  sendAt: number;
  next: number;
}

export type ReserveDecision =
  /**
   * Slot and in-flight place taken; send `sendInMs` after the answer arrived (negative: the slot is
   * already past — the answer was slow). Never early on the store's clock. `uncertaintyMs`: how much
   * earlier than that the slot may really have been, as far as the store's clock can be placed on ours;
   * a send counts as late by its delay past `sendInMs` plus this.
   */
  | {
      kind: 'granted';
      sendInMs: number;
      intervalMs: number;
      uncertaintyMs: number;
      token: SlotToken;
      /**
       * The latest a send may leave after this slot, when less than the allowance asked for: a RATE-7
       * fallback grid's slot sits in a cycle Redis spaced by its anchor's allowance (local-store.ts).
       */
      maxAllowanceMs?: number;
      /**
       * Shared store: when the answer arrived (real clock, ms). The caller counts `sendInMs` from
       * there, not from when its own code got round to the decision — a busy event loop in between
       * must not move the send time (and so hide how late it is).
       */
      answeredAtMs?: number;
    }
  /**
   * The slot is beyond the wait budget; nothing was written. `freeInMs`: when it would be. With
   * `noSharedPhase` (the local store in the RATE-7 fallback, fallback-phase.ts): no slot at all until
   * Redis answers again (`freeInMs` +∞).
   */
  | { kind: 'refused'; freeInMs: number; intervalMs: number; noSharedPhase?: 'never-sent' | 'stale-slot' }
  /**
   * Both in-flight places taken (or promised to earlier requesters); only the waiting line was written.
   * `placeFreeInMs`: the earliest lease expiry; `holderSendsInMs`: when the earliest holder sends
   * (≤ 0: in flight) — its place usually frees soon after.
   */
  | { kind: 'busy'; freeInMs: number; placeFreeInMs: number; holderSendsInMs: number; intervalMs: number };

/** Absolute times here are in the store's clock; `nowMs` is that clock's reading. */
export interface StoreHostState {
  nowMs: number;
  lastSendAtMs?: number;
  inFlight: number;
  notedIntervalMs?: number;
  crawlDelayMs?: number;
  retryAfterUntilMs?: number;
}
