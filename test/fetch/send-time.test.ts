import { describe, expect, it } from 'vitest';
import type { HostSlotLease, HostSlots } from '../../shared/fetch';
import type { HostResolver } from '../../shared/net';
import { COLD_START_SEND_ALLOWANCE_MS, createHostSlots, MIN_INTERVAL_MS } from '../../shared/slots';
import {
  api,
  closeAfterEach,
  InstantClock,
  ok,
  recordingSlots,
  rejectionOf,
  routes,
  startTestServer,
} from '../support/fetch-kit';

// RATE-1 holds where the server sees it: the slot's time is checked when the request is about to be
// written to a connected socket, not only when the slot was granted. Connection set-up (DNS, TCP,
// TLS) happens in between; on the instant clock a lookup that "takes" 400 ms stands for a slow one.

const { track, kit } = closeAfterEach();

/** `*.test` → 127.0.0.1, the first lookup taking `delayMs` of virtual time. */
function slowFirstLookup(clock: InstantClock, delayMs: number): HostResolver & { lookups: number } {
  const resolver = {
    lookups: 0,
    async resolve(hostname: string) {
      resolver.lookups += 1;
      if (resolver.lookups === 1) clock.advance(delayMs);
      if (!hostname.endsWith('.test')) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      return [{ address: '127.0.0.1', family: 4 as const }];
    },
  };
  return resolver;
}

describe('send time at the socket (RATE-1)', () => {
  it('a request whose connection set-up outlasts the slot is not written late: the slot is re-timed and it goes once, on the opened connection', async () => {
    const server = track(await startTestServer(routes({ '/page': ok() })));
    const clock = new InstantClock();
    const resolver = slowFirstLookup(clock, 400);
    const local = createHostSlots({ clock });
    const slots = recordingSlots(local);
    const k = kit({ clock, slots, resolver });

    const result = await k.fetcher.fetch(server.url('/page'), api());
    const second = await k.fetcher.fetch(server.url('/page?2'), api());

    expect(result.status).toBe(200);
    expect(second.status).toBe(200);
    // robots.txt came first and met the slow connection: re-timed once, written once.
    expect(server.calls.map((c) => c.path)).toEqual(['/robots.txt', '/page', '/page?2']);
    expect(slots.calls.filter((c) => c.op === 'retime')).toEqual([{ op: 'retime', host: 'ris-a.test' }]);
    expect(local.stats()).toMatchObject({ lateForfeits: 1, grants: 4 });
    // No request event for the attempt that was never written.
    expect(k.events.filter((e) => e.kind === 'request')).toHaveLength(3);
    // Re-timed in place: the next request waited one interval (+ a fresh process's allowance) after it, not two.
    expect(clock.slotSleeps).toEqual([
      MIN_INTERVAL_MS + COLD_START_SEND_ALLOWANCE_MS,
      MIN_INTERVAL_MS + COLD_START_SEND_ALLOWANCE_MS,
    ]);
  });

  it('a process that keeps running late sends nothing and fails SEND_LATE (retryable) after three re-times', async () => {
    const server = track(await startTestServer(routes({ '/page': ok() })));
    const clock = new InstantClock();
    const local = createHostSlots({ clock });
    // Every lease after robots.txt's reports itself late, as an overloaded process would find it.
    let grants = 0;
    const late = (lease: HostSlotLease, isLate: boolean): HostSlotLease => ({
      granted: true,
      host: lease.host,
      onTime: () => !isLate && lease.onTime(),
      retime: async (request) => {
        const next = await lease.retime(request);
        return next.granted ? late(next, true) : next;
      },
      moveTo: (host, request) => lease.moveTo(host, request),
      release: () => lease.release(),
    });
    const slots: HostSlots = {
      async acquire(host, request) {
        const lease = await local.acquire(host, request);
        grants += 1;
        return lease.granted ? late(lease, grants > 1) : lease;
      },
      noteRetryAfter: (host, delayMs) => local.noteRetryAfter(host, delayMs),
    };
    const k = kit({ clock, slots });

    const error = await rejectionOf(k.fetcher.fetch(server.url('/page'), api({ maxAttempts: 1 })));

    expect(error).toMatchObject({ code: 'SEND_LATE', retryable: true });
    expect(server.callsTo('/page')).toHaveLength(0);
    expect(local.stats().lateForfeits).toBe(3);
    expect(k.events.filter((e) => e.url.endsWith('/page'))).toMatchObject([
      { kind: 'refused', errorCode: 'SEND_LATE' },
    ]);
  });
});
