/**
 * The four DynamoDB tables, described once as data: the CDK stack and the local runner / tests create
 * them from these definitions, so AWS and local can never disagree on keys or indexes.
 */
export interface TableDefinition {
  /** Logical name; the physical name comes from the environment (SOURCES_TABLE …). */
  logicalName: 'Sources' | 'State' | 'Documents' | 'Mirror';
  partitionKey: string;
  sortKey?: string;
  globalIndexes: {
    indexName: string;
    partitionKey: string;
    sortKey: string;
    /** Non-key attributes the index holds (projection INCLUDE); absent = every attribute (ALL). */
    include?: string[];
    /**
     * The index this one replaces (same keys, projection ALL): kept in AWS for one release
     * (`retiringIndexes`) and read while this one is still being built (shared/store source-state.ts).
     * CloudFormation replaces a global index to change its projection and creates one per update, so
     * a new projection is a new name (docs/operations.md, "State indexes").
     */
    replaces?: string;
  }[];
  /**
   * Indexes dropped from the design that stay in AWS for one release (CloudFormation deletes one global
   * index per table update, and this release's update adds one): read by nothing, written by nothing new.
   */
  retired?: { indexName: string; partitionKey: string; sortKey: string }[];
  /**
   * Indexes this release deletes from AWS (read and written by nothing, empty): synthesised only by
   * the first rollout step (`indexRolloutStep=1`, as deployed, projection included), so that deploy
   * adds the first replacing index and the next one — without it — deletes these: one global index
   * per table update. Not created locally, not granted, not billed.
   */
  dropped?: { indexName: string; partitionKey: string; sortKey: string; include?: string[] }[];
}

/**
 * The indexes a table still has in AWS for one release, beside the ones that replace them (`replaces`:
 * same keys, every attribute) and those dropped (`retired`). Not created locally and not billed by the
 * cost bench (it bills the target).
 */
export function retiringIndexes(definition: TableDefinition): TableDefinition['globalIndexes'] {
  return [
    ...definition.globalIndexes.flatMap((index) =>
      index.replaces === undefined
        ? []
        : [{ indexName: index.replaces, partitionKey: index.partitionKey, sortKey: index.sortKey }],
    ),
    ...(definition.retired ?? []),
  ];
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
 * `byDueAt` lets the planner read only sources whose next decision is due (`dueShard` + `dueAt`); a
 * leased item stays due while leased (the lease moves no index key, issue 28), so the same read counts
 * the running syncs and finds the leases of runs that died (SCH-5) — a handful of items, not the table.
 * It projects only what the planner reads (`DUE_INDEX_ATTRIBUTES`), so a write of the STATE item that
 * changes nothing it holds (a message's claim, SCH-5) writes no index copy, and a run moves its key once
 * (the release's next due time). `byList` is sparse — only mirror index
 * items of a body's objects carry `lp` (source, body, type) and `ls` (commit time, id; shared/mirror
 * keys.ts) — so one page of the OParl API over the mirror (shared/mirror-api) is one Query.
 */
export const LIST_INDEX = 'byList';

/**
 * The first list index, on the long attributes `apiList`/`apiListSort` (3 read units a page instead of
 * ≤ 2). Nothing reads or writes them since `byList` (session 12) and `ingestor backfill-index` removed
 * them, so it holds nothing — yet it was deployed with `o` projected, and every deploy carried it.
 * Dropped (issue 28): the final rollout step deletes it (`dropped`, docs/operations.md "State indexes").
 */
export const LEGACY_LIST_INDEX = 'byBodyList';

/** The planner's due index (issue 28: replaces `byDue`, which projected every attribute). */
export const DUE_INDEX = 'byDueAt';
/**
 * The running syncs' sparse index before issue 28's single index (`leaseShard` + `leaseUntil`, every
 * attribute): a lease, a claim and a release each moved its key. Retired: `byDueAt` lists the running
 * syncs; kept in AWS for one release.
 */
export const RETIRED_LEASE_INDEX = 'byLease';

/**
 * What a tick decides from (shared/planner tick.ts): the schedule, the last decision (a decision
 * rewritten unchanged is not written), any config problems, and the lease's end and kind (SCH-5: the
 * running syncs and the expired leases of runs that died). Not the lease's run and claim (only the
 * sync function's conditions read them), not the last run: on-call reads it from the item
 * (`readSourceStates`).
 */
export const DUE_INDEX_ATTRIBUTES = [
  'sourceId',
  'schedule',
  'lastDecision',
  'configProblems',
  'leaseUntil',
  'leaseKind',
];

export const STATE_TABLE: TableDefinition = {
  logicalName: 'State',
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [
    {
      indexName: DUE_INDEX,
      partitionKey: 'dueShard',
      sortKey: 'dueAt',
      include: DUE_INDEX_ATTRIBUTES,
      replaces: 'byDue',
    },
    // Keys, two flags and the inline copy of small objects (`o`, shared/mirror keys.ts): a list page is
    // one Query and no S3 read for objects that fit (issue 16).
    { indexName: LIST_INDEX, partitionKey: 'lp', sortKey: 'ls', include: ['deleted', 'takedown', 'o'] },
  ],
  retired: [{ indexName: RETIRED_LEASE_INDEX, partitionKey: 'leaseShard', sortKey: 'leaseUntil' }],
  dropped: [
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

/**
 * Mirror (issue 28): the mirror's object index — one item per mirrored object, `pk` =
 * `MIRROR#<sourceId>#<type>`, `sk` = its api id hash, with the sparse `byList` index the OParl API pages
 * (shared/store mirror-index.ts) — in a table of its own, so that it can go without PITR and in
 * Standard-IA (infra/stack.ts says why and what it saves). The API list counters (`APILISTCOUNT#…`)
 * stay in State: small, and ADDed where a mark or commit is decided. Until an existing stack has moved
 * its items (`ingestor migrate mirror-table`, docs/operations.md "The mirror table"), the items are in
 * State and `byList` stays there too (`MirrorTablePhase`).
 */
export const MIRROR_TABLE: TableDefinition = {
  logicalName: 'Mirror',
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [
    // As in State before the move: keys, two flags and the inline copy (issue 16).
    { indexName: LIST_INDEX, partitionKey: 'lp', sortKey: 'ls', include: ['deleted', 'takedown', 'o'] },
  ],
};

/**
 * Where the mirror's object items are read and written during the move from State to the Mirror table
 * (a two-deploy rollout, docs/operations.md "The mirror table"):
 * - `state`: State only — before the move (a stack or a local `.data/` of an earlier release);
 * - `dual`: deploy 1 — every write goes to State, then to Mirror; reads from State (still complete);
 *   `ingestor migrate mirror-table` then copies what Mirror lacks;
 * - `own`: deploy 2 — Mirror only; `ingestor migrate mirror-table --delete-old` then empties State of them.
 */
export const MIRROR_TABLE_PHASES = ['state', 'dual', 'own'] as const;
export type MirrorTablePhase = (typeof MIRROR_TABLE_PHASES)[number];

export const TABLES = [SOURCES_TABLE, STATE_TABLE, DOCUMENTS_TABLE, MIRROR_TABLE] as const;
