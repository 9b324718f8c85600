import { performance } from 'node:perf_hooks';
import { CRAWL_DELAY_CAP_SECONDS } from '../robots';
import { hostKey } from '../util';
import { MAX_SOURCE_INTERVAL_MS, MIN_HOST_INTERVAL_MS } from './constants';
import { HostSlotTimeoutError } from './errors';
import type { Plan, Progress } from './plan';
import type { Clock, HostSlotLease, HostSlots, SlotRequest } from './ports';
import type { FetchSource } from './types';

/**
 * The host slot of each hop (RATE-1/2/4/5, ROB-10): the interval that applies, the lease's life,
 * taking, moving and re-timing the place in the shared pace.
 */

/**
 * How much longer a host slot lease lives than its socket may. A socket's whole life is bounded by
 * deadlines that abort it (RequestDeadline): the headers deadline from the start of the exchange (at
 * the slot's send time, within its send allowance — a later start is re-timed onto a new lease), then
 * the body deadline from the head — for every answer, error pages and redirects included — and the
 * run's end before either. So the socket is closed at the latest headers + body deadline after the
 * send time, and the lease (TTL = that + this margin) cannot expire under an open socket, in Lambda
 * either, where a frozen or killed instance never releases it (RATE-4). The margin covers a late
 * timer on a busy event loop and the store clock's uncertainty. Chosen over renewing leases: no
 * extra Redis round trips per request, and nothing to renew from a frozen instance.
 */
export const LEASE_MARGIN_MS = 15_000;
/**
 * A request whose slot passed before it could be written is re-timed this often at most (the first
 * re-time usually suffices: the connection it waited for is open by then), then fails SEND_LATE.
 */
export const MAX_SLOT_RETIMES = 3;
/** A host's Crawl-delay is re-noted in the slots after this long (or when it changes). */
export const CRAWL_DELAY_RENOTE_MS = 60 * 60 * 1000;

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

/** RATE-1/2 + ROB-10: the interval of this request's host, ms. RATE-8 floors live in the slots. */
export function effectiveHostIntervalMs(
  source: Pick<FetchSource, 'requestIntervalSeconds'>,
  hostIntervalMs: number | undefined,
  crawlDelaySeconds: number | undefined,
): number {
  const sourceMs = clamp(
    (source.requestIntervalSeconds || 0) * 1000,
    MIN_HOST_INTERVAL_MS,
    MAX_SOURCE_INTERVAL_MS,
  );
  const hostMs = clamp(hostIntervalMs ?? 0, 0, MAX_SOURCE_INTERVAL_MS);
  const crawlMs =
    crawlDelaySeconds === undefined ? 0 : clamp(crawlDelaySeconds, 0, CRAWL_DELAY_CAP_SECONDS) * 1000;
  return Math.max(MIN_HOST_INTERVAL_MS, sourceMs, hostMs, crawlMs);
}

/**
 * The slot request of one hop: its interval, the wait left, and a lease that outlives the whole
 * exchange (or a slow download would free the place for a third request, RATE-4).
 */
export function slotRequestFor(
  plan: Plan,
  progress: Progress,
  crawlDelaySeconds: number | undefined,
  nowMs: number,
): SlotRequest {
  // OTH-2: a service fetch keeps the largest interval set for a council source on each hop's host.
  const hopHostMs = plan.hostIntervalFor?.(hostKey(progress.url)) ?? 0;
  return {
    intervalMs: effectiveHostIntervalMs(
      plan.source,
      Math.max(plan.hostIntervalMs, hopHostMs),
      crawlDelaySeconds,
    ),
    maxWaitMs: Math.max(0, progress.deadline - nowMs),
    leaseTtlMs: plan.headersTimeoutMs + plan.bodyTimeoutMs + LEASE_MARGIN_MS,
  };
}

/** How the place of a hop is taken: fresh, moved from the last hop's host (RATE-5), or re-timed. */
export type SlotStep =
  | { kind: 'acquire' }
  | { kind: 'move'; from: HostSlotLease }
  | { kind: 'retime'; from: HostSlotLease };

export interface HostSlotTaker {
  /**
   * The lease for `progress.url`'s host, the wait added to `progress.waitMs`. A previous lease
   * (move, retime) is released whatever the outcome. No slot within the wait: HOST_SLOT_TIMEOUT.
   */
  take(
    plan: Plan,
    progress: Progress,
    step: SlotStep,
    crawlDelaySeconds: number | undefined,
  ): Promise<HostSlotLease>;
  /** ROB-10: tell the slots about a host's Crawl-delay (status output, other callers) now and then. */
  noteCrawlDelay(host: string, crawlDelaySeconds: number | undefined): void;
}

export function createHostSlotTaker(slots: HostSlots, clock: Clock): HostSlotTaker {
  const notedCrawlDelays = new Map<string, { delayMs: number; at: number }>();
  return {
    async take(plan, progress, step, crawlDelaySeconds) {
      const host = hostKey(progress.url);
      const request = slotRequestFor(plan, progress, crawlDelaySeconds, clock.now());
      const started = performance.now();
      try {
        // RATE-5: on a redirect the place moves to the target first; its pace and limit apply there.
        // A slot that passed before the request could be written is re-timed (the same request, later).
        const result =
          step.kind === 'acquire'
            ? await slots.acquire(host, request)
            : step.kind === 'retime'
              ? await step.from.retime(request)
              : await step.from.moveTo(host, request);
        if (!result.granted) {
          throw new HostSlotTimeoutError(progress.url.href, request.maxWaitMs, result.retryAtMs);
        }
        return result;
      } finally {
        progress.waitMs += performance.now() - started;
      }
    },
    noteCrawlDelay(host, crawlDelaySeconds) {
      if (crawlDelaySeconds === undefined || !slots.noteCrawlDelay) return;
      const delayMs = Math.min(crawlDelaySeconds, CRAWL_DELAY_CAP_SECONDS) * 1000;
      const noted = notedCrawlDelays.get(host);
      const now = clock.now();
      if (noted && noted.delayMs === delayMs && now - noted.at < CRAWL_DELAY_RENOTE_MS) return;
      notedCrawlDelays.set(host, { delayMs, at: now });
      slots.noteCrawlDelay(host, delayMs).catch(() => {});
    },
  };
}
