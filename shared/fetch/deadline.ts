/**
 * The deadlines of one request on the wire. Every deadline aborts the same controller: undici then
 * destroys the request or, once the head is there, its body — and with it the socket. Nothing of an
 * answer (error page, redirect, robots.txt, comparison) is read outside a deadline, so the socket
 * never outlives the host slot lease that counts it (RATE-4; see LEASE_MARGIN_MS in host-slot.ts).
 */

/** setTimeout fires at once for delays beyond this (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class RequestDeadline {
  readonly controller = new AbortController();
  private timers: NodeJS.Timeout[] = [];

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts with `reason()` after `ms` (at once when ≤ 0), unless aborted or disarmed before. */
  arm(ms: number, reason: () => Error): void {
    if (this.signal.aborted) return;
    const abort = () => this.controller.abort(reason());
    if (ms <= 0) {
      abort();
      return;
    }
    this.timers.push(setTimeout(abort, Math.min(ms, MAX_TIMER_MS)));
  }

  /** Stops every timer: the answer is done (its body read, drained or handed on and closed). */
  disarm(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
  }
}
