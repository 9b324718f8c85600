import { isRecord, textValue } from '../engine';
import {
  createRunContext,
  type FetchEvent,
  type FetchSource,
  type HostSlotLease,
  type HostSlots,
  HttpStatusError,
  type PoliteFetcher,
  type RunContext,
  realSleep,
  type Sleep,
  type UserAgentComparison,
} from '../fetch';
import { robotsFetchPolicy } from '../robots';
import { type DetectedProduct, decodeHtml, detectProduct } from '../scraper';
import { hostKey } from '../util';
import {
  PROBE_MAX_HOME_LINKS,
  PROBE_MAX_REQUESTS_PER_BODY,
  PROBE_OPARL_PATHS,
  PROBE_PAUSE_BETWEEN_BODIES_MS,
  PROBE_SOURCE_ID,
} from './constants';
import { ProbeUrlError } from './errors';

/**
 * ONB-1: before a system is added, find out cheaply whether it offers an OParl API — at most 5 requests
 * per body, counted where they are made: every request of the polite fetcher takes a host slot first
 * (RATE-1: robots.txt fetches and every redirect hop included), so a slot gate that stops granting
 * after the fifth slot is a hard cap that no redirect or foreign robots.txt can get around. Paths
 * robots.txt disallows are refused by the fetcher before any slot is taken, i.e. never requested; an
 * unreachable robots.txt ends the body's probe after that one request (ROB-7). 2 s between bodies.
 */

// ---------------------------------------------------------------------------------------------- meter

/** Counts and caps the requests of the body being probed; wire both halves into one fetcher. */
export interface ProbeMeter {
  /** Wraps the fetcher's slots: each granted slot is one request; none beyond the budget. */
  wrapSlots(slots: HostSlots): HostSlots;
  /** The fetcher's `onRequest` hook. */
  observe(event: FetchEvent): void;
  /** Starts a new body with a fresh budget and event list. */
  startBody(limit: number): void;
  /** Requests made (slots granted) for the current body. */
  readonly used: number;
  /** True once a slot was refused because the budget was spent. */
  readonly exhausted: boolean;
  /** Fetch events of the current body, in order. */
  readonly events: readonly FetchEvent[];
}

export function createProbeMeter(): ProbeMeter {
  let limit = 0;
  let used = 0;
  let exhausted = false;
  let events: FetchEvent[] = [];
  const take = (): boolean => {
    if (used >= limit) {
      exhausted = true;
      return false;
    }
    used += 1;
    return true;
  };
  const wrapLease = (lease: HostSlotLease): HostSlotLease => ({
    granted: true,
    host: lease.host,
    async moveTo(host, request) {
      // A redirect hop is a request of its own (RATE-1, ONB-1).
      if (!take()) {
        await lease.release();
        return { granted: false };
      }
      let next: Awaited<ReturnType<HostSlotLease['moveTo']>>;
      try {
        next = await lease.moveTo(host, request);
      } catch (error) {
        used -= 1;
        throw error;
      }
      if (!next.granted) used -= 1;
      return next.granted ? wrapLease(next) : next;
    },
    onTime: () => lease.onTime(),
    // The same request, later: nothing was sent, so nothing is counted.
    async retime(request) {
      const next = await lease.retime(request);
      return next.granted ? wrapLease(next) : next;
    },
    release: () => lease.release(),
  });
  return {
    wrapSlots(slots) {
      return {
        async acquire(host, request) {
          if (!take()) return { granted: false };
          let lease: Awaited<ReturnType<HostSlots['acquire']>>;
          try {
            lease = await slots.acquire(host, request);
          } catch (error) {
            used -= 1; // no slot, no request
            throw error;
          }
          if (!lease.granted) used -= 1;
          return lease.granted ? wrapLease(lease) : lease;
        },
        noteRetryAfter: (host, delayMs) => slots.noteRetryAfter(host, delayMs),
        ...(slots.noteCrawlDelay
          ? {
              noteCrawlDelay: (host: string, delayMs: number, validForMs?: number) =>
                slots.noteCrawlDelay?.(host, delayMs, validForMs) ?? Promise.resolve(),
            }
          : {}),
      };
    },
    observe(event) {
      events.push(event);
    },
    startBody(nextLimit) {
      limit = nextLimit;
      used = 0;
      exhausted = false;
      events = [];
    },
    get used() {
      return used;
    },
    get exhausted() {
      return exhausted;
    },
    get events() {
      return events;
    },
  };
}

// --------------------------------------------------------------------------------------------- report

export type RobotsState = 'rules' | 'absent' | 'unreachable' | 'cached' | 'not-asked';

export interface HostRobots {
  host: string;
  /** rules: a robots.txt was read; absent: 4xx (ROB-6); unreachable (ROB-7); cached: known from an earlier fetch. */
  state: RobotsState;
  status: number | null;
}

export interface ProbeStep {
  url: string;
  purpose: string;
  /** HTTP status, or the code of the error / refusal. */
  outcome: string;
  requested: boolean;
}

export interface ProbeOParl {
  systemUrl: string;
  /** `1.0`, `1.1` … from `oparlVersion` (else the type URI); null when neither says. */
  version: string | null;
  vendor: string | null;
  product: string | null;
  bodyListUrl: string | null;
}

export type ProbeStop =
  | 'found'
  | 'robots-unreachable'
  | 'budget'
  | 'unreachable'
  | 'user-agent-blocked'
  | 'no-more-candidates';

export interface BodyProbe {
  url: string;
  /** Requests made for this body (≤ 5): robots.txt, redirect hops and the comparison included. */
  requests: number;
  /** robots.txt of the body's host (the host of the URL given). */
  robots: HostRobots & { disallowed: string[] };
  /** robots.txt of further hosts reached by redirects or links (they count, ONB-1). */
  otherHosts: HostRobots[];
  oparl: ProbeOParl | null;
  /**
   * Issue 8: the council product recognised on the home page (ALLRIS, SessionNet …) — the scraper
   * adapter to configure when no OParl API was found; null when the home page was not read.
   */
  product: { name: DetectedProduct; version: string | null; evidence: string[] } | null;
  /** ID-4: the comparison after a 403 on the home page; null when there was no 403. */
  comparison403: Exclude<UserAgentComparison, { state: 'pending' }> | null;
  stoppedBy: ProbeStop;
  steps: ProbeStep[];
}

export interface ProbeReport {
  bodies: BodyProbe[];
}

export interface ProbeDeps {
  /** A fetcher whose slots are wrapped by `meter` and whose `onRequest` feeds it. */
  fetcher: PoliteFetcher;
  meter: ProbeMeter;
  /** The 2 s pause between bodies; tests pass an instant one. */
  sleep?: Sleep;
  /** RATE-2: the largest interval configured for any source on a host, ms. */
  hostIntervalMs?: (host: string) => number | undefined;
  /** Progress for people (one line per step). */
  onProgress?: (line: string) => void;
}

// ----------------------------------------------------------------------------------------------- probe

const PROBE_SOURCE: FetchSource = { sourceId: PROBE_SOURCE_ID, requestIntervalSeconds: 1 };

function parseProbeUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProbeUrlError(raw);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw new ProbeUrlError(raw);
  }
  url.hash = '';
  return url;
}

/** The System object if `text` is one (type …/System, or the System's two identifying fields). */
export function systemFrom(text: string, fetchedUrl: string): ProbeOParl | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  const type = textValue(parsed.type);
  const isSystem =
    (type !== undefined && /oparl\.org\/.*\/System$/i.test(type)) ||
    (textValue(parsed.oparlVersion) !== undefined && textValue(parsed.body) !== undefined);
  if (!isSystem) return null;
  const versionSource = textValue(parsed.oparlVersion) ?? type ?? '';
  const version = /(\d+\.\d+)/.exec(versionSource)?.[1] ?? null;
  const id = textValue(parsed.id);
  let systemUrl = fetchedUrl;
  if (id !== undefined) {
    try {
      const u = new URL(id);
      if (u.protocol === 'http:' || u.protocol === 'https:') systemUrl = u.toString();
    } catch {
      // keep the address that answered
    }
  }
  const body = textValue(parsed.body);
  let bodyListUrl: string | null = null;
  if (body !== undefined) {
    try {
      bodyListUrl = new URL(body, fetchedUrl).toString();
    } catch {
      bodyListUrl = null;
    }
  }
  return {
    systemUrl,
    version,
    vendor: textValue(parsed.vendor) ?? null,
    product: textValue(parsed.product) ?? null,
    bodyListUrl,
  };
}

/**
 * Links on a home page that look like an OParl API (`<link rel="alternate" type="application/json">`
 * first, then `<a>`/`<link>` whose address or text mentions OParl), resolved, without duplicates.
 */
export function oparlLinksFrom(html: string, pageUrl: string): string[] {
  const preferred: string[] = [];
  const others: string[] = [];
  const tagPattern = /<(a|link)\b([^>]*)>([^<]{0,200})/gi;
  for (const match of html.matchAll(tagPattern)) {
    const attributes = match[2] ?? '';
    const text = match[3] ?? '';
    const href = /\bhref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attributes);
    const value = href?.[2] ?? href?.[3] ?? href?.[4];
    if (value === undefined) continue;
    const alternateJson =
      /\brel\s*=\s*["']?alternate/i.test(attributes) && /application\/json/i.test(attributes);
    if (!alternateJson && !/oparl/i.test(value) && !/oparl/i.test(text) && !/oparl/i.test(attributes))
      continue;
    let resolved: string;
    try {
      const u = new URL(value.replace(/&amp;/g, '&'), pageUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') continue;
      u.hash = '';
      resolved = u.toString();
    } catch {
      continue;
    }
    (alternateJson ? preferred : others).push(resolved);
  }
  return [...new Set([...preferred, ...others])];
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'ERROR';
}

/** Probes each URL in turn (ONB-1). Throws only for an invalid URL, before any request. */
export async function probeBodies(urls: readonly string[], deps: ProbeDeps): Promise<ProbeReport> {
  const parsed = urls.map(parseProbeUrl);
  const sleep = deps.sleep ?? realSleep;
  const bodies: BodyProbe[] = [];
  for (const [index, url] of parsed.entries()) {
    if (index > 0) await sleep(PROBE_PAUSE_BETWEEN_BODIES_MS);
    bodies.push(await probeOne(url, deps));
  }
  return { bodies };
}

async function probeOne(start: URL, deps: ProbeDeps): Promise<BodyProbe> {
  const { fetcher, meter } = deps;
  const say = deps.onProgress ?? (() => {});
  meter.startBody(PROBE_MAX_REQUESTS_PER_BODY);
  const homeHost = hostKey(start);
  const disallowed: string[] = [];
  let oparl: ProbeOParl | null = null;
  let comparison: BodyProbe['comparison403'] = null;
  let stoppedBy: ProbeStop = 'no-more-candidates';
  const runContext: RunContext = createRunContext(PROBE_SOURCE_ID);

  const options = (purpose: 'scraper' | 'api', host: string, withContext: boolean) => {
    const hostIntervalMs = deps.hostIntervalMs?.(host);
    return {
      purpose,
      source: PROBE_SOURCE,
      // The probe never repeats a request: its budget is five.
      maxAttempts: 1,
      ...(hostIntervalMs !== undefined ? { hostIntervalMs } : {}),
      // ID-4: the comparison is made for a 403 on the home page only (the run context enables it).
      ...(withContext ? { runContext } : {}),
    };
  };

  /** Classifies a failed fetch; returns the stop reason when the probe must end here. */
  const stopFor = (error: unknown, url: string): ProbeStop | undefined => {
    const code = errorCode(error);
    if (code === 'ROBOTS_DISALLOWED') {
      disallowed.push(url);
      return undefined;
    }
    if (code === 'ROBOTS_UNREACHABLE') return 'robots-unreachable';
    if (code === 'HOST_SLOT_TIMEOUT' && meter.exhausted) return 'budget';
    if (code === 'NETWORK' || code === 'TIMEOUT' || code === 'ADDRESS_NOT_PUBLIC') return 'unreachable';
    return undefined;
  };

  const candidates: string[] = [];
  let product: BodyProbe['product'] = null;
  let base = start;
  say(`probe ${start.href}`);
  try {
    const home = await fetcher.fetch(start.href, options('scraper', homeHost, true));
    base = new URL(home.finalUrl);
    const text = decodeHtml(home.body, home.contentType).text;
    const detected = detectProduct({ url: home.finalUrl, html: text, headers: home.headers });
    product = { name: detected.product, version: detected.version ?? null, evidence: detected.evidence };
    oparl = systemFrom(text, home.finalUrl);
    if (oparl === null)
      candidates.push(...oparlLinksFrom(text, home.finalUrl).slice(0, PROBE_MAX_HOME_LINKS));
  } catch (error) {
    if (error instanceof HttpStatusError && error.status === 403) {
      const result = runContext.comparison(error.host);
      if (result !== undefined && result.state !== 'pending') comparison = result;
    }
    const stop = stopFor(error, start.href);
    if (stop !== undefined) stoppedBy = stop;
    // ID-4: a 2xx to the comparison means our User-Agent is blocked: ask this server nothing more.
    if (comparison?.state === 'blocked') stoppedBy = 'user-agent-blocked';
    if (stop !== undefined || comparison?.state === 'blocked') {
      return report(start, deps, { disallowed, oparl, product, comparison403: comparison, stoppedBy });
    }
  }

  if (oparl !== null) {
    stoppedBy = 'found';
  } else {
    for (const path of PROBE_OPARL_PATHS) candidates.push(new URL(path, base.origin).toString());
    const seen = new Set<string>([start.href, base.href]);
    for (const candidate of candidates) {
      if (seen.has(candidate)) continue;
      seen.add(candidate);
      if (meter.used >= PROBE_MAX_REQUESTS_PER_BODY) {
        stoppedBy = 'budget';
        break;
      }
      try {
        const host = hostKey(candidate);
        const res = await fetcher.fetch(candidate, options('api', host, false));
        oparl = systemFrom(res.body.toString('utf8'), res.finalUrl);
        if (oparl !== null) {
          stoppedBy = 'found';
          break;
        }
      } catch (error) {
        const stop = stopFor(error, candidate);
        if (stop !== undefined) {
          stoppedBy = stop;
          break;
        }
      }
    }
  }
  return report(start, deps, { disallowed, oparl, product, comparison403: comparison, stoppedBy });
}

function report(
  start: URL,
  deps: ProbeDeps,
  found: Pick<BodyProbe, 'oparl' | 'comparison403' | 'stoppedBy' | 'product'> & { disallowed: string[] },
): BodyProbe {
  const { meter } = deps;
  const homeHost = hostKey(start);
  const robotsByHost = new Map<string, HostRobots>();
  const steps: ProbeStep[] = [];
  for (const event of meter.events) {
    const requested = event.kind === 'request';
    steps.push({
      url: event.url,
      purpose: event.purpose,
      outcome: event.status !== undefined ? String(event.status) : (event.errorCode ?? 'ERROR'),
      requested,
    });
    if (!robotsByHost.has(event.host)) {
      robotsByHost.set(event.host, { host: event.host, state: 'cached', status: null });
    }
    if (event.purpose === 'robots' && requested) {
      const redirect = event.status !== undefined && event.status >= 300 && event.status < 400;
      if (redirect) continue;
      const action =
        event.status !== undefined
          ? robotsFetchPolicy({ kind: 'response', status: event.status }).action
          : 'unreachable';
      robotsByHost.set(event.host, {
        host: event.host,
        state: action === 'parse' || action === 'revalidated' ? 'rules' : action,
        status: event.status ?? null,
      });
    }
  }
  const home = robotsByHost.get(homeHost) ?? {
    host: homeHost,
    state: 'not-asked' as const,
    status: null,
  };
  const result: BodyProbe = {
    url: start.href,
    requests: meter.used,
    robots: { ...home, disallowed: found.disallowed },
    otherHosts: [...robotsByHost.values()].filter((h) => h.host !== homeHost),
    oparl: found.oparl,
    product: found.product,
    comparison403: found.comparison403,
    stoppedBy: found.stoppedBy,
    steps,
  };
  deps.onProgress?.(
    `  ${result.requests} requests, robots.txt ${result.robots.state}` +
      `${result.oparl ? `, OParl ${result.oparl.version ?? '?'} at ${result.oparl.systemUrl}` : ', no OParl API found'}` +
      ` (${result.stoppedBy})`,
  );
  return result;
}
