import tls from 'node:tls';
import { AddressNotPublicError } from './errors';
import {
  type AddressPolicy,
  assertLiteralHostAllowed,
  createGuardedLookup,
  type HostResolver,
  refusalOf,
} from './resolver';
import { Agent, type BuildConnector, buildConnector } from './undici';

/** Connect timeout of the guarded agent: a council server that takes longer than this is down. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface GuardedAgentOptions extends AddressPolicy {
  /** Default: the system resolver. Tests pass `createTestResolver()` explicitly. */
  resolver?: HostResolver;
  connectTimeoutMs?: number;
  /** Idle keep-alive sockets are closed after this; default 4 s (a Lambda freeze should not keep them). */
  keepAliveTimeoutMs?: number;
  /** Tests only: a certificate authority to trust besides the system's (a loopback HTTPS server). */
  extraCa?: string;
}

/**
 * The undici connector behind every outbound request (RED-2 (1)), three locks deep:
 * 1. IP-literal hosts are judged before connecting (the lookup hook never sees them);
 * 2. names are judged inside the socket's lookup, on the addresses it is about to connect to;
 * 3. after connecting, the socket's actual peer address is judged once more and the socket
 *    destroyed when it is not allowed — the last line should any path bypass (1) and (2).
 */
export function createGuardedConnector(options: GuardedAgentOptions = {}): BuildConnector.connector {
  const policy: AddressPolicy = { allowLoopback: options.allowLoopback === true };
  const lookup = createGuardedLookup({
    allowLoopback: policy.allowLoopback,
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  const connect = buildConnector({
    lookup,
    timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.extraCa ? { ca: [...tls.rootCertificates, options.extraCa] } : {}),
  });
  return (connectOptions, callback) => {
    try {
      assertLiteralHostAllowed(connectOptions.hostname, policy);
    } catch (error) {
      callback(error as Error, null);
      return;
    }
    connect(connectOptions, (error, socket) => {
      if (error || !socket) {
        callback(error ?? new Error('connect failed'), null);
        return;
      }
      const peer = socket.remoteAddress;
      const refused = peer === undefined ? 'invalid' : refusalOf(peer, policy);
      if (refused !== undefined) {
        socket.destroy();
        callback(new AddressNotPublicError(connectOptions.hostname, peer ?? '(unknown)', refused), null);
        return;
      }
      callback(null, socket);
    });
  };
}

/**
 * The dispatcher the polite fetcher uses: an undici Agent whose every socket goes through the
 * guarded connector. Redirects are never followed by undici (the fetcher follows them by hand, RED).
 */
export function createGuardedAgent(options: GuardedAgentOptions = {}): Agent {
  return new Agent({
    connect: createGuardedConnector(options),
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    // At most two requests in flight per host (RATE-4) are enforced by the slots; two sockets per
    // origin keep undici from opening more than the slots allow anyway.
    connections: 2,
  });
}
