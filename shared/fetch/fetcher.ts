import { performance } from 'node:perf_hooks';
import { hostKey } from '../util';
import { admit, waitError } from './admission';
import {
  armBodyDeadline,
  armErrorPageDeadline,
  finishBuffered,
  finishStreamed,
  hopDeadline,
  type ResponseHead,
} from './answer';
import { createAttemptLog } from './attempt-log';
import { readSnippet } from './body';
import { compareAfter403 } from './comparison';
import { REDIRECT_STATUSES } from './constants';
import type { RequestDeadline } from './deadline';
import { FetchInputError, HttpStatusError, RunDeadlineError, SendLateError } from './errors';
import { type ExchangeResponse, exchange } from './exchange';
import { createHostSlotTaker, MAX_SLOT_RETIMES, type SlotStep } from './host-slot';
import { type Plan, type Progress, parseTarget, planFor, requestHeaders, waitDeadline } from './plan';
import { type HostSlotLease, realSleep, systemClock } from './ports';
import { discardBody, nextHop } from './redirect';
import { retryAfterOf, retryDecision } from './retry';
import { createRobotsTxtFetch } from './robots-fetch';
import { createRobotsGate } from './robots-gate';
import type {
  FetchOptions,
  FetchResult,
  FetchSource,
  FetchStreamResult,
  PoliteFetcher,
  PoliteFetcherDeps,
} from './types';
import { defaultUserAgent, isValidUserAgent, OTHER_FETCH_USER_AGENT } from './user-agent';

/**
 * The polite fetcher: the only way any code reaches a council server (DESIGN). It composes small
 * behaviours, each in its own file. Per request, in this order: admission — address check for IP
 * literals (RED-2 (1)), run breaker (ERR-2), robots.txt verdict (ROB, loading robots.txt through
 * the same pace when due; admission.ts, robots-gate.ts) → host slot and in-flight place (RATE;
 * host-slot.ts) → the request through the guarded dispatcher (DNS answers checked on the
 * connecting socket; exchange.ts) under its deadlines (answer.ts) → redirects by hand, each hop
 * repeating the whole sequence (RED; redirect.ts) → status handling and limits (answer.ts),
 * retries (ERR-1) and Retry-After (RATE-8; retry.ts), the 403 comparison (ID-4; comparison.ts).
 * robots.txt itself is fetched through the same sequence (robots-fetch.ts).
 */

type Mode = 'buffer' | 'stream';

/** Bytes of an error answer kept for diagnosis (HttpStatusError.bodySnippet). */
const ERROR_SNIPPET_BYTES = 4096;

/** 2xx — and 304 when the request was conditional (B-1). */
function isSuccess(plan: Plan, status: number): boolean {
  return (status >= 200 && status < 300) || (status === 304 && plan.conditional !== undefined);
}

export function createPoliteFetcher(deps: PoliteFetcherDeps): PoliteFetcher {
  const clock = deps.clock ?? systemClock;
  const sleep = deps.sleep ?? realSleep;
  const addressPolicy = deps.addressPolicy ?? {};
  const baseUserAgent = deps.userAgent?.userAgent ?? defaultUserAgent();
  if (!isValidUserAgent(baseUserAgent)) {
    throw new FetchInputError('', 'the configured User-Agent is empty or contains control characters');
  }

  const log = createAttemptLog(deps.onRequest, clock);
  const hostSlots = createHostSlotTaker(deps.slots, clock);
  const userAgentFor = (source: Pick<FetchSource, 'userAgent'>): string => {
    const override = source.userAgent?.trim();
    return override !== undefined && override !== '' ? override : baseUserAgent;
  };
  // OTH-1: other fetches carry the one fixed identity; neither the operator's agent nor a per-source
  // override applies to them.
  const agentOf = (options: FetchOptions): string =>
    options?.purpose === 'service'
      ? OTHER_FETCH_USER_AGENT
      : options?.source
        ? userAgentFor(options.source)
        : baseUserAgent;
  const planOf = (url: string, options: FetchOptions, overrides: Partial<Plan> = {}): Plan =>
    planFor(url, options, agentOf(options), overrides);

  // robots.txt (ROB-5) and the ID-4 comparison are fetches of their own, through the whole fetcher.
  const innerFetch = { clock, planFor: planOf, fetch: (url: string, plan: Plan) => run('buffer', url, plan) };
  const robotsGate = createRobotsGate({
    store: deps.robotsStore,
    clock,
    fetchRobotsTxt: createRobotsTxtFetch(innerFetch),
  });

  // ---------------------------------------------------------------- per-hop admission and slot

  /** Admission of the current hop (admission.ts); a refusal is logged and thrown. */
  async function admitHop(plan: Plan, progress: Progress, attempt: number): Promise<number | undefined> {
    const waitStarted = performance.now();
    let crawlDelaySeconds: number | undefined;
    try {
      crawlDelaySeconds = await admit({ robotsGate, addressPolicy, clock }, plan, progress);
    } catch (error) {
      throw log.refused(plan, progress.url, attempt, progress.hops.length, waitError(plan, progress, error));
    }
    progress.waitMs += performance.now() - waitStarted;
    return crawlDelaySeconds;
  }

  /** The slot of the current hop (host-slot.ts); a refusal is logged and thrown. */
  async function takeSlot(
    plan: Plan,
    progress: Progress,
    step: SlotStep,
    crawlDelaySeconds: number | undefined,
    attempt: number,
  ): Promise<HostSlotLease> {
    try {
      return await hostSlots.take(plan, progress, step, crawlDelaySeconds);
    } catch (error) {
      throw log.refused(plan, progress.url, attempt, progress.hops.length, waitError(plan, progress, error));
    }
  }

  // ---------------------------------------------------------------- one attempt

  /**
   * Sends requests hop by hop until a response that is not a followed redirect; returns its head
   * with the lease still held. Throws (lease released) on refusals, errors and error statuses.
   */
  async function attemptHead(plan: Plan, progress: Progress, attempt: number): Promise<ResponseHead> {
    let lease: HostSlotLease | undefined;
    let deadline: RequestDeadline | undefined;
    try {
      for (;;) {
        const url = progress.url;
        const host = hostKey(url);
        const hop = progress.hops.length;
        const crawlDelaySeconds = await admitHop(plan, progress, attempt);
        hostSlots.noteCrawlDelay(host, crawlDelaySeconds);
        const previous = lease;
        lease = undefined; // moveTo releases the previous lease whatever the outcome
        lease = await takeSlot(
          plan,
          progress,
          previous ? { kind: 'move', from: previous } : { kind: 'acquire' },
          crawlDelaySeconds,
          attempt,
        );

        deadline = hopDeadline(plan, url, clock.now());
        const wire = deadline;
        let started = performance.now();
        let response: ExchangeResponse | undefined;
        for (let retimes = 0; response === undefined; retimes += 1) {
          const slot = lease;
          started = performance.now();
          try {
            response = await exchange({
              url,
              method: plan.method,
              headers: requestHeaders(plan),
              dispatcher: deps.dispatcher,
              headersTimeoutMs: plan.headersTimeoutMs,
              bodyIdleTimeoutMs: plan.bodyTimeoutMs,
              controller: wire.controller,
              // RATE-1 at the server: the slot's time holds where the request is written, after any
              // connection set-up — not where the slot was granted.
              beforeSend: () => {
                if (!slot.onTime()) throw new SendLateError(url.href);
              },
            });
          } catch (error) {
            if (error instanceof SendLateError && retimes < MAX_SLOT_RETIMES) {
              lease = undefined; // retime releases the previous lease whatever the outcome
              lease = await takeSlot(
                plan,
                progress,
                { kind: 'retime', from: slot },
                crawlDelaySeconds,
                attempt,
              );
              continue;
            }
            log.failed(plan, { url, attempt, hop, started }, error);
            throw error;
          }
        }
        const { status } = response;
        armBodyDeadline(wire, plan, url);

        // RATE-8: a Retry-After on 429/503 is a floor for every later request to this host.
        const retryAfterMs = retryAfterOf(status, response.headers, clock.now());
        if (retryAfterMs !== undefined && retryAfterMs > 0) {
          await deps.slots.noteRetryAfter(host, retryAfterMs);
        }

        if (REDIRECT_STATUSES.has(status) && plan.followRedirects) {
          await discardBody(response.body, wire.signal);
          wire.disarm();
          log.answered(plan, { url, attempt, hop, started }, status);
          progress.url = nextHop(url, status, response.headers.location, progress.hops);
          continue;
        }

        if (!isSuccess(plan, status) && !plan.anyStatus) {
          const contentType = response.headers['content-type'];
          armErrorPageDeadline(wire, url);
          const bodySnippet =
            plan.method === 'HEAD' ? '' : await readSnippet(response.body, ERROR_SNIPPET_BYTES);
          wire.disarm();
          log.answered(plan, { url, attempt, hop, started }, status);
          throw new HttpStatusError(url.href, status, {
            ...(retryAfterMs === undefined ? {} : { retryAfterMs, retryAt: clock.now() + retryAfterMs }),
            ...(contentType === undefined ? {} : { contentType }),
            bodySnippet,
          });
        }

        return { url, response, lease, deadline: wire, attempt, hop, started };
      }
    } catch (error) {
      deadline?.disarm();
      await lease?.release();
      throw error;
    }
  }

  // ---------------------------------------------------------------- attempts, ID-4

  async function run<M extends Mode>(
    mode: M,
    url: string,
    plan: Plan,
  ): Promise<M extends 'buffer' ? FetchResult : FetchStreamResult> {
    const t0 = performance.now();
    const progress: Progress = {
      url: parseTarget(url),
      hops: [],
      deadline: waitDeadline(plan, clock.now()),
      waitMs: 0,
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        const head = await attemptHead(plan, progress, attempt);
        const result =
          mode === 'buffer'
            ? await finishBuffered(log, plan, progress, head, t0)
            : await finishStreamed(log, plan, progress, head);
        return result as M extends 'buffer' ? FetchResult : FetchStreamResult;
      } catch (error) {
        if (error instanceof HttpStatusError && error.status === 403) {
          await compareAfter403(innerFetch, plan, error);
        }
        const decision = retryDecision({
          error,
          attempt,
          maxAttempts: plan.maxAttempts,
          nowMs: clock.now(),
          runEndsAtMs: plan.runContext?.endsAtMs,
        });
        if (decision.kind === 'fail') throw error;
        // A retry the run has no time left for is the next invocation's (nothing more is sent now).
        if (decision.kind === 'run-ends') throw new RunDeadlineError(progress.url.href, decision.runEndsAtMs);
        // ERR-1: pause 1 s, then 2 s; the next attempt takes a new slot in the pace.
        await sleep(decision.pauseMs);
        // The wait budget is per attempt: a retry must not starve on the first attempt's waiting.
        progress.deadline = waitDeadline(plan, clock.now());
      }
    }
  }

  return {
    // async: a rejected option is a rejected promise, like every other failure.
    fetch: async (url, options) => run('buffer', url, planOf(url, options)),
    stream: async (url, options) => run('stream', url, planOf(url, options)),
    userAgentFor,
  };
}
