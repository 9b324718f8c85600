import {
  isFresh,
  nextCacheEntry,
  productToken,
  ROBOTS_TXT_PATH,
  type RobotsCacheEntry,
  type RobotsFetchOutcome,
  revalidationHeaders,
} from '../robots';
import { hostKey } from '../util';
import { HostSlotTimeoutError } from './errors';
import type { Clock, RobotsCacheStore } from './ports';
import type { RunContext } from './run-context';
import type { FetchSource } from './types';

/**
 * The I/O half of robots.txt (the pure half is shared/robots): find the state for (host, agent),
 * fetch robots.txt when it is missing or due (ROB-5), store the next state. One lookup (read and load)
 * per key at a time in this process; other callers wait for it within their own wait budget.
 */

export interface RobotsLoadRequest {
  /** `<scheme>://<host>[:port]/robots.txt` of the request that needs it (ROB-5). */
  robotsUrl: URL;
  userAgent: string;
  /** B-1: If-None-Match / If-Modified-Since of the copy we hold. */
  headers: Record<string, string>;
  /** Wait budget left for the robots.txt fetch's own slot, ms. */
  maxWaitMs: number;
  /** The request that needs robots.txt: its source's pace applies to the robots.txt fetch (RATE-1/2). */
  context: RobotsLoadContext;
}

export interface RobotsLoadContext {
  source: FetchSource;
  hostIntervalMs: number;
  runContext: RunContext | undefined;
}

/**
 * Performs the robots.txt request (slot, ≤ 5 redirects, 500 KiB) and reports how it ended. Throws
 * only for what is no outcome of the server (no slot in time, breaker open, host not public).
 */
export type RobotsTxtFetch = (request: RobotsLoadRequest) => Promise<RobotsFetchOutcome>;

export interface RobotsGateDeps {
  store: RobotsCacheStore;
  clock: Clock;
  fetchRobotsTxt: RobotsTxtFetch;
}

/** ROB-5: the cache key's agent part — the product token of the User-Agent, lower-cased. */
export function robotsAgentKey(userAgent: string): string {
  return productToken(userAgent).toLowerCase() || '*';
}

export interface RobotsGate {
  /**
   * The fresh state for `url`'s host and `userAgent`, loading robots.txt first when needed.
   * `deadline` (epoch ms) bounds the wait: past it, HOST_SLOT_TIMEOUT (the load itself goes on
   * and its result is stored for the next caller).
   */
  entryFor(
    url: URL,
    userAgent: string,
    deadline: number,
    context: RobotsLoadContext,
  ): Promise<RobotsCacheEntry>;
}

export function createRobotsGate(deps: RobotsGateDeps): RobotsGate {
  // One lookup (store read, then a load when the copy is missing or due) per key at a time. The read is
  // inside it, not before it: a second caller whose own read started before the first load's write
  // and answered after it would find no load running and an old copy — and fetch robots.txt again.
  const lookups = new Map<string, Lookup>();

  return {
    async entryFor(url, userAgent, deadline, context) {
      const host = hostKey(url);
      const agentKey = robotsAgentKey(userAgent);
      const key = `${host}\u0000${agentKey}`;
      let lookup = lookups.get(key);
      if (!lookup) {
        const started = lookUp(deps, { host, agentKey, url, userAgent, deadline, context });
        lookups.set(key, started);
        // Whoever gives up first, the load finishes and is stored; keep its failure from going unhandled.
        started.entry
          .finally(() => {
            if (lookups.get(key) === started) lookups.delete(key);
          })
          .catch(() => {});
        lookup = started;
      }
      // A fresh stored copy is the answer whatever the deadline, as before the lookup was shared.
      const fresh = await lookup.fresh;
      if (fresh) return fresh;
      const remainingMs = deadline - deps.clock.now();
      if (remainingMs <= 0) throw new HostSlotTimeoutError(url.href, 0);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HostSlotTimeoutError(url.href, remainingMs)), remainingMs);
      });
      try {
        return await Promise.race([lookup.entry, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** One lookup: the stored copy when fresh (else `undefined`), and the entry it leads to (loaded if due). */
interface Lookup {
  fresh: Promise<RobotsCacheEntry | undefined>;
  entry: Promise<RobotsCacheEntry>;
}

function lookUp(deps: RobotsGateDeps, ask: RobotsAsk): Lookup {
  const stored = deps.store.get(ask.host, ask.agentKey);
  const fresh = stored.then((cached) => (cached && isFresh(cached, deps.clock.now()) ? cached : undefined));
  const entry = stored.then(async (cached) =>
    cached && isFresh(cached, deps.clock.now()) ? cached : loadEntry(deps, ask, cached),
  );
  return { fresh, entry };
}

/** One caller's question: robots.txt of `url`'s host (cached as `host` + `agentKey`), by `deadline`. */
interface RobotsAsk {
  host: string;
  agentKey: string;
  url: URL;
  userAgent: string;
  deadline: number;
  context: RobotsLoadContext;
}

/** Fetches robots.txt (revalidating the copy we hold), and stores the entry it leads to. */
async function loadEntry(
  deps: RobotsGateDeps,
  ask: RobotsAsk,
  previous: RobotsCacheEntry | undefined,
): Promise<RobotsCacheEntry> {
  const robotsUrl = new URL(ROBOTS_TXT_PATH, `${ask.url.protocol}//${ask.url.host}`);
  const outcome = await deps.fetchRobotsTxt({
    robotsUrl,
    userAgent: ask.userAgent,
    headers: revalidationHeaders(previous),
    maxWaitMs: Math.max(0, ask.deadline - deps.clock.now()),
    context: ask.context,
  });
  const next = nextCacheEntry(previous, outcome, deps.clock.now());
  await deps.store.put(ask.host, ask.agentKey, next);
  return next;
}
