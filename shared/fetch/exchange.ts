import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { AddressNotPublicError, DEFAULT_CONNECT_TIMEOUT_MS, request } from '../net';
import { FetchError, FetchTimeoutError, NetworkError } from './errors';

/**
 * One HTTP request/response head through the guarded dispatcher, with undici's errors mapped to
 * the fetcher's types. Redirects are never followed here (undici's Dispatcher API does not follow
 * them unless a redirect interceptor is installed; the fetcher follows them by hand, RED).
 */

export interface ExchangeRequest {
  url: URL;
  method: 'GET' | 'HEAD';
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  headersTimeoutMs: number;
  /** undici's idle timer between body chunks; the whole-body deadline is the caller's. */
  bodyIdleTimeoutMs: number;
  /**
   * Aborts the request (and later its body). The headers deadline aborts it with a TIMEOUT error;
   * the caller arms the whole-body deadline on it after the head arrived.
   */
  controller: AbortController;
  /**
   * Runs when a connected socket is about to carry the request, in the same tick as the write (after
   * any connection set-up). Throwing here sends nothing and keeps the connection for the next request;
   * the exchange then rejects with what was thrown.
   */
  beforeSend?: () => void;
}

export interface ExchangeResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  /** Milliseconds from sending to the response head. */
  headersMs: number;
}

function findInCauses<T>(error: unknown, test: (value: unknown) => value is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    if (test(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Maps an error from undici (connect, TLS, head) to the fetcher's error types. */
export function mapRequestError(url: string, error: unknown, headersTimeoutMs: number): unknown {
  const refusal = findInCauses(error, (v): v is AddressNotPublicError => v instanceof AddressNotPublicError);
  if (refusal) return refusal;
  if (error instanceof FetchError) return error;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new FetchTimeoutError(url, 'headers', headersTimeoutMs, error);
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new FetchTimeoutError(url, 'connect', DEFAULT_CONNECT_TIMEOUT_MS, error);
    default:
      return new NetworkError(url, error);
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

export async function exchange(req: ExchangeRequest): Promise<ExchangeResponse> {
  const started = performance.now();
  const href = req.url.href;
  const { signal } = req.controller;
  // Our own headers deadline: undici's `headersTimeout` runs on a coarse timer (≈ 1 s resolution);
  // it stays as a backstop.
  const headersTimer = setTimeout(() => {
    req.controller.abort(new FetchTimeoutError(href, 'headers', req.headersTimeoutMs));
  }, req.headersTimeoutMs);
  try {
    const response = await request(req.url, {
      dispatcher: req.beforeSend ? withBeforeSend(req.dispatcher, req.beforeSend) : req.dispatcher,
      method: req.method,
      // Issue 28 (deletion-check CPU): undici closes the connection after every HEAD by default (for
      // servers that wrongly send a body with it) — a new TCP (and TLS) set-up per DEL-2 sample, ≈ 1/5
      // of the check's CPU. A HEAD keeps its connection when the server says keep-alive; a stray body
      // then fails only the idle socket (undici parses it as a broken answer and drops it), and in the
      // rare case it lands on the next request that one fails as a network error and is retried
      // (ERR-1). Every socket is still judged by the guarded connector when it is opened (RED-2).
      ...(req.method === 'HEAD' ? { reset: false } : {}),
      headers: req.headers,
      headersTimeout: req.headersTimeoutMs + 1_000,
      bodyTimeout: req.bodyIdleTimeoutMs,
      signal,
    });
    return {
      status: response.statusCode,
      headers: flattenHeaders(response.headers),
      body: response.body,
      headersMs: performance.now() - started,
    };
  } catch (error) {
    if (signal.aborted && signal.reason instanceof FetchError) throw signal.reason;
    throw mapRequestError(href, error, req.headersTimeoutMs);
  } finally {
    clearTimeout(headersTimer);
  }
}

/**
 * undici calls a handler's onRequestStart right before it writes the request head to the socket. A
 * throw there fails the request without touching the socket (an abort through the controller would
 * destroy it), so a late request is dropped while its warm connection stays for the re-timed one.
 */
function withBeforeSend(dispatcher: Dispatcher, beforeSend: () => void): Dispatcher {
  return dispatcher.compose(
    (dispatch) =>
      (opts, handler): boolean =>
        dispatch(opts, {
          onRequestStart(controller, context) {
            beforeSend();
            handler.onRequestStart?.(controller, context);
          },
          onRequestUpgrade: (controller, status, headers, socket) =>
            handler.onRequestUpgrade?.(controller, status, headers, socket),
          onResponseStart: (controller, status, headers, message) =>
            handler.onResponseStart?.(controller, status, headers, message),
          onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
          onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
          onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
        }),
  );
}
