import type { Redis } from '@upstash/redis';
// RATE-8's cap has one home, the fetcher's (it reads the header); the ledger keeps pauses within it.
import { RETRY_AFTER_CAP_MS } from '../fetch';
import { hostKey } from '../util';
import { CRAWL_DELAY_CAP_MS, DEFAULT_STORE_TIMEOUT_MS, OTHER_FETCH_BUCKET_MS } from './constants';
import { SlotStoreUnavailableError } from './errors';
import { NOTE_HOST_FLOOR_SCRIPT, READ_HOST_LEDGER_SCRIPT, RECORD_OTHER_FETCHES_SCRIPT } from './scripts';

/**
 * The host ledger: what the planner and the document passes read of every host at once, in one call
 * (RATE-9 "one host, one budget", issue 27 item 5) — never one call per host, so a tick over 10,000
 * sources costs the same single read as one over ten.
 *
 * - Floors: the RATE-8 pauses (Retry-After) and ROB-10 Crawl-delays in force, written by `PacedHostSlots`
 *   whenever it notes one (the per-host slot keys stay the authority for pacing; this index is their
 *   fleet-wide copy for planning, and only ever errs towards a floor that already expired).
 * - Other fetches' use: requests of the document passes (files, text, deletion check, photos) and the
 *   preview per host, counted in time buckets (`OTHER_FETCH_BUCKET_MS`) and read as requests per second
 *   over the last bucket and the current one.
 */
export interface HostFloor {
  /** ROB-10: Crawl-delay in force, ms (≤ 60 s). */
  crawlDelayMs?: number;
  /** RATE-8: no request before this instant (epoch ms). */
  pausedUntilMs?: number;
}

export interface HostLedgerReading {
  /** Per host key: the floors in force now. */
  floors: Map<string, HostFloor>;
  /** Per host key: requests per second the other fetches used over the recent window. */
  otherRequestsPerSecond: Map<string, number>;
}

export interface HostLedger {
  readonly mode: 'shared' | 'local';
  /** RATE-8 / ROB-10: a floor `PacedHostSlots` noted (only ever raised while in force, as the slot keys). */
  noteFloor(host: string | URL, floor: FloorNote): Promise<void>;
  /** Item 5: requests other fetches sent, per host (called by a pass after each host, and at its end). */
  recordOtherFetches(counts: ReadonlyMap<string, number>): Promise<void>;
  /** Everything at once, for the planner's tick and a pass's admission. */
  read(): Promise<HostLedgerReading>;
  /**
   * One host only (a reading with at most that host in it), for a single fetch's admission (the preview):
   * a few fields instead of the whole ledger — at 10,000 hosts `read` moves ~450 KB.
   */
  readHost(host: string | URL): Promise<HostLedgerReading>;
}

export type FloorNote =
  | { kind: 'pause'; delayMs: number }
  | { kind: 'crawl-delay'; delayMs: number; validForMs: number };

/** Requests per second from the counts of the last bucket and the current one (`nowMs` in it). */
function ratesOf(
  previous: Map<string, number>,
  current: Map<string, number>,
  nowMs: number,
): Map<string, number> {
  const seconds = (OTHER_FETCH_BUCKET_MS + (nowMs - bucketOf(nowMs) * OTHER_FETCH_BUCKET_MS)) / 1000;
  const rates = new Map<string, number>();
  for (const [host, n] of [...previous, ...current]) rates.set(host, (rates.get(host) ?? 0) + n / seconds);
  return rates;
}

function bucketOf(nowMs: number): number {
  return Math.floor(nowMs / OTHER_FETCH_BUCKET_MS);
}

/** Shared through Redis (Upstash): three small scripts, one round trip each. */
export class RedisHostLedger implements HostLedger {
  readonly mode = 'shared';
  private readonly floorsKey: string;
  private readonly noteScript;
  private readonly recordScript;
  private readonly readScript;
  private readonly readOneScript;

  constructor(
    redis: Redis,
    private readonly prefix = 'ingestor:slots:',
    private readonly nowMs: () => number = Date.now,
  ) {
    // One hash tag for every ledger key: the read script touches them together (one slot in a cluster).
    this.floorsKey = `${prefix}{ledger}:floors`;
    this.noteScript = redis.createScript<number>(NOTE_HOST_FLOOR_SCRIPT);
    this.recordScript = redis.createScript<number>(RECORD_OTHER_FETCHES_SCRIPT);
    this.readScript = redis.createScript<unknown[]>(READ_HOST_LEDGER_SCRIPT);
    this.readOneScript = redis.createScript<unknown[]>(READ_ONE_HOST_SCRIPT);
  }

  private bucketKey(bucket: number): string {
    return `${this.prefix}{ledger}:other-fetches:${bucket}`;
  }

  async noteFloor(host: string | URL, note: FloorNote): Promise<void> {
    const key = hostKey(host);
    const args =
      note.kind === 'pause'
        ? [`pause:${key}`, 'until', String(Math.ceil(Math.min(note.delayMs, RETRY_AFTER_CAP_MS))), '0']
        : [
            `crawl:${key}`,
            'value',
            String(Math.ceil(Math.min(note.delayMs, CRAWL_DELAY_CAP_MS))),
            String(Math.ceil(note.validForMs)),
          ];
    await call('note floor', () => this.noteScript.exec([this.floorsKey], args));
  }

  async recordOtherFetches(counts: ReadonlyMap<string, number>): Promise<void> {
    const pairs = [...counts].filter(([, n]) => n > 0).flatMap(([host, n]) => [hostKey(host), String(n)]);
    if (pairs.length === 0) return;
    const key = this.bucketKey(bucketOf(this.nowMs()));
    // Kept for the bucket after it (the reader's "last bucket") and a margin.
    await call('record other fetches', () =>
      this.recordScript.exec([key], [String(3 * OTHER_FETCH_BUCKET_MS), ...pairs]),
    );
  }

  async read(): Promise<HostLedgerReading> {
    const nowMs = this.nowMs();
    const bucket = bucketOf(nowMs);
    const reply = await call('read', () =>
      this.readScript.exec([this.floorsKey, this.bucketKey(bucket - 1), this.bucketKey(bucket)], []),
    );
    const [redisNow, floorsFlat, previousFlat, currentFlat] = reply as [
      unknown,
      string[],
      string[],
      string[],
    ];
    return {
      floors: floorsOf(floorsFlat ?? [], Number(redisNow)),
      otherRequestsPerSecond: ratesOf(countsOf(previousFlat ?? []), countsOf(currentFlat ?? []), nowMs),
    };
  }

  async readHost(host: string | URL): Promise<HostLedgerReading> {
    const key = hostKey(host);
    const nowMs = this.nowMs();
    const bucket = bucketOf(nowMs);
    const reply = await call('read host', () =>
      this.readOneScript.exec(
        [this.floorsKey, this.bucketKey(bucket - 1), this.bucketKey(bucket)],
        [`pause:${key}`, `crawl:${key}`, key],
      ),
    );
    return oneHostReading(key, reply as unknown[], nowMs);
  }
}

/**
 * read-host-ledger-one — what `read-host-ledger` returns, for one host: its two floor fields and its counts
 * in the last and the current bucket. KEYS as there; ARGV[1] `pause:<host>`, ARGV[2] `crawl:<host>`,
 * ARGV[3] the host. Reply {now, pause, crawl, last count, current count} (missing ones nil).
 */
const READ_ONE_HOST_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local f = redis.call('HMGET', KEYS[1], ARGV[1], ARGV[2])
return {now, f[1], f[2], redis.call('HGET', KEYS[2], ARGV[3]), redis.call('HGET', KEYS[3], ARGV[3])}
`;

/** The reading of one host from its fields (the full reading's shape, so callers need not care). */
function oneHostReading(host: string, reply: readonly unknown[], nowMs: number): HostLedgerReading {
  const [redisNow, pause, crawl, previous, current] = reply;
  const floorsFlat: string[] = [];
  if (pause !== null && pause !== undefined && pause !== false)
    floorsFlat.push(`pause:${host}`, String(pause));
  if (crawl !== null && crawl !== undefined && crawl !== false)
    floorsFlat.push(`crawl:${host}`, String(crawl));
  const count = (n: unknown) =>
    n === null || n === undefined || n === false ? new Map<string, number>() : new Map([[host, Number(n)]]);
  return {
    floors: floorsOf(floorsFlat, Number(redisNow)),
    otherRequestsPerSecond: ratesOf(count(previous), count(current), nowMs),
  };
}

/** `pause:<host>` / `crawl:<host>` → "value:expiresAtMs" (Redis clock), the expired ones left out. */
function floorsOf(flat: readonly string[], nowMs: number): Map<string, HostFloor> {
  const floors = new Map<string, HostFloor>();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const field = String(flat[i]);
    const [value, expires] = String(flat[i + 1])
      .split(':')
      .map(Number) as [number, number];
    if (!(expires > nowMs)) continue;
    const colon = field.indexOf(':');
    const kind = field.slice(0, colon);
    const host = field.slice(colon + 1);
    const floor = floors.get(host) ?? {};
    if (kind === 'pause') floor.pausedUntilMs = value;
    else if (kind === 'crawl') floor.crawlDelayMs = value;
    floors.set(host, floor);
  }
  return floors;
}

function countsOf(flat: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + 1 < flat.length; i += 2) counts.set(String(flat[i]), Number(flat[i + 1]));
  return counts;
}

/**
 * Every failure — error or no answer within DEFAULT_STORE_TIMEOUT_MS — is the store's (RATE-7): callers
 * plan without the ledger rather than fail or wait.
 */
async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SlotStoreUnavailableError(
            `host ledger ${what}: no answer within ${DEFAULT_STORE_TIMEOUT_MS} ms`,
          ),
        ),
      DEFAULT_STORE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([run(), timeout]);
  } catch (error) {
    if (error instanceof SlotStoreUnavailableError) throw error;
    throw new SlotStoreUnavailableError(`host ledger ${what} failed: ${(error as Error).message}`, error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The ledger of one process: local mode (`npm start` without Upstash), where the planner, the sync and
 * the passes share one process and so one ledger (`processHostLedger`). Same rules as the Redis one.
 */
export class LocalHostLedger implements HostLedger {
  readonly mode = 'local';
  private readonly floors = new Map<string, { pause?: [number, number]; crawl?: [number, number] }>();
  private readonly buckets = new Map<number, Map<string, number>>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  async noteFloor(host: string | URL, note: FloorNote): Promise<void> {
    const key = hostKey(host);
    const now = this.nowMs();
    const rec = this.floors.get(key) ?? {};
    if (note.kind === 'pause') {
      const until = now + Math.min(note.delayMs, RETRY_AFTER_CAP_MS);
      // RATE-8: never shortens a pause.
      if (rec.pause === undefined || rec.pause[1] <= now || until > rec.pause[0]) rec.pause = [until, until];
    } else {
      const delay = Math.min(note.delayMs, CRAWL_DELAY_CAP_MS);
      if (rec.crawl === undefined || rec.crawl[1] <= now || delay >= rec.crawl[0])
        rec.crawl = [delay, now + note.validForMs];
    }
    this.floors.set(key, rec);
  }

  async recordOtherFetches(counts: ReadonlyMap<string, number>): Promise<void> {
    const bucket = bucketOf(this.nowMs());
    for (const old of this.buckets.keys()) if (old < bucket - 1) this.buckets.delete(old);
    const into = this.buckets.get(bucket) ?? new Map<string, number>();
    for (const [host, n] of counts) if (n > 0) into.set(hostKey(host), (into.get(hostKey(host)) ?? 0) + n);
    this.buckets.set(bucket, into);
  }

  async read(): Promise<HostLedgerReading> {
    const now = this.nowMs();
    const floors = new Map<string, HostFloor>();
    for (const [host, rec] of this.floors) {
      const floor: HostFloor = {};
      if (rec.pause !== undefined && rec.pause[1] > now) floor.pausedUntilMs = rec.pause[0];
      if (rec.crawl !== undefined && rec.crawl[1] > now) floor.crawlDelayMs = rec.crawl[0];
      if (Object.keys(floor).length > 0) floors.set(host, floor);
    }
    const bucket = bucketOf(now);
    return {
      floors,
      otherRequestsPerSecond: ratesOf(
        this.buckets.get(bucket - 1) ?? new Map(),
        this.buckets.get(bucket) ?? new Map(),
        now,
      ),
    };
  }

  async readHost(host: string | URL): Promise<HostLedgerReading> {
    const key = hostKey(host);
    const all = await this.read();
    const floor = all.floors.get(key);
    const rate = all.otherRequestsPerSecond.get(key);
    return {
      floors: floor === undefined ? new Map() : new Map([[key, floor]]),
      otherRequestsPerSecond: rate === undefined ? new Map() : new Map([[key, rate]]),
    };
  }
}

let processLedger: LocalHostLedger | undefined;

/** The one ledger of this process in local mode: what its slots note, its planner reads. */
export function processHostLedger(): LocalHostLedger {
  processLedger ??= new LocalHostLedger();
  return processLedger;
}

/**
 * Starts this process's ledger afresh: later `processHostLedger()` calls (new slots, a new planner) get an
 * empty one, while slots and readers built before keep the one they hold. For a process that runs
 * unrelated deployments one after another in one module context — the test runner's shared-context
 * workers, one test file after another (test/support/process-state.ts) — so that one file's floors and
 * other fetches on 127.0.0.1 do not cut the next file's budget. Production never calls it: a process is
 * one deployment there and keeps one ledger for its life (RATE-9).
 */
export function resetProcessHostLedger(): void {
  processLedger = undefined;
}
