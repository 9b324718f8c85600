/**
 * One council host on the simulated clock (RATE-1, RATE-2, RATE-4, ROB-10): the shared pace every run
 * on it waits for. A run sends its requests one after another (the next when the previous answered);
 * a ready request is served first come, first served (the slot store's reservation order), at the
 * earliest instant that is (a) one host interval after the previous request to the host and (b) has
 * one of RATE-4's two in-flight places free. The time between ready and sent is the run's wait — billed
 * in Lambda, since the run holds its sync slot meanwhile.
 *
 * The checks are kept apart from the rule that computes a send time: every send is measured against
 * the previous one (spacing) and against the requests still open then (in flight), so a bug in the
 * rule shows in the figures instead of being assumed away.
 */

/** A run as the host sees it: its next request's ready time and what is left. */
export interface HostRun {
  readyAt: number;
  requestsLeft: number;
  /** Requests already sent. */
  sent: number;
  /** Sum over its requests of (sent − ready), ms. */
  waitMs: number;
  /**
   * Of `waitMs`, the part spent behind other runs' requests on the host (their slot or in-flight place);
   * the rest is the run's own pace (RATE-1 after its previous request), which no allocation avoids.
   */
  queuedMs?: number;
  /** Set when its last request has answered. */
  endAt?: number;
  /** Latency of request `i` (0-based), ms. */
  latencyOf(i: number): number;
}

export interface HostFigures {
  requests: number;
  /** Sends closer than the host interval to the previous send (RATE-1; must stay 0). */
  spacingViolations: number;
  /** The most requests open at once (RATE-4; ≤ 2). */
  maxInFlight: number;
}

/** RATE-4: in-flight places per host. */
export const PLACES_PER_HOST = 2;

export class SimHost {
  readonly runs: HostRun[] = [];
  /** RATE-1: earliest instant of the next request. */
  private nextSlotAt = Number.NEGATIVE_INFINITY;
  private lastSendAt = Number.NEGATIVE_INFINITY;
  private lastSender: HostRun | undefined;
  /** End instants of the requests that may still be open. */
  private readonly open: number[] = [];
  readonly figures: HostFigures = { requests: 0, spacingViolations: 0, maxInFlight: 0 };

  constructor(
    readonly intervalMs: number,
    private readonly onSend?: (sentAt: number) => void,
  ) {}

  add(run: HostRun): void {
    this.runs.push(run);
  }

  /**
   * Serves every request that is ready by `until` (its send time may lie after `until`: it is fixed
   * once ready, first come first served). Returns the runs whose last request was sent (their `endAt`
   * is set); they leave the host's list.
   */
  advance(until: number): HostRun[] {
    const finished: HostRun[] = [];
    for (;;) {
      let next: HostRun | undefined;
      for (const run of this.runs) {
        if (run.requestsLeft > 0 && (next === undefined || run.readyAt < next.readyAt)) next = run;
      }
      if (next === undefined || next.readyAt > until) break;
      const placeAt = this.placeFreeAt();
      const sentAt = Math.max(next.readyAt, this.nextSlotAt, placeAt);
      // Waiting behind another run: the slot it waits for was set by another run's request, or a
      // place is held by others.
      const ownPaceAt = this.lastSender === next ? this.nextSlotAt : Number.NEGATIVE_INFINITY;
      const queued = sentAt - Math.max(next.readyAt, ownPaceAt);
      if (queued > 0) next.queuedMs = (next.queuedMs ?? 0) + queued;
      this.lastSender = next;
      this.measure(sentAt);
      const endAt = sentAt + next.latencyOf(next.sent);
      this.open.push(endAt);
      this.nextSlotAt = sentAt + this.intervalMs;
      next.waitMs += sentAt - next.readyAt;
      next.sent += 1;
      next.requestsLeft -= 1;
      next.readyAt = endAt;
      if (next.requestsLeft === 0) {
        next.endAt = endAt;
        finished.push(next);
        this.runs.splice(this.runs.indexOf(next), 1);
      }
    }
    return finished;
  }

  /** RATE-4: when a place is free — at once with fewer than two open, else when the earlier one ends. */
  private placeFreeAt(): number {
    if (this.open.length < PLACES_PER_HOST) return Number.NEGATIVE_INFINITY;
    // The PLACES_PER_HOST-th latest end (RATE-4's two: the earlier of the two latest), without a sorted copy.
    let latest = Number.NEGATIVE_INFINITY;
    let second = Number.NEGATIVE_INFINITY;
    for (const end of this.open) {
      if (end > latest) {
        second = latest;
        latest = end;
      } else if (end > second) second = end;
    }
    return second;
  }

  private measure(sentAt: number): void {
    // Requests that answered by now no longer hold a place.
    let kept = 0;
    for (const end of this.open) if (end > sentAt) this.open[kept++] = end;
    this.open.length = kept;
    const inFlight = this.open.length + 1;
    if (inFlight > this.figures.maxInFlight) this.figures.maxInFlight = inFlight;
    // 1 µs tolerance for floating-point sums of the same instants.
    if (sentAt - this.lastSendAt < this.intervalMs - 0.001) this.figures.spacingViolations += 1;
    this.lastSendAt = sentAt;
    this.figures.requests += 1;
    this.onSend?.(sentAt);
  }
}
