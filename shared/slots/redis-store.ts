import type { Redis } from '@upstash/redis';
import { systemSlotClock } from './clock';
import {
  DEFAULT_STORE_TIMEOUT_MS,
  MAX_IN_FLIGHT_PER_HOST,
  MAX_SEND_LEAD_MS,
  SHARED_STORE_ANSWER_PATIENCE_MS,
} from './constants';
import { SlotStoreNoAnswerError, SlotStoreUnavailableError } from './errors';
import {
  HOST_STATE_SCRIPT,
  hostKeys,
  RAISE_FLOOR_SCRIPT,
  RESERVE_SLOT_SCRIPT,
  RESERVE_STATUS,
} from './scripts';
import type { ReserveDecision, ReserveRequest, SlotStore, StoreHostState } from './store';

export interface RedisSlotStoreOptions {
  /** Namespace of all slot keys (default `ingestor:slots:`). */
  keyPrefix?: string;
  /** A call slower than this is a failure (default 2 000 ms). */
  timeoutMs?: number;
}

type ScriptReply = number[];

/** The shared store: every reservation is one script call against Upstash Redis (RATE-1, RATE-4). */
export class RedisSlotStore implements SlotStore {
  readonly mode = 'shared';
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly reserveScript;
  private readonly floorScript;
  private readonly stateScript;
  private calls = 0;
  private readonly clockModel = new RedisClockModel();

  constructor(
    private readonly redis: Redis,
    opts: RedisSlotStoreOptions = {},
  ) {
    this.prefix = opts.keyPrefix ?? 'ingestor:slots:';
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.reserveScript = redis.createScript<ScriptReply>(RESERVE_SLOT_SCRIPT);
    this.floorScript = redis.createScript<number>(RAISE_FLOOR_SCRIPT);
    this.stateScript = redis.createScript<ScriptReply>(HOST_STATE_SCRIPT);
  }

  /** Store calls made (each one HTTP round trip, plus one more the first time a script is not cached). */
  get callCount(): number {
    return this.calls;
  }

  async reserve(req: ReserveRequest): Promise<ReserveDecision> {
    const keys = hostKeys(this.prefix, req.host);
    const args: (string | number)[] = [
      Math.ceil(req.intervalMs),
      req.leaseId,
      Math.ceil(req.leaseTtlMs),
      req.maxWaitMs === undefined ? -1 : Math.max(0, Math.floor(req.maxWaitMs)),
      MAX_IN_FLIGHT_PER_HOST,
      Math.max(0, Math.ceil(req.notBeforeDelayMs)),
      Math.max(0, Math.ceil(req.sendAllowanceMs)),
      req.requesterId,
    ];
    if (req.release) {
      keys.push(hostKeys(this.prefix, req.release.host)[1]!);
      args.push(req.release.leaseId);
      if (req.retime && req.release.host === req.host) args.push(req.retime.next, req.retime.sendAt);
    }
    const { reply, answeredMs } = await this.call('reserve', () =>
      this.runTimed(this.reserveScript, keys, args.map(String), 4),
    );
    const [status, a = 0, b = 0, intervalMs = 0, nowMs = 0, next = 0, holderSends] = reply.map(Number);
    switch (status) {
      case RESERVE_STATUS.granted: {
        const placed = this.clockModel.place(nowMs + a, answeredMs);
        return {
          kind: 'granted',
          sendInMs: placed.sendInMs,
          intervalMs,
          uncertaintyMs: placed.uncertaintyMs,
          token: { sendAt: nowMs + a, next },
          answeredAtMs: answeredMs,
        };
      }
      case RESERVE_STATUS.refused:
        return { kind: 'refused', freeInMs: a, intervalMs };
      case RESERVE_STATUS.busy:
        return {
          kind: 'busy',
          freeInMs: a,
          placeFreeInMs: b,
          holderSendsInMs: holderSends !== undefined && Number.isFinite(holderSends) ? holderSends : b,
          intervalMs,
        };
      default:
        throw new SlotStoreUnavailableError(`unexpected reserve reply ${JSON.stringify(reply)}`);
    }
  }

  sendLeadMs(): number {
    return this.clockModel.leadMs();
  }

  /**
   * A few round trips that teach the clock model this connection's travel times, for a cold start
   * (e.g. a function's init phase): otherwise the first reservations can place the Redis clock only
   * within a whole round trip, and give slots up as possibly late.
   */
  async warmUp(maxCalls: number): Promise<void> {
    const keys = hostKeys(this.prefix, 'warm-up.invalid');
    for (let i = 0; i < maxCalls; i += 1) {
      await this.call('warm-up', () => this.runTimed(this.stateScript, keys, [], 0));
      // Done once the Redis clock is placed within a few ms (a busy start may need more calls).
      if (i >= 1 && this.clockModel.widthMs() <= WARM_CLOCK_WIDTH_MS) return;
    }
  }

  /**
   * EVALSHA, then EVAL when Redis does not know the script (the two steps of `createScript().exec()`,
   * taken one by one to know when the answering call went out). `nowIndex`: where the reply carries
   * the Redis clock, which feeds the clock model.
   */
  private async runTimed(
    script: {
      evalsha(keys: string[], args: string[]): Promise<ScriptReply>;
      eval(keys: string[], args: string[]): Promise<ScriptReply>;
    },
    keys: string[],
    args: string[],
    nowIndex: number,
  ): Promise<{ reply: ScriptReply; answeredMs: number }> {
    let sentMs = systemSlotClock.now();
    let reply: ScriptReply;
    try {
      reply = await script.evalsha(keys, args);
    } catch (error) {
      if (
        !String((error as Error)?.message)
          .toLowerCase()
          .includes('noscript')
      )
        throw error;
      sentMs = systemSlotClock.now();
      reply = await script.eval(keys, args);
    }
    const answeredMs = systemSlotClock.now();
    this.clockModel.observe(sentMs, answeredMs, Number(reply[nowIndex]));
    return { reply, answeredMs };
  }

  async leaveWaitingLine(host: string, requesterId: string): Promise<void> {
    const waitingKey = hostKeys(this.prefix, host)[5]!;
    await this.call('leave line', () => this.redis.zrem(waitingKey, requesterId));
  }

  async release(host: string, leaseId: string): Promise<void> {
    const leasesKey = hostKeys(this.prefix, host)[1]!;
    await this.call('release', () => this.redis.zrem(leasesKey, leaseId));
  }

  async noteRetryAfter(host: string, delayMs: number): Promise<void> {
    const key = hostKeys(this.prefix, host)[4]!;
    await this.call('note', () => this.floorScript.exec([key], ['until', String(Math.ceil(delayMs))]));
  }

  async noteCrawlDelay(host: string, delayMs: number, validForMs: number): Promise<void> {
    const key = hostKeys(this.prefix, host)[3]!;
    const args = ['value', String(Math.ceil(delayMs)), String(Math.ceil(validForMs))];
    await this.call('note', () => this.floorScript.exec([key], args));
  }

  async state(host: string): Promise<StoreHostState> {
    const { reply } = await this.call('state', () =>
      this.runTimed(this.stateScript, hostKeys(this.prefix, host), [], 0),
    );
    const [nowMs, next, live, noted, crawl, retryUntil] = reply.map(Number) as number[];
    const present = (v: number | undefined) => (v === undefined || v < 0 ? undefined : v);
    return {
      nowMs: nowMs ?? 0,
      lastSendAtMs: present(next),
      inFlight: live ?? 0,
      notedIntervalMs: present(noted),
      crawlDelayMs: present(crawl),
      retryAfterUntilMs: present(retryUntil),
    };
  }

  /**
   * Every failure — HTTP error, Redis error — becomes SlotStoreUnavailableError, which the failover
   * layer answers with RATE-7 (failover.ts). A call that times out may still land later (its slot is
   * then spent and its lease expires with its TTL, both on the safe side) and may still answer: its
   * SlotStoreNoAnswerError tells when that is known, so a slow Redis is not taken for a dead one.
   */
  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    this.calls += 1;
    let timer: NodeJS.Timeout | undefined;
    // A throw before its first await is a failure of the call too.
    const running = Promise.resolve().then(run);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new SlotStoreNoAnswerError(
              `slot store ${what}: no answer within ${this.timeoutMs} ms`,
              lateAnswer(running, SHARED_STORE_ANSWER_PATIENCE_MS - this.timeoutMs),
            ),
          ),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([running, timeout]);
    } catch (error) {
      if (error instanceof SlotStoreUnavailableError) throw error;
      throw new SlotStoreUnavailableError(`slot store ${what} failed: ${(error as Error).message}`, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Whether a call that timed out answers after all within `waitMs` more (real time: it measures I/O). */
function lateAnswer(running: Promise<unknown>, waitMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, waitMs));
    timer.unref();
    running.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(false);
      },
    );
  });
}

/**
 * Where the Redis clock stands on this process's clock. Each call brackets it: Redis read its clock
 * after the call was sent and before the answer arrived, so offset = local − Redis lies within
 * [sent − redisNow, answered − redisNow]. Over the calls of the last 20 s the bracket narrows to the
 * largest lower and the smallest upper end — about the fastest round trip, however slow this one
 * answer was. A Redis time T then lies on our clock within [T + lower, T + upper]: sending at
 * T + upper is never early, and late by at most the bracket's width. Real time on purpose: this
 * measures I/O, not an injected clock. (Clock rates drift by far less than a millisecond a minute.)
 */
/**
 * Calls older than this leave the clock model: short enough that clock rates drifting apart (even an
 * NTP slew at its 500 ppm maximum: 10 ms) cannot make an old bracket wrong by much, long enough to hold
 * a fast call of a busy process.
 */
const CLOCK_WINDOW_MS = 20_000;
/** A warm-up stops early once the clock bracket is this narrow. */
const WARM_CLOCK_WIDTH_MS = 3;

class RedisClockModel {
  private samples: { atMs: number; lower: number; upper: number }[] = [];
  /** Per call, how much later than the fastest its answer arrived (for the send lead). */
  private readonly answerExcess: number[] = [];

  observe(sentMs: number, answeredMs: number, redisNowMs: number): void {
    if (!Number.isFinite(redisNowMs)) return;
    this.samples = this.samples.filter((s) => answeredMs - s.atMs < CLOCK_WINDOW_MS).slice(-255);
    // TIME is cut to whole ms: Redis's true time lay within [redisNowMs, redisNowMs + 1).
    this.samples.push({ atMs: answeredMs, lower: sentMs - redisNowMs - 1, upper: answeredMs - redisNowMs });
    const { lower, upper } = this.bracket();
    if (lower > upper) {
      // The brackets disagree: one of the clocks was stepped. Start over from this call alone.
      this.samples = this.samples.slice(-1);
    }
    this.answerExcess.push(answeredMs - redisNowMs - this.bracket().upper);
    if (this.answerExcess.length > 64) this.answerExcess.shift();
  }

  /** A Redis time on our clock: `sendInMs` after `answeredMs` at the latest, `uncertaintyMs` earlier at most. */
  place(redisMs: number, answeredMs: number): { sendInMs: number; uncertaintyMs: number } {
    const { lower, upper } = this.bracket();
    return { sendInMs: redisMs + upper - answeredMs, uncertaintyMs: upper - lower };
  }

  /** 90th percentile of the answers' excess delay, at most MAX_SEND_LEAD_MS. */
  leadMs(): number {
    if (this.answerExcess.length === 0) return 0;
    const sorted = [...this.answerExcess].sort((x, y) => x - y);
    const p90 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]!;
    return Math.min(MAX_SEND_LEAD_MS, Math.max(0, Math.ceil(p90)));
  }

  widthMs(): number {
    const { lower, upper } = this.bracket();
    return upper - lower;
  }

  private bracket(): { lower: number; upper: number } {
    let lower = Number.NEGATIVE_INFINITY;
    let upper = Number.POSITIVE_INFINITY;
    for (const s of this.samples) {
      lower = Math.max(lower, s.lower);
      upper = Math.min(upper, s.upper);
    }
    return { lower, upper };
  }
}
