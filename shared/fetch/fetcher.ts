import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { AddressNotPublicError, assertLiteralHostAllowed } from '../net';
import {
  type RequestScope,
  type RobotsFetchOutcome,
  RobotsUnreachableError,
  robotsVerdict,
  verdictError,
} from '../robots';
import { ROBOTS_MAX_BYTES } from '../robots/constants';
import { abandonBody, openLimitedStream, parseContentLength, readBodyToBuffer, readSnippet } from './body';
import {
  ACCEPT_BY_PURPOSE,
  ACCEPT_ENCODING,
  ALLOWED_PROTOCOLS,
  COMPARISON_USER_AGENT,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_WAIT_MS,
  ERROR_PAGE_TIMEOUT_MS,
  FETCH_PURPOSES,
  type FetchPurpose,
  HTML_SNIFF_BYTES,
  MAX_ATTEMPTS_BY_PURPOSE,
  MAX_REDIRECTS,
  MAX_SOURCE_INTERVAL_MS,
  MIN_HOST_INTERVAL_MS,
  REDIRECT_STATUSES,
  RETRY_AFTER_STATUSES,
  RETRY_PAUSES_MS,
} from './constants';
import { RequestDeadline } from './deadline';
import {
  CircuitOpenError,
  FetchError,
  FetchInputError,
  FetchTimeoutError,
  HostSlotTimeoutError,
  HtmlInsteadOfFileError,
  HttpStatusError,
  NetworkError,
  RedirectInvalidError,
  RedirectSchemeError,
  RunDeadlineError,
  SendLateError,
  TooManyRedirectsError,
} from './errors';
import { type ExchangeResponse, exchange } from './exchange';
import { type HostSlotLease, realSleep, systemClock } from './ports';
import { parseRetryAfter } from './retry-after';
import { createRobotsGate, type RobotsLoadRequest } from './robots-gate';
import type { AttemptOutcome, RunContext } from './run-context';
import type {
  FetchEvent,
  FetchOptions,
  FetchResult,
  FetchSource,
  FetchStreamResult,
  PoliteFetcher,
  PoliteFetcherDeps,
  RedirectHop,
} from './types';
import { defaultUserAgent, isValidUserAgent } from './user-agent';

/**
 * The polite fetcher: the only way any code reaches a council server (DESIGN). Per request, in
 * this order: address check for IP literals (RED-2 (1)) → run breaker (ERR-2) → robots.txt verdict
 * (ROB, loading robots.txt through the same pace when due) → host slot and in-flight place (RATE)
 * → the request through the guarded dispatcher (DNS answers checked on the connecting socket) →
 * redirects by hand, each hop repeating the whole sequence (RED) → status handling, limits,
 * retries (ERR-1), Retry-After (RATE-8) and the 403 comparison (ID-4).
 */

const FORBIDDEN_HEADERS = new Set([
  'user-agent',
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'te',
  'upgrade',
  'keep-alive',
]);

/** Options after boundary checks; inside, values are trusted (STYLE). */
interface Plan {
  purpose: FetchPurpose;
  source: FetchSource;
  method: 'GET' | 'HEAD';
  maxBytes: number;
  maxWaitMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxAttempts: number;
  hostIntervalMs: number;
  extraHeaders: Record<string, string>;
  conditional: { etag?: string; lastModified?: string } | undefined;
  runContext: RunContext | undefined;
  /** The User-Agent header sent, or undefined for the ID-4 comparison (library default: none). */
  sentUserAgent: string | undefined;
  /** The agent whose robots.txt state is used (ID-3: the one the source's requests carry). */
  robotsAgent: string;
  /** Agents checked against robots.txt; all must allow. */
  checkAgents: string[];
  followRedirects: boolean;
  /** robots.txt and comparison requests report every status as a result, not as an error. */
  anyStatus: boolean;
  /** The comparison request is diagnosis: it feeds neither breaker nor series (ERR-2/3). */
  recordAttempts: boolean;
}

interface Progress {
  url: URL;
  hops: RedirectHop[];
  /**
   * Epoch ms (fetcher clock) after which waiting for slots/robots.txt ends with HOST_SLOT_TIMEOUT
   * (RUN_DEADLINE when it is the run's end).
   */
  deadline: number;
  waitMs: number;
}

type Mode = 'buffer' | 'stream';

interface ResponseHead {
  url: URL;
  response: ExchangeResponse;
  lease: HostSlotLease;
  deadline: RequestDeadline;
  attempt: number;
  hop: number;
  started: number;
}

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
const LEASE_MARGIN_MS = 15_000;
/**
 * A request whose slot passed before it could be written is re-timed this often at most (the first
 * re-time usually suffices: the connection it waited for is open by then), then fails SEND_LATE.
 */
const MAX_SLOT_RETIMES = 3;
/** A host's Crawl-delay is re-noted in the slots after this long (or when it changes). */
const CRAWL_DELAY_RENOTE_MS = 60 * 60 * 1000;

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
  const crawlMs = crawlDelaySeconds === undefined ? 0 : clamp(crawlDelaySeconds, 0, 60) * 1000;
  return Math.max(MIN_HOST_INTERVAL_MS, sourceMs, hostMs, crawlMs);
}

/**
 * Drops a body we do not need (redirects): small ones are drained so the connection can be reused.
 * Awaited, under the request's deadline: the place moves on (RATE-5) only once this socket is done
 * (RATE-4) — a redirect whose body trickles is cut at the deadline, not left open behind the move.
 */
async function discardBody(body: Readable, signal: AbortSignal): Promise<void> {
  const dump = (
    body as Readable & { dump?: (options: { limit: number; signal: AbortSignal }) => Promise<void> }
  ).dump;
  if (typeof dump === 'function') await dump.call(body, { limit: 64 * 1024, signal }).catch(() => {});
  else abandonBody(body);
}

function scopeOf(purpose: FetchPurpose): RequestScope {
  return purpose === 'file' ? 'files' : purpose === 'scraper' ? 'html' : 'api';
}

/** DOC-5: an HTML page where a file was expected (bot protection, login wall, error page). */
export function looksLikeHtml(contentType: string | undefined, head: Buffer): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return true;
  const start = head
    .subarray(0, HTML_SNIFF_BYTES)
    .toString('latin1')
    .replace(/^\u00ef\u00bb\u00bf/, '')
    .trimStart()
    .toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html');
}

/** ERR-1: network errors, timeouts and 5xx are repeated within the run; nothing else. */
function isRetryableInRun(error: unknown): boolean {
  if (error instanceof HttpStatusError) return error.status >= 500;
  if (error instanceof FetchTimeoutError) return true;
  return error instanceof NetworkError;
}

function attemptOutcomeOf(error: unknown): AttemptOutcome | undefined {
  if (error instanceof HttpStatusError) return { kind: 'status', status: error.status };
  if (error instanceof FetchTimeoutError) return { kind: 'timeout' };
  if (error instanceof NetworkError) return { kind: 'network' };
  return undefined;
}

export function createPoliteFetcher(deps: PoliteFetcherDeps): PoliteFetcher {
  const clock = deps.clock ?? systemClock;
  const sleep = deps.sleep ?? realSleep;
  const addressPolicy = deps.addressPolicy ?? {};
  const baseUserAgent = deps.userAgent?.userAgent ?? defaultUserAgent();
  if (!isValidUserAgent(baseUserAgent)) {
    throw new FetchInputError('', 'the configured User-Agent is empty or contains control characters');
  }

  const emit = (event: FetchEvent) => {
    try {
      deps.onRequest?.(event);
    } catch {
      // A failing logger must not change what is fetched.
    }
  };

  const userAgentFor = (source: Pick<FetchSource, 'userAgent'>): string => {
    const override = source.userAgent?.trim();
    return override !== undefined && override !== '' ? override : baseUserAgent;
  };

  const robotsGate = createRobotsGate({
    store: deps.robotsStore,
    clock,
    fetchRobotsTxt: (request) => fetchRobotsTxt(request),
  });

  // ---------------------------------------------------------------- options at the boundary

  function planFor(url: string, options: FetchOptions, overrides: Partial<Plan> = {}): Plan {
    if (!options || !FETCH_PURPOSES.includes(options.purpose)) {
      throw new FetchInputError(url, `purpose must be one of ${FETCH_PURPOSES.join(', ')}`);
    }
    const { purpose, source } = options;
    if (!source || typeof source.sourceId !== 'string') {
      throw new FetchInputError(url, 'source with a sourceId is required');
    }
    const method = options.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') throw new FetchInputError(url, 'method must be GET or HEAD');
    const positive = (name: string, value: number | undefined, fallback: number) => {
      if (value === undefined) return fallback;
      if (!Number.isFinite(value) || value < 0)
        throw new FetchInputError(url, `${name} must be a number ≥ 0`);
      return value;
    };
    const extraHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      const lower = name.toLowerCase();
      // B-3: the client is never disguised; ID-2: API and robots.txt always send their Accept.
      if (FORBIDDEN_HEADERS.has(lower))
        throw new FetchInputError(url, `header ${name} may not be set by callers`);
      if (lower === 'accept' && (purpose === 'api' || purpose === 'robots')) continue;
      extraHeaders[lower] = value;
    }
    const ua = userAgentFor(source);
    if (!isValidUserAgent(ua))
      throw new FetchInputError(url, 'the source User-Agent contains control characters');
    const comparison = purpose === 'comparison';
    return {
      purpose,
      source,
      method,
      maxBytes: positive('maxBytes', options.maxBytes, DEFAULT_MAX_BYTES[purpose]),
      maxWaitMs: positive('maxWaitMs', options.maxWaitMs, DEFAULT_MAX_WAIT_MS),
      headersTimeoutMs: positive('headersTimeoutMs', options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS),
      bodyTimeoutMs: positive('bodyTimeoutMs', options.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS[purpose]),
      maxAttempts: Math.max(
        1,
        Math.floor(positive('maxAttempts', options.maxAttempts, MAX_ATTEMPTS_BY_PURPOSE[purpose])),
      ),
      hostIntervalMs: positive('hostIntervalMs', options.hostIntervalMs, 0),
      extraHeaders,
      conditional: options.conditional,
      runContext: options.runContext,
      sentUserAgent: comparison ? COMPARISON_USER_AGENT : ua,
      robotsAgent: ua,
      // ID-4 sends no agent of ours, so the `*` rules must allow it too (plus mandari-ingestor, ROB-3).
      checkAgents: comparison ? [ua, '*'] : [ua],
      followRedirects: !comparison,
      anyStatus: comparison || purpose === 'robots',
      recordAttempts: !comparison,
      ...overrides,
    };
  }

  function parseTarget(url: string): URL {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new FetchInputError(url, 'not an absolute URL');
    }
    if (!ALLOWED_PROTOCOLS.has(parsed.protocol))
      throw new FetchInputError(url, 'only http and https URLs are fetched');
    if (parsed.username !== '' || parsed.password !== '') {
      throw new FetchInputError(url, 'URLs with credentials are not fetched');
    }
    parsed.hash = '';
    return parsed;
  }

  // ---------------------------------------------------------------- per-hop admission

  function refused(plan: Plan, url: URL, attempt: number, hop: number, error: unknown): unknown {
    const code =
      error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : 'ERROR';
    emit({
      kind: 'refused',
      sourceId: plan.source.sourceId,
      host: url.hostname.toLowerCase(),
      url: url.href,
      purpose: plan.purpose,
      method: plan.method,
      attempt,
      hop,
      errorCode: code,
      durationMs: 0,
    });
    return error;
  }

  /**
   * Everything before a request may be sent to `url`: literal address, breaker, robots.txt.
   * Returns the Crawl-delay that applies (ROB-10).
   */
  async function admit(plan: Plan, progress: Progress, attempt: number): Promise<number | undefined> {
    const { url } = progress;
    const host = url.hostname.toLowerCase();
    const hop = progress.hops.length;
    try {
      assertLiteralHostAllowed(url.hostname, addressPolicy);
      const runEndsAt = plan.runContext?.endsAtMs;
      if (runEndsAt !== undefined && clock.now() >= runEndsAt)
        throw new RunDeadlineError(url.href, runEndsAt);
      const openUntil = plan.runContext?.breakerOpenUntil(host, clock.now());
      if (openUntil !== undefined) throw new CircuitOpenError(url.href, openUntil);
      if (plan.purpose === 'robots') return undefined; // ROB-4: /robots.txt itself is always allowed.

      const entry = await robotsGate.entryFor(url, plan.robotsAgent, progress.deadline, {
        source: plan.source,
        hostIntervalMs: plan.hostIntervalMs,
        runContext: plan.runContext,
      });
      let crawlDelaySeconds: number | undefined;
      for (const agent of plan.checkAgents) {
        const verdict = robotsVerdict({
          entry,
          userAgent: agent,
          url,
          now: clock.now(),
          scope: scopeOf(plan.purpose),
          exception: plan.purpose === 'comparison' ? null : (plan.source.robotsException ?? null),
        });
        const error = verdictError(verdict, url);
        if (error) throw error;
        if (verdict.crawlDelaySeconds !== undefined) {
          crawlDelaySeconds = Math.max(crawlDelaySeconds ?? 0, verdict.crawlDelaySeconds);
        }
      }
      return crawlDelaySeconds;
    } catch (error) {
      throw refused(plan, url, attempt, hop, waitError(plan, progress, error));
    }
  }

  /** A wait (robots.txt, slot) that ran into the run's end is RUN_DEADLINE, not a host without a slot. */
  function waitError(plan: Plan, progress: Progress, error: unknown): unknown {
    const runEndsAt = plan.runContext?.endsAtMs;
    if (error instanceof HostSlotTimeoutError && runEndsAt !== undefined && progress.deadline >= runEndsAt) {
      return new RunDeadlineError(progress.url.href, runEndsAt);
    }
    return error;
  }

  /** ROB-10: tell the slots about a host's Crawl-delay (status output, other callers) now and then. */
  const notedCrawlDelays = new Map<string, { delayMs: number; at: number }>();
  function noteCrawlDelay(host: string, crawlDelaySeconds: number | undefined) {
    if (crawlDelaySeconds === undefined || !deps.slots.noteCrawlDelay) return;
    const delayMs = Math.min(crawlDelaySeconds, 60) * 1000;
    const noted = notedCrawlDelays.get(host);
    const now = clock.now();
    if (noted && noted.delayMs === delayMs && now - noted.at < CRAWL_DELAY_RENOTE_MS) return;
    notedCrawlDelays.set(host, { delayMs, at: now });
    deps.slots.noteCrawlDelay(host, delayMs).catch(() => {});
  }

  async function takeSlot(
    plan: Plan,
    progress: Progress,
    lease: HostSlotLease | undefined,
    crawlDelaySeconds: number | undefined,
    attempt: number,
    retime = false,
  ): Promise<HostSlotLease> {
    const host = progress.url.hostname.toLowerCase();
    const request = {
      intervalMs: effectiveHostIntervalMs(plan.source, plan.hostIntervalMs, crawlDelaySeconds),
      maxWaitMs: Math.max(0, progress.deadline - clock.now()),
      // The place must outlive the whole exchange, or a slow download would free it for a third request.
      leaseTtlMs: plan.headersTimeoutMs + plan.bodyTimeoutMs + LEASE_MARGIN_MS,
    };
    const started = performance.now();
    try {
      // RATE-5: on a redirect the place moves to the target first; its pace and limit apply there.
      // A slot that passed before the request could be written is re-timed (the same request, later).
      const result = !lease
        ? await deps.slots.acquire(host, request)
        : retime
          ? await lease.retime(request)
          : await lease.moveTo(host, request);
      if (!result.granted) {
        throw new HostSlotTimeoutError(progress.url.href, request.maxWaitMs, result.retryAtMs);
      }
      return result;
    } catch (error) {
      throw refused(plan, progress.url, attempt, progress.hops.length, waitError(plan, progress, error));
    } finally {
      progress.waitMs += performance.now() - started;
    }
  }

  // ---------------------------------------------------------------- one attempt

  function requestHeaders(plan: Plan): Record<string, string> {
    const headers: Record<string, string> = {
      accept: ACCEPT_BY_PURPOSE[plan.purpose],
      'accept-encoding': ACCEPT_ENCODING,
      ...plan.extraHeaders,
    };
    if (plan.sentUserAgent !== undefined) headers['user-agent'] = plan.sentUserAgent;
    if (plan.conditional?.etag) headers['if-none-match'] = plan.conditional.etag;
    if (plan.conditional?.lastModified) headers['if-modified-since'] = plan.conditional.lastModified;
    return headers;
  }

  function record(plan: Plan, host: string, outcome: AttemptOutcome) {
    if (plan.recordAttempts) plan.runContext?.recordAttempt(host, outcome, clock.now());
  }

  function requestEvent(
    plan: Plan,
    url: URL,
    attempt: number,
    hop: number,
    started: number,
    result: { status?: number; error?: unknown },
  ) {
    const event: FetchEvent = {
      // Refused: nothing left this process (the address guard, or a slot that passed before writing).
      kind:
        result.error instanceof AddressNotPublicError || result.error instanceof SendLateError
          ? 'refused'
          : 'request',
      sourceId: plan.source.sourceId,
      host: url.hostname.toLowerCase(),
      url: url.href,
      purpose: plan.purpose,
      method: plan.method,
      attempt,
      hop,
      durationMs: Math.round(performance.now() - started),
    };
    if (result.status !== undefined) event.status = result.status;
    if (result.error !== undefined) {
      const code = (result.error as { code?: unknown }).code;
      event.errorCode = typeof code === 'string' ? code : 'ERROR';
    }
    emit(event);
  }

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
        const host = url.hostname.toLowerCase();
        const hop = progress.hops.length;
        const waitStarted = performance.now();
        const crawlDelaySeconds = await admit(plan, progress, attempt);
        progress.waitMs += performance.now() - waitStarted;
        noteCrawlDelay(host, crawlDelaySeconds);
        const previous = lease;
        lease = undefined; // moveTo releases the previous lease whatever the outcome
        lease = await takeSlot(plan, progress, previous, crawlDelaySeconds, attempt);

        deadline = new RequestDeadline();
        const runEndsAt = plan.runContext?.endsAtMs;
        if (runEndsAt !== undefined) {
          deadline.arm(runEndsAt - clock.now(), () => new RunDeadlineError(url.href, runEndsAt));
        }
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
              lease = await takeSlot(plan, progress, slot, crawlDelaySeconds, attempt, true);
              continue;
            }
            requestEvent(plan, url, attempt, hop, started, { error });
            const outcome = attemptOutcomeOf(error);
            if (outcome) record(plan, host, outcome);
            throw error;
          }
        }
        const { status } = response;
        // From the head on, every byte of this answer is under the body deadline — whatever it is.
        wire.arm(plan.bodyTimeoutMs, () => new FetchTimeoutError(url.href, 'body', plan.bodyTimeoutMs));

        // RATE-8: a Retry-After on 429/503 is a floor for every later request to this host.
        let retryAfterMs: number | undefined;
        if (RETRY_AFTER_STATUSES.has(status)) {
          retryAfterMs = parseRetryAfter(response.headers['retry-after'], clock.now());
          if (retryAfterMs !== undefined && retryAfterMs > 0) {
            await deps.slots.noteRetryAfter(host, retryAfterMs);
          }
        }

        if (REDIRECT_STATUSES.has(status) && plan.followRedirects) {
          await discardBody(response.body, wire.signal);
          wire.disarm();
          requestEvent(plan, url, attempt, hop, started, { status });
          record(plan, host, { kind: 'status', status });
          const location = response.headers.location;
          if (location === undefined || location.trim() === '') {
            throw new RedirectInvalidError(url.href, `HTTP ${status} without Location`);
          }
          let next: URL;
          try {
            next = new URL(location.trim(), url);
          } catch {
            throw new RedirectInvalidError(url.href, `Location "${location}" is not a URL`);
          }
          if (!ALLOWED_PROTOCOLS.has(next.protocol)) throw new RedirectSchemeError(url.href, location);
          if (next.username !== '' || next.password !== '') {
            throw new RedirectInvalidError(url.href, 'Location carries credentials');
          }
          next.hash = '';
          progress.hops.push({ url: url.href, status, location: next.href });
          // RED-1: five redirects are followed; the sixth ends the fetch.
          if (progress.hops.length > MAX_REDIRECTS) {
            throw new TooManyRedirectsError(progress.hops[0]?.url ?? url.href, [
              ...progress.hops.map((h) => h.url),
              next.href,
            ]);
          }
          progress.url = next;
          continue;
        }

        const isSuccess =
          (status >= 200 && status < 300) || (status === 304 && plan.conditional !== undefined);
        if (!isSuccess && !plan.anyStatus) {
          const contentType = response.headers['content-type'];
          // The snippet is diagnosis: cut early (the body deadline above still applies when shorter).
          wire.arm(
            ERROR_PAGE_TIMEOUT_MS,
            () => new FetchTimeoutError(url.href, 'body', ERROR_PAGE_TIMEOUT_MS),
          );
          const bodySnippet = plan.method === 'HEAD' ? '' : await readSnippet(response.body, 4096);
          wire.disarm();
          requestEvent(plan, url, attempt, hop, started, { status });
          record(plan, host, { kind: 'status', status });
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

  /** Reads the body of a head into memory; releases the lease in every case. */
  async function finishBuffered(
    plan: Plan,
    progress: Progress,
    head: ResponseHead,
    t0: number,
  ): Promise<FetchResult> {
    const { response, url } = head;
    const host = url.hostname.toLowerCase();
    try {
      const { body, truncated } = await readBodyToBuffer(response.body, {
        url: url.href,
        maxBytes: plan.purpose === 'robots' ? Math.min(plan.maxBytes, ROBOTS_MAX_BYTES) : plan.maxBytes,
        truncate: plan.purpose === 'robots' || plan.purpose === 'comparison',
        contentEncoding: response.headers['content-encoding'],
        contentLength:
          plan.method === 'HEAD' ? undefined : parseContentLength(response.headers['content-length']),
        signal: head.deadline.signal,
      });
      requestEvent(plan, url, head.attempt, head.hop, head.started, { status: response.status });
      record(plan, host, { kind: 'status', status: response.status });
      const result = resultBase(progress, head);
      if (plan.purpose === 'file' && response.status < 300 && looksLikeHtml(result.contentType, body)) {
        throw new HtmlInsteadOfFileError(url.href, result.contentType);
      }
      return { ...result, body, truncated, timings: { ...result.timings, totalMs: performance.now() - t0 } };
    } catch (error) {
      if (!(error instanceof HtmlInsteadOfFileError)) {
        requestEvent(plan, url, head.attempt, head.hop, head.started, { error });
        const outcome = attemptOutcomeOf(error);
        if (outcome) record(plan, host, outcome);
      }
      throw error;
    } finally {
      head.deadline.disarm();
      await head.lease.release();
    }
  }

  /** Hands out a limited stream; the lease is released when the stream closes. */
  async function finishStreamed(
    plan: Plan,
    progress: Progress,
    head: ResponseHead,
  ): Promise<FetchStreamResult> {
    const { response, url } = head;
    const host = url.hostname.toLowerCase();
    let stream: Readable;
    let headBytes: Buffer;
    const cleanup = () => {
      head.deadline.disarm();
      void head.lease.release();
    };
    try {
      ({ stream, head: headBytes } = await openLimitedStream(
        response.body,
        {
          url: url.href,
          maxBytes: plan.maxBytes,
          truncate: false,
          contentEncoding: response.headers['content-encoding'],
          contentLength:
            plan.method === 'HEAD' ? undefined : parseContentLength(response.headers['content-length']),
          signal: head.deadline.signal,
        },
        HTML_SNIFF_BYTES,
      ));
    } catch (error) {
      requestEvent(plan, url, head.attempt, head.hop, head.started, { error });
      const outcome = attemptOutcomeOf(error);
      if (outcome) record(plan, host, outcome);
      cleanup();
      throw error;
    }
    const result = resultBase(progress, head);
    if (plan.purpose === 'file' && response.status < 300 && looksLikeHtml(result.contentType, headBytes)) {
      abandonBody(stream);
      cleanup();
      throw new HtmlInsteadOfFileError(url.href, result.contentType);
    }
    requestEvent(plan, url, head.attempt, head.hop, head.started, { status: response.status });
    record(plan, host, { kind: 'status', status: response.status });
    stream.once('close', cleanup);
    return { ...result, body: stream };
  }

  function resultBase(progress: Progress, head: ResponseHead) {
    const { response } = head;
    return {
      url: progress.hops[0]?.url ?? head.url.href,
      finalUrl: head.url.href,
      status: response.status,
      notModified: response.status === 304,
      headers: response.headers,
      contentType: response.headers['content-type'],
      etag: response.headers.etag,
      lastModified: response.headers['last-modified'],
      redirects: [...progress.hops],
      attempts: head.attempt,
      timings: { waitMs: Math.round(progress.waitMs), headersMs: Math.round(response.headersMs) },
    };
  }

  // ---------------------------------------------------------------- attempts, ID-4

  /** When waiting for slots and robots.txt ends: the wait budget, and never past the run's end. */
  function waitDeadline(plan: Plan): number {
    return Math.min(clock.now() + plan.maxWaitMs, plan.runContext?.endsAtMs ?? Number.POSITIVE_INFINITY);
  }

  async function run<M extends Mode>(
    mode: M,
    url: string,
    plan: Plan,
  ): Promise<M extends 'buffer' ? FetchResult : FetchStreamResult> {
    const t0 = performance.now();
    const progress: Progress = {
      url: parseTarget(url),
      hops: [],
      deadline: waitDeadline(plan),
      waitMs: 0,
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        const head = await attemptHead(plan, progress, attempt);
        const result =
          mode === 'buffer'
            ? await finishBuffered(plan, progress, head, t0)
            : await finishStreamed(plan, progress, head);
        return result as M extends 'buffer' ? FetchResult : FetchStreamResult;
      } catch (error) {
        if (error instanceof HttpStatusError && error.status === 403) await compareAfter403(plan, error);
        const pauseMs = RETRY_PAUSES_MS[Math.min(attempt - 1, RETRY_PAUSES_MS.length - 1)] ?? 0;
        const retryAfterTooLong =
          error instanceof HttpStatusError &&
          error.retryAfterMs !== undefined &&
          error.retryAfterMs > pauseMs;
        if (attempt >= plan.maxAttempts || !isRetryableInRun(error) || retryAfterTooLong) throw error;
        // A retry the run has no time left for is the next invocation's (nothing more is sent now).
        const runEndsAt = plan.runContext?.endsAtMs;
        if (runEndsAt !== undefined && clock.now() + pauseMs >= runEndsAt) {
          throw new RunDeadlineError(progress.url.href, runEndsAt);
        }
        // ERR-1: pause 1 s, then 2 s; the next attempt takes a new slot in the pace.
        await sleep(pauseMs);
        // The wait budget is per attempt: a retry must not starve on the first attempt's waiting.
        progress.deadline = waitDeadline(plan);
      }
    }
  }

  /**
   * ID-4: after a 403, exactly one request per server and source run with the library's default
   * identification, to the address that answered 403, within pace and limit, following no
   * redirect. Only 2xx means "our User-Agent is blocked". Diagnosis only — recorded in the run
   * context (ERR-5), never used to fetch anything.
   */
  async function compareAfter403(plan: Plan, error: HttpStatusError): Promise<void> {
    const context = plan.runContext;
    // "A sync request": API and scraper pages. Files follow DOC-4 (a 403 is retried weekly) and
    // robots.txt 403 means "absent" (ROB-6); neither triggers a comparison.
    if (!context || (plan.purpose !== 'api' && plan.purpose !== 'scraper')) return;
    const host = error.host;
    if (!context.claimComparison(host)) return;
    const at = clock.now();
    try {
      const comparisonPlan = planFor(
        error.url,
        { purpose: 'comparison', source: plan.source },
        {
          method: plan.method,
          hostIntervalMs: plan.hostIntervalMs,
          maxWaitMs: plan.maxWaitMs,
          runContext: context,
          maxAttempts: 1,
        },
      );
      const result = await run('buffer', error.url, comparisonPlan);
      if (result.status >= 200 && result.status < 300) {
        context.recordComparison(host, { state: 'blocked', status: result.status, url: error.url, at });
      } else {
        context.recordComparison(host, { state: 'open', status: result.status, url: error.url, at });
      }
    } catch (comparisonError) {
      const code = (comparisonError as { code?: unknown }).code;
      if (code === 'ROBOTS_DISALLOWED' || code === 'ROBOTS_UNREACHABLE' || code === 'CIRCUIT_OPEN') {
        context.recordComparison(host, { state: 'skipped', reason: String(code), url: error.url, at });
      } else {
        context.recordComparison(host, {
          state: 'open',
          errorCode: typeof code === 'string' ? code : 'ERROR',
          url: error.url,
          at,
        });
      }
    }
  }

  // ---------------------------------------------------------------- robots.txt fetch (ROB-5/6/7)

  async function fetchRobotsTxt(request: RobotsLoadRequest): Promise<RobotsFetchOutcome> {
    const { source, hostIntervalMs, runContext } = request.context;
    // The robots.txt request is made with the same agent (ID-3) and in the same pace (RATE-1) as
    // the request that needs it. Its answers feed the run's breaker only as ROB-7 sees them: a 4xx
    // is "absent" (an answer), 5xx/408/429 and no answer are failures.
    const plan = planFor(
      request.robotsUrl.href,
      { purpose: 'robots', source, hostIntervalMs, runContext },
      {
        sentUserAgent: request.userAgent,
        robotsAgent: request.userAgent,
        checkAgents: [],
        maxWaitMs: request.maxWaitMs,
        extraHeaders: Object.fromEntries(
          Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]),
        ),
        maxAttempts: 1,
        recordAttempts: false,
      },
    );
    const host = request.robotsUrl.hostname.toLowerCase();
    const note = (outcome: AttemptOutcome) => runContext?.recordAttempt(host, outcome, clock.now());
    try {
      const result = await run('buffer', request.robotsUrl.href, plan);
      const unreachable = result.status >= 500 || result.status === 408 || result.status === 429;
      note(unreachable ? { kind: 'status', status: result.status } : { kind: 'answer' });
      const outcome: RobotsFetchOutcome = { kind: 'response', status: result.status };
      if (result.status >= 200 && result.status < 300) outcome.body = result.body;
      if (result.etag !== undefined) outcome.etag = result.etag;
      if (result.lastModified !== undefined) outcome.lastModified = result.lastModified;
      const retryAfterMs = RETRY_AFTER_STATUSES.has(result.status)
        ? parseRetryAfter(result.headers['retry-after'], clock.now())
        : undefined;
      if (retryAfterMs !== undefined) outcome.retryAfterMs = retryAfterMs;
      return outcome;
    } catch (error) {
      if (error instanceof TooManyRedirectsError)
        return { kind: 'too-many-redirects', redirects: MAX_REDIRECTS + 1 };
      // The host itself is not public: that is the caller's answer, not robots.txt's.
      if (error instanceof AddressNotPublicError && error.hostname === request.robotsUrl.hostname)
        throw error;
      if (
        error instanceof FetchError &&
        (error.code === 'HOST_SLOT_TIMEOUT' || error.code === 'CIRCUIT_OPEN' || error.code === 'RUN_DEADLINE')
      ) {
        throw error;
      }
      if (error instanceof RobotsUnreachableError) throw error;
      const failure = attemptOutcomeOf(error);
      if (failure) note(failure);
      const message = error instanceof Error ? error.message : String(error);
      return { kind: 'network-error', message };
    }
  }

  return {
    // async: a rejected option is a rejected promise, like every other failure.
    fetch: async (url, options) => run('buffer', url, planFor(url, options)),
    stream: async (url, options) => run('stream', url, planFor(url, options)),
    userAgentFor,
  };
}
