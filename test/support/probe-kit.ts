import { createMemoryRobotsStore, createPoliteFetcher, type PoliteFetcher } from '../../shared/fetch';
import { createGuardedAgent, createTestResolver } from '../../shared/net';
import { createProbeMeter, type ProbeMeter } from '../../shared/onboarding';
import { createHostSlots } from '../../shared/slots';
import { InstantClock } from './fetch-kit';

/**
 * A polite fetcher on virtual time (the real local slots on an instant clock, so the 1 s pace costs no
 * real second), the test resolver (`*.test` → 127.0.0.1) and a probe meter wired into both its slots
 * and its request events — the same wiring the CLI builds with `createFetchRuntime`.
 */
export interface ProbeKit {
  fetcher: PoliteFetcher;
  meter: ProbeMeter;
  clock: InstantClock;
  /** Every sleep the probe asked for between bodies. */
  pauses: number[];
  sleep: (ms: number) => Promise<void>;
  close(): Promise<void>;
}

export function makeProbeKit(): ProbeKit {
  const clock = new InstantClock();
  const meter = createProbeMeter();
  const dispatcher = createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true });
  const fetcher = createPoliteFetcher({
    slots: meter.wrapSlots(createHostSlots({ clock })),
    robotsStore: createMemoryRobotsStore(),
    dispatcher,
    addressPolicy: { allowLoopback: true },
    clock,
    sleep: clock.retrySleep,
    onRequest: (event) => meter.observe(event),
  });
  const pauses: number[] = [];
  return {
    fetcher,
    meter,
    clock,
    pauses,
    sleep: async (ms) => {
      pauses.push(ms);
      clock.advance(ms);
    },
    close: () => dispatcher.close(),
  };
}

/** A fetcher on virtual time without a probe budget (sources add, import). */
export function makeFetchKit(): { fetcher: PoliteFetcher; clock: InstantClock; close(): Promise<void> } {
  const clock = new InstantClock();
  const dispatcher = createGuardedAgent({ resolver: createTestResolver(), allowLoopback: true });
  const fetcher = createPoliteFetcher({
    slots: createHostSlots({ clock }),
    robotsStore: createMemoryRobotsStore(),
    dispatcher,
    addressPolicy: { allowLoopback: true },
    clock,
    sleep: clock.retrySleep,
  });
  return { fetcher, clock, close: () => dispatcher.close() };
}
