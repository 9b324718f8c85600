import { IngestorError } from '../errors';

/** A value given as a host or URL names no host at all (a programming or config error, never retried). */
export class HostKeyError extends IngestorError {
  constructor(message: string) {
    super('HOST_KEY_INVALID', message);
  }
}

/**
 * The one key of a host (SPEC "Server / host"; issue 25): hostname, lower-cased, without port, scheme
 * or trailing dot, international names in their ASCII (punycode) form. `https://RIS.example.de:443/x`,
 * `http://ris.example.de:8443/` and `ris.example.de.` are one host: one pace (RATE-1, RATE-2's host
 * maximum), one robots.txt (ROB-5), one set of host-wide settings (OPT-4), one takedown owner (OPT-5).
 * Every place that keys by host uses this function and nothing else, so no spelling splits a host.
 * It lives in shared/util (no domain, no I/O) so that every folder can import it without a cycle.
 */
export function hostKey(input: string | URL): string {
  let hostname: string;
  try {
    if (input instanceof URL) hostname = input.hostname;
    else {
      const raw = input.trim();
      hostname = new URL(raw.includes('://') ? raw : `http://${raw}`).hostname;
    }
  } catch {
    throw new HostKeyError(`not a host or URL: ${JSON.stringify(String(input))}`);
  }
  // The URL parser lower-cases, strips the port and applies punycode; a trailing dot names the same
  // DNS host (the fully qualified spelling), so it is dropped too.
  const key = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (key === '') throw new HostKeyError(`no hostname in ${JSON.stringify(String(input))}`);
  return key;
}

/** `hostKey`, or undefined where the value names no host (for readers of untrusted text). */
export function hostKeyOrUndefined(input: string | URL): string | undefined {
  try {
    return hostKey(input);
  } catch {
    return undefined;
  }
}

/**
 * The host key of a URL, '' where it names none: a key to group by or compare (a page's `links.next`
 * on another host, a document's host admission) where a URL without a host simply matches nothing.
 */
export function hostKeyOrEmpty(url: string): string {
  return hostKeyOrUndefined(url) ?? '';
}
