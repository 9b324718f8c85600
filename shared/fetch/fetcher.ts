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
import { type AttemptLog, createAttemptLog } from './attempt-log';
import { readSnippet } from './body';
import { compareAfter403 } from './comparison';
import { REDIRECT_STATUSES } from './constants';
import type { RequestDeadline } from './deadline';
import { FetchInputError, HttpStatusError, RunDeadlineError, SendLateError } from './errors';
import { exchange } from './exchange';
import { createHostSlotTaker, type HostSlotTaker, MAX_SLOT_RETIMES, type SlotStep } from './host-slot';
import { type Plan, type Progress, parseTarget, planFor, requestHeaders, waitDeadline } from './plan';
import { type Clock, type HostSlotLease, realSleep, type Sleep, systemClock } from './ports';
import { discardBody, nextHop } from './redirect';
import { retryAfterOf, retryDecision } from './retry';
import { createRobotsTxtFetch, type RobotsFetchDeps } from './robots-fetch';
import { createRobotsGate, type RobotsGate } from './robots-gate';
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
  const baseUserAgent = deps.userAgent?.userAgent ?? defaultUserAgent();
  if (!isValidUserAgent(baseUserAgent)) {
    throw new FetchInputError('', 'the configured User-Agent is empty or contains control characters');
  }
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
  const innerFetch: RobotsFetchDeps = {
    clock,
    planFor: planOf,
    fetch: (url: string, plan: Plan) => run(parts, 'buffer', url, plan),
  };
  const parts: FetcherParts = {
    clock,
    sleep: deps.sleep ?? realSleep,
    log: createAttemptLog(deps.onRequest, clock),
    hostSlots: createHostSlotTaker(deps.slots, clock),
    robotsGate: createRobotsGate({
      store: deps.robotsStore,
      clock,
      fetchRobotsTxt: createRobotsTxtFetch(innerFetch),
    }),
    addressPolicy: deps.addressPolicy ?? {},
    dispatcher: deps.dispatcher,
    slots: deps.slots,
    innerFetch,
  };

  return {
    // async: a rejected option is a rejected promise, like every other failure.
    fetch: async (url, options) => run(parts, 'buffer', url, planOf(url, options)),
    stream: async (url, options) => run(parts, 'stream', url, planOf(url, options)),
    userAgentFor,
  };
}

/** What every request of one fetcher shares: its clock, its log, the slots, robots.txt and the wire. */
interface FetcherParts {
  clock: Clock;
  sleep: Sleep;
  log: AttemptLog;
  hostSlots: HostSlotTaker;
  robotsGate: RobotsGate;
  addressPolicy: NonNullable<PoliteFetcherDeps['addressPolicy']>;
  dispatcher: PoliteFetcherDeps['dispatcher'];
  slots: PoliteFetcherDeps['slots'];
  /** The fetcher itself, for robots.txt and the ID-4 comparison. */
  innerFetch: RobotsFetchDeps;
}

/** One attempt of one fetch: its plan, the progress so far (URL, hops, waiting) and its number. */
interface Attempt {
  plan: Plan;
  progress: Progress;
  attempt: number;
}

// ---------------------------------------------------------------- attempts, ID-4

async function run<M extends Mode>(
  parts: FetcherParts,
  mode: M,
  url: string,
  plan: Plan,
): Promise<M extends 'buffer' ? FetchResult : FetchStreamResult> {
  const { clock, log } = parts;
  const t0 = performance.now();
  const progress: Progress = {
    url: parseTarget(url),
    hops: [],
    deadline: waitDeadline(plan, clock.now()),
    waitMs: 0,
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      const head = await attemptHead(parts, { plan, progress, attempt });
      const result =
        mode === 'buffer'
          ? await finishBuffered({ log, plan, progress }, head, t0)
          : await finishStreamed({ log, plan, progress }, head);
      return result as M extends 'buffer' ? FetchResult : FetchStreamResult;
    } catch (error) {
      if (error instanceof HttpStatusError && error.status === 403) {
        await compareAfter403(parts.innerFetch, plan, error);
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
      await parts.sleep(decision.pauseMs);
      // The wait budget is per attempt: a retry must not starve on the first attempt's waiting.
      progress.deadline = waitDeadline(plan, clock.now());
    }
  }
}

// ---------------------------------------------------------------- one attempt

/** What an attempt holds at a moment: released together when it fails. */
interface AttemptHold {
  lease?: HostSlotLease | undefined;
  deadline?: RequestDeadline | undefined;
}

/**
 * Sends requests hop by hop until a response that is not a followed redirect; returns its head
 * with the lease still held. Throws (lease released) on refusals, errors and error statuses.
 */
async function attemptHead(parts: FetcherParts, at: Attempt): Promise<ResponseHead> {
  const hold: AttemptHold = {};
  try {
    for (;;) {
      const url = at.progress.url;
      const crawlDelaySeconds = await admitHop(parts, at);
      parts.hostSlots.noteCrawlDelay(hostKey(url), crawlDelaySeconds);
      const previous = hold.lease;
      hold.lease = undefined; // moveTo releases the previous lease whatever the outcome
      hold.lease = await takeSlot(
        parts,
        at,
        previous ? { kind: 'move', from: previous } : { kind: 'acquire' },
        crawlDelaySeconds,
      );
      const head = await sendOnTime(parts, at, { url, crawlDelaySeconds, hold });
      if ((await answerOf(parts, at, head)) === 'followed') continue;
      return head;
    }
  } catch (error) {
    hold.deadline?.disarm();
    await hold.lease?.release();
    throw error;
  }
}

/** Admission of the current hop (admission.ts); a refusal is logged and thrown. */
async function admitHop(parts: FetcherParts, at: Attempt): Promise<number | undefined> {
  const waitStarted = performance.now();
  let crawlDelaySeconds: number | undefined;
  try {
    crawlDelaySeconds = await admit(parts, at.plan, at.progress);
  } catch (error) {
    throw refusal(parts, at, error);
  }
  at.progress.waitMs += performance.now() - waitStarted;
  return crawlDelaySeconds;
}

/** The slot of the current hop (host-slot.ts); a refusal is logged and thrown. */
async function takeSlot(
  parts: FetcherParts,
  at: Attempt,
  step: SlotStep,
  crawlDelaySeconds: number | undefined,
): Promise<HostSlotLease> {
  try {
    return await parts.hostSlots.take(at.plan, at.progress, step, crawlDelaySeconds);
  } catch (error) {
    throw refusal(parts, at, error);
  }
}

/** A wait or check that refused the current hop, logged (nothing was sent). */
function refusal(parts: FetcherParts, { plan, progress, attempt }: Attempt, error: unknown): unknown {
  return parts.log.refused(
    plan,
    { url: progress.url, attempt, hop: progress.hops.length },
    waitError(plan, progress, error),
  );
}

interface HopSend {
  url: URL;
  crawlDelaySeconds: number | undefined;
  /** Holds the slot's lease; a retimed lease replaces it there. */
  hold: AttemptHold;
}

/**
 * The hop's request under its deadline, sent only while its slot is on time (RATE-1): a slot that passed
 * before the request was written is retimed, at most MAX_SLOT_RETIMES times.
 */
async function sendOnTime(
  parts: FetcherParts,
  at: Attempt,
  { url, crawlDelaySeconds, hold }: HopSend,
): Promise<ResponseHead> {
  const { plan } = at;
  const hop = at.progress.hops.length;
  const wire = hopDeadline(plan, url, parts.clock.now());
  hold.deadline = wire;
  for (let retimes = 0; ; retimes += 1) {
    const slot = hold.lease as HostSlotLease;
    const started = performance.now();
    try {
      const response = await exchange({
        url,
        method: plan.method,
        headers: requestHeaders(plan),
        dispatcher: parts.dispatcher,
        headersTimeoutMs: plan.headersTimeoutMs,
        bodyIdleTimeoutMs: plan.bodyTimeoutMs,
        controller: wire.controller,
        // RATE-1 at the server: the slot's time holds where the request is written, after any
        // connection set-up — not where the slot was granted.
        beforeSend: () => {
          if (!slot.onTime()) throw new SendLateError(url.href);
        },
      });
      return { url, response, lease: slot, deadline: wire, attempt: at.attempt, hop, started };
    } catch (error) {
      if (error instanceof SendLateError && retimes < MAX_SLOT_RETIMES) {
        hold.lease = undefined; // retime releases the previous lease whatever the outcome
        hold.lease = await takeSlot(parts, at, { kind: 'retime', from: slot }, crawlDelaySeconds);
        continue;
      }
      parts.log.failed(plan, { url, attempt: at.attempt, hop, started }, error);
      throw error;
    }
  }
}

/**
 * What the answer's head means: a redirect followed (`progress.url` is the next hop), or the answer
 * (`final`). An error status is read for its snippet and thrown; a Retry-After is noted either way.
 */
async function answerOf(parts: FetcherParts, at: Attempt, head: ResponseHead): Promise<'followed' | 'final'> {
  const { plan, progress } = at;
  const { url, response, deadline: wire } = head;
  const { status } = response;
  armBodyDeadline(wire, plan, url);

  // RATE-8: a Retry-After on 429/503 is a floor for every later request to this host.
  const retryAfterMs = retryAfterOf(status, response.headers, parts.clock.now());
  if (retryAfterMs !== undefined && retryAfterMs > 0) {
    await parts.slots.noteRetryAfter(hostKey(url), retryAfterMs);
  }

  if (REDIRECT_STATUSES.has(status) && plan.followRedirects) {
    await discardBody(response.body, wire.signal);
    wire.disarm();
    parts.log.answered(plan, head, status);
    progress.url = nextHop(url, status, response.headers.location, progress.hops);
    return 'followed';
  }

  if (!isSuccess(plan, status) && !plan.anyStatus) {
    const contentType = response.headers['content-type'];
    armErrorPageDeadline(wire, url);
    const bodySnippet = plan.method === 'HEAD' ? '' : await readSnippet(response.body, ERROR_SNIPPET_BYTES);
    wire.disarm();
    parts.log.answered(plan, head, status);
    throw new HttpStatusError(url.href, status, {
      ...(retryAfterMs === undefined ? {} : { retryAfterMs, retryAt: parts.clock.now() + retryAfterMs }),
      ...(contentType === undefined ? {} : { contentType }),
      bodySnippet,
    });
  }
  return 'final';
}
