import type { SlotClock } from './types';

/**
 * Wall time that never steps backwards while the process lives (NTP corrections do not make a
 * reservation look older than it is), and a sleep that an abort ends. Its own name: the fetcher's
 * `systemClock` (shared/fetch) is plain `Date.now()` — two meanings, two names (test/repo/one-home).
 */
export const systemSlotClock: SlotClock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (ms <= 0) return resolve();
      // +1 ms: Node timers round to whole milliseconds and may fire a fraction early.
      const timer = setTimeout(done, Math.ceil(ms) + 1);
      function done() {
        signal?.removeEventListener('abort', abort);
        resolve();
      }
      function abort() {
        clearTimeout(timer);
        reject(signal?.reason);
      }
      signal?.addEventListener('abort', abort, { once: true });
    }),
};
