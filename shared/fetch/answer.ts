import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { ROBOTS_MAX_BYTES } from '../robots';
import type { AttemptLog } from './attempt-log';
import { abandonBody, openLimitedStream, parseContentLength, readBodyToBuffer } from './body';
import { ERROR_PAGE_TIMEOUT_MS, HTML_SNIFF_BYTES } from './constants';
import { RequestDeadline } from './deadline';
import { FetchTimeoutError, HtmlInsteadOfFileError, RunDeadlineError } from './errors';
import type { ExchangeResponse } from './exchange';
import type { Plan, Progress } from './plan';
import type { HostSlotLease } from './ports';
import type { FetchResult, FetchStreamResult } from './types';

/**
 * An answer on the wire, from the request to its last byte: under deadlines that close the socket
 * before the host slot lease can expire (RATE-4, see LEASE_MARGIN_MS), within the purpose's size
 * limit, and checked for an HTML page where a file was expected (DOC-5). The lease is released
 * when the answer is done — read, failed, or its stream closed.
 */

/** A response head that will be handed on, with the lease and deadline that still hold for it. */
export interface ResponseHead {
  url: URL;
  response: ExchangeResponse;
  lease: HostSlotLease;
  deadline: RequestDeadline;
  attempt: number;
  hop: number;
  /** performance.now() when the request was sent. */
  started: number;
}

/** The deadline of one hop's exchange, armed at once with the run's end (a run's `endsAtMs` caps it). */
export function hopDeadline(plan: Plan, url: URL, nowMs: number): RequestDeadline {
  const deadline = new RequestDeadline();
  const runEndsAt = plan.runContext?.endsAtMs;
  if (runEndsAt !== undefined) {
    deadline.arm(runEndsAt - nowMs, () => new RunDeadlineError(url.href, runEndsAt));
  }
  return deadline;
}

/** From the head on, every byte of an answer is under the body deadline — whatever the answer is. */
export function armBodyDeadline(deadline: RequestDeadline, plan: Plan, url: URL): void {
  deadline.arm(plan.bodyTimeoutMs, () => new FetchTimeoutError(url.href, 'body', plan.bodyTimeoutMs));
}

/**
 * The page of an error answer is diagnosis (a snippet): cut after ERROR_PAGE_TIMEOUT_MS, or earlier
 * by the body deadline already armed — a tarpitted error page holds neither caller nor place.
 */
export function armErrorPageDeadline(deadline: RequestDeadline, url: URL): void {
  deadline.arm(ERROR_PAGE_TIMEOUT_MS, () => new FetchTimeoutError(url.href, 'body', ERROR_PAGE_TIMEOUT_MS));
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

function bodyLimits(plan: Plan, head: ResponseHead) {
  const { response, url } = head;
  return {
    url: url.href,
    contentEncoding: response.headers['content-encoding'],
    contentLength:
      plan.method === 'HEAD' ? undefined : parseContentLength(response.headers['content-length']),
    signal: head.deadline.signal,
  };
}

/** The attempt an answer belongs to: its plan, its progress (hops, waiting) and the log it reports to. */
export interface Answering {
  log: AttemptLog;
  plan: Plan;
  progress: Progress;
}

/**
 * A HEAD answer's (empty) body: drained, not read through the limits. Its end is undici's, already
 * reached or next; an error there (the socket dropped) has nothing left to fail and must not throw.
 */
function emptyBody(raw: Readable): { body: Buffer; truncated: false } {
  raw.on('error', () => {});
  raw.resume();
  return { body: Buffer.alloc(0), truncated: false };
}

/** Reads the body of a head into memory; releases the lease in every case. */
export async function finishBuffered(
  { log, plan, progress }: Answering,
  head: ResponseHead,
  t0: number,
): Promise<FetchResult> {
  const { response, url } = head;
  try {
    // A HEAD answer has no body (RFC 9110 §9.3.2; undici's parser reads none): issue 28, the limits'
    // stream pipeline set up for nothing was ≈ 4 % of a deletion-check sample's CPU.
    const { body, truncated } =
      plan.method === 'HEAD'
        ? emptyBody(response.body)
        : await readBodyToBuffer(response.body, {
            ...bodyLimits(plan, head),
            // ROB-5: robots.txt is cut at its limit and the start evaluated; ID-4 answers are only looked at.
            maxBytes: plan.purpose === 'robots' ? Math.min(plan.maxBytes, ROBOTS_MAX_BYTES) : plan.maxBytes,
            truncate: plan.purpose === 'robots' || plan.purpose === 'comparison',
          });
    log.answered(plan, head, response.status);
    const result = resultBase(progress, head);
    if (plan.purpose === 'file' && response.status < 300 && looksLikeHtml(result.contentType, body)) {
      throw new HtmlInsteadOfFileError(url.href, result.contentType);
    }
    return { ...result, body, truncated, timings: { ...result.timings, totalMs: performance.now() - t0 } };
  } catch (error) {
    if (!(error instanceof HtmlInsteadOfFileError)) {
      log.failed(plan, head, error);
    }
    throw error;
  } finally {
    head.deadline.disarm();
    await head.lease.release();
  }
}

/** Hands out a limited stream; the lease is released when the stream closes. */
export async function finishStreamed(
  { log, plan, progress }: Answering,
  head: ResponseHead,
): Promise<FetchStreamResult> {
  const { response, url } = head;
  let stream: Readable;
  let headBytes: Buffer;
  const cleanup = () => {
    head.deadline.disarm();
    void head.lease.release();
  };
  try {
    ({ stream, head: headBytes } = await openLimitedStream(
      response.body,
      { ...bodyLimits(plan, head), maxBytes: plan.maxBytes, truncate: false },
      HTML_SNIFF_BYTES,
    ));
  } catch (error) {
    log.failed(plan, head, error);
    cleanup();
    throw error;
  }
  const result = resultBase(progress, head);
  if (plan.purpose === 'file' && response.status < 300 && looksLikeHtml(result.contentType, headBytes)) {
    abandonBody(stream);
    cleanup();
    throw new HtmlInsteadOfFileError(url.href, result.contentType);
  }
  log.answered(plan, head, response.status);
  stream.once('close', cleanup);
  return { ...result, body: stream };
}
