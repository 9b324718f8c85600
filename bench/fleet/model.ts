/**
 * The fleet bench's world model (issue 27, RATE-9): which councils sit on which host, how their servers
 * answer, what a run asks of them and when they change. Pure and seeded — the same seed gives the same
 * fleet and the same latencies, so two allocations are compared on one world.
 *
 * Where the numbers come from (each is a stated assumption, changed here only):
 * - Fleet shape, from the public OParl endpoint list (`hosts.tsv` in the shared fixtures, read once
 *   by hand — the bench embeds the shape and reads nothing at run time): 128 systems on 85 hostnames,
 *   42 of them (33 %) on two hosting centres' hosts (26 and 16), a few hosts with two systems, the rest
 *   one system per host. Scaled: 33 % of the sources on hosting hosts of 200, 120, 80, 50, 30, 20
 *   councils (the cycle repeats; 1,000 sources give 200 + 130, like 26 + 16 scaled by 7.8), the rest
 *   one to a host. 40 % of the sources are scraped HTML sites at 2 s (RATE-3; the cost bench's
 *   `oparlShare` of 60 %); a hosting host serves one kind (one product per centre).
 * - Crawl-delay (ROB-10): 5 % of the lone hosts ask for 3 s, 2 % for 10 s.
 * - Requests per run (the planner's `DEFAULT_EXPECTED_REQUESTS` of issue 27 for OParl): an OParl
 *   incremental asks ~a dozen lists one small page each plus system, body and robots.txt = 16 small
 *   pages, and 2 pages of 100 objects more when something changed; an OParl full sync ~225 pages of 100
 *   objects (issue 27), per source × 0.5–1.5. A scraped incremental: 8 pages (calendar, meeting and
 *   agenda pages), 3 more when changed; a scraped full sync 120 pages, per source × 0.5–1.5.
 * - Server latency per request (triangular: min, mode, max, seconds): OParl pages of 100 objects
 *   1.0 / 1.6 / 3.0 ("often 1–3 s", issue 27); small OParl pages (a `modified_since` list with few
 *   objects, system, body) 0.15 / 0.3 / 0.8; scraped HTML pages 0.3 / 0.6 / 1.5.
 * - Changes: each source publishes `changesPerWeekday` changes (the cost bench's assumption, 4) at
 *   random instants of weekdays 08:00–18:00 (Poisson), none at the weekend; a run sees a change when
 *   one happened since its previous start (SCH-3 resets the quiet doubling).
 * - Session days (SCH-2): `sessionDaysPerWeek` (2) random weekdays per source.
 * - Full syncs: every source the default window (03:00–08:00, FULL-1) and no minimum distance
 *   (`fullSyncMinDays` 0: a full sync every night if it fits).
 */
import { ASSUMPTIONS } from '../cost/assumptions';
import { type Random, seededRandom } from '../random';

export type SourceKind = 'oparl' | 'scraped';
export type PageKind = 'small' | 'large' | 'html';

/** RATE-1 / RATE-3: the published intervals per source kind, seconds. */
export const REQUEST_INTERVAL_SECONDS: Record<SourceKind, number> = { oparl: 1, scraped: 2 };

export const FLEET_SHAPE = {
  /** Share of sources on hosting hosts (42 of 128 in hosts.tsv). */
  hostedShare: 42 / 128,
  /** Councils per hosting host, in turn (the last one takes the remainder, at least 20). */
  hostingSizes: [200, 120, 80, 50, 30, 20] as readonly number[],
  minHostingSize: 20,
  scrapedShare: 1 - ASSUMPTIONS.oparlShare,
  /** Every n-th hosting host (by index mod 5 in this set) is a scraped product. */
  scrapedHostingIndexes: [1, 3] as readonly number[],
  crawlDelays: [
    { share: 0.05, seconds: 3 },
    { share: 0.02, seconds: 10 },
  ] as readonly { share: number; seconds: number }[],
} as const;

export const RUN_REQUESTS = {
  oparl: { incremental: 16, changedExtra: 2, full: 225 },
  scraped: { incremental: 8, changedExtra: 3, full: 120 },
  /** Per source, its full sync's size is the above × a factor drawn in this range. */
  fullScale: [0.5, 1.5] as const,
} as const;

/** Triangular latency per page kind, seconds. */
export const LATENCY_SECONDS: Record<PageKind, { min: number; mode: number; max: number }> = {
  large: { min: 1.0, mode: 1.6, max: 3.0 },
  small: { min: 0.15, mode: 0.3, max: 0.8 },
  html: { min: 0.3, mode: 0.6, max: 1.5 },
};

export { type Random, seededRandom } from '../random';

/** A draw from the triangular distribution (min, mode, max) by inverse transform. */
export function triangular(u: number, min: number, mode: number, max: number): number {
  const split = (mode - min) / (max - min);
  return u < split
    ? min + Math.sqrt(u * (max - min) * (mode - min))
    : max - Math.sqrt((1 - u) * (max - min) * (max - mode));
}

export function latencyMs(page: PageKind, random: Random): number {
  const l = LATENCY_SECONDS[page];
  return triangular(random(), l.min, l.mode, l.max) * 1000;
}

/** The mean of a page kind's latency, ms ((min + mode + max) / 3). */
export function meanLatencyMs(page: PageKind): number {
  const l = LATENCY_SECONDS[page];
  return ((l.min + l.mode + l.max) / 3) * 1000;
}

export interface FleetHost {
  /** A RATE-2 host key (lower-case, no port). */
  host: string;
  hosting: boolean;
  kind: SourceKind;
  /** ROB-10, ms (0 = none). */
  crawlDelayMs: number;
  sourceIndexes: number[];
}

export interface FleetSource {
  index: number;
  sourceId: string;
  host: string;
  hosting: boolean;
  kind: SourceKind;
  requestIntervalSeconds: number;
  /** This source's full sync, pages. */
  fullRequests: number;
}

export interface Fleet {
  sources: FleetSource[];
  hosts: FleetHost[];
}

/** The hosting hosts' sizes for `hosted` councils: the cycle of `hostingSizes`, remainder to the last. */
export function hostingSizesFor(hosted: number): number[] {
  const sizes: number[] = [];
  let left = hosted;
  for (let i = 0; left > 0; i += 1) {
    const size = FLEET_SHAPE.hostingSizes[i % FLEET_SHAPE.hostingSizes.length] as number;
    if (left - size < FLEET_SHAPE.minHostingSize) {
      if (left >= FLEET_SHAPE.minHostingSize || sizes.length === 0) sizes.push(left);
      else sizes[sizes.length - 1] = (sizes[sizes.length - 1] as number) + left;
      break;
    }
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/** The fleet of `count` sources, shaped as described at the top of this file. */
export function buildFleet(count: number, seed: number): Fleet {
  const random = seededRandom(seed);
  const sources: FleetSource[] = [];
  const hosts: FleetHost[] = [];
  const hosted = Math.round(count * FLEET_SHAPE.hostedShare);
  const addSource = (host: FleetHost) => {
    const index = sources.length;
    const [lo, hi] = RUN_REQUESTS.fullScale;
    sources.push({
      index,
      sourceId: `src-${String(index).padStart(6, '0')}`,
      host: host.host,
      hosting: host.hosting,
      kind: host.kind,
      requestIntervalSeconds: REQUEST_INTERVAL_SECONDS[host.kind],
      fullRequests: Math.round(RUN_REQUESTS[host.kind].full * (lo + (hi - lo) * random())),
    });
    host.sourceIndexes.push(index);
  };
  let scrapedHosted = 0;
  hostingSizesFor(hosted).forEach((size, i) => {
    const kind: SourceKind = FLEET_SHAPE.scrapedHostingIndexes.includes(i % 5) ? 'scraped' : 'oparl';
    const host: FleetHost = {
      host: `ris${i + 1}.hosting.example`,
      hosting: true,
      kind,
      crawlDelayMs: 0,
      sourceIndexes: [],
    };
    hosts.push(host);
    for (let j = 0; j < size; j += 1) addSource(host);
    if (kind === 'scraped') scrapedHosted += size;
  });
  const lone = count - hosted;
  // The lone sites make up the rest of the scraped share (spread evenly by a running quota).
  const scrapedLone = Math.max(0, Math.round(count * FLEET_SHAPE.scrapedShare) - scrapedHosted);
  for (let i = 0; i < lone; i += 1) {
    const scraped = Math.floor(((i + 1) * scrapedLone) / lone) > Math.floor((i * scrapedLone) / lone);
    const u = random();
    let crawlDelayMs = 0;
    let acc = 0;
    for (const c of FLEET_SHAPE.crawlDelays) {
      acc += c.share;
      if (u < acc) {
        crawlDelayMs = c.seconds * 1000;
        break;
      }
    }
    const host: FleetHost = {
      host: `council${i + 1}.example`,
      hosting: false,
      kind: scraped ? 'scraped' : 'oparl',
      crawlDelayMs,
      sourceIndexes: [],
    };
    hosts.push(host);
    addSource(host);
  }
  return { sources, hosts };
}

/** RATE-1/2, ROB-10: the host's interval — the largest of its sources' intervals and its Crawl-delay. */
export function hostIntervalMs(host: FleetHost, fleet: Fleet): number {
  let ms = host.crawlDelayMs;
  for (const i of host.sourceIndexes)
    ms = Math.max(ms, (fleet.sources[i] as FleetSource).requestIntervalSeconds * 1000);
  return ms;
}

/** What one run asks: its requests in order, each with its page kind. */
export interface RunPlan {
  requests: number;
  /** Page kind of request i (0-based). */
  pageOf(i: number): PageKind;
}

export function runPlanOf(
  source: FleetSource,
  kind: 'incremental' | 'full' | 'sliced',
  changed: boolean,
): RunPlan {
  const r = RUN_REQUESTS[source.kind];
  if (source.kind === 'scraped') {
    const requests =
      kind === 'incremental' ? r.incremental + (changed ? r.changedExtra : 0) : source.fullRequests;
    return { requests, pageOf: () => 'html' };
  }
  if (kind !== 'incremental') return { requests: source.fullRequests, pageOf: () => 'large' };
  const small = r.incremental;
  return { requests: small + (changed ? r.changedExtra : 0), pageOf: (i) => (i < small ? 'small' : 'large') };
}

/**
 * Change instants of one source over [fromMs, toMs): Poisson at `perWeekday` over the weekday windows
 * (08:00–18:00 local, given as [start, end) ms pairs).
 */
export function changeInstants(
  windows: readonly (readonly [number, number])[],
  perWeekday: number,
  random: Random,
): number[] {
  const out: number[] = [];
  for (const [start, end] of windows) {
    const rate = perWeekday / (end - start);
    let t = start;
    for (;;) {
      t += -Math.log(1 - random()) / rate;
      if (t >= end) break;
      out.push(t);
    }
  }
  return out;
}
