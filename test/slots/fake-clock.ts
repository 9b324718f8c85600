import { type SlotClock, systemSlotClock } from '../../shared/slots';

interface Timer {
  atMs: number;
  seq: number;
  fire(): void;
}

/** Lets pending promise chains (and, with real I/O in flight, socket callbacks) run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock that moves only when told. `sleep` timers fire in time order; between two timers every
 * promise chain they started runs to its next sleep, so code under test behaves as with real time.
 */
export class FakeClock implements SlotClock {
  private timeMs: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(startMs = 1_800_000_000_000) {
    this.timeMs = startMs;
  }

  now(): number {
    return this.timeMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (ms <= 0) return resolve();
      const timer: Timer = {
        atMs: this.timeMs + ms,
        seq: this.seq++,
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Pending sleeps. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing due timers in order. */
  async advance(ms: number): Promise<void> {
    const targetMs = this.timeMs + ms;
    for (;;) {
      await settle();
      const next = this.nextTimer();
      if (!next || next.atMs > targetMs) break;
      this.fireTimer(next);
    }
    this.timeMs = targetMs;
    await settle();
  }

  /**
   * Runs until `promise` settles: whenever nothing else can happen, time jumps to the next timer.
   * Real I/O (a Redis call) gets real time to finish.
   */
  async run<T>(
    promise: Promise<T>,
    opts: { maxAdvanceMs?: number; realTimeoutMs?: number } = {},
  ): Promise<T> {
    const { maxAdvanceMs = 48 * 3_600_000, realTimeoutMs = 5_000 } = opts;
    const limitMs = this.timeMs + maxAdvanceMs;
    const realDeadline = Date.now() + realTimeoutMs;
    let done = false;
    promise.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    for (;;) {
      await settle();
      if (done) return promise;
      const next = this.nextTimer();
      if (next && next.atMs <= limitMs) this.fireTimer(next);
      else if (Date.now() > realDeadline) throw new Error('FakeClock.run: promise did not settle');
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  private nextTimer(): Timer | undefined {
    return this.timers.reduce<Timer | undefined>(
      (best, t) => (!best || t.atMs < best.atMs || (t.atMs === best.atMs && t.seq < best.seq) ? t : best),
      undefined,
    );
  }

  private fireTimer(timer: Timer): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.timeMs = Math.max(this.timeMs, timer.atMs);
    timer.fire();
  }
}

/** A process whose timers fire late by turns of `lagsMs` (a busy event loop, a starved CPU). */
export class LaggyClock extends FakeClock {
  private sleeps = 0;

  constructor(private readonly lagsMs: number[]) {
    super();
  }

  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0) return super.sleep(ms, signal);
    const lagMs = this.lagsMs[this.sleeps++ % this.lagsMs.length] ?? 0;
    return super.sleep(ms + lagMs, signal);
  }
}

/**
 * Real time, except that a sleep of at least `warpFromMs` passes at once and moves this clock that far
 * ahead: a process whose quiet minute (RATE-7) is over in an instant, while its short waits, its sends
 * and every other process keep real time (so a loopback server stamps its arrivals truly).
 */
export class WarpClock implements SlotClock {
  private offsetMs = 0;

  constructor(private readonly warpFromMs = 10_000) {}

  now(): number {
    return systemSlotClock.now() + this.offsetMs;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms < this.warpFromMs) return systemSlotClock.sleep(ms, signal);
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.offsetMs += ms;
    return new Promise((resolve) => setImmediate(resolve));
  }
}
