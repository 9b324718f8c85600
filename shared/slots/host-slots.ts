import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Redis } from '@upstash/redis';
import { RETRY_AFTER_CAP_MS } from '../fetch';
import { hostKey } from '../util';
import { systemSlotClock } from './clock';
import {
  BUSY_POLL_JITTER_MS,
  BUSY_POLL_MAX_MS,
  BUSY_POLL_MIN_MS,
  COLD_START_SEND_ALLOWANCE_MS,
  COLD_START_WRITE_GUARD_MS,
  CRAWL_DELAY_CAP_MS,
  CRAWL_DELAY_VALID_MS,
  DEFAULT_LEASE_TTL_MS,
  HOLDER_ANSWER_AIM_MS,
  MAX_IN_FLIGHT_PER_HOST,
  MAX_INTERVAL_MS,
  MAX_SEND_ALLOWANCE_MS,
  MIN_INTERVAL_MS,
  MIN_LEASE_TTL_MS,
  PACE_MARGIN_MS,
  SEND_LATENESS_MIN_SAMPLES,
  SEND_WRITE_GUARD_MS,
  SHARED_STORE_RETRY_MS,
} from './constants';
import { SlotOptionsError, SlotStoreNoAnswerError, SlotStoreUnavailableError } from './errors';
import { afterOutcome, type FailoverState, ON_SHARED_STORE, type StoreOutcome, storeUse } from './failover';
import { HostGate } from './gate';
import { type FloorNote, type HostLedger, processHostLedger, RedisHostLedger } from './ledger';
import { LocalSlotStore } from './local-store';
import { RedisSlotStore } from './redis-store';
import type { ReserveDecision, SlotStore, SlotToken } from './store';
import type {
  AcquireOptions,
  AcquireResult,
  HostSlotState,
  PacedSlots,
  SlotClock,
  SlotEvent,
  SlotLease,
  SlotRefusal,
} from './types';

export interface HostSlotsOptions {
  /**
   * The shared store (Upstash Redis). Without it the process paces alone at the plain interval — local
   * mode, `npm start` without UPSTASH_* settings.
   */
  redis?: Redis;
  /**
   * RATE-7: INGESTOR_MAX_INSTANCES, the multiplier of the interval while the shared store is
   * unavailable. Required with `redis`; ignored without it.
   */
  maxInstances?: number;
  clock?: SlotClock;
  /** Namespace of the Redis keys (default `ingestor:slots:`). */
  keyPrefix?: string;
  /** A Redis call slower than this counts as a failure (default 2 000 ms). */
  storeTimeoutMs?: number;
  onEvent?: (event: SlotEvent) => void;
  /**
   * How long a released lease may wait in this process for its Redis release to ride along with the
   * next reservation of the same host; 0 (default) = release at once. The functions' composition
   * root sets RELEASE_LINGER_MS and calls `flushReleases()` before an invocation ends.
   */
  releaseLingerMs?: number;
  /**
   * Where this process's RATE-8 pauses and Crawl-delays are copied for the planner (and where its passes
   * record their requests): with `redis`, the shared ledger under `keyPrefix`; without, the process's own.
   */
  ledger?: HostLedger;
}

export interface HostSlotsStats {
  mode: 'shared' | 'local';
  grants: number;
  refusals: number;
  /** Reservation attempts answered "both places taken" (each cost a round trip). */
  busyAnswers: number;
  /** Calls to the shared store (≈ HTTP round trips). */
  sharedStoreCalls: number;
  /** Times the shared store failed and the process fell back to pacing alone. */
  sharedStoreFailures: number;
  /**
   * Slots given up because this process could only have sent them too late (see PACE_MARGIN_MS); each
   * cost one more store call, and an interval only when another reservation had already followed it.
   */
  lateForfeits: number;
  /** The send allowance this process currently asks for, ms. */
  sendAllowanceMs: number;
}

interface Moving {
  store: SlotStore;
  host: string;
  leaseId: string;
  /** Set when the lease is given up for being late: its slot may be re-timed (ReserveRequest.retime). */
  retime?: SlotToken;
}

/** One acquire's reservation attempts and what they carry from one to the next (reserveHolding). */
interface Reservation {
  host: string;
  opts: CheckedOptions;
  deadlineMs: number;
  /** This acquire's place in the host's waiting line, the same for all its attempts. */
  requesterId: string;
  /** A lease being moved or re-timed: freed by the next reservation call, or quietly on the way out. */
  moving: Moving | undefined;
  /** The store whose waiting line holds `requesterId` after a "busy" answer; left on the way out. */
  waitingIn: SlotStore | undefined;
}

type GrantedDecision = Extract<ReserveDecision, { kind: 'granted' }>;
type BusyDecision = Extract<ReserveDecision, { kind: 'busy' }>;

/** One reservation call's answer, with the lease id it asked for and the allowance it asked with. */
interface StoreAnswer {
  store: SlotStore;
  leaseId: string;
  decision: ReserveDecision;
  /** When the answer arrived, on this process's clock. */
  answeredMs: number;
  allowance: SendAllowance;
}

/** A granted slot as the lease holds it. */
interface GrantedSlot {
  store: SlotStore;
  host: string;
  leaseId: string;
  sendAtMs: number;
  intervalMs: number;
  uncertaintyMs: number;
  allowance: SendAllowance;
  token: SlotToken;
}

interface CheckedOptions {
  intervalMs: number;
  maxWaitMs: number | undefined;
  leaseTtlMs: number;
  signal: AbortSignal | undefined;
}

/** Builds the slot gate for this process: shared through Redis with local fallback, or local only. */
export function createHostSlots(opts: HostSlotsOptions = {}): PacedHostSlots {
  return new PacedHostSlots(opts);
}

export function isSlotLease(result: AcquireResult): result is SlotLease {
  return result.granted;
}

/**
 * Per-host pace and in-flight places (RATE-1 … RATE-8, ROB-10) for one process.
 *
 * acquire: in-process place (HostGate, FIFO) → one store round trip (reserve slot + lease) → sleep until
 * the send time. While Redis fails or times out, reservations go to the local store at interval ×
 * `maxInstances`, and Redis is asked again after 60 s (RATE-7).
 */
export class PacedHostSlots implements PacedSlots {
  private readonly clock: SlotClock;
  private readonly gate: HostGate;
  private readonly shared: RedisSlotStore | undefined;
  private readonly local: LocalSlotStore;
  private readonly onEvent: (event: SlotEvent) => void;
  private readonly lateness = new SendLateness();
  /** RATE-7: on Redis, quiet, or paced alone (failover.ts decides; storeOutcome moves it). */
  private failover: FailoverState = ON_SHARED_STORE;
  /** Aborted whenever `failover` changes: wakes the requests waiting out a quiet (waitOutFallback). */
  private failoverChanged = failoverSignal();
  private readonly releaseLingerMs: number;
  /** RATE-9 / item 5: the fleet-wide copy of this process's floors, and its other fetches' use. */
  readonly ledger: HostLedger;
  /** Released leases whose Redis release waits for this process's next reservation of the host. */
  private readonly lingering = new Map<string, { leaseId: string; timer: NodeJS.Timeout }[]>();
  private readonly counts = {
    grants: 0,
    refusals: 0,
    busyAnswers: 0,
    sharedStoreFailures: 0,
    lateForfeits: 0,
  };

  constructor(opts: HostSlotsOptions = {}) {
    this.clock = opts.clock ?? systemSlotClock;
    this.gate = new HostGate(MAX_IN_FLIGHT_PER_HOST, this.clock);
    this.onEvent = opts.onEvent ?? (() => {});
    this.releaseLingerMs = opts.releaseLingerMs ?? 0;
    if (opts.redis) {
      const maxInstances = opts.maxInstances;
      if (maxInstances === undefined || !Number.isInteger(maxInstances) || maxInstances < 1) {
        throw new SlotOptionsError(
          'maxInstances (INGESTOR_MAX_INSTANCES) must be a whole number ≥ 1 with redis',
        );
      }
      this.shared = new RedisSlotStore(opts.redis, {
        keyPrefix: opts.keyPrefix,
        timeoutMs: opts.storeTimeoutMs,
      });
      this.local = new LocalSlotStore(this.clock, maxInstances);
      this.ledger = opts.ledger ?? new RedisHostLedger(opts.redis, opts.keyPrefix);
    } else {
      this.local = new LocalSlotStore(this.clock, 1);
      this.ledger = opts.ledger ?? processHostLedger();
    }
  }

  get mode(): 'shared' | 'local' {
    return this.currentStore().mode;
  }

  stats(): HostSlotsStats {
    return {
      mode: this.mode,
      ...this.counts,
      sharedStoreCalls: this.shared?.callCount ?? 0,
      sendAllowanceMs: this.lateness.allowance().allowanceMs,
    };
  }

  /**
   * For a cold start (a function's init phase): a few read-only round trips to Redis, so the first
   * reservations know how long answers take here (see RedisSlotStore.warmUp). Never fails; no-op locally.
   */
  async warmUp(maxCalls = 8): Promise<void> {
    await this.onShared((store) => store.warmUp(maxCalls));
  }

  async acquire(host: string | URL, opts: AcquireOptions): Promise<AcquireResult> {
    const key = hostKey(host);
    const checked = checkOptions(opts);
    const deadlineMs = this.deadline(checked);
    if (!(await this.gate.enter(key, deadlineMs - this.clock.now(), checked.signal))) {
      return this.refuse(key, undefined);
    }
    return this.reserveHolding(key, checked, deadlineMs, undefined);
  }

  async noteRetryAfter(host: string | URL, delayMs: number): Promise<void> {
    const key = hostKey(host);
    const capped = Math.min(checkDelay('Retry-After', delayMs), RETRY_AFTER_CAP_MS);
    if (capped <= 0) return;
    // Always kept locally too, so a later fallback still honours it.
    await this.local.noteRetryAfter(key, capped);
    await this.onShared((store) => store.noteRetryAfter(key, capped));
    await this.noteInLedger(key, { kind: 'pause', delayMs: capped });
  }

  async noteCrawlDelay(
    host: string | URL,
    delayMs: number,
    validForMs = CRAWL_DELAY_VALID_MS,
  ): Promise<void> {
    const key = hostKey(host);
    const capped = Math.min(checkDelay('Crawl-delay', delayMs), CRAWL_DELAY_CAP_MS);
    const validMs = checkDelay('validForMs', validForMs);
    if (capped <= 0 || validMs <= 0) return;
    await this.local.noteCrawlDelay(key, capped, validMs);
    await this.onShared((store) => store.noteCrawlDelay(key, capped, validMs));
    await this.noteInLedger(key, { kind: 'crawl-delay', delayMs: capped, validForMs: validMs });
  }

  /**
   * RATE-8 / ROB-10 for the planner (issue 27): the floor's fleet-wide copy. The slot keys above already
   * enforce it; a copy that fails only leaves the planner blind to it, as before — never a failed fetch.
   */
  private async noteInLedger(host: string, note: FloorNote): Promise<void> {
    // In the RATE-7 fallback the shared ledger is as unreachable as the slot store: nothing to wait for.
    if (this.shared && this.currentStore() !== this.shared) return;
    try {
      await this.ledger.noteFloor(host, note);
    } catch (error) {
      this.onEvent({ type: 'ledger-failed', host, error });
    }
  }

  async hostState(host: string | URL): Promise<HostSlotState> {
    const key = hostKey(host);
    let store: SlotStore = this.currentStore();
    let state = await this.onShared((shared) => shared.state(key));
    if (!state) {
      store = this.local;
      state = await this.local.state(key);
    }
    const toLocal = (ms: number | undefined) =>
      ms === undefined ? undefined : this.clock.now() + (ms - state.nowMs);
    return {
      host: key,
      mode: store.mode,
      lastSendAtMs: toLocal(state.lastSendAtMs),
      inFlight: store.mode === 'shared' ? state.inFlight : this.gate.held(key),
      crawlDelayMs: state.crawlDelayMs,
      retryAfterUntilMs: toLocal(state.retryAfterUntilMs),
      notedIntervalMs: state.notedIntervalMs,
    };
  }

  /** RATE-5, called by `SlotLease.moveTo`; with `retime`, by `SlotLease.retime` (same host). */
  async move(
    from: Lease,
    target: string | URL,
    opts: AcquireOptions,
    retime?: SlotToken,
  ): Promise<AcquireResult> {
    const key = hostKey(target);
    const checked = checkOptions(opts);
    const detached = from.detach();
    if (!detached) return this.acquire(key, opts);
    const deadlineMs = this.deadline(checked);
    // Re-timing keeps its in-process place: it is the same request, only later.
    if (retime) return this.reserveHolding(key, checked, deadlineMs, { ...detached, retime });
    const moving = detached;
    // The in-process place moves at once; the stored lease is freed by the target's reservation call.
    this.gate.leave(from.host);
    let entered: boolean;
    try {
      entered = await this.gate.enter(key, deadlineMs - this.clock.now(), checked.signal);
    } catch (error) {
      void this.releaseQuietly(moving);
      throw error;
    }
    if (!entered) {
      void this.releaseQuietly(moving);
      return this.refuse(key, undefined);
    }
    return this.reserveHolding(key, checked, deadlineMs, moving);
  }

  /** Called by `SlotLease.retime`: the slot was not used in time; counted like a late wake-up. */
  retimeLate(lease: Lease, token: SlotToken, opts: AcquireOptions): Promise<AcquireResult> {
    const lateMs = lease.lateMs();
    this.lateness.record(lateMs);
    this.noteForfeit(lease.host, lateMs, lease.uncertaintyMs);
    return this.move(lease, lease.host, opts, token);
  }

  /** A slot given up for lateness: counted, and told (how much of it was the store clock's uncertainty). */
  private noteForfeit(host: string, lateMs: number, uncertaintyMs: number): void {
    this.counts.lateForfeits += 1;
    this.onEvent({ type: 'slot-forfeited', host, wokeLateMs: lateMs - uncertaintyMs, uncertaintyMs });
  }

  /** How late a send now would be after the lease's slot, counting the store clock's uncertainty. */
  lateMsOf(sendAtMs: number, uncertaintyMs: number): number {
    return Math.max(0, this.clock.now() - sendAtMs) + uncertaintyMs;
  }

  /** Called by `SlotLease.release`: store first, then the in-process place (so a waiter finds it free). */
  async releaseLease(lease: Lease, store: SlotStore, leaseId: string): Promise<void> {
    if (store === this.shared && this.releaseLingerMs > 0) {
      // The place is free for this process at once; in Redis it goes with this process's next
      // reservation for the host (a sequential fetcher's next page) or after the linger, one round
      // trip instead of two. Meanwhile the place counts as taken: the safe side of RATE-4.
      this.linger(lease.host, leaseId);
      this.gate.leave(lease.host);
      return;
    }
    const sentMs = this.clock.now();
    try {
      await store.release(lease.host, leaseId);
    } catch (error) {
      // The lease expires with its TTL; until then the host has one place less. Safe side.
      this.onEvent({ type: 'release-failed', host: lease.host, error });
      if (store === this.shared && error instanceof SlotStoreUnavailableError) {
        this.sharedFailed(error, sentMs);
      }
    } finally {
      this.gate.leave(lease.host);
    }
  }

  /**
   * Holding an in-process place for `host`: reserve in the store, waiting out "busy" answers. Each
   * attempt asks the store once (askStore) and acts on its answer: send at the granted time (sendWhenDue),
   * refuse, or wait in the host's line (waitAfterBusy); the fallback's quiet is waited out first.
   */
  private async reserveHolding(
    host: string,
    opts: CheckedOptions,
    deadlineMs: number,
    moving: Moving | undefined,
  ): Promise<AcquireResult> {
    // One place in the host's waiting line for all attempts of this acquire (see RESERVE_SLOT_SCRIPT).
    const r: Reservation = {
      host,
      opts,
      deadlineMs,
      requesterId: randomUUID(),
      moving,
      waitingIn: undefined,
    };
    let placeHeld = true;
    try {
      for (let attempt = 0; ; attempt += 1) {
        if (this.shared && storeUse(this.failover, this.clock.now()) === 'quiet') {
          const refusal = await this.waitOutFallbackQuiet(r);
          if (refusal) return refusal;
          continue;
        }
        const store = this.currentStore();
        const answer = await this.askStore(r, store);
        if (!answer) continue; // Redis failed: at once, now against the local store
        const { decision } = answer;
        if (decision.kind !== 'busy') r.waitingIn = undefined; // a grant or refusal left the line
        if (decision.kind === 'granted') {
          const lease = await this.sendWhenDue(r, answer, decision);
          if (!lease) continue; // forfeited for lateness: the next call re-times or replaces it
          placeHeld = false; // the lease owns it now
          return lease;
        }
        if (decision.kind === 'refused' && decision.noSharedPhase) {
          // RATE-7 alone without a phase shared with the others (fallback-phase.ts): off the host
          // until Redis answers again. Refused at once, told when Redis is asked again — not held
          // waiting: a sync's run ends with its continuation instead of idling through its budget.
          return this.refuse(host, this.failover.retryAtMs, 'no-shared-phase');
        }
        if (decision.kind === 'refused') return this.refuse(host, answer.answeredMs + decision.freeInMs);
        const refusal = await this.waitAfterBusy(r, answer, { decision, attempt });
        if (refusal) return refusal;
      }
    } catch (error) {
      if (r.moving) void this.releaseQuietly(r.moving);
      if (r.waitingIn) this.leaveLineQuietly(r.waitingIn, host, r.requesterId);
      throw error;
    } finally {
      if (placeHeld) this.gate.leave(host);
    }
  }

  /**
   * Quiet (failover.ts): nothing leaves until Redis has been asked again, or while a retry's late
   * answer is awaited. Sleeps until the quiet ends or the failover state changes (a late answer puts
   * the process back on Redis), or refuses when the quiet outlasts the wait budget.
   */
  private async waitOutFallbackQuiet(r: Reservation): Promise<SlotRefusal | undefined> {
    const untilMs = this.failover.quietUntilMs;
    if (untilMs > r.deadlineMs) {
      if (r.waitingIn) this.leaveLineQuietly(r.waitingIn, r.host, r.requesterId);
      r.waitingIn = undefined;
      return this.refuse(r.host, Number.isFinite(untilMs) ? untilMs : undefined);
    }
    const changed = this.failoverChanged.signal;
    const signal = r.opts.signal ? AbortSignal.any([r.opts.signal, changed]) : changed;
    try {
      // While a retry's answer is awaited the quiet has no end of its own: the answer, or its loss
      // after SHARED_STORE_ANSWER_PATIENCE_MS (a real timer that always fires), changes the state.
      if (Number.isFinite(untilMs)) await this.clock.sleep(untilMs - this.clock.now(), signal);
      else await untilAborted(signal);
    } catch (error) {
      if (r.opts.signal?.aborted || !changed.aborted) throw error;
    }
    return undefined;
  }

  /**
   * One reservation call: a slot and a lease, freeing a lease being moved (or a lingering release of the
   * host) in the same round trip. `undefined` when Redis failed — the process is now in the fallback.
   */
  private async askStore(r: Reservation, store: SlotStore): Promise<StoreAnswer | undefined> {
    // The TTL rides in the id, so a waiter can tell when a held lease's request goes out.
    const leaseId = `${randomUUID()}/${Math.ceil(r.opts.leaseTtlMs)}`;
    const now = this.clock.now();
    const releaseWith = r.moving?.store === store ? r.moving : undefined;
    // Without a lease to move or re-time, a lingering release of this host rides along.
    const lingered = !releaseWith && store === this.shared ? this.takeLingering(r.host) : undefined;
    const allowance = this.lateness.allowance();
    let decision: ReserveDecision;
    const sentMs = now;
    try {
      decision = await store.reserve({
        host: r.host,
        intervalMs: r.opts.intervalMs,
        leaseId,
        requesterId: r.requesterId,
        leaseTtlMs: r.opts.leaseTtlMs,
        maxWaitMs: Number.isFinite(r.deadlineMs) ? Math.max(0, r.deadlineMs - now) : undefined,
        notBeforeDelayMs: Math.max(
          store.sendLeadMs(),
          store === this.shared ? this.ownPaceDelay(r.host, r.opts.intervalMs, now) : 0,
        ),
        sendAllowanceMs: allowance.allowanceMs,
        release: releaseWith
          ? { host: releaseWith.host, leaseId: releaseWith.leaseId }
          : lingered === undefined
            ? undefined
            : { host: r.host, leaseId: lingered },
        retime: releaseWith?.host === r.host ? releaseWith.retime : undefined,
      });
      if (store === this.shared) this.sharedAnswered();
    } catch (error) {
      if (store !== this.shared || !(error instanceof SlotStoreUnavailableError)) throw error;
      if (error instanceof SlotStoreNoAnswerError) {
        // Redis may have placed the slot and the lease: a late answer frees the lease (the slot stays
        // spent, unsent — the pace kept). A place in the host's waiting line stays: this acquire asks
        // again with the same requester id, and an abandoned entry leaves after WAIT_STALE_MS.
        void error.lateAnswer.then((answered) => {
          if (answered) void this.releaseQuietly({ store, host: r.host, leaseId });
        });
      }
      this.sharedFailed(error, sentMs);
      return undefined;
    }
    if (r.moving) {
      if (!releaseWith) void this.releaseQuietly(r.moving);
      r.moving = undefined;
    }
    return {
      store,
      leaseId,
      decision,
      answeredMs: this.answeredAtMs(decision),
      allowance: withinSlot(allowance, decision),
    };
  }

  /** The answer's arrival, on this process's clock (see ReserveDecision.answeredAtMs). */
  private answeredAtMs(decision: ReserveDecision): number {
    return decision.kind === 'granted' && decision.answeredAtMs !== undefined
      ? this.clock.now() - Math.max(0, systemSlotClock.now() - decision.answeredAtMs)
      : this.clock.now();
  }

  /**
   * A granted slot: sleep until its send time and hand out the lease — or, woken later than the send
   * allowance, give the slot up (`undefined`; `r.moving` then carries it to the next reservation call).
   */
  private async sendWhenDue(
    r: Reservation,
    answer: StoreAnswer,
    decision: GrantedDecision,
  ): Promise<Lease | undefined> {
    const { store, leaseId, allowance } = answer;
    const host = r.host;
    // Never early: the store's "now" was at the latest when its answer arrived.
    const sendAtMs = answer.answeredMs + decision.sendInMs;
    if (store === this.shared) {
      this.local.recordSend(host, sendAtMs, allowance.allowanceMs, decision.uncertaintyMs);
    }
    try {
      await this.clock.sleep(sendAtMs - this.clock.now(), r.opts.signal);
    } catch (error) {
      await this.releaseQuietly({ store, host, leaseId }); // the slot stays spent: pace kept
      throw error;
    }
    // Never late either. Sent later than its allowance after its slot — the answer was slow to
    // arrive or the event loop slow to wake — a request could come closer than the interval to
    // the next slot, someone else's. Give the slot up and reserve again: the same call re-times
    // it to now when nobody has reserved after it yet, else it stays spent and a new one queues.
    // The write comes later still (the lease's onTime check): the guard is kept for it here too.
    const lateMs = this.lateMsOf(sendAtMs, decision.uncertaintyMs);
    this.lateness.record(lateMs);
    if (!mayStart(lateMs, allowance)) {
      this.noteForfeit(host, lateMs, decision.uncertaintyMs);
      r.moving = { store, host, leaseId, retime: decision.token }; // freed by the next reservation call
      return undefined;
    }
    this.counts.grants += 1;
    return new Lease(this, {
      store,
      host,
      leaseId,
      sendAtMs,
      intervalMs: decision.intervalMs,
      uncertaintyMs: decision.uncertaintyMs,
      allowance,
      token: decision.token,
    });
  }

  /**
   * Both places taken: keep this acquire's place in the host's waiting line and poll again
   * (busyWaitMs) — or, when the next poll lies past the wait budget, leave the line and refuse.
   */
  private async waitAfterBusy(
    r: Reservation,
    answer: StoreAnswer,
    busy: { decision: BusyDecision; attempt: number },
  ): Promise<SlotRefusal | undefined> {
    this.counts.busyAnswers += 1;
    r.waitingIn = answer.store;
    const waitMs = busyWaitMs(busy.decision, busy.attempt);
    if (answer.answeredMs + waitMs > r.deadlineMs) {
      this.leaveLineQuietly(answer.store, r.host, r.requesterId);
      return this.refuse(r.host, answer.answeredMs + waitMs);
    }
    await this.clock.sleep(waitMs, r.opts.signal);
    return undefined;
  }

  private refuse(
    host: string,
    retryAtMs: number | undefined,
    reason: SlotRefusal['reason'] = 'max-wait',
  ): SlotRefusal {
    this.counts.refusals += 1;
    return retryAtMs === undefined
      ? { granted: false, reason, host }
      : { granted: false, reason, host, retryAtMs };
  }

  private deadline(opts: CheckedOptions): number {
    return opts.maxWaitMs === undefined ? Number.POSITIVE_INFINITY : this.clock.now() + opts.maxWaitMs;
  }

  private currentStore(): SlotStore {
    if (this.shared && storeUse(this.failover, this.clock.now()) === 'shared') return this.shared;
    return this.local;
  }

  /**
   * Sends this process made alone (RATE-7 fallback) must bound the shared pace too: Redis never saw
   * them, and after a restart it may know nothing at all. Zero once they are an interval old.
   */
  private ownPaceDelay(host: string, intervalMs: number, now: number): number {
    const last = this.local.lastLocalSendAt(host);
    return last === undefined ? 0 : Math.max(0, last + intervalMs - now);
  }

  /**
   * RATE-7: Redis failed or timed out (failover.ts decides what follows).
   *
   * A partial outage (this process cut off, the others still on Redis) makes pacing alone unsafe: sends
   * paced alone are invisible to the instances still reserving through Redis, and theirs to this one,
   * so the two can come closer than the interval (issue 13). Nothing local can see the others, so on
   * the switch this process first stays quiet — sends nothing to any host — until it has asked Redis
   * again (SHARED_STORE_RETRY_MS). A call that timed out is ambiguous: its late answer ends the quiet
   * (Redis is slow, not gone), and a retry that timed out is waited for, quiet, up to
   * SHARED_STORE_ANSWER_PATIENCE_MS. Only a retry that fails outright or never answers makes the
   * process pace alone. Chosen over "the instances on Redis leave room for one that may be alone" (a
   * marker it sets, turns kept free on its grid): a process that can set a marker in Redis gets
   * answers from it and needs no fallback; one that cannot get through cannot set it either. What
   * remains: an instance that gets no answer at all for two minutes while others still reach Redis;
   * its switches are logged and counted (the `SlotStoreFallback` metric) so that case is seen. Costs a
   * total outage one minute of fetching (two when the calls time out instead of failing).
   */
  private sharedFailed(error: SlotStoreUnavailableError, sentMs: number): void {
    if (error instanceof SlotStoreNoAnswerError) {
      this.storeOutcome({ kind: 'no-answer', sentMs }, error);
      void error.lateAnswer.then((answered) =>
        this.storeOutcome(answered ? { kind: 'answered' } : { kind: 'answer-lost', sentMs }, error),
      );
    } else {
      this.storeOutcome({ kind: 'failed' }, error);
    }
  }

  private sharedAnswered(): void {
    this.storeOutcome({ kind: 'answered' }, undefined);
  }

  /** Applies a store call's outcome to the failover state; tells each switch (SlotEvent). */
  private storeOutcome(outcome: StoreOutcome, error: unknown): void {
    const now = this.clock.now();
    const before = this.failover;
    const { state, switched } = afterOutcome(before, outcome, now);
    if (state === before) return;
    this.failover = state;
    this.failoverChanged.abort();
    this.failoverChanged = failoverSignal();
    if (switched === 'restored') {
      this.onEvent({ type: 'shared-store-restored', fallbackMs: now - (before.sinceMs ?? now) });
      return;
    }
    if (storeUse(state, now) !== 'shared' && Number.isFinite(state.quietUntilMs)) {
      // Other instances may have sent to any host just before the quiet ended: one fallback interval.
      this.local.assumeAllHostsUsedAt(state.quietUntilMs);
    }
    // RATE-7: the outage began before now; only slots shortly before it keep a phase (fallback-phase.ts).
    if (switched === 'entered' && state.sinceMs !== undefined) this.local.enterFallback(state.sinceMs);
    if (switched === undefined) return;
    this.counts.sharedStoreFailures += 1;
    this.onEvent({
      type: 'shared-store-failed',
      error,
      retryInMs: SHARED_STORE_RETRY_MS,
      entered: switched === 'entered',
      quietUntilMs: state.quietUntilMs,
    });
  }

  /** Runs `fn` against Redis when it is in use; `undefined` when it is not or just failed. */
  private async onShared<T>(fn: (store: RedisSlotStore) => Promise<T>): Promise<T | undefined> {
    if (!this.shared || this.currentStore() !== this.shared) return undefined;
    const sentMs = this.clock.now();
    try {
      const result = await fn(this.shared);
      this.sharedAnswered();
      return result;
    } catch (error) {
      if (!(error instanceof SlotStoreUnavailableError)) throw error;
      this.sharedFailed(error, sentMs);
      return undefined;
    }
  }

  /**
   * Sends every lingering release now. Call it before a function's invocation ends: a frozen instance
   * runs no timers, and its places would stay taken until their leases expire.
   */
  async flushReleases(): Promise<void> {
    const pending = [...this.lingering].flatMap(([host, entries]) =>
      entries.map((entry) => {
        clearTimeout(entry.timer);
        return { host, leaseId: entry.leaseId };
      }),
    );
    this.lingering.clear();
    if (!this.shared || pending.length === 0) return;
    const store = this.shared;
    await Promise.all(pending.map(({ host, leaseId }) => this.releaseQuietly({ store, host, leaseId })));
  }

  private linger(host: string, leaseId: string): void {
    const entries = this.lingering.get(host) ?? [];
    const entry = {
      leaseId,
      timer: setTimeout(() => {
        const left = (this.lingering.get(host) ?? []).filter((e) => e !== entry);
        if (left.length > 0) this.lingering.set(host, left);
        else this.lingering.delete(host);
        if (this.shared) void this.releaseQuietly({ store: this.shared, host, leaseId });
      }, this.releaseLingerMs),
    };
    entries.push(entry);
    this.lingering.set(host, entries);
  }

  private takeLingering(host: string): string | undefined {
    const entries = this.lingering.get(host);
    const entry = entries?.shift();
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    if (entries!.length === 0) this.lingering.delete(host);
    return entry.leaseId;
  }

  /** Gives up a place in a host's waiting line; never rejects — a lost call ends with WAIT_STALE_MS. */
  private leaveLineQuietly(store: SlotStore, host: string, requesterId: string): void {
    void store.leaveWaitingLine(host, requesterId).catch((error: unknown) => {
      this.onEvent({ type: 'release-failed', host, error });
    });
  }

  /** Frees a stored lease; never rejects — a lost release only means it expires with its TTL. */
  private releaseQuietly(moving: Moving): Promise<void> {
    return moving.store.release(moving.host, moving.leaseId).catch((error: unknown) => {
      this.onEvent({ type: 'release-failed', host: moving.host, error });
    });
  }
}

/**
 * What a reservation asks for: the allowance reserved after its send time (the host's next slot comes
 * an interval after that) and the part of it kept for the write after the send-time check.
 */
interface SendAllowance {
  allowanceMs: number;
  guardMs: number;
}

/**
 * The allowance a granted slot leaves room for: the one asked for, or less where the store says so (a
 * RATE-7 grid slot: the allowance Redis spaced its anchor by). The guard stays: it is the write's.
 */
function withinSlot(allowance: SendAllowance, decision: ReserveDecision): SendAllowance {
  if (decision.kind !== 'granted' || decision.maxAllowanceMs === undefined) return allowance;
  if (decision.maxAllowanceMs >= allowance.allowanceMs) return allowance;
  return { allowanceMs: decision.maxAllowanceMs, guardMs: allowance.guardMs };
}

/** Whether a send this late may still start: the check leaves the allowance's guard for the write. */
function mayStart(lateMs: number, allowance: SendAllowance): boolean {
  return lateMs <= allowance.allowanceMs - allowance.guardMs;
}

/**
 * How late this process's sends run (late timers, a slow event loop, connection set-up, plus the
 * uncertainty of the Redis clock), and so the send allowance it asks for. A send that may no longer
 * start gives its slot up (a store call, and up to an interval when another reservation already
 * follows it — counted as a whole interval here, to be safe); a larger allowance widens the spacing
 * after each of this process's slots (lost on every send). Over the last 64 sends, the check bound
 * with the least expected loss per send — share of sends later than it × 1 s + the allowance it needs
 * (bound + SEND_WRITE_GUARD_MS) — within PACE_MARGIN_MS … MAX_SEND_ALLOWANCE_MS. A process that keeps
 * time asks for the minimum. Until SEND_LATENESS_MIN_SAMPLES sends the cold start's allowance: a cold
 * start's first, slow answers say little about the process, and its stalls are the largest.
 */
class SendLateness {
  private readonly samples: number[] = [];

  record(lateMs: number): void {
    this.samples.push(Math.max(0, lateMs));
    if (this.samples.length > 64) this.samples.shift();
  }

  allowance(): SendAllowance {
    if (this.samples.length < SEND_LATENESS_MIN_SAMPLES) {
      return { allowanceMs: COLD_START_SEND_ALLOWANCE_MS, guardMs: COLD_START_WRITE_GUARD_MS };
    }
    const sorted = [...this.samples].sort((a, b) => a - b);
    const steady = (allowanceMs: number): SendAllowance => ({
      allowanceMs: Math.min(MAX_SEND_ALLOWANCE_MS, Math.max(PACE_MARGIN_MS, allowanceMs)),
      guardMs: SEND_WRITE_GUARD_MS,
    });
    let best = { allowance: steady(PACE_MARGIN_MS), lossMs: Number.POSITIVE_INFINITY };
    for (const late of [0, ...sorted.map(Math.ceil)]) {
      const allowance = steady(late + SEND_WRITE_GUARD_MS);
      const lateShare = sorted.filter((l) => !mayStart(l, allowance)).length / sorted.length;
      const lossMs = lateShare * MIN_INTERVAL_MS + allowance.allowanceMs;
      if (lossMs < best.lossMs) best = { allowance, lossMs };
    }
    return best.allowance;
  }
}

class Lease implements SlotLease {
  readonly granted = true;
  readonly host: string;
  readonly sendAtMs: number;
  readonly intervalMs: number;
  private releasing: Promise<void> | undefined;

  constructor(
    private readonly owner: PacedHostSlots,
    private readonly slot: GrantedSlot,
  ) {
    this.host = slot.host;
    this.sendAtMs = slot.sendAtMs;
    this.intervalMs = slot.intervalMs;
  }

  get uncertaintyMs(): number {
    return this.slot.uncertaintyMs;
  }

  lateMs(): number {
    return this.owner.lateMsOf(this.sendAtMs, this.slot.uncertaintyMs);
  }

  onTime(): boolean {
    return mayStart(this.lateMs(), this.slot.allowance);
  }

  retime(opts: AcquireOptions): Promise<AcquireResult> {
    return this.owner.retimeLate(this, this.slot.token, opts);
  }

  get mode(): 'shared' | 'local' {
    return this.slot.store.mode;
  }

  release(): Promise<void> {
    this.releasing ??= this.owner.releaseLease(this, this.slot.store, this.slot.leaseId);
    return this.releasing;
  }

  moveTo(target: string | URL, opts: AcquireOptions): Promise<AcquireResult> {
    return this.owner.move(this, target, opts);
  }

  /** Hands the stored lease over to a move; `undefined` when already released. */
  detach(): Moving | undefined {
    if (this.releasing) return undefined;
    this.releasing = Promise.resolve();
    return { store: this.slot.store, host: this.host, leaseId: this.slot.leaseId };
  }
}

/**
 * How long to wait after a "busy" answer. A place frees when a holder's response is done: a holder
 * still waiting for its slot cannot free it before it has sent, so the poll aims just after that;
 * a holder in flight may answer any moment, so polls start early and back off (to one per 2 s at
 * most). A freed place is worth nothing before the host's next free slot, so no poll comes earlier
 * than half an interval before it; an expiring lease frees a place for certain. Jitter keeps waiters
 * of several instances from arriving together. (The waiting line keeps the order; polls only ask.)
 */
function busyWaitMs(decision: BusyDecision, attempt: number): number {
  const backoffMs = Math.min(BUSY_POLL_MIN_MS * 2 ** attempt, BUSY_POLL_MAX_MS, decision.intervalMs);
  const afterHolderMs =
    decision.holderSendsInMs > 0 ? decision.holderSendsInMs + HOLDER_ANSWER_AIM_MS : backoffMs;
  const aimedMs = Math.max(afterHolderMs, decision.freeInMs - decision.intervalMs / 2);
  const waitMs = Math.min(aimedMs, Math.max(decision.placeFreeInMs, 1));
  return waitMs + Math.random() * BUSY_POLL_JITTER_MS;
}

/** Every request waiting out a quiet listens to it: as many as the process has requests waiting. */
function failoverSignal(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** Rejects with the signal's reason once it is aborted. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function checkOptions(opts: AcquireOptions): CheckedOptions {
  const { intervalMs, maxWaitMs, leaseTtlMs = DEFAULT_LEASE_TTL_MS, signal } = opts;
  if (!Number.isFinite(intervalMs) || intervalMs < 0 || intervalMs > MAX_INTERVAL_MS) {
    throw new SlotOptionsError(
      `intervalMs must be 0…${MAX_INTERVAL_MS} (longer pauses: noteRetryAfter), got ${intervalMs}`,
    );
  }
  if (maxWaitMs !== undefined && !(Number.isFinite(maxWaitMs) && maxWaitMs >= 0)) {
    throw new SlotOptionsError(`maxWaitMs must be a number ≥ 0, got ${maxWaitMs}`);
  }
  if (!Number.isFinite(leaseTtlMs) || leaseTtlMs < MIN_LEASE_TTL_MS) {
    throw new SlotOptionsError(`leaseTtlMs must be ≥ ${MIN_LEASE_TTL_MS}, got ${leaseTtlMs}`);
  }
  signal?.throwIfAborted();
  // RATE-2: values below 1 s count as 1 s.
  return { intervalMs: Math.max(MIN_INTERVAL_MS, intervalMs), maxWaitMs, leaseTtlMs, signal };
}

function checkDelay(what: string, ms: number): number {
  if (!Number.isFinite(ms) || ms < 0)
    throw new SlotOptionsError(`${what} must be a number of ms ≥ 0, got ${ms}`);
  return ms;
}
