import { pathToFileURL } from 'node:url';
import { createFeedClients, destroyFeedClients } from '../shared/changes';
import { contentHash } from '../shared/engine';
import { apiIdHash, MirrorStore } from '../shared/mirror';
import {
  API_QUERY_PARAMETERS,
  type ApiRequest,
  type ApiResponse,
  createMirrorApiHandler,
  MirrorReader,
} from '../shared/mirror-api';
import { mapLimit } from '../shared/util';
import { startAwsTestbed } from '../test/support/aws';
import { paperWrite, seedListedBody } from '../test/support/mirror-api';
import { countCalls } from '../test/support/write-counter';

/**
 * `npm run bench -- api-flood` (issue 25 point 4): 1,000 anonymous junk requests against the OParl API
 * over a mirror of BODIES listed bodies (one of them with 120 papers), through a CDN cache modelled on
 * CloudFront's: a response is kept for its `Cache-Control: public, max-age` under its cache key, and
 * only a miss invokes the function. The key is the path plus either the full query string (`full`: the
 * cache policy before issue 25) or only the query strings the API reads (`known`: `API_QUERY_PARAMETERS`,
 * the stack's cache policy now). Prints JSON per key mode: function invocations, DynamoDB calls and read
 * units, S3 reads — per 1,000 junk requests — and the answers' statuses. A client following `links.next`
 * from a page with a junk parameter is walked by two clients (each its own junk value): `linkWalk` counts
 * the invocations of the second walk (0 = the links hit the cache).
 */
export interface ApiFloodModeResult {
  requests: number;
  invocations: number;
  dynamoCalls: number;
  readUnits: number;
  s3Reads: number;
  statuses: Record<string, number>;
  /** Invocations of a second client walking the same list along `links.next` (0 = every page cached). */
  linkWalk: { pages: number; invocations: number };
}

export interface ApiFloodBenchResult {
  bodies: number;
  papers: number;
  /** Per 1,000 junk requests. */
  full: ApiFloodModeResult;
  known: ApiFloodModeResult;
}

const BODIES = 200;
const PAPERS = 120;
const JUNK_REQUESTS = 1_000;

/** A CDN cache by key: `public, max-age=N` answers kept N s (the bench runs well within them). */
export class CdnModel {
  private readonly cache = new Map<string, ApiResponse>();
  invocations = 0;

  constructor(
    private readonly origin: (request: ApiRequest) => Promise<ApiResponse>,
    private readonly mode: 'full' | 'known',
  ) {}

  async get(url: string): Promise<ApiResponse> {
    const u = new URL(url);
    // CloudFront forwards to the origin only what is in the cache key (cache policy's allow list).
    const query =
      this.mode === 'full'
        ? u.searchParams
        : new URLSearchParams([...u.searchParams].filter(([k]) => API_QUERY_PARAMETERS.includes(k)));
    query.sort();
    const key = `${u.pathname}?${query.toString()}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    this.invocations += 1;
    const res = await this.origin({ method: 'GET', path: u.pathname, query });
    if (/public, max-age=[1-9]/.test(res.headers['cache-control'] ?? '')) this.cache.set(key, res);
    return res;
  }
}

/** The junk mix: unknown parameters, known ones written differently, values the API refuses. */
export function junkUrls(base: string, listUrl: string): string[] {
  const kinds = [
    (i: number) => `${base}/oparl/v1/body?utm_source=${i}`,
    (i: number) => `${base}/oparl/v1/body?limit=0x${(100 + (i % 50)).toString(16)}&r=${i}`,
    (i: number) => `${listUrl}?modified_since=2024-01-01junk${i}`,
    (i: number) => `${listUrl}?x=${i}`,
    (i: number) => `${listUrl}?limit=${['050', '5e1', '50.0', '+50', '0x32'][i % 5]}&n=${i}`,
    (i: number) => `${listUrl}?created_since=garbage${i}`,
    (i: number) => `${base}/oparl/v1/body?modified_since=2024-01-01&cb=${i}`,
    (i: number) => `${listUrl}?limit=100&limit=20&z=${i}`,
  ];
  return Array.from({ length: JUNK_REQUESTS }, (_, i) =>
    (kinds[i % kinds.length] as (n: number) => string)(i),
  );
}

export async function runApiFloodBench(
  opts: { log?: (line: string) => void } = {},
): Promise<ApiFloodBenchResult> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const bed = await startAwsTestbed();
  try {
    const sourceId = 'flood';
    const origin = 'https://ris-flood.test/oparl/v1';
    const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
    const at = '2024-03-01T10:00:00.000Z';
    const bodyIds = Array.from({ length: BODIES }, (_, i) => `${origin}/body/${i + 1}`);
    await mapLimit(bodyIds, 8, async (bodyId, i) => {
      await seedListedBody(bed, sourceId, bodyId, at);
      const object = {
        id: bodyId,
        type: 'https://schema.oparl.org/1.1/Body',
        name: `Gemeinde ${i + 1}`,
        created: '2020-01-01T00:00:00+01:00',
        modified: at,
      };
      await mirror.writeLive({
        sourceId,
        type: 'body',
        id: bodyId,
        object,
        sourceUrl: `${origin}/body`,
        fetchedAt: at,
        hash: contentHash(object),
        modified: at,
      });
    });
    const first = bodyIds[0] as string;
    await mapLimit(
      Array.from({ length: PAPERS }, (_, i) => i + 1),
      8,
      async (n) => {
        await mirror.writeLive(
          paperWrite(sourceId, first, n, new Date(Date.parse(at) + n * 1000).toISOString()),
        );
      },
    );
    log(`api-flood: ${BODIES} bodies, ${PAPERS} papers mirrored`);
    const base = 'https://api.flood.test';
    const listUrl = `${base}/oparl/v1/${sourceId}/body/${apiIdHash(first)}/paper`;
    const run = async (mode: 'full' | 'known'): Promise<ApiFloodModeResult> => {
      // A fresh instance: its own caches and client, so its calls are counted alone.
      const clients = createFeedClients(bed.env);
      const calls = countCalls(clients.dynamo);
      try {
        const reader = new MirrorReader(clients, {
          bucket: bed.env.BUCKET,
          tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
        });
        const handler = createMirrorApiHandler({ reader, baseUrl: base });
        const cdn = new CdnModel((r) => handler.handle(r), mode);
        // Warm: the honest first page of each, as any client's first request would cost anyway.
        await cdn.get(`${base}/oparl/v1/body`);
        await cdn.get(listUrl);
        const before = { ...reader.consumed, calls: calls.calls().length, invocations: cdn.invocations };
        const statuses: Record<string, number> = {};
        for (const url of junkUrls(base, listUrl)) {
          const res = await cdn.get(url);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        }
        const c = reader.consumed;
        const result = {
          requests: JUNK_REQUESTS,
          invocations: cdn.invocations - before.invocations,
          dynamoCalls: calls.calls().length - before.calls,
          readUnits: Math.round((c.capacityUnits - before.capacityUnits) * 10) / 10,
          s3Reads: c.objectReads - before.objectReads,
          statuses,
        };
        // Two clients walk the list from a page with a junk parameter; the second should cost nothing.
        const walk = async (campaign: string): Promise<number> => {
          let next: string | undefined = `${listUrl}?limit=20&utm_campaign=${campaign}`;
          let pages = 0;
          while (next !== undefined) {
            const res = await cdn.get(next);
            if (res.status !== 200) throw new Error(`walk answered ${res.status} for ${next}`);
            pages += 1;
            next = (JSON.parse(res.body) as { links: { next?: string } }).links.next;
          }
          return pages;
        };
        await walk('a');
        const w0 = cdn.invocations;
        const pages = await walk('b');
        return { ...result, linkWalk: { pages, invocations: cdn.invocations - w0 } };
      } finally {
        destroyFeedClients(clients);
      }
    };
    const full = await run('full');
    log(`api-flood full key: ${JSON.stringify(full)}`);
    const known = await run('known');
    return { bodies: BODIES, papers: PAPERS, full, known };
  } finally {
    await bed.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runApiFloodBench()));
}
