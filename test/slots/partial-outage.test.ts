import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIMENSIONS, METRICS } from '../../shared/observability/constants';
import { MetricsBuffer } from '../../shared/observability/metrics';
import { createHostSlots, MIN_INTERVAL_MS, type PacedHostSlots, type SlotEvent } from '../../shared/slots';
import { logSlotEvent, SLOT_EVENT_CODES } from '../../shared/slots/event-log';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';
import {
  type Arrival,
  KEY_PREFIX,
  liveLeases,
  type StampingCouncil,
  sleep,
  startStampingCouncil,
} from '../support/slot-instances';
import { type StallProxy, startStallProxy } from '../support/stall-proxy';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { WarpClock } from './fake-clock';

/**
 * Issue 13 (6): a partial Redis outage. Two slot instances on one host and one real redis-server
 * (behind the Upstash REST adapter): instance A reaches it through a TCP proxy that stalls (every byte
 * held — one instance's stuck path), instance B directly and throughout. Each sends real requests to
 * a loopback "council" whose clock records the arrivals. Real time: RATE-1's 1 s has no override.
 */
describe('RATE-7 / RATE-1: one instance cut off from Redis while another still uses it (issue 13)', () => {
  let peer: RedisPeer;
  let proxy: StallProxy;
  let slowPath: TcpProxy;
  let council: StampingCouncil;
  let arrivals: Arrival[];

  beforeAll(async () => {
    peer = await startRedisPeer();
    const adapterPort = Number(new URL(peer.adapter.url).port);
    proxy = await startStallProxy({ host: '127.0.0.1', port: adapterPort });
    slowPath = await startTcpProxy({ port: adapterPort });
    council = await startStampingCouncil();
    arrivals = council.arrivals;
  });
  afterAll(async () => {
    proxy?.resume();
    await proxy?.close();
    await slowPath?.close();
    await council?.close();
    await peer?.stop();
  });

  const send = (from: string) => council.send(from);

  /**
   * One sequential fetcher: acquire, send, release, until `untilMs`. Refusals wait a moment. Without
   * `maxWaitMs` it waits through a quiet (a sync run does); `signal` then ends its last wait.
   */
  async function stream(
    slots: PacedHostSlots,
    from: string,
    host: string,
    untilMs: number,
    opts: { maxWaitMs?: number; signal?: AbortSignal } = { maxWaitMs: 3_000 },
  ) {
    while (Date.now() < untilMs) {
      const lease = await slots.acquire(host, { intervalMs: MIN_INTERVAL_MS, ...opts }).catch((error) => {
        if (opts.signal?.aborted) return undefined;
        throw error;
      });
      if (!lease) return;
      if (!lease.granted) {
        await sleep(200);
        continue;
      }
      await send(from);
      await lease.release();
    }
  }

  it('the cut-off instance stays quiet instead of pacing alone next to one still on Redis: no two arrivals < 1 s apart; the switch is logged and counted', async () => {
    const events: SlotEvent[] = [];
    let switchedAt = Number.POSITIVE_INFINITY;
    const logErrors: unknown[] = [];
    const logs: Array<Record<string, unknown>> = [];
    const metricLines: string[] = [];
    const buffer = new MetricsBuffer({ write: (line) => metricLines.push(line) });
    const a = createHostSlots({
      redis: createTestRedisClient({ url: proxy.url, token: peer.adapter.token }),
      maxInstances: 2,
      keyPrefix: KEY_PREFIX,
      storeTimeoutMs: 1_000,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'shared-store-failed' && event.entered) {
          switchedAt = performance.timeOrigin + performance.now();
        }
        try {
          logSlotEvent(event, {
            log: (message, fields) => logs.push({ message, ...fields }),
            metrics: buffer,
          });
        } catch (error) {
          logErrors.push(error); // asserted below; thrown here it would end the slots' call instead
        }
      },
    });
    const b = createHostSlots({
      redis: createTestRedisClient(peer.adapter),
      maxInstances: 2,
      keyPrefix: KEY_PREFIX,
      storeTimeoutMs: 1_000,
    });
    await Promise.all([a.warmUp(), b.warmUp()]);
    expect([a.mode, b.mode]).toEqual(['shared', 'shared']);

    const host = `partial-${Date.now()}.test`;
    const start = Date.now();
    const end = start + 11_000;
    const stalling = sleep(4_000).then(() => proxy.stall());
    await Promise.all([stream(a, 'a', host, end), stream(b, 'b', host, end), stalling]);

    if (process.env.DEBUG_ARRIVALS) console.log(arrivals, switchedAt);
    const times = arrivals.map((r) => r.at).sort((x, y) => x - y);
    const gaps = times.slice(1).map((t, i) => Math.round(t - times[i]!));
    // Slots pace the sends; arrival adds a loaded machine's jitter: 50 ms tolerance, as elsewhere.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(MIN_INTERVAL_MS - 50);
    // Both used the host under Redis; after A's switch to the fallback B went on, A sent nothing.
    expect(arrivals.filter((r) => r.from === 'a' && r.at < switchedAt).length).toBeGreaterThan(0);
    expect(arrivals.filter((r) => r.from === 'b' && r.at > switchedAt).length).toBeGreaterThanOrEqual(4);
    expect(arrivals.filter((r) => r.from === 'a' && r.at > switchedAt)).toEqual([]);

    // The switch: an event, a structured log line with its code, a metric.
    expect(events.find((e) => e.type === 'shared-store-failed')).toMatchObject({ entered: true });
    expect(a.mode).toBe('local');
    expect(logErrors).toEqual([]);
    expect(logs).toContainEqual(
      expect.objectContaining({ code: SLOT_EVENT_CODES.fallbackEntered, failure: 'timeout' }),
    );
    buffer.flush();
    expect(
      metricLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line[DIMENSIONS.switch] === 'entered'),
    ).toMatchObject({ [METRICS.slotStoreFallback]: 1 });
  }, 40_000);

  it('answers slower than the timeout (a starved Redis) do not make an instance pace alone next to one still on Redis: it sends nothing until its answers come in time, its unanswered slots hold no place, no two arrivals < 1 s apart', async () => {
    // A's path to Redis answers 1.5 s late — every call runs at once, its answer misses A's 1 s timeout —
    // while B reaches Redis directly: the politeness bench's workers starved of CPU (Redis answering
    // after more than 2 s to some, in time to others). A's quiet minute passes at once (WarpClock), so
    // the test reaches A's retry in real time; everything else, and the council's clock, is real.
    const events: SlotEvent[] = [];
    const a = createHostSlots({
      redis: createTestRedisClient({ url: slowPath.url, token: peer.adapter.token }),
      maxInstances: 2,
      clock: new WarpClock(),
      keyPrefix: KEY_PREFIX,
      storeTimeoutMs: 1_000,
      onEvent: (event) => events.push(event),
    });
    const b = createHostSlots({
      redis: createTestRedisClient(peer.adapter),
      maxInstances: 2,
      keyPrefix: KEY_PREFIX,
      storeTimeoutMs: 1_000,
    });
    await Promise.all([a.warmUp(), b.warmUp()]);
    expect([a.mode, b.mode]).toEqual(['shared', 'shared']);

    const host = `slow-answers-${Date.now()}.test`;
    const now = () => performance.timeOrigin + performance.now();
    const start = now();
    const slowFrom = start + 3_000;
    const healAt = start + 9_000;
    const end = start + 15_000;
    const lastWait = AbortSignal.timeout(end - start + 6_000);
    const faults = (async () => {
      await sleep(slowFrom - now());
      slowPath.slow(1_500);
      await sleep(healAt - now());
      slowPath.heal();
    })();
    const untilDate = Date.now() + (end - now()); // the streams count in Date.now()
    await Promise.all([
      stream(a, 'a', host, untilDate, { signal: lastWait }),
      stream(b, 'b', host, untilDate),
      faults,
    ]);

    const mine = arrivals.filter((r) => r.from === 'a' || r.from === 'b').filter((r) => r.at >= start);
    const times = mine.map((r) => r.at).sort((x, y) => x - y);
    const gaps = times.slice(1).map((t, i) => Math.round(t - times[i]!));
    if (process.env.DEBUG_ARRIVALS)
      console.log(
        mine.map((r) => [Math.round(r.at - start), r.from]),
        events,
      );
    // Slots pace the sends; arrival adds a loaded machine's jitter: 50 ms tolerance, as elsewhere.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(MIN_INTERVAL_MS - 50);
    // A timed out, and sent nothing while its answers came late (a slow answer's slot is never used);
    // B went on meanwhile — A's late-answered reservations freed their places.
    expect(events.find((e) => e.type === 'shared-store-failed')).toMatchObject({ entered: true });
    expect(mine.filter((r) => r.from === 'a' && r.at > slowFrom + 2_500 && r.at < healAt)).toEqual([]);
    expect(
      mine.filter((r) => r.from === 'b' && r.at > slowFrom + 2_500 && r.at < healAt).length,
    ).toBeGreaterThanOrEqual(2);
    // Never paced alone: no failed retry, and back on Redis once answers came in time again.
    expect(events.filter((e) => e.type === 'shared-store-failed' && !e.entered)).toEqual([]);
    expect(mine.filter((r) => r.from === 'a' && r.at > healAt).length).toBeGreaterThan(0);
    expect(a.mode).toBe('shared');
    expect(await liveLeases(peer.redis, host)).toBe(0);
  }, 40_000);
});
