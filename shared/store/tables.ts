/**
 * The three DynamoDB tables, described once as data: the CDK stack and the local runner / tests create
 * them from these definitions, so AWS and local can never disagree on keys or indexes.
 */
export interface TableDefinition {
  /** Logical name; the physical name comes from the environment (SOURCES_TABLE …). */
  logicalName: 'Sources' | 'State' | 'Documents';
  partitionKey: string;
  sortKey?: string;
  globalIndexes: {
    indexName: string;
    partitionKey: string;
    sortKey: string;
    /** Non-key attributes the index holds (projection INCLUDE); absent = every attribute (ALL). */
    include?: string[];
  }[];
}

/**
 * The Sources table's host index (issue 27): `hostKey` (RATE-2's key, stamped by `putSourceItem`) with
 * `active`, so a host lane reads its host's active sources with one small Query per step. Sparse: an
 * item written by hand without `hostKey` is not in it (the planner's pool still carries it).
 */
export const SOURCES_BY_HOST_INDEX = 'byHost';

/** Sources: one item per source, edited by on-call (see shared/config/source.ts). */
export const SOURCES_TABLE: TableDefinition = {
  logicalName: 'Sources',
  partitionKey: 'sourceId',
  globalIndexes: [
    { indexName: SOURCES_BY_HOST_INDEX, partitionKey: 'hostKey', sortKey: 'sourceId', include: ['active'] },
  ],
};

/**
 * State: machine-written. `pk` = `SOURCE#<sourceId>`; `sk` names the item: `STATE` (cadence, pauses,
 * lease, outcome — shared/store/source-state.ts), `OPARL#SYSTEM`, `BODY#…`, `SLUG#…`, `LIST#…`,
 * `CURSOR#…`, `RUNLIST#…`, `SESSION#…` (the engine core, shared/engine/state.ts). The mirror's object
 * index lives in partitions of its own, `pk` = `MIRROR#<sourceId>#<type>` (shared/mirror).
 * `byDue` lets the planner read only sources whose next decision is due (`dueShard` + `dueAt`);
 * `byLease` is sparse — only STATE items of running syncs carry `leaseShard` — so counting the running
 * syncs (SCH-5) reads a handful of items, not the table. `byList` is sparse too — only mirror index
 * items of a body's objects carry `lp` (source, body, type) and `ls` (commit time, id; shared/mirror
 * keys.ts) — so one page of the OParl API over the mirror (shared/mirror-api) is one Query.
 */
export const LIST_INDEX = 'byList';

/**
 * The first list index, on the long attributes `apiList`/`apiListSort` (3 read units a page instead of
 * ≤ 2). Nothing writes them any more and `ingestor backfill-index` removes them, so it holds nothing
 * after the backfill. It stays defined for one release because CloudFormation creates or deletes only
 * one global index per table update: this release adds `byList`, the next one drops this.
 */
export const LEGACY_LIST_INDEX = 'byBodyList';

export const STATE_TABLE: TableDefinition = {
  logicalName: 'State',
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [
    { indexName: 'byDue', partitionKey: 'dueShard', sortKey: 'dueAt' },
    { indexName: 'byLease', partitionKey: 'leaseShard', sortKey: 'leaseUntil' },
    // Keys, two flags and the inline copy of small objects (`o`, shared/mirror keys.ts): a list page is
    // one Query and no S3 read for objects that fit (issue 16).
    { indexName: LIST_INDEX, partitionKey: 'lp', sortKey: 'ls', include: ['deleted', 'takedown', 'o'] },
    {
      indexName: LEGACY_LIST_INDEX,
      partitionKey: 'apiList',
      sortKey: 'apiListSort',
      include: ['deleted', 'takedown', 'o'],
    },
  ],
};

/**
 * Documents: one item per file URL (`docId` = hash of the URL). `byNextAttempt` lists due work without
 * scans (`attemptShard` + `nextAttemptAt`); `bySource` lists a source's documents.
 */
export const DOCUMENTS_TABLE: TableDefinition = {
  logicalName: 'Documents',
  partitionKey: 'docId',
  globalIndexes: [
    { indexName: 'byNextAttempt', partitionKey: 'attemptShard', sortKey: 'nextAttemptAt' },
    { indexName: 'bySource', partitionKey: 'sourceId', sortKey: 'docId' },
  ],
};

export const TABLES = [SOURCES_TABLE, STATE_TABLE, DOCUMENTS_TABLE] as const;
