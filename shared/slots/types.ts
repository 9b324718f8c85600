import type { HostSlots } from '../fetch';

/**
 * Per-host slot reservation: the one gate every outbound request passes (RATE-1 … RATE-8, ROB-10).
 * The polite fetcher calls `acquire` before every request — each redirect hop and each robots.txt
 * fetch included — sends when it resolves, and releases the lease when the response is done.
 * The fetcher's port is `HostSlots` (shared/fetch, the lower layer, keeps the word); this is that port
 * as `PacedHostSlots` implements it — hosts as strings or URLs, richer answers, and the state status
 * shows — so the compiler checks the two fit.
 */
export interface PacedSlots extends HostSlots {
  /**
   * Reserves the host's next send time and one of its in-flight places, then waits until that time.
   * Resolves with a lease when the request may be sent, or with a refusal when `maxWaitMs` would be
   * exceeded — in which case nothing was reserved. Rejects with `signal.reason` when aborted (a slot
   * already reserved then stays spent: the pace is kept even for requests never sent).
   */
  acquire(host: string | URL, opts: AcquireOptions): Promise<AcquireResult>;
  /** RATE-8: a 429/503 `Retry-After`: no request to the host for `delayMs` (capped at 24 h; never shortens). */
  noteRetryAfter(host: string | URL, delayMs: number): Promise<void>;
  /** ROB-10: the applicable `Crawl-delay`, a lower bound of the host's interval (capped at 60 s). */
  noteCrawlDelay(host: string | URL, delayMs: number, validForMs?: number): Promise<void>;
  /** What currently holds the host back, for status output (ROB-10 "shown in status"). */
  hostState(host: string | URL): Promise<HostSlotState>;
}

export interface AcquireOptions {
  /**
   * RATE-2: the largest interval configured for any source on this host, in ms (1 000 … 60 000;
   * values below 1 s count as 1 s). Crawl-delay, Retry-After and a larger interval noted by another
   * caller within 5 minutes raise it further.
   */
  intervalMs: number;
  /** Give up — reserving nothing — unless the request may be sent within this many ms (PRV-1: 5 000). */
  maxWaitMs?: number;
  signal?: AbortSignal;
  /** How long the in-flight place outlives a crashed holder; must exceed the whole request's timeout. */
  leaseTtlMs?: number;
}

export type AcquireResult = SlotLease | SlotRefusal;

export interface SlotLease {
  readonly granted: true;
  readonly host: string;
  /** When the request may be sent (local clock, ms); `acquire` resolves at or after it. */
  readonly sendAtMs: number;
  /** The spacing applied to this reservation, after floors and the fallback multiplier. */
  readonly intervalMs: number;
  /** `shared`: paced through Redis across all instances; `local`: this process alone (RATE-7). */
  readonly mode: 'shared' | 'local';
  /** Frees the in-flight place. Idempotent; never rejects (a lost release expires with the lease TTL). */
  release(): Promise<void>;
  /**
   * RATE-5: a redirect to `target` moves this request's in-flight place there first, then reserves a
   * slot in the target's pace (a same-host hop, too, needs its own slot: RATE-1). This lease is released
   * whatever the outcome.
   */
  moveTo(target: string | URL, opts: AcquireOptions): Promise<AcquireResult>;
  /**
   * Whether a request written now would still leave within this slot: not later than its send
   * allowance after the send time (the next slot, someone else's, is an interval after that), less the
   * part kept for a stall between this check and the write (SEND_WRITE_GUARD_MS). Ask it right before
   * the request is written — a connection still being set up can make it late.
   */
  onTime(): boolean;
  /**
   * For a slot that could not be used in time (`onTime()` false, nothing sent): gives it up and
   * reserves again in one store call. When nobody has reserved after it, the slot is re-timed in
   * place (only the lateness is lost); otherwise it stays spent and a new one queues. This lease is
   * released whatever the outcome.
   */
  retime(opts: AcquireOptions): Promise<AcquireResult>;
}

export interface SlotRefusal {
  readonly granted: false;
  /**
   * `max-wait`: no slot within the wait budget. `no-shared-phase`: in the RATE-7 fallback this process
   * knows no phase on the host that it shares with the others (fallback-phase.ts); it stays off the
   * host until Redis answers again, at the earliest at `retryAtMs` (refused at once, whatever the budget).
   */
  readonly reason: 'max-wait' | 'no-shared-phase';
  readonly host: string;
  /** When a slot is expected to be free (local clock, ms), if known. */
  readonly retryAtMs?: number;
}

export interface HostSlotState {
  host: string;
  mode: 'shared' | 'local';
  /** The latest reserved send time plus its send allowance (local clock): the next slot is an interval later. */
  lastSendAtMs?: number;
  inFlight: number;
  crawlDelayMs?: number;
  retryAfterUntilMs?: number;
  /** Largest caller interval noted in the last 5 minutes (RATE-2). */
  notedIntervalMs?: number;
}

/** Injectable time, so process-local pacing is tested with a fake clock. */
export interface SlotClock {
  /** Milliseconds; only differences matter. */
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Operational events worth a log line or a metric; none of them fails a request. */
export type SlotEvent =
  /**
   * A shared store call failed or timed out. `entered`: this switched the process to the RATE-7
   * fallback (else a retry after `retryInMs` failed again, and the process stays there).
   * `quietUntilMs` (local clock): no request of this process leaves before then (see PacedHostSlots).
   */
  | { type: 'shared-store-failed'; error: unknown; retryInMs: number; entered: boolean; quietUntilMs: number }
  /** The shared store answered again: the process left the fallback after `fallbackMs`. */
  | { type: 'shared-store-restored'; fallbackMs: number }
  | { type: 'release-failed'; host: string; error: unknown }
  /** The host ledger's copy of a floor (RATE-8 / ROB-10, for the planner) could not be written. */
  | { type: 'ledger-failed'; host: string; error: unknown }
  /** A slot given up because the send could no longer start within its allowance (SEND_WRITE_GUARD_MS). */
  | { type: 'slot-forfeited'; host: string; wokeLateMs: number; uncertaintyMs: number };
