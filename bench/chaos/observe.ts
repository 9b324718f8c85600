import { createHash } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { MIN_HOST_INTERVAL_MS } from '../../shared/fetch';
import { MIRROR_TYPES, MirrorStore } from '../../shared/mirror';
import type { WireRequest } from './council-process';
import type { ChaosCouncil } from './councils';
import type { Deployment } from './stack';

/**
 * What the campaign measures, always from outside the code under test: the loopback servers' own
 * records (arrival and end of every exchange, by the server's clock) and the mirror as stored in the
 * local peers, compared with a clean run of the same council.
 */

/** Pairs of consecutive arrivals at one server closer than `minIntervalMs` (RATE-1/RATE-2, ROB-3). */
export function spacingViolations(
  requests: readonly Pick<WireRequest, 'at' | 'path'>[],
  minIntervalMs = MIN_HOST_INTERVAL_MS,
) {
  const sorted = [...requests].sort((a, b) => a.at - b.at);
  const close: string[] = [];
  for (let i = 1; i < sorted.length; i += 1) {
    const a = sorted[i - 1] as Pick<WireRequest, 'at' | 'path'>;
    const b = sorted[i] as Pick<WireRequest, 'at' | 'path'>;
    if (b.at - a.at < minIntervalMs) close.push(`${Math.round(b.at - a.at)} ms: ${a.path} → ${b.path}`);
  }
  return { count: close.length, gaps: close.slice(0, 5) };
}

/** The closest pair of consecutive arrivals at one server (ms; Infinity with fewer than two). */
export function minGapMs(requests: readonly Pick<WireRequest, 'at'>[]): number {
  const sorted = requests.map((r) => r.at).sort((a, b) => a - b);
  let min = Number.POSITIVE_INFINITY;
  for (let i = 1; i < sorted.length; i += 1)
    min = Math.min(min, (sorted[i] as number) - (sorted[i - 1] as number));
  return min;
}

/** The most exchanges open at once at one server (RATE-4), from arrival to the socket's end. */
export function maxInFlight(
  requests: readonly Pick<WireRequest, 'at' | 'endAt'>[],
  openUntil = Number.POSITIVE_INFINITY,
): number {
  const edges: [number, number][] = [];
  for (const r of requests) {
    edges.push([r.at, 1]);
    edges.push([r.endAt ?? openUntil, -1]);
  }
  // At equal times an end comes before a start: a socket closed as the next one opened is not overlap.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let max = 0;
  for (const [, d] of edges) {
    open += d;
    max = Math.max(max, open);
  }
  return max;
}

/** One object of a mirror, with its origin-independent content hash (two councils, two ports). */
export interface MirrorSnapshot {
  /** `type path` → content hash, live objects only. */
  live: Map<string, string>;
  /** `type path` → how many index entries / records name it (more than one = duplicated). */
  copies: Map<string, number>;
  /** `type path` of objects whose record or index entry is live (for takedowns). */
  liveIds: Set<string>;
  /** S3 mirror records without an index entry, or index entries without a record. */
  strays: number;
}

export function pathOf(id: string, origin: string): string {
  return id.startsWith(origin) ? id.slice(origin.length) : id;
}

export async function snapshotMirror(
  d: Deployment,
  sourceId: string,
  origin: string,
): Promise<MirrorSnapshot> {
  const mirror = new MirrorStore(d.admin, { bucket: d.env.BUCKET, stateTable: d.env.STATE_TABLE });
  const live = new Map<string, string>();
  const copies = new Map<string, number>();
  const liveIds = new Set<string>();
  const indexedKeys = new Set<string>();
  for (const type of MIRROR_TYPES) {
    for await (const entry of mirror.listAll(sourceId, type)) {
      const name = `${type} ${pathOf(entry.id, origin)}`;
      copies.set(name, (copies.get(name) ?? 0) + 1);
      indexedKeys.add(entry.key);
      const record = await mirror.read(sourceId, type, entry.id);
      if (!entry.deleted || (record && record.meta.deleted !== true)) liveIds.add(name);
      if (!entry.deleted && record && record.meta.deleted !== true) {
        const normalized = JSON.stringify(record.object).split(origin).join('ORIGIN');
        live.set(name, createHash('sha1').update(normalized).digest('hex'));
      }
    }
  }
  let strays = 0;
  let token: string | undefined;
  const stored = new Set<string>();
  do {
    const out = await d.admin.s3.send(
      new ListObjectsV2Command({
        Bucket: d.env.BUCKET,
        Prefix: `mirror/${sourceId}/`,
        ...(token ? { ContinuationToken: token } : {}),
      }),
    );
    for (const o of out.Contents ?? []) stored.add(o.Key ?? '');
    token = out.NextContinuationToken;
  } while (token);
  for (const key of stored) if (!indexedKeys.has(key)) strays += 1;
  for (const key of indexedKeys) if (!stored.has(key)) strays += 1;
  return { live, copies, liveIds, strays };
}

/**
 * Lost: objects of the clean run missing from this mirror or held in another version. Duplicated:
 * extra copies of one object, objects the clean run does not have, and records without index entry
 * (or the reverse). `expectedAbsent` are objects that must not be there (taken down, or a list the
 * scenario legitimately could not read); they are neither lost nor counted here.
 */
export function compareMirrors(
  clean: MirrorSnapshot,
  got: MirrorSnapshot,
  expectedAbsent: (name: string) => boolean = () => false,
): { lostObjects: number; duplicatedObjects: number; lost: string[]; extra: string[] } {
  const lost: string[] = [];
  const extra: string[] = [];
  for (const [name, hash] of clean.live) {
    if (expectedAbsent(name)) continue;
    if (got.live.get(name) !== hash) lost.push(name);
  }
  let duplicatedObjects = got.strays;
  for (const n of got.copies.values()) if (n > 1) duplicatedObjects += n - 1;
  for (const name of got.live.keys()) {
    if (!clean.live.has(name) && !expectedAbsent(name)) extra.push(name);
  }
  duplicatedObjects += extra.length;
  return { lostObjects: lost.length, duplicatedObjects, lost: lost.slice(0, 5), extra: extra.slice(0, 5) };
}

/** Requests to a council in a time window (server clock), robots.txt excluded when asked. */
export function requestsOf(
  council: ChaosCouncil,
  opts: { sinceEpochMs?: number; pathMatches?: RegExp; includeRobots?: boolean } = {},
): WireRequest[] {
  return council.requests.filter(
    (r) =>
      r.epochMs >= (opts.sinceEpochMs ?? Number.NEGATIVE_INFINITY) &&
      (opts.includeRobots || r.path !== '/robots.txt') &&
      (opts.pathMatches === undefined || opts.pathMatches.test(r.path)),
  );
}
