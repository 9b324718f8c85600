import { describe, expect, it } from 'vitest';
import { MAX_SOURCE_INTERVAL_MS, MIN_HOST_INTERVAL_MS } from '../../../shared/fetch';
import {
  CRAWL_DELAY_RENOTE_MS,
  createHostSlotTaker,
  effectiveHostIntervalMs,
  LEASE_MARGIN_MS,
  slotRequestFor,
} from '../../../shared/fetch/host-slot';
import { planFor } from '../../../shared/fetch/plan';
import { CRAWL_DELAY_CAP_SECONDS } from '../../../shared/robots';
import { createHostSlots } from '../../../shared/slots';
import { InstantClock, recordingSlots } from '../../support/fetch-kit';

/**
 * The host slot of a hop: its interval, its lease's life, and taking / moving it in the real
 * process-local slots of shared/slots (on an instant clock), recorded call by call.
 */

const UA = 'mandari-ingestor/1.0';
const source = { sourceId: 'src-1', requestIntervalSeconds: 1 };

describe('the interval of a host (RATE-1/2, ROB-10)', () => {
  it('RATE-1: at least 1 s; RATE-2: a source may ask for up to 30 s, not more', () => {
    expect(effectiveHostIntervalMs({ requestIntervalSeconds: 0 }, undefined, undefined)).toBe(
      MIN_HOST_INTERVAL_MS,
    );
    expect(effectiveHostIntervalMs({ requestIntervalSeconds: 0.2 }, undefined, undefined)).toBe(
      MIN_HOST_INTERVAL_MS,
    );
    expect(effectiveHostIntervalMs({ requestIntervalSeconds: 4 }, undefined, undefined)).toBe(4_000);
    expect(effectiveHostIntervalMs({ requestIntervalSeconds: 600 }, undefined, undefined)).toBe(
      MAX_SOURCE_INTERVAL_MS,
    );
    expect(
      effectiveHostIntervalMs({ requestIntervalSeconds: 0 }, 10 * MAX_SOURCE_INTERVAL_MS, undefined),
    ).toBe(MAX_SOURCE_INTERVAL_MS);
  });

  it('ROB-10: a Crawl-delay is a floor of the interval, capped', () => {
    expect(effectiveHostIntervalMs({ requestIntervalSeconds: 2 }, undefined, 7)).toBe(7_000);
    expect(effectiveHostIntervalMs({ requestIntervalSeconds: 0 }, undefined, 3_600)).toBe(
      CRAWL_DELAY_CAP_SECONDS * 1000,
    );
  });
});

describe('the slot request of a hop (RATE-4)', () => {
  it('the lease outlives headers + body deadline by the margin; the wait is what is left of the budget', () => {
    const plan = planFor(
      'https://ris.test/a',
      { purpose: 'file', source, headersTimeoutMs: 1_000, bodyTimeoutMs: 2_000 },
      UA,
    );
    const progress = { url: new URL('https://ris.test/a'), hops: [], deadline: 10_500, waitMs: 0 };
    expect(slotRequestFor(plan, progress, undefined, 10_000)).toEqual({
      intervalMs: MIN_HOST_INTERVAL_MS,
      maxWaitMs: 500,
      leaseTtlMs: 3_000 + LEASE_MARGIN_MS,
    });
    expect(slotRequestFor(plan, progress, undefined, 11_000).maxWaitMs).toBe(0);
  });
});

describe('taking the slot (RATE-1, RATE-5)', () => {
  it('acquires at the first hop, moves the place to the redirect target (RATE-5), releases at the end', async () => {
    const clock = new InstantClock();
    const slots = recordingSlots(createHostSlots({ clock }));
    const taker = createHostSlotTaker(slots, clock);
    const plan = planFor('https://a.test/x', { purpose: 'api', source }, UA);
    const progress = {
      url: new URL('https://a.test/x'),
      hops: [],
      deadline: clock.now() + 60_000,
      waitMs: 0,
    };
    const first = await taker.take(plan, progress, { kind: 'acquire' }, undefined);
    progress.url = new URL('https://b.test/y');
    const second = await taker.take(plan, progress, { kind: 'move', from: first }, 5);
    expect(second.host).toBe('b.test');
    await second.release();
    expect(slots.calls).toEqual([
      { op: 'acquire', host: 'a.test', intervalMs: MIN_HOST_INTERVAL_MS, maxWaitMs: 60_000 },
      { op: 'moveTo', from: 'a.test', host: 'b.test', intervalMs: 5_000 },
      { op: 'release', host: 'b.test' },
    ]);
  });

  it('ROB-10: a Crawl-delay is noted in the slots once, again only when it changes or after an hour', () => {
    const clock = new InstantClock();
    const slots = recordingSlots(createHostSlots({ clock }));
    const taker = createHostSlotTaker(slots, clock);
    taker.noteCrawlDelay('a.test', 5);
    taker.noteCrawlDelay('a.test', 5);
    taker.noteCrawlDelay('a.test', undefined);
    taker.noteCrawlDelay('a.test', 8);
    clock.advance(CRAWL_DELAY_RENOTE_MS);
    taker.noteCrawlDelay('a.test', 8);
    expect(slots.calls).toEqual([
      { op: 'crawlDelay', host: 'a.test', delayMs: 5_000 },
      { op: 'crawlDelay', host: 'a.test', delayMs: 8_000 },
      { op: 'crawlDelay', host: 'a.test', delayMs: 8_000 },
    ]);
  });
});
