import { CRAWL_DELAY_CAP_MS, INTERVAL_NOTE_TTL_MS, MIN_INTERVAL_MS, PACE_MARGIN_MS } from './constants';
import { fallbackPhase } from './fallback-phase';
import type { ReserveDecision, ReserveRequest, SlotStore, SlotToken, StoreHostState } from './store';
import type { SlotClock } from './types';

interface HostRecord {
  /** Latest send this store granted, plus its send allowance (the base of the next slot). */
  lastSendAtMs?: number;
  /** The same for this process's latest send paced by the shared store (see `recordSend`). */
  mirroredSendAtMs?: number;
  /** That send's slot, as placed on this clock: where a fallback grid starts from it. */
  mirroredSlot?: GridSlot;
  /**
   * RATE-7 alone: the latest slot this store placed on its fallback grid in this outage, with the
   * bounds of the Redis slot it descends from. Cleared when an outage begins: an older grid's phase is
   * nobody's now.
   */
  gridSlot?: GridSlot;
  note?: { intervalMs: number; untilMs: number };
  crawlDelay?: { delayMs: number; untilMs: number };
  retryAfterUntilMs?: number;
}

/**
 * A slot a fallback grid may start from: a send time (no allowance) on this process's clock, and what
 * the Redis slot it comes from allows. A Redis slot is placed on our clock "never early" — up to
 * `uncertaintyMs` after where Redis really put it (the clock bracket's width, redis-store.ts) — and
 * Redis spaced the next process's slot only `allowanceMs` after it. Every grid slot inherits both: alone,
 * a send may leave no later than the true slot plus that allowance, as under Redis (see `reserve`).
 */
interface GridSlot {
  atMs: number;
  allowanceMs: number;
  uncertaintyMs: number;
}

/**
 * The pace kept by this process alone: local mode (`npm start` without Redis, multiplier 1) and the
 * RATE-7 fallback (multiplier = INGESTOR_MAX_INSTANCES, so all instances together stay within the
 * host's rate). Same rules as the Redis script; in-flight places are counted by the caller's gate.
 */
export class LocalSlotStore implements SlotStore {
  readonly mode = 'local';
  private readonly hosts = new Map<string, HostRecord>();
  /** Every host counts as used at this time (set on entering the fallback: see `assumeAllHostsUsedAt`). */
  private allUsedAtMs = Number.NEGATIVE_INFINITY;
  /** RATE-7: when this process found Redis gone (see `enterFallback`); `undefined` before any outage. */
  private fallbackSinceMs: number | undefined;

  constructor(
    private readonly clock: SlotClock,
    private readonly intervalMultiplier = 1,
  ) {}

  async reserve(req: ReserveRequest): Promise<ReserveDecision> {
    const now = this.clock.now();
    const rec = this.record(req.host);
    const noted = rec.note && rec.note.untilMs > now ? rec.note.intervalMs : 0;
    const crawl = rec.crawlDelay && rec.crawlDelay.untilMs > now ? rec.crawlDelay.delayMs : 0;
    const callerInterval = Math.max(MIN_INTERVAL_MS, req.intervalMs);
    const baseIntervalMs = Math.max(callerInterval, noted, crawl);
    const intervalMs = baseIntervalMs * this.intervalMultiplier;

    let sendAt = now + Math.max(0, req.notBeforeDelayMs);
    if (rec.retryAfterUntilMs !== undefined) sendAt = Math.max(sendAt, rec.retryAfterUntilMs);
    // Re-timing this store's own latest slot (see ReserveRequest.retime): it stands in for that slot.
    const retiming = req.retime !== undefined && rec.lastSendAtMs === req.retime.next;
    const anchor = this.phaseAnchor(rec, retiming ? req.retime : undefined);
    const phase =
      this.intervalMultiplier > 1
        ? fallbackPhase({
            instances: this.intervalMultiplier,
            baseIntervalMs,
            sinceMs: this.fallbackSince(now),
            anchorMs: anchor?.atMs,
          })
        : undefined;
    if (phase?.kind === 'off-host') {
      // No phase known to be shared (fallback-phase.ts): any send time could sit next to another
      // process's grid. Nothing is reserved; the host waits for Redis (PacedHostSlots waits or refuses).
      return { kind: 'refused', freeInMs: Number.POSITIVE_INFINITY, intervalMs, noSharedPhase: phase.reason };
    }
    // A grid slot carries its anchor's bounds: the next process's slot under Redis came only the
    // anchor's allowance after the anchor's *true* slot, which may lie its uncertainty before where this
    // clock placed it. The caller counts that uncertainty against the send's lateness and sends within
    // the anchor's allowance, as it did under Redis; forgotten, a send alone could leave up to both
    // later (983–993 ms gaps in the politeness bench under load; fallback-answer-delay.test.ts).
    let slotBounds: { allowanceMs: number; uncertaintyMs: number } | undefined;
    if (phase) {
      // RATE-7 alone on a host this process has sent to in the last cycle before the outage: stay on
      // a grid of fallback steps from its latest send (the last one paced through Redis at first).
      // Processes that took turns on the host under Redis keep their distinct phases alone — also
      // when every one of them resumes at once after the quiet minute (issue 13.6), and through an
      // answer slower than an interval or a late wake-up, either of which would otherwise start the
      // next send at "now", anybody's phase. The grid's step is the same for every process — at least
      // a cycle of `instances` slots as Redis spaced them, each interval + the largest allowance
      // (FALLBACK_GRID_SLACK_MS), never a process's own allowance — and a new slot does not re-anchor
      // it: processes whose allowances differ, or that skip different numbers of slots, would
      // otherwise drift into each other's phase.
      const { anchorMs, stepMs } = phase;
      sendAt = anchorMs + Math.max(1, Math.ceil((sendAt - anchorMs) / stepMs)) * stepMs;
      slotBounds = { allowanceMs: anchor!.allowanceMs, uncertaintyMs: anchor!.uncertaintyMs };
    } else {
      const last = this.lastKnownSend(rec, retiming);
      if (Number.isFinite(last)) sendAt = Math.max(sendAt, last + intervalMs);
      if (retiming) sendAt = Math.max(sendAt, req.retime!.sendAt);
    }

    if (req.maxWaitMs !== undefined && sendAt - now > req.maxWaitMs) {
      return { kind: 'refused', freeInMs: sendAt - now, intervalMs };
    }
    const next = sendAt + Math.max(0, req.sendAllowanceMs);
    rec.lastSendAtMs = next;
    if (slotBounds) rec.gridSlot = { atMs: sendAt, ...slotBounds };
    if (callerInterval >= noted)
      rec.note = { intervalMs: callerInterval, untilMs: now + INTERVAL_NOTE_TTL_MS };
    const token = { sendAt, next };
    if (!slotBounds) return { kind: 'granted', sendInMs: sendAt - now, intervalMs, uncertaintyMs: 0, token };
    return {
      kind: 'granted',
      sendInMs: sendAt - now,
      intervalMs,
      uncertaintyMs: slotBounds.uncertaintyMs,
      maxAllowanceMs: slotBounds.allowanceMs,
      token,
    };
  }

  sendLeadMs(): number {
    return 0;
  }

  async release(): Promise<void> {}

  /** In-process places queue in the HostGate, first come first served; nothing to leave here. */
  async leaveWaitingLine(): Promise<void> {}

  async noteRetryAfter(host: string, delayMs: number): Promise<void> {
    const rec = this.record(host);
    rec.retryAfterUntilMs = Math.max(rec.retryAfterUntilMs ?? 0, this.clock.now() + delayMs);
  }

  async noteCrawlDelay(host: string, delayMs: number, validForMs: number): Promise<void> {
    const rec = this.record(host);
    const now = this.clock.now();
    const capped = Math.min(delayMs, CRAWL_DELAY_CAP_MS);
    const current = rec.crawlDelay && rec.crawlDelay.untilMs > now ? rec.crawlDelay.delayMs : -1;
    if (capped >= current) rec.crawlDelay = { delayMs: capped, untilMs: now + validForMs };
  }

  async state(host: string): Promise<StoreHostState> {
    const now = this.clock.now();
    const rec = this.hosts.get(host) ?? {};
    const last = this.lastKnownSend(rec);
    return {
      nowMs: now,
      lastSendAtMs: Number.isFinite(last) ? last : undefined,
      inFlight: 0,
      notedIntervalMs: rec.note && rec.note.untilMs > now ? rec.note.intervalMs : undefined,
      crawlDelayMs: rec.crawlDelay && rec.crawlDelay.untilMs > now ? rec.crawlDelay.delayMs : undefined,
      retryAfterUntilMs:
        rec.retryAfterUntilMs !== undefined && rec.retryAfterUntilMs > now
          ? rec.retryAfterUntilMs
          : undefined,
    };
  }

  /**
   * Mirrors a send paced by the shared store (its slot as placed on this clock, its allowance, and how
   * much earlier the slot may really have been: the grant's `uncertaintyMs`), so a fallback continues
   * from it.
   */
  recordSend(host: string, sendAtMs: number, allowanceMs: number, uncertaintyMs = 0): void {
    const rec = this.record(host);
    if (sendAtMs > (rec.mirroredSlot?.atMs ?? Number.NEGATIVE_INFINITY)) {
      rec.mirroredSlot = {
        atMs: sendAtMs,
        allowanceMs: Math.max(0, allowanceMs),
        uncertaintyMs: Math.max(0, uncertaintyMs),
      };
    }
    const next = sendAtMs + Math.max(0, allowanceMs);
    rec.mirroredSendAtMs = Math.max(rec.mirroredSendAtMs ?? Number.NEGATIVE_INFINITY, next);
  }

  /** The latest send this store granted to `host` (local clock) — one the shared store never saw. */
  lastLocalSendAt(host: string): number | undefined {
    return this.hosts.get(host)?.lastSendAtMs;
  }

  /**
   * On entering the fallback: other instances may have sent to any host just now (or reserved slots
   * up to two intervals ahead), which this process cannot see. Treating every host as used at `nowMs`
   * delays each first fallback send by one fallback interval (interval × instances).
   */
  assumeAllHostsUsedAt(nowMs: number): void {
    this.allUsedAtMs = Math.max(this.allUsedAtMs, nowMs + PACE_MARGIN_MS);
  }

  /**
   * RATE-7: this process found Redis gone at `sinceMs` (its first failed call). Phases on hosts are kept
   * only from slots shortly before it (fallback-phase.ts); grids of an earlier outage are dropped.
   */
  enterFallback(sinceMs: number): void {
    this.fallbackSinceMs = sinceMs;
    for (const rec of this.hosts.values()) rec.gridSlot = undefined;
  }

  /** Without `enterFallback` (a store used alone directly) the outage began by its first use. */
  private fallbackSince(nowMs: number): number {
    this.fallbackSinceMs ??= nowMs;
    return this.fallbackSinceMs;
  }

  /**
   * Where this process's grid on a host starts in the fallback: a slot being re-timed (it was not
   * used, so the grid goes on from its send time), else its latest slot: on the grid, or paced through
   * Redis, whichever is later. Slots, not slots plus allowance: a send may still leave up to its
   * allowance late, and that must not move the grid. `undefined` for a host it has not sent to. The
   * anchor carries the bounds of the Redis slot its grid descends from (GridSlot).
   */
  private phaseAnchor(rec: HostRecord, retime: SlotToken | undefined): GridSlot | undefined {
    const { gridSlot, mirroredSlot } = rec;
    const latest =
      gridSlot && (!mirroredSlot || gridSlot.atMs >= mirroredSlot.atMs) ? gridSlot : mirroredSlot;
    if (!retime) return latest;
    // A re-timed slot is this store's own latest grant (`retiming` checks it), on the grid: same bounds.
    const bounds = gridSlot ?? mirroredSlot;
    return bounds && { ...bounds, atMs: retime.sendAt };
  }

  private lastKnownSend(rec: HostRecord, withoutOwnLatest = false): number {
    const own = Math.max(
      withoutOwnLatest ? Number.NEGATIVE_INFINITY : (rec.lastSendAtMs ?? Number.NEGATIVE_INFINITY),
      rec.mirroredSendAtMs ?? Number.NEGATIVE_INFINITY,
    );
    return Math.max(own, this.allUsedAtMs);
  }

  private record(host: string): HostRecord {
    let rec = this.hosts.get(host);
    if (!rec) {
      rec = {};
      this.hosts.set(host, rec);
    }
    return rec;
  }
}
