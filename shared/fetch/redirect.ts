import type { Readable } from 'node:stream';
import { abandonBody } from './body';
import { ALLOWED_PROTOCOLS, MAX_REDIRECTS } from './constants';
import { RedirectInvalidError, RedirectSchemeError, TooManyRedirectsError } from './errors';
import type { RedirectHop } from './types';

/**
 * The redirect walk (RED): redirects are followed by hand, hop by hop, each hop repeating the
 * whole admission (address, breaker, robots.txt — RED-3 —, slot). This file decides where a hop leads.
 */

/** Bytes of a redirect's body drained so its connection can be reused; longer bodies are cut. */
const REDIRECT_DRAIN_BYTES = 64 * 1024;

/**
 * The next hop after a redirect answer from `url`: records the hop in `hops` and returns the
 * target. Throws REDIRECT_INVALID (no or unusable Location, credentials), REDIRECT_SCHEME
 * (not http/https) and TOO_MANY_REDIRECTS (RED-1: five are followed, the sixth ends the fetch).
 */
export function nextHop(url: URL, status: number, location: string | undefined, hops: RedirectHop[]): URL {
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
  hops.push({ url: url.href, status, location: next.href });
  if (hops.length > MAX_REDIRECTS) {
    throw new TooManyRedirectsError(hops[0]?.url ?? url.href, [...hops.map((h) => h.url), next.href]);
  }
  return next;
}

/**
 * Drops a body we do not need (redirects): small ones are drained so the connection can be reused.
 * Awaited, under the request's deadline: the place moves on (RATE-5) only once this socket is done
 * (RATE-4) — a redirect whose body trickles is cut at the deadline, not left open behind the move.
 */
export async function discardBody(body: Readable, signal: AbortSignal): Promise<void> {
  const dump = (
    body as Readable & { dump?: (options: { limit: number; signal: AbortSignal }) => Promise<void> }
  ).dump;
  if (typeof dump === 'function')
    await dump.call(body, { limit: REDIRECT_DRAIN_BYTES, signal }).catch(() => {});
  else abandonBody(body);
}
