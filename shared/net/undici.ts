import type { Agent as AgentType, buildConnector as BuildConnector, Dispatcher } from 'undici';
import request$ from 'undici/lib/api/api-request.js';
import buildConnector from 'undici/lib/core/connect.js';
import undiciUtil from 'undici/lib/core/util.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';

/**
 * The parts of undici the polite fetcher uses — the Agent, its connector and the request API — taken
 * from undici's own modules instead of its index. Issue 28 (sync memory): the index loads all of undici
 * at import (fetch, WebSocket, EventSource, the cache stores, the mock agents, every interceptor),
 * ≈ 240 KB of the sync bundle and ≈ 6 MB of its import's resident set (`npm run bench -- rss`), none
 * of which a run calls. undici is pinned (package.json); its module layout moves only with a deliberate
 * upgrade, and every fetch test goes through these three.
 */
export const Agent = AgentClass;
export type Agent = AgentType;
export type { BuildConnector, Dispatcher };
export { buildConnector };

/** undici's `request(url, { dispatcher, … })` as its index builds it (`makeDispatcher`), for a URL. */
export function request(
  url: URL,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const parsed = undiciUtil.parseURL(url);
  return request$.call(opts.dispatcher, {
    ...opts,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: opts.method,
  });
}
