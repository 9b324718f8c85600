import type { RobotsCacheEntry } from '../robots';

/**
 * What the polite fetcher needs from its neighbours, as small interfaces. Production wiring adapts
 * shared/slots (Redis) and S3; tests pass process-local or recording doubles.
 */

/** Wall clock, epoch milliseconds. Injected so breaker, Retry-After and robots freshness are testable. */
export interface Clock {
  now(): number;
}

/** ERR-1 pauses. Injected so tests can assert "1 s, then 2 s" without waiting. */
export type Sleep = (ms: number) => Promise<void>;

export const systemClock: Clock = { now: () => Date.now() };
export const realSleep: Sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

export interface SlotRequest {
  /** RATE-1/2, ROB-10: the interval of this host for this request, ms (already ≥ 1 s, ≤ 60 s). */
  intervalMs: number;
  /** Give up — reserving nothing — rather than wait longer than this for a place and a slot. */
  maxWaitMs: number;
  /** How long the in-flight place outlives a crashed holder: longer than the whole request may take. */
  leaseTtlMs: number;
}

/** No place or slot within `maxWaitMs`; nothing was reserved. */
export interface SlotRefused {
  readonly granted: false;
  /** When a slot is expected to be free (epoch-like ms), if known. */
  readonly retryAtMs?: number;
}

/**
 * One reserved slot plus an in-flight place at a host (RATE-1, RATE-4). Held for the whole
 * exchange and released after the body has been consumed (or abandoned).
 */
export interface HostSlotLease {
  readonly granted: true;
  readonly host: string;
  /**
   * RATE-5: move the in-flight place to `host` first and reserve a slot in its pace there — before
   * following a redirect (a same-host hop needs its own slot too). This lease is released whatever
   * the outcome; the returned lease is the one to hold.
   */
  moveTo(host: string, request: SlotRequest): Promise<HostSlotLease | SlotRefused>;
  /** Whether a request written now still leaves within the slot (asked right before writing). */
  onTime(): boolean;
  /**
   * The request could not be written in time (nothing was sent): give the slot up and reserve
   * again, re-timed in place when nobody reserved after it. This lease is released whatever the outcome.
   */
  retime(request: SlotRequest): Promise<HostSlotLease | SlotRefused>;
  /** Idempotent; never rejects. */
  release(): Promise<void>;
}

/**
 * Per-host pacing shared by every process. shared/slots `PacedHostSlots` (Redis with the RATE-7
 * process-local fallback, or local only) implements this as it is.
 */
export interface HostSlots {
  /**
   * RATE-1 + RATE-4: wait for an in-flight place and the next free slot of `host` (lower-cased
   * hostname without port), honouring recorded floors (RATE-8, ROB-10).
   */
  acquire(host: string, request: SlotRequest): Promise<HostSlotLease | SlotRefused>;
  /** RATE-8: no request to `host` for `delayMs` (capped at 24 h). Never shortens an existing floor. */
  noteRetryAfter(host: string, delayMs: number): Promise<void>;
  /** ROB-10: the applicable Crawl-delay as a floor of the host's interval, shown in status. */
  noteCrawlDelay?(host: string, delayMs: number, validForMs?: number): Promise<void>;
}

/**
 * ROB-5: robots.txt state per (hostname, agent token), shared by every function instance.
 * Entries are plain JSON (shared/robots `RobotsCacheEntry`). Keys: lower-cased hostname without
 * port, lower-cased product token of the User-Agent (`mandari-ingestor`).
 */
export interface RobotsCacheStore {
  get(host: string, agentToken: string): Promise<RobotsCacheEntry | undefined>;
  put(host: string, agentToken: string, entry: RobotsCacheEntry): Promise<void>;
}
