import { type BodyRecord, SyncStateStore } from '../engine';
import type { MirrorIndexEntry, MirrorRecord } from '../mirror';
import { apiIdHash, listPartition, MirrorStore, mirrorKeyOfHash } from '../mirror';
import { DIMENSIONS, logger, METRICS, metrics } from '../observability';
import {
  type AwsClients,
  type InlineCopy,
  LIST_INDEX,
  loadAllSources,
  MirrorIndex,
  type StoreTables,
} from '../store';
import { TakedownRegistry, type TakedownSet } from '../takedown';
import { BODIES_TTL_MS } from './constants';
import { MirrorApiIndexMissingError } from './errors';
import { type ListCounts, type ListQuery, sortRange } from './paging';

/**
 * The API's reads (read-only, never a Scan of mirror data): one index Query per list page on
 * `byList`, one GetItem per object, S3 for object bodies. The bodies of all sources — the one
 * thing every request consults: a Scan of the small Sources config table and one Query per source —
 * are kept for BODIES_TTL_MS (docs/mirror-api.md “What is read when”).
 */
export interface MirrorReaderConfig {
  bucket: string;
  tables: Pick<StoreTables, 'sources' | 'state' | 'mirror'>;
}

export interface SourceBody {
  sourceId: string;
  body: BodyRecord;
  /**
   * The body's own mirror index item (`MIRROR#<source>#body`), read with the body records: its commit
   * time, and the body object inline (`o`) when it fits — so the body list needs no S3 read per body.
   * Absent for a body whose object was never mirrored (a scraped one).
   */
  entry?: BodyIndexItem;
}

/** What the body list reads of a body's index item. */
export interface BodyIndexItem {
  sk: string;
  fetchedAt: string;
  deleted: boolean;
  /** Either stored form (shared/store inline-copy.ts). */
  o?: InlineCopy;
}

/**
 * Where a body stands in the API (issue 25 weak spot): served; gone — it was public once and is not
 * any more (taken down, deleted at the origin, unlisted by an operator), since `at`; or never public
 * (not listed yet, ONB-4), which the API does not name at all.
 */
export type BodyStanding =
  | { kind: 'served'; at: string }
  | { kind: 'gone'; at: string; why: 'takedown' | 'unlisted' | 'deleted' }
  | { kind: 'never' };

/**
 * A row of the `byList` index as projected: keys, two flags and the inline copy of a small object;
 * the record's S3 key and commit time follow from the keys.
 */
export interface IndexRowItem {
  pk: string;
  /** The id hash. */
  sk: string;
  /** `LIST_SORT_ATTRIBUTE`: commit time and a slice of the id hash. */
  ls: string;
  deleted: boolean;
  takedown?: unknown;
  /** A small live object inline (shared/mirror `INLINE_ATTRIBUTE`, packed): no S3 read for it. */
  o?: InlineCopy;
}

/** Values loaded per key and reused for BODIES_TTL_MS; a failed load is forgotten (the next request retries). */
class Cached<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(private readonly now: () => number) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.now();
    const cached = this.entries.get(key);
    if (cached && now - cached.at <= BODIES_TTL_MS) return cached.value;
    const value = load();
    this.entries.set(key, { at: now, value });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
}

export class MirrorReader {
  private readonly mirror: MirrorStore;
  private readonly index: MirrorIndex;
  private readonly registry: TakedownRegistry;
  private readonly bodies: Cached<SourceBody[]>;
  private readonly takedownSets: Cached<TakedownSet>;
  private readonly listCounters: Cached<ListCounts | undefined>;
  /**
   * Reads made — DynamoDB (Query, GetItem) and S3 object reads — for the bench's per-page figures;
   * `registryQueries` and `countReads` apart: one per source (list) per BODIES_TTL_MS, not per page.
   */
  readonly consumed = { queries: 0, capacityUnits: 0, objectReads: 0, registryQueries: 0, countReads: 0 };

  constructor(
    private readonly clients: Pick<AwsClients, 'doc' | 's3'>,
    private readonly config: MirrorReaderConfig,
    now: () => number = Date.now,
  ) {
    this.mirror = new MirrorStore(clients, {
      bucket: config.bucket,
      stateTable: config.tables.state,
      mirrorTable: config.tables.mirror,
    });
    this.index = new MirrorIndex({ doc: clients.doc, table: config.tables.state }, config.tables.mirror);
    this.registry = new TakedownRegistry(clients.doc, config.tables.state);
    this.bodies = new Cached(now);
    this.takedownSets = new Cached(now);
    this.listCounters = new Cached(now);
  }

  /**
   * Every body of every source (listed or not: callers decide). The Sources table is a handful of
   * config items; its Scan is the one the planner makes too, and is cached here.
   */
  allBodies(): Promise<SourceBody[]> {
    return this.bodies.get('', () => this.loadBodies());
  }

  /**
   * OPT-5 at serve time: the source's takedown registry, so that no stored copy still embedding a
   * taken-down object (a `tombstone` killed before it rewrote the parents, a sync's write racing it)
   * shows it. Cached like the bodies: a takedown's own rewrite of the stored parents is immediate.
   */
  takedowns(sourceId: string): Promise<TakedownSet> {
    return this.takedownSets.get(sourceId, () => {
      this.consumed.registryQueries += 1;
      return this.registry.load(sourceId);
    });
  }

  /**
   * The counter of one list (shared/mirror `count`), cached like the bodies: a warm page stays one Query,
   * and the counts may lag the page by BODIES_TTL_MS. Absent (a mirror older than the counters, before
   * `backfill-index`) = unknown. A negative value is a drift (a lost write): clamped to zero and reported.
   */
  listCounts(sourceId: string, bodyId: string, type: string): Promise<ListCounts | undefined> {
    const list = listPartition(sourceId, bodyId, type);
    return this.listCounters.get(list, async () => {
      this.consumed.countReads += 1;
      const item = await this.index.listCount(sourceId, list, { consistent: false });
      if (item === undefined) return undefined;
      const entries = Number(item.entries ?? 0);
      const live = Number(item.live ?? 0);
      if (entries < 0 || live < 0) {
        logger.warn('API list counter below zero, clamped (run backfill-index)', { list, entries, live });
        metrics.count(METRICS.apiListCounts, { [DIMENSIONS.outcome]: 'negative' });
      }
      return { entries: Math.max(0, entries), live: Math.min(Math.max(0, live), Math.max(0, entries)) };
    });
  }

  private async loadBodies(): Promise<SourceBody[]> {
    const sources = await loadAllSources(this.clients.doc, this.config.tables.sources);
    const out: SourceBody[] = [];
    for (const parsed of sources.parsed) {
      if (!parsed.ok) continue;
      const sourceId = parsed.source.sourceId;
      const bodies = await new SyncStateStore(this.clients, this.config.tables.state, sourceId).getBodies();
      const entries = bodies.length === 0 ? new Map() : await this.bodyEntries(sourceId);
      for (const body of bodies) {
        const entry = entries.get(apiIdHash(body.id));
        out.push(entry === undefined ? { sourceId, body } : { sourceId, body, entry });
      }
    }
    return out;
  }

  /** The source's body index items: one Query (more only past 1 MB), cached with the bodies. */
  private async bodyEntries(sourceId: string): Promise<Map<string, BodyIndexItem>> {
    const entries = new Map<string, BodyIndexItem>();
    for await (const item of this.index.query(sourceId, 'body', { projection: 'sk, fetchedAt, deleted, o' }))
      entries.set(String(item.sk), item as unknown as BodyIndexItem);
    return entries;
  }

  /**
   * The body a route names, only while it is served: listed (ONB-4), not deleted, and not taken down —
   * neither by the mark on the body record nor by the source's takedown registry. The registry is asked
   * too because `tombstone --body` records the body there first and marks the record after: a command
   * killed in between must not leave the body public (OPT-5), and no sync repairs a record whose lists
   * it skips (`bodyStanding`).
   */
  async servedBody(sourceId: string, bodyHash: string): Promise<BodyRecord | undefined> {
    const named = await this.namedBody(sourceId, bodyHash);
    return named && (await this.standing(named)).kind === 'served' ? named.body : undefined;
  }

  /** The body a route names, whatever its standing. */
  async namedBody(sourceId: string, bodyHash: string): Promise<SourceBody | undefined> {
    const all = await this.allBodies();
    return all.find((b) => b.sourceId === sourceId && apiIdHash(b.body.id) === bodyHash);
  }

  /** A body's standing (`BodyStanding`), from its record, its index item and the takedown registry. */
  async standing(b: SourceBody): Promise<BodyStanding> {
    return bodyStanding(b, (await this.takedowns(b.sourceId)).body(b.body.id)?.at);
  }

  async indexEntry(sourceId: string, type: string, hash: string): Promise<MirrorIndexEntry | undefined> {
    const { item, units } = await this.index.getByHash(sourceId, type, hash);
    this.count(units);
    return item as MirrorIndexEntry | undefined;
  }

  /**
   * One list page: a single Query, Limit = page size + 1 (the extra row tells whether more follow). The
   * partition is a 64-bit hash of source, body and type: two lists of a deployment with 10,000 of them
   * share one with a chance of ≈ 3 × 10⁻¹², which is why nothing checks for it.
   */
  async listPage(sourceId: string, bodyId: string, type: string, query: ListQuery): Promise<IndexRowItem[]> {
    const { lo, hi } = sortRange(query);
    const after = query.cursor?.after;
    const list = listPartition(sourceId, bodyId, type);
    let page: Awaited<ReturnType<MirrorIndex['listPage']>>;
    try {
      page = await this.index.listPage(sourceId, type, {
        list,
        ...(lo !== undefined ? { lo } : {}),
        ...(hi !== undefined ? { hi } : {}),
        limit: query.limit + 1,
        ...(after !== undefined ? { after } : {}),
      });
    } catch (err) {
      const e = err as { name?: string; message?: string };
      if (e.name === 'ValidationException' && /index/i.test(e.message ?? '')) {
        throw new MirrorApiIndexMissingError(LIST_INDEX, err);
      }
      throw err;
    }
    this.count(page.units);
    return page.items as unknown as IndexRowItem[];
  }

  read(entry: Pick<MirrorIndexEntry, 'sourceId' | 'type' | 'id'>): Promise<MirrorRecord | undefined> {
    this.consumed.objectReads += 1;
    return this.mirror.read(entry.sourceId, entry.type, entry.id);
  }

  /** The record behind an index row: its S3 key is `mirror/<source>/<type>/<id hash>.json`. */
  readByHash(sourceId: string, type: string, hash: string): Promise<MirrorRecord | undefined> {
    this.consumed.objectReads += 1;
    return this.mirror.readKey(mirrorKeyOfHash(sourceId, type, hash));
  }

  private count(units: number | undefined): void {
    this.consumed.queries += 1;
    this.consumed.capacityUnits += units ?? 0;
  }
}

export function isServed(body: BodyRecord): boolean {
  return body.listed && body.takedown === undefined && body.deleted !== true;
}

/**
 * Pure: where a body stands (`BodyStanding`). Taken down by its mark or the registry's (`registryAt`),
 * deleted at the origin (since its tombstone's commit), unlisted by an operator after it was listed
 * (`listedChangedAt`: an unlisted body without one was never public) — or served, since the later of
 * its object's commit and its (re)listing, so an incremental client meets a body that comes back.
 */
export function bodyStanding({ body, entry }: SourceBody, registryAt?: string): BodyStanding {
  const takenDownAt = body.takedown?.at ?? registryAt;
  if (takenDownAt !== undefined) return { kind: 'gone', at: takenDownAt, why: 'takedown' };
  const committed = entry?.fetchedAt ?? body.lastSeenAt;
  if (body.deleted === true) return { kind: 'gone', at: committed, why: 'deleted' };
  if (!body.listed)
    return body.listedChangedAt === undefined
      ? { kind: 'never' }
      : { kind: 'gone', at: body.listedChangedAt, why: 'unlisted' };
  const listedAt = body.listedChangedAt;
  return { kind: 'served', at: listedAt !== undefined && listedAt > committed ? listedAt : committed };
}
