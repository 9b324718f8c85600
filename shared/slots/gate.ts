import type { SlotClock } from './types';

interface Waiter {
  grant(): void;
}

interface HostQueue {
  held: number;
  waiters: Waiter[];
}

/**
 * In-process in-flight places per host, first come first served. In shared mode it keeps this
 * process's callers from polling Redis for places the process itself holds; in local mode (and in the
 * RATE-7 fallback) it *is* the RATE-4 limit. It spans both modes, so requests started under Redis
 * still count after a switch to the fallback.
 */
export class HostGate {
  private readonly hosts = new Map<string, HostQueue>();

  constructor(
    private readonly placesPerHost: number,
    private readonly clock: SlotClock,
  ) {}

  /**
   * Takes a place for `host`. Resolves `false` when none frees within `timeoutMs` (nothing held then),
   * rejects with `signal.reason` on abort.
   */
  async enter(host: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    const queue = this.queue(host);
    if (queue.held < this.placesPerHost && queue.waiters.length === 0) {
      queue.held += 1;
      return true;
    }
    if (timeoutMs <= 0) return false;

    const stopTimer = new AbortController();
    let waiter: Waiter | undefined;
    const granted = new Promise<true>((resolve) => {
      waiter = { grant: () => resolve(true) };
      queue.waiters.push(waiter);
    });
    const timedOut = Number.isFinite(timeoutMs)
      ? this.clock.sleep(timeoutMs, stopTimer.signal).then(
          () => false as const,
          () => new Promise<never>(() => {}), // the timer was stopped: this branch never settles
        )
      : new Promise<never>(() => {});
    const aborted = new Promise<never>((_, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), {
        once: true,
        signal: stopTimer.signal,
      });
    });
    try {
      const entered = await Promise.race([granted, timedOut, aborted]);
      if (!entered) this.withdraw(host, waiter!);
      return entered;
    } catch (error) {
      this.withdraw(host, waiter!);
      throw error;
    } finally {
      stopTimer.abort();
    }
  }

  leave(host: string): void {
    const queue = this.hosts.get(host);
    if (!queue) return;
    const next = queue.waiters.shift();
    if (next) {
      next.grant(); // the place passes on; `held` stays
      return;
    }
    queue.held = Math.max(0, queue.held - 1);
    if (queue.held === 0) this.hosts.delete(host);
  }

  held(host: string): number {
    return this.hosts.get(host)?.held ?? 0;
  }

  private queue(host: string): HostQueue {
    let queue = this.hosts.get(host);
    if (!queue) {
      queue = { held: 0, waiters: [] };
      this.hosts.set(host, queue);
    }
    return queue;
  }

  /** A waiter that gave up; if the place was handed to it in the same tick, pass it on. */
  private withdraw(host: string, waiter: Waiter): void {
    const queue = this.hosts.get(host);
    const index = queue?.waiters.indexOf(waiter) ?? -1;
    if (queue && index >= 0) queue.waiters.splice(index, 1);
    else this.leave(host);
  }
}
