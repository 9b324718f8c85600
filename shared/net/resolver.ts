import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { type AddressClass, classifyAddress } from './address';
import { AddressNotPublicError } from './errors';

/**
 * Name resolution for the SSRF guard (RED-2 (1)). The check runs inside the socket's own `lookup`
 * hook, so the address judged is the address the socket connects to — there is no window between
 * "resolve and check" and "connect" in which a second DNS answer could slip in (DNS rebinding).
 */

/** Where host names come from. Production uses the system resolver; tests use `createTestResolver`. */
export interface HostResolver {
  resolve(hostname: string): Promise<LookupAddress[]>;
}

/** What the guard lets through besides public addresses. */
export interface AddressPolicy {
  /** Local mode only (`--allow-loopback`, INGESTOR_ALLOW_LOOPBACK): 127.0.0.0/8 and ::1 may be reached. */
  allowLoopback?: boolean;
}

/** The operating system's resolver (getaddrinfo), all addresses in the order the system prefers. */
export const systemResolver: HostResolver = {
  resolve: (hostname) => dns.lookup(hostname, { all: true, verbatim: true }),
};

export interface TestResolverOptions {
  /**
   * Explicit answers, e.g. `{ 'evil.test': '10.0.0.1' }`. Names are compared lower-cased. Use this
   * to prove refusals; the guard rejects the answer before any packet is sent.
   */
  map?: Record<string, string | string[]>;
}

/**
 * Test resolver: any `*.test` name (RFC 6761 reserves the TLD) resolves to 127.0.0.1 unless `map`
 * says otherwise. Every other name fails as "not found", so a test can never reach the network by
 * accident. Only used where a test or the local demo constructs it explicitly — never a default.
 */
export function createTestResolver(options: TestResolverOptions = {}): HostResolver {
  const map = new Map(
    Object.entries(options.map ?? {}).map(([name, addresses]) => [
      name.toLowerCase(),
      (Array.isArray(addresses) ? addresses : [addresses]).map((address) => ({
        address,
        family: isIP(address) === 6 ? 6 : 4,
      })),
    ]),
  );
  return {
    async resolve(hostname) {
      const name = hostname.toLowerCase().replace(/\.$/, '');
      const mapped = map.get(name);
      if (mapped) return mapped;
      if (name.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (test resolver)`), {
        code: 'ENOTFOUND',
        hostname,
      });
    },
  };
}

/** The class that makes `address` unacceptable under `policy`, or undefined when it may be reached. */
export function refusalOf(address: string, policy: AddressPolicy = {}): AddressClass | undefined {
  const cls = classifyAddress(address);
  if (cls === 'public') return undefined;
  if (cls === 'loopback' && policy.allowLoopback === true) return undefined;
  return cls;
}

/** Throws `ADDRESS_NOT_PUBLIC` unless `address` may be reached; `hostname` names it in the error. */
export function assertAddressAllowed(hostname: string, address: string, policy: AddressPolicy = {}): void {
  const refused = refusalOf(address, policy);
  if (refused !== undefined) throw new AddressNotPublicError(hostname, address, refused);
}

/** A URL hostname without IPv6 brackets ('[::1]' → '::1'). */
export function bareHostname(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * IP-literal hosts (`http://127.0.0.1/`, `http://[::1]/`) never reach a `lookup` hook (net.connect
 * skips DNS for them), so they are checked here — by the fetcher before it spends a slot, and
 * again by the guarded connector. Returns true when the host is an IP literal (and allowed).
 */
export function assertLiteralHostAllowed(hostname: string, policy: AddressPolicy = {}): boolean {
  const bare = bareHostname(hostname);
  if (isIP(bare) === 0) return false;
  assertAddressAllowed(bare, bare, policy);
  return true;
}

export interface GuardedLookupOptions extends AddressPolicy {
  resolver?: HostResolver;
}

/**
 * A `lookup` for `net.connect` / undici's `connect` option. It refuses when ANY resolved address is
 * not allowed — not only the one picked — because with happy eyeballs (`autoSelectFamily`) Node
 * may try several, and a name that mixes public and private answers is hostile anyway. Honours
 * `options.all` (array answer) and `options.family` like `dns.lookup`.
 */
export function createGuardedLookup(options: GuardedLookupOptions = {}): LookupFunction {
  const resolver = options.resolver ?? systemResolver;
  const policy: AddressPolicy = { allowLoopback: options.allowLoopback === true };
  return (hostname, lookupOptions, callback) => {
    const done = callback as unknown as (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    resolver.resolve(hostname).then(
      (resolved) => {
        const family = lookupOptions.family;
        const wanted =
          family === 4 || family === 6 || family === 'IPv4' || family === 'IPv6'
            ? resolved.filter((a) => a.family === (family === 'IPv4' || family === 4 ? 4 : 6))
            : resolved;
        if (wanted.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          done(error, lookupOptions.all ? [] : '', undefined);
          return;
        }
        for (const { address } of resolved) {
          const refused = refusalOf(address, policy);
          if (refused !== undefined) {
            done(
              new AddressNotPublicError(hostname, address, refused),
              lookupOptions.all ? [] : '',
              undefined,
            );
            return;
          }
        }
        if (lookupOptions.all) done(null, wanted);
        else done(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: NodeJS.ErrnoException) => done(error, lookupOptions.all ? [] : '', undefined),
    );
  };
}
