import type { Redis } from '@upstash/redis';
import { systemClock } from './clock';
import { DEFAULT_STORE_TIMEOUT_MS, MAX_IN_FLIGHT_PER_HOST } from './constants';
import { SlotStoreUnavailableError } from './errors';
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
  private readonly answerDelay = new AnswerDelayBound();

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
    ];
    if (req.release) {
      keys.push(hostKeys(this.prefix, req.release.host)[1]!);
      args.push(req.release.leaseId);
    }
    const { reply, answerDelayMs } = await this.call('reserve', () =>
      this.runTimed(this.reserveScript, keys, args.map(String), 4),
    );
    const [status, a, b, intervalMs] = reply.map(Number) as [number, number, number, number];
    switch (status) {
      case RESERVE_STATUS.granted:
        return { kind: 'granted', sendInMs: a, intervalMs, answerDelayMs };
      case RESERVE_STATUS.refused:
        return { kind: 'refused', freeInMs: a, intervalMs };
      case RESERVE_STATUS.busy:
        return { kind: 'busy', freeInMs: a, placeFreeInMs: b, intervalMs };
      default:
        throw new SlotStoreUnavailableError(`unexpected reserve reply ${JSON.stringify(reply)}`);
    }
  }

  /**
   * A few round trips that teach the answer-delay bound this connection's travel times, for a cold
   * start (e.g. a function's init phase): otherwise the first reservations can bound how long their
   * answer travelled only by the whole round trip, and give slots up as possibly late.
   */
  async warmUp(calls: number): Promise<void> {
    const keys = hostKeys(this.prefix, 'warm-up.invalid');
    for (let i = 0; i < calls; i += 1) {
      await this.call('warm-up', () => this.runTimed(this.stateScript, keys, [], 0));
    }
  }

  /**
   * EVALSHA, then EVAL when Redis does not know the script (the two steps of `createScript().exec()`,
   * taken one by one to know when the answering call went out). `nowIndex`: where the reply carries
   * the Redis clock, which feeds the answer-delay bound.
   */
  private async runTimed(
    script: {
      evalsha(keys: string[], args: string[]): Promise<ScriptReply>;
      eval(keys: string[], args: string[]): Promise<ScriptReply>;
    },
    keys: string[],
    args: string[],
    nowIndex: number,
  ): Promise<{ reply: ScriptReply; answerDelayMs: number }> {
    let sentMs = systemClock.now();
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
      sentMs = systemClock.now();
      reply = await script.eval(keys, args);
    }
    const answerDelayMs = this.answerDelay.boundMs(sentMs, systemClock.now(), Number(reply[nowIndex]));
    return { reply, answerDelayMs };
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
   * Every failure — HTTP error, Redis error, timeout — becomes SlotStoreUnavailableError, which the
   * failover layer answers with in-process pacing (RATE-7). A call that times out may still land
   * later: its slot is then spent and its lease expires with its TTL, both on the safe side.
   */
  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    this.calls += 1;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new SlotStoreUnavailableError(`slot store ${what}: no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([run(), timeout]);
    } catch (error) {
      if (error instanceof SlotStoreUnavailableError) throw error;
      throw new SlotStoreUnavailableError(`slot store ${what} failed: ${(error as Error).message}`, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * An upper bound of how long an answer travelled from Redis to this process (and waited for a busy
 * event loop), from the Redis clock reading in the answer. For one call the bound is its round trip;
 * over many, "sent − Redis now" is at most clock offset − fastest request travel, so the bound tightens
 * to this answer's travel + the fastest request travel of the last minute — clock offsets cancel out.
 * Real time on purpose: this measures I/O, not the injected clock.
 */
class AnswerDelayBound {
  private samples: { atMs: number; sentOffsetMs: number }[] = [];

  boundMs(sentMs: number, answeredMs: number, redisNowMs: number): number {
    if (!Number.isFinite(redisNowMs)) return Math.max(0, answeredMs - sentMs);
    this.samples = this.samples.filter((s) => answeredMs - s.atMs < 60_000).slice(-255);
    this.samples.push({ atMs: answeredMs, sentOffsetMs: sentMs - redisNowMs });
    const offsetLowerMs = Math.max(...this.samples.map((s) => s.sentOffsetMs));
    return Math.max(0, answeredMs - redisNowMs - offsetLowerMs);
  }
}
