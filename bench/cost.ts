import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/client-dynamodb';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { LIST_KEYS, startFakeCouncil } from '../demo';
import { BUDGET_RESERVE_MS as DELETION_BUDGET_RESERVE_MS } from '../functions/deletion-check';
import {
  FUNCTION_MEMORY_MB,
  MIRROR_API_MAX_INSTANCES,
  SYNC_BATCH_SIZE,
  SYNC_BATCHING_WINDOW_SECONDS,
  SYNC_MALLOC,
  SYNC_MEMORY_HEADROOM,
  SYNC_WORKER_MEMORY,
} from '../infra/function-sizes';
import { FILES_TO_GLACIER_IR_AFTER_DAYS, FILES_TO_GLACIER_IR_MIN_BYTES } from '../infra/storage-classes';
import { plannerSyncWorkers, syncMaxConcurrency } from '../infra/sync-concurrency';
import { syncProvisionedFor } from '../infra/sync-provisioned';
import { planDifferences, planFor, type TableCapacityPlan } from '../infra/table-capacity';
import { REQUEST_INTERVAL_MIN_SECONDS, SCRAPER_DEFAULT_INTERVAL_SECONDS } from '../shared/config';
import {
  CACHE_MAX_FILES_PER_RUN,
  DEL_HOSTS_IN_PARALLEL,
  DEL_SAMPLE_INTERVAL_MS,
  HOSTS_IN_PARALLEL,
  PHO_RECHECK_MS,
  UPLOAD_PART_BYTES,
} from '../shared/documents';
import { engineReportOf } from '../shared/engine';
import { INLINE_ITEM_MAX_BYTES, listCountKey, MIRROR_BULK_DEFAULT_RATE, MirrorStore } from '../shared/mirror';
import { OBJECT_READ_CONCURRENCY, PAGE_SIZE_DEFAULT } from '../shared/mirror-api';
import { logger, logRequestEvent, MetricsBuffer } from '../shared/observability';
import { syncSource } from '../shared/oparl';
import { plannerTick } from '../shared/planner';
import {
  DEFAULT_LEASE_MINUTES,
  DEFAULT_MAX_CONCURRENT_SYNCS,
  DEFAULT_SCHEDULE_SETTINGS,
  initialScheduleState,
  simulateCadence,
} from '../shared/schedule';
import {
  type AwsClients,
  createAwsClients,
  DIGEST_PREFIX,
  DOCUMENTS_TABLE,
  DUE_INDEX,
  destroyAwsClients,
  dueIndexCopiesOf,
  FILES_PREFIX,
  INCOMING_PREFIX,
  LEASE_ROOM_BYTES,
  LIST_INDEX,
  MIRROR_PREFIX,
  MIRROR_TABLE,
  packInline,
  ROBOTS_PREFIX,
  requestManualSync,
  SOURCES_TABLE,
  STATE_TABLE,
  SyncQueue,
  sourcePartition,
  TABLES,
  TEXT_PREFIX,
  type UpdateShape,
  WRITE_UNIT_BYTES,
} from '../shared/store';
import { BUDGET_RESERVE_MS, runSyncMessage, type SyncMessage, WORKER_START_MIN_MS } from '../shared/sync';
import { type AwsTestbed, startAwsTestbed } from '../test/support/aws';
import { ALLRIS_DISTRICTS, startFakeRisHtml } from '../test/support/fake-ris-html';
import { harness, TestClock } from '../test/support/oparl-harness';
import { scraperHarness } from '../test/support/scraper-harness';
import { API_BYTES_PER_RESPONSE_ASSUMED, bytesPerResponse } from './cost/api-bytes';
import { ASSUMPTIONS } from './cost/assumptions';
import { deletionRun } from './cost/deletion-model';
import { type DeletionSampleUnits, measureDeletionSamples } from './cost/deletion-samples';
import {
  type CapacityChoice,
  type ChoiceOptions,
  decideTables,
  type FleetLoadInput,
  fleetLoad,
  MINUTES_PER_WEEK,
  type RunKindLoad,
  type TableDecision,
  type TargetLoad,
  type UnitProfile,
  type UnitsByTarget,
  withMirrorTable,
} from './cost/dynamo-capacity';
import {
  CLASS_PRICES,
  fileStockMonthUsd,
  putsPerStoredFile,
  standardBreakEvenVisitsPerMonth,
  youngFilesMonthUsd,
} from './cost/file-class-choice';
import { lognormalWithMean, tieredFiles } from './cost/file-sizes';
import { ALWAYS_FREE, applyFreeTier, vmFreeEgressGb } from './cost/free-tier';
import {
  type BillAtFleet,
  type InlineItemShape,
  type InlineSample,
  inlineBoundFigures,
  inlineBoundRows,
  inlineItemShape,
  pageReadUnits,
} from './cost/inline-bound';
import {
  dynamoItemBytes,
  STORAGE_OVERHEAD_BYTES_PER_ITEM,
  type TableShape,
  writeChangeUnits,
} from './cost/item-size';
import {
  LEVER_VARIANTS,
  LEVERS_NOW,
  LEVERS_OFF,
  type Levers,
  SYNC_SPREAD_WHAT_IF_SECONDS,
} from './cost/levers';
import { metricHoursOf, metricMonths, plannerDatapointsOfAnOrdinaryHour } from './cost/metric-hours';
import { mirrorMovePrice, mirrorRebuildPrice } from './cost/mirror-move';
import {
  apiFloodCeilingEurPerHour,
  type CostBreakdown,
  cpuSlowdown,
  emptyUsage,
  expectedRequestSeconds,
  type Latency,
  type MonthlyUsage,
  pacedRunSeconds,
  priceUsage,
  readUnits,
  upstashPlanOf,
  vmComparison,
  WEEKS_PER_MONTH,
} from './cost/model';
import { PRICES, PRICES_READ_ON, UPSTASH_FIXED_PLANS, USD_TO_EUR } from './cost/prices';
import { decideProvisioned } from './cost/provisioned';
import { countStack, metricSeries } from './cost/stack-count';
import { type StateItemSize, stateItemSize, writeWorstLeasedStateItem } from './cost/state-item';
import { syncSizing } from './cost/sync-sizing';
import { type CouncilWire, councilBytesOut } from './cost/wire-bytes';
import { simulateWorker, type WorkerModelResult } from './cost/worker-model';
import { plannerBenchDeps, STEADY_T0, seedSteadySources } from './planner';

/**
 * `npm run bench -- cost [sources]`: what the ingestor costs per month (issue 18).
 *
 * 1. Measures, with the real engines against local peers (dynalite, s3rver, fauxqs): per kind of run
 *    (first full, nightly full, unchanged and changed incremental) of an OParl source (the demo council)
 *    and of a scraped ALLRIS site (the fake RIS HTML server) the HTTP requests, the work (CPU seconds of
 *    this process, the in-process peers' included; the pace wait excluded: the clocks are virtual), DynamoDB request units and S3 calls (counted by a
 *    client middleware, units as DynamoDB bills them), bytes stored and log bytes at INFO; and the
 *    planner's reads, writes, SQS calls and time per tick and per start; and, read back from the State
 *    table after the runs, each source's mirror index (items, their copies in `byList`, list counters)
 *    with DynamoDB's item size rule (bench/cost/item-size.ts), billed as storage.
 * 2. Simulates one week of every source with the real cadence decisions (`simulateCadence`, the code of
 *    `ingestor simulate cadence`): session days, changes, nightly full syncs (bench/cost/assumptions.ts).
 * 3. Bills it (bench/cost/model.ts, bench/cost/prices.ts): a sync's Lambda time is its wall time, so
 *    requests × the host's interval + work.
 */

interface Meter {
  readUnits: number;
  writeUnits: number;
  dynamoCalls: number;
  s3Puts: number;
  s3Gets: number;
  /** Of those, calls per list, not per object (issue 28: the list digests): not scaled with objects. */
  s3ListPuts: number;
  s3ListGets: number;
  s3BytesPut: number;
  /** Issue 28: S3 PUT-class calls (PUT, COPY, LIST …) by `<command> <family>` (`s3Family`). */
  s3PutsBy: Record<string, number>;
  sqsRequests: number;
  /** DynamoDB write units by command and key prefix (what an unchanged run writes, and why). */
  writesBy: Record<string, number>;
  /** Writes (table or index copy) by the same labels: what they would cost at < 1 KB each. */
  writeCallsBy: Record<string, number>;
  /** DynamoDB read units by command and key prefix. */
  readsBy: Record<string, number>;
  /** Units of items that grow with the objects of a source (mirror index, documents, session days). */
  objectReadUnits: number;
  objectWriteUnits: number;
  /**
   * Issue 28: each UpdateItem of a STATE item, in order: its table units, the `byDueAt` units measured
   * (before/after) and the copies derived from its attribute names (shared/store `dueIndexCopiesOf`).
   */
  stateUpdates: StateUpdateRecord[];
  /**
   * Issue 28: units by table and by global index (`Table`, `Table/index`; each has its own capacity in
   * provisioned mode), with the share that grows with a source's objects.
   */
  byTarget: Record<string, TargetUnits>;
}

interface StateUpdateRecord {
  tableUnits: number;
  dueIndexUnits: number;
  derivedCopies: number;
}

/** Read and write units of one table or index (issue 28), and of them those that grow with objects. */
interface TargetUnits {
  read: number;
  write: number;
  objectRead: number;
  objectWrite: number;
}

/** Idle planner ticks timed for the bill; the fastest counts (the machine's load only adds time). */
const PLANNER_IDLE_SAMPLES = 7;

const zeroTarget = (): TargetUnits => ({ read: 0, write: 0, objectRead: 0, objectWrite: 0 });

/** Units by target, each × k (`objects`: only the part that grows with objects, as `objectScaled`). */
function scaleByTarget(
  by: Record<string, TargetUnits> | undefined,
  k: number,
  objects = false,
): Record<string, TargetUnits> {
  return Object.fromEntries(
    Object.entries(by ?? {}).map(([t, u]) => [
      t,
      objects
        ? {
            read: u.read + u.objectRead * (k - 1),
            write: u.write + u.objectWrite * (k - 1),
            objectRead: u.objectRead * k,
            objectWrite: u.objectWrite * k,
          }
        : {
            read: u.read * k,
            write: u.write * k,
            objectRead: u.objectRead * k,
            objectWrite: u.objectWrite * k,
          },
    ]),
  );
}

/** `b − a` by target (what happened between two meter readings). */
function diffByTarget(
  a: Record<string, TargetUnits>,
  b: Record<string, TargetUnits>,
): Record<string, TargetUnits> {
  const out: Record<string, TargetUnits> = {};
  for (const [t, u] of Object.entries(b)) {
    const p = a[t] ?? zeroTarget();
    out[t] = {
      read: u.read - p.read,
      write: u.write - p.write,
      objectRead: u.objectRead - p.objectRead,
      objectWrite: u.objectWrite - p.objectWrite,
    };
  }
  return out;
}

/** Read and write units by target added up (issue 28). */
function sumUnits(a: UnitsByTarget, b: UnitsByTarget): UnitsByTarget {
  const out: UnitsByTarget = { ...a };
  for (const [t, u] of Object.entries(b))
    out[t] = { read: (out[t]?.read ?? 0) + u.read, write: (out[t]?.write ?? 0) + u.write };
  return out;
}

/** Read and write units by target as the capacity model takes them (issue 28). */
function unitsOf(by: Record<string, TargetUnits>): UnitsByTarget {
  return Object.fromEntries(Object.entries(by).map(([t, u]) => [t, { read: u.read, write: u.write }]));
}

/**
 * A run's units by target with the mirror's object items (`PutItem object-hash`) and State's list index
 * moved to the Mirror table when the lever puts them there (issue 28; the bench measures in State).
 */
function mirrorTargetsOf(levers: Levers, p: RunProfile, units: UnitsByTarget): UnitsByTarget {
  if (!levers.mirrorTable) return units;
  const items = { writes: p.writesBy?.['PutItem object-hash'] ?? 0, reads: mirrorItemReads(p.readsBy) };
  return withMirrorTable(units, items, {
    state: STATE_TABLE.logicalName,
    mirror: MIRROR_TABLE.logicalName,
    index: LIST_INDEX,
  });
}

/**
 * Issue 28: the read units of the mirror's object items read by key (`BatchGetItem MIRROR`, a lookup's
 * `GetItem MIRROR`) among reads by label (`[<kind>: ]<command> <family>`) — the Mirror table's once the
 * items live there; its list index's reads are the index's apart.
 */
function mirrorItemReads(readsBy: Record<string, number> | undefined): number {
  return Object.entries(readsBy ?? {})
    .filter(([label]) => label.endsWith(' MIRROR'))
    .reduce((sum, [, units]) => sum + units, 0);
}

/** Every table and global index of the design (`Table`, `Table/index`): each has capacity when provisioned. */
const CAPACITY_TARGETS = TABLES.flatMap((t) => [
  t.logicalName as string,
  ...t.globalIndexes.map((i) => `${t.logicalName}/${i.indexName}`),
]);

/**
 * Issue 28: the capacity mode of each table by cost from the week's load per minute, and what the
 * provisioned tables take out of the on-demand bill (units) and put in (unit-hours), a month.
 */
function decideCapacity(
  load: Record<string, TargetLoad>,
  { without = [], ...options }: ChoiceOptions & { without?: readonly string[] } = {},
) {
  const empty = new Array<number>(MINUTES_PER_WEEK).fill(0);
  const names = [...new Set([...CAPACITY_TARGETS, ...Object.keys(load)])];
  // Issue 28: a target the stack does not create (State's list index once dropped) must carry no load.
  for (const t of without)
    if ((load[t]?.read ?? []).some((x) => x > 0) || (load[t]?.write ?? []).some((x) => x > 0))
      throw new Error(`capacity: ${t} is dropped but carries load`);
  const profiles: UnitProfile[] = names
    .filter((t) => !without.includes(t))
    .flatMap((target) => [
      {
        target,
        kind: 'read' as const,
        demandPerMinute: load[target]?.read ?? empty,
        atOncePerMinute: load[target]?.readAtOnce ?? empty,
      },
      {
        target,
        kind: 'write' as const,
        demandPerMinute: load[target]?.write ?? empty,
        atOncePerMinute: load[target]?.writeAtOnce ?? empty,
      },
    ]);
  const eur = (price: keyof typeof PRICES) => PRICES[price].usd * USD_TO_EUR;
  const decisions: TableDecision[] = decideTables(
    profiles,
    {
      read: { eurPerRequestUnit: eur('dynamoReadUnit'), eurPerUnitHour: eur('dynamoRcuHour') },
      write: { eurPerRequestUnit: eur('dynamoWriteUnit'), eurPerUnitHour: eur('dynamoWcuHour') },
    },
    options,
  );
  const provisioned = decisions.filter((d) => d.mode === 'provisioned');
  const month = (of: (c: CapacityChoice) => number, kind: 'read' | 'write') =>
    provisioned.flatMap((d) => d.choices.filter((c) => c.kind === kind)).reduce((s, c) => s + of(c), 0) *
    WEEKS_PER_MONTH;
  const all = decisions.flatMap((d) => d.choices);
  return {
    decisions,
    /** Units a month in the load profile (to check it against the bill's totals). */
    profileReadUnits:
      all.filter((c) => c.kind === 'read').reduce((s, c) => s + c.unitsPerWeek, 0) * WEEKS_PER_MONTH,
    profileWriteUnits:
      all.filter((c) => c.kind === 'write').reduce((s, c) => s + c.unitsPerWeek, 0) * WEEKS_PER_MONTH,
    provisionedTables: {
      tables: provisioned.map((d) => d.table),
      readUnits: month((c) => c.unitsPerWeek, 'read'),
      writeUnits: month((c) => c.unitsPerWeek, 'write'),
      rcuHours: month((c) => c.run.unitHours, 'read'),
      wcuHours: month((c) => c.run.unitHours, 'write'),
    },
  };
}

/** The decision as infra/table-capacity.ts holds it: each table's mode and ranges (issue 28). */
function infraPlanOf(decisions: readonly TableDecision[]): Record<string, TableCapacityPlan> {
  return Object.fromEntries(
    decisions.map((d) => {
      const range = (target: string, kind: 'read' | 'write') => {
        const c = d.choices.find((x) => x.target === target && x.kind === kind);
        return { min: c?.policy.minUnits ?? 1, max: c?.policy.maxUnits ?? 1 };
      };
      const both = (target: string) => ({ read: range(target, 'read'), write: range(target, 'write') });
      const indexes = [...new Set(d.choices.map((c) => c.target))].filter((t) => t !== d.table);
      return [
        d.table,
        {
          mode: d.mode,
          targetPercent: Math.round(d.targetUtilisation * 100),
          table: both(d.table),
          indexes: Object.fromEntries(indexes.map((t) => [t.split('/')[1] as string, both(t)])),
        },
      ];
    }),
  );
}

/** infra/stack.ts SYNC_TIMEOUT, in seconds (the CDK module is not loaded for one number). */
const SYNC_TIMEOUT_SECONDS = 15 * 60;
/**
 * Issue 28: the PUT-class calls of one stored file (shared/documents `storeVerifiedCopy`): a file within
 * one upload part (5 MiB) is one PutObject to its key; a larger one (≈ 0.5 % of the assumed sizes) a
 * multipart upload to the incoming key and the promotion's CopyObject; its text one PutObject (text.ts).
 * Until s3-files every file paid the incoming PutObject and the CopyObject (3 calls a file).
 */
export const FILE_S3_PUTS_BY: Record<string, number> = putsPerStoredFile(
  lognormalWithMean(ASSUMPTIONS.fileBytes, ASSUMPTIONS.fileSizeSigma),
  UPLOAD_PART_BYTES,
);
const FILE_S3_PUTS = Object.values(FILE_S3_PUTS_BY).reduce((a, b) => a + b, 0);

/** Minutes of run stream the worker model simulates per fleet (after 30 minutes' warm-up). */
const WORKER_MODEL_MINUTES = 180;

/** Issue 28: the sync sizes the bench prices (MB × runs in flight an invocation). */
const SYNC_SIZING_CANDIDATES = {
  // Beside these round sizes, each width's tight one (bench/cost/sync-sizing.ts tightMemoryMb).
  memoriesMb: [192, 256, 320, 384, 512, 768, 1024],
  runsAtOnce: [10, 20, 34, 40, 60, 80, 100],
} as const;

const zeroMeter = (): Meter => ({
  readUnits: 0,
  writeUnits: 0,
  dynamoCalls: 0,
  s3Puts: 0,
  s3Gets: 0,
  s3ListPuts: 0,
  s3ListGets: 0,
  s3BytesPut: 0,
  s3PutsBy: {},
  sqsRequests: 0,
  writesBy: {},
  writeCallsBy: {},
  readsBy: {},
  objectReadUnits: 0,
  objectWriteUnits: 0,
  stateUpdates: [],
  byTarget: {},
});

/** A key's family for the meter: `SOURCE#…` items by their sort-key prefix, others by partition prefix. */
function keyFamily(key: Record<string, unknown> | undefined): string {
  const plain = (v: unknown) => String((v as { S?: string } | undefined)?.S ?? v ?? '');
  const pk = plain(key?.pk);
  const sk = plain(key?.sk);
  if (pk.startsWith('SOURCE#')) return sk.split(/[#:]/)[0] ?? '';
  if (pk === '' && key && 'documentId' in key) return 'DOCUMENT';
  return pk.split(/[#:]/)[0] || Object.keys(key ?? {})[0] || '?';
}

/** Items that grow with a source's objects: the mirror index, documents, session days (per meeting). */
const OBJECT_FAMILIES = new Set(['MIRROR', 'DOCUMENT', 'documentId', 'SESSION', 'object-hash']);

/**
 * An item's size for its read units: its JSON, a binary value (a packed cursor, packed run reports) by
 * its bytes — JSON writes a Uint8Array as a map of its bytes, ≈ 10 × its size (issue 28).
 */
const bytesOf = (v: unknown): number =>
  v === undefined
    ? 0
    : Buffer.byteLength(
        JSON.stringify(v, (_key, x) => (x instanceof Uint8Array ? 'b'.repeat(x.byteLength) : x)),
      );

/** Counts every call of the clients (a middleware on the real SDK clients; the peers are real). */
type AttrItem = Record<string, AttributeValue>;

const ATTRIBUTE_TYPES = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);

/** An item or key as the low-level client sends it (the document client's plain values marshalled). */
function asAttributes(item: Record<string, unknown> | undefined): AttrItem {
  if (item === undefined) return {};
  const first = Object.values(item)[0];
  const marshalled =
    typeof first === 'object' &&
    first !== null &&
    Object.keys(first).length === 1 &&
    ATTRIBUTE_TYPES.has(Object.keys(first)[0] as string);
  return marshalled
    ? (item as AttrItem)
    : marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: false });
}

/** A write's family for the meter: the sort key's prefix (one label for the mirror's id hashes). */
function writeFamily(item: AttrItem | undefined): string {
  const rawSk = item?.sk?.S ?? '';
  if (/^[0-9a-f]{40}$/.test(rawSk)) return 'object-hash';
  if (rawSk !== '') return rawSk.split(/[#:]/)[0] ?? '?';
  return keyFamily(item as Record<string, unknown> | undefined);
}

/** The local peers with the write meter on all three tables (the cost and run-writes benches). */
export async function startMeteredTestbed() {
  const bed = await startAwsTestbed();
  // The meter reads items around a write through clients of its own (not counted).
  const peekClients = createAwsClients(bed.env);
  const meter = attachMeter(
    bed.clients,
    {
      [bed.env.STATE_TABLE]: STATE_TABLE,
      [bed.env.SOURCES_TABLE]: SOURCES_TABLE,
      [bed.env.DOCUMENTS_TABLE]: DOCUMENTS_TABLE,
    },
    peekClients.dynamo,
  );
  return { bed, peekClients, meter };
}

/**
 * The OParl council both benches run (the cost and run-writes benches): the demo council with the pages
 * per list of a real list (see oparlObjectScale) and a real body's few legislative terms (issue 28: the
 * demo's default of 150 was the fixture, not a body), on its own clock from a weekday morning, and its
 * source's harness. `changePapers` is a change of `ASSUMPTIONS.objectsPerChange` papers.
 */
export async function startDemoCouncil(bed: AwsTestbed, prefix: string) {
  const clock = new TestClock(Date.parse('2026-11-30T10:00:00+01:00'));
  const objectsPerList = Object.fromEntries(
    LIST_KEYS.map((key) => [key, key === 'legislativeTerm' ? ASSUMPTIONS.legislativeTermsPerBody : 150]),
  );
  const fake = await startFakeCouncil({ now: clock.now, bodies: 1, objectsPerList, pageSize: 10 });
  const changePapers = (name: string) =>
    fake.mutate(
      Array.from({ length: ASSUMPTIONS.objectsPerChange }, (_, i) => ({
        op: 'update' as const,
        list: 'paper' as const,
        n: i + 1,
        set: { name: `${name} ${i}` },
      })),
    );
  return { clock, fake, h: harness(bed, fake.systemUrl, clock, prefix), changePapers };
}

/**
 * Counts every call of the clients (a middleware on the real SDK clients; the peers are real). A write
 * is billed as DynamoDB bills it (issue 28, bench/cost/item-size.ts `writeChangeUnits`): the larger of
 * the item before and after — read around the write through `peekClient`, which the meter does not
 * count — and the copies in the table's global indexes (`shapes`, by table name).
 */
export function attachMeter(
  clients: AwsClients,
  shapes: Record<string, TableShape>,
  peekClient: DynamoDBClient,
): {
  read(): Meter;
  reset(): void;
  /** Off: writes sized by what they send (no reads around them), e.g. while a tick's wall time is timed. */
  peeking(on: boolean): void;
  /** Reads made around writes since the last reset (their CPU is not the run's work). */
  peeks(): number;
} {
  let m = zeroMeter();
  let peekOn = true;
  let peekCount = 0;
  const peeked = new WeakMap<object, AttrItem | undefined>();
  const keyOf = (table: string, item: AttrItem): AttrItem => {
    const shape = shapes[table];
    if (!shape) return item;
    return Object.fromEntries(
      [shape.partitionKey, shape.sortKey]
        .filter((k): k is string => k !== undefined && item[k] !== undefined)
        .map((k) => [k, item[k] as AttributeValue]),
    );
  };
  const peek = async (table: string, key: AttrItem): Promise<AttrItem | undefined> => {
    if (!peekOn || !shapes[table] || Object.keys(key).length === 0) return undefined;
    peekCount += 1;
    const out = await peekClient.send(
      new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }),
    );
    return out.Item;
  };
  // Issue 28: a table's logical name (the definitions passed as shapes carry it) for the units by target.
  const logicalOf = (table: string) =>
    (shapes[table] as { logicalName?: string } | undefined)?.logicalName ?? table;
  const target = (name: string, object: boolean, kind: 'read' | 'write', n: number) => {
    const t = m.byTarget[name] ?? zeroTarget();
    t[kind] += n;
    if (object) t[kind === 'read' ? 'objectRead' : 'objectWrite'] += n;
    m.byTarget[name] = t;
  };
  const indexOf = (table: string, index: string) =>
    shapes[table]?.globalIndexes.find((i) => i.indexName === index);
  const indexKeyOf = (table: string, index: string) => indexOf(table, index)?.partitionKey ?? '';
  const indexSortOf = (table: string, index: string) => indexOf(table, index)?.sortKey ?? '';
  const write = (op: string, table: string, before: AttrItem | undefined, after: AttrItem | undefined) => {
    const units = writeChangeUnits(before, after, shapes[table] ?? { partitionKey: 'pk', globalIndexes: [] });
    const family = writeFamily(after ?? before);
    const add = (label: string, n: number, copies = 1) => {
      m.writeUnits += n;
      m.writesBy[label] = (m.writesBy[label] ?? 0) + n;
      m.writeCallsBy[label] = (m.writeCallsBy[label] ?? 0) + copies;
      if (OBJECT_FAMILIES.has(family)) m.objectWriteUnits += n;
    };
    add(`${op} ${family}`, units.table);
    target(logicalOf(table), OBJECT_FAMILIES.has(family), 'write', units.table);
    for (const [index, n] of Object.entries(units.indexes)) {
      target(`${logicalOf(table)}/${index}`, OBJECT_FAMILIES.has(family), 'write', n);
      // An index key that changed is two copies written (the old deleted, the new put).
      const keys = [indexKeyOf(table, index), indexSortOf(table, index)];
      const inIndex = (x: AttrItem | undefined) => keys.every((k) => x?.[k] !== undefined);
      const keyMoved =
        inIndex(before) &&
        inIndex(after) &&
        keys.some((k) => JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k]));
      add(`${op} ${family} → ${index}`, n, keyMoved ? 2 : 1);
    }
    return units;
  };
  clients.dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      if (/^(Put|Update|Delete)/.test(name)) {
        const table = String(input.TableName ?? '');
        const key = asAttributes((input.Item ?? input.Key) as Record<string, unknown>);
        peeked.set(args, await peek(table, keyOf(table, key)));
      }
      let out: Awaited<ReturnType<typeof next>>;
      try {
        out = await next(args);
      } catch (error) {
        // A write refused by its condition still consumes the units of the item it was checked on.
        if (peeked.has(args)) {
          m.dynamoCalls += 1;
          const before = peeked.get(args);
          write(`${name.replace(/Command$/, '')} (refused)`, String(input.TableName ?? ''), before, before);
        }
        throw error;
      }
      const output = out.output as unknown as Record<string, unknown>;
      m.dynamoCalls += 1;
      // A BatchGet names its consistency per table, inside RequestItems.
      const batchTables = Object.values(
        (input.RequestItems ?? {}) as Record<string, { ConsistentRead?: boolean }>,
      );
      const consistent = input.ConsistentRead === true || batchTables.some((t) => t.ConsistentRead === true);
      const read = (family: string, units: number, table = String(input.TableName ?? '')) => {
        m.readUnits += units;
        // A Query of an index consumes the index's read capacity, not the table's.
        const index = typeof input.IndexName === 'string' ? `/${input.IndexName}` : '';
        target(`${logicalOf(table)}${index}`, OBJECT_FAMILIES.has(family), 'read', units);
        const label = `${name.replace(/Command$/, '')} ${family}`;
        m.readsBy[label] = (m.readsBy[label] ?? 0) + units;
        if (OBJECT_FAMILIES.has(family)) m.objectReadUnits += units;
      };
      if (/^(Get|Query|Scan)/.test(name)) {
        const items = (output.Items as unknown[] | undefined) ?? (output.Item ? [output.Item] : []);
        const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
        const key = (input.Key as Record<string, unknown> | undefined) ?? {
          pk: values[':pk'],
          // Issue 28: a range of a source's sync items read at once (`preloadSyncState`).
          sk: values[':from'] !== undefined ? 'PARTITION' : (values[':prefix'] ?? values[':sk']),
        };
        read(
          keyFamily(key),
          readUnits(
            items.reduce<number>((s, i) => s + bytesOf(i), 0),
            consistent,
          ),
        );
      } else if (/^BatchGet/.test(name)) {
        const responses = (output.Responses ?? {}) as Record<string, Record<string, unknown>[]>;
        for (const [table, items] of Object.entries(responses))
          for (const i of items) read(keyFamily(i), readUnits(bytesOf(i), consistent), table);
      } else if (/^BatchWrite/.test(name)) {
        // Puts of new items (the mirror's first sync): nothing before them.
        const req = (input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: unknown } }[]>;
        for (const [table, list] of Object.entries(req))
          for (const r of list) {
            const item = r.PutRequest?.Item as Record<string, unknown> | undefined;
            if (item) write('BatchWriteItem', table, undefined, asAttributes(item));
          }
      } else if (/^(Put|Update|Delete)/.test(name)) {
        const key = asAttributes((input.Item ?? input.Key) as Record<string, unknown>);
        const item = input.Item ? key : undefined;
        const table = String(input.TableName ?? '');
        // Issue 28: billed as DynamoDB bills it — the larger of the item before and after, and the
        // copies in the table's global indexes — so the item is read before and after, unmetered.
        const before = peeked.get(args);
        const after = /^Delete/.test(name) ? undefined : (item ?? (await peek(table, keyOf(table, key))));
        const units = write(
          name.replace(/Command$/, ''),
          table,
          before,
          after ?? (before ? undefined : keyOf(table, key)),
        );
        // Issue 28: a STATE update's index copies as the store's rule derives them from its names.
        if (/^Update/.test(name) && shapes[table] === STATE_TABLE && writeFamily(after ?? key) === 'STATE')
          m.stateUpdates.push({
            tableUnits: units.table,
            dueIndexUnits: units.indexes[DUE_INDEX] ?? 0,
            derivedCopies: dueIndexCopiesOf(
              input as UpdateShape,
              before?.dueShard !== undefined && before?.dueAt !== undefined,
            ),
          });
      }
      return out;
    },
    { step: 'initialize', name: 'costMeter' },
  );
  clients.s3.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      const input = args.input as { Body?: unknown; Key?: unknown; Prefix?: unknown };
      const perList = String(input.Key ?? '').startsWith(`${DIGEST_PREFIX}/`);
      if (/^(Put|Copy|List|CreateMultipart|UploadPart|CompleteMultipart)/.test(name)) {
        m.s3Puts += 1;
        const label = `${name.replace(/Command$/, '')} ${s3Family(String(input.Key ?? input.Prefix ?? ''))}`;
        m.s3PutsBy[label] = (m.s3PutsBy[label] ?? 0) + 1;
        if (perList) m.s3ListPuts += 1;
        const body = input.Body;
        if (typeof body === 'string') m.s3BytesPut += Buffer.byteLength(body);
        else if (body instanceof Uint8Array) m.s3BytesPut += body.byteLength;
      } else {
        m.s3Gets += 1;
        if (perList) m.s3ListGets += 1;
      }
      return next(args);
    },
    { step: 'initialize', name: 'costMeter' },
  );
  clients.sqs.middlewareStack.add(
    (next) => async (args) => {
      m.sqsRequests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'costMeter' },
  );
  return {
    read: () => ({
      ...m,
      writesBy: { ...m.writesBy },
      writeCallsBy: { ...m.writeCallsBy },
      readsBy: { ...m.readsBy },
      s3PutsBy: { ...m.s3PutsBy },
      stateUpdates: [...m.stateUpdates],
      byTarget: scaleByTarget(m.byTarget, 1),
    }),
    reset: () => {
      m = zeroMeter();
      peekCount = 0;
    },
    peeking: (on) => {
      peekOn = on;
    },
    peeks: () => peekCount,
  };
}

/** The bytes the logger writes at INFO while `fn` runs (what CloudWatch Logs would ingest). */
async function logBytesOf<T>(fn: () => Promise<T>): Promise<{ result: T; logBytes: number }> {
  const write = process.stdout.write.bind(process.stdout);
  const level = logger.getLevelName();
  let logBytes = 0;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    logBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    return true;
  }) as typeof process.stdout.write;
  logger.setLogLevel('INFO');
  try {
    return { result: await fn(), logBytes };
  } finally {
    logger.setLogLevel(level);
    process.stdout.write = write;
  }
}

/** One kind of run, measured. */
export interface RunProfile {
  requests: number;
  workSeconds: number;
  readUnits: number;
  writeUnits: number;
  s3Puts: number;
  s3Gets: number;
  /** S3 calls per list (the list digests, issue 28), in s3Puts/s3Gets: not scaled with the objects. */
  s3ListPuts: number;
  s3ListGets: number;
  s3BytesPut: number;
  /** Issue 28: the PUT-class calls by `<command> <family>` (in s3Puts). */
  s3PutsBy?: Record<string, number>;
  logBytes: number;
  /** The read and write units of items that grow with the source's objects (in the totals above). */
  objectReadUnits: number;
  objectWriteUnits: number;
  /** Write units of mirror index items (each also written to its `byList` copy; issue 28). */
  mirrorItemWriteUnits: number;
  writesBy?: Record<string, number>;
  readsBy?: Record<string, number>;
  /** Issue 28: units by table and index (bench/cost/dynamo-capacity.ts). */
  byTarget?: Record<string, TargetUnits>;
}

/** CPU seconds of one read the meter makes around a write (calibrated per bench, `calibratePeek`). */
let peekCpuSeconds = 0;

async function measureRun(
  meter: ReturnType<typeof attachMeter>,
  run: () => Promise<{ requests: number }>,
): Promise<RunProfile> {
  meter.reset();
  // Work is CPU time, not wall time: on a shared machine wall time counts other processes' turns. The
  // local peers run in this process, so their CPU is in it too — an upper bound of the run's own work.
  const started = process.cpuUsage();
  const { result, logBytes } = await logBytesOf(run);
  const cpu = process.cpuUsage(started);
  // The meter's own reads around writes are not the run's work.
  const workSeconds = Math.max(0, (cpu.user + cpu.system) / 1e6 - meter.peeks() * peekCpuSeconds);
  const m = meter.read();
  return {
    requests: result.requests,
    workSeconds,
    readUnits: m.readUnits,
    writeUnits: m.writeUnits,
    s3Puts: m.s3Puts,
    s3Gets: m.s3Gets,
    s3ListPuts: m.s3ListPuts,
    s3ListGets: m.s3ListGets,
    s3BytesPut: m.s3BytesPut,
    s3PutsBy: m.s3PutsBy,
    logBytes,
    objectReadUnits: m.objectReadUnits,
    objectWriteUnits: m.objectWriteUnits,
    mirrorItemWriteUnits: m.writesBy['PutItem object-hash'] ?? 0,
    writesBy: m.writesBy,
    readsBy: m.readsBy,
    byTarget: m.byTarget,
  };
}

/** Write units by label (`<op> <family>[ → <index>]`) × k — only the families that grow with objects, if asked. */
function scaleWritesBy(
  w: Record<string, number> | undefined,
  k: number,
  objectsOnly = false,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(w ?? {}).map(([label, units]) => {
      const family = label.split(' ')[1] ?? '';
      return [label, !objectsOnly || OBJECT_FAMILIES.has(family) ? units * k : units];
    }),
  );
}

/**
 * Issue 28: what an S3 key is of, for the PUT/LIST line's families: the mirror's records, the list
 * digests, file copies (incoming and promoted), texts, photos, the robots.txt cache (ROB-5), geo plans.
 */
export function s3Family(key: string): string {
  if (key.startsWith(`${DIGEST_PREFIX}/`)) return 'list digest';
  if (key.startsWith(INCOMING_PREFIX)) return 'file (incoming)';
  if (key.startsWith(FILES_PREFIX)) return key.includes('/photos/') ? 'photo' : 'file';
  if (key.startsWith(TEXT_PREFIX)) return 'text';
  if (key.startsWith(`${MIRROR_PREFIX}/`)) return 'mirror record';
  if (key.startsWith(ROBOTS_PREFIX)) return 'robots.txt cache';
  return key.split('/')[0] || '?';
}

/** Families whose calls are per list or per host, not per object: not scaled with a list's objects. */
const S3_PER_LIST_FAMILIES = new Set(['list digest', 'robots.txt cache']);

/** PUT-class calls by label × k — with `objectsOnly`, the per-list and per-host families kept as they are. */
function scaleS3PutsBy(
  by: Record<string, number> | undefined,
  k: number,
  objectsOnly = false,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(by ?? {}).map(([label, n]) => {
      const family = label.slice(label.indexOf(' ') + 1);
      return [label, objectsOnly && S3_PER_LIST_FAMILIES.has(family) ? n : n * k];
    }),
  );
}

/** Issue 28: the measured wire figures of a source kind's requests (assumptions.ts `councilWire`). */
function wireOf(kind: 'oparl' | 'scraper'): CouncilWire {
  const w = ASSUMPTIONS.councilWire;
  return {
    requestIpBytes: w.requestIpBytes[kind],
    tlsRecordBytesPerRequest: w.tlsRecordBytesPerRequest,
    tlsHandshakeBytesPerConnection: w.tlsHandshakeBytesPerConnection,
  };
}

/** The changes the fake RIS site makes before the scraper's measured changed run (calendar row, Nachtrag). */
const SCRAPER_CHANGES_MEASURED = 2;

/**
 * Issue 28: a changed run as of one change — the week's simulation has one change per changed run —
 * where the measured run's objects are of `changes` (the fake site's two; the demo council's one change
 * scaled with the bodies): what grows with objects (their index reads and writes, the mirror items and
 * their list index, the S3 records) ÷ `changes`; requests, per-page and per-list writes (cursor, scrape
 * pages, list marks and digests) and the run's work as measured.
 */
function ofOneChange(p: RunProfile, changes: number): RunProfile {
  return changes === 1 ? p : { ...objectScaled(p, 1 / changes), workSeconds: p.workSeconds };
}

/** A run `k` times over (more bodies: every quantity, requests too). */
const scaled = (p: RunProfile, k: number): RunProfile => ({
  writesBy: scaleWritesBy(p.writesBy, k),
  readsBy: scaleWritesBy(p.readsBy, k),
  byTarget: scaleByTarget(p.byTarget, k),
  requests: p.requests * k,
  workSeconds: p.workSeconds * k,
  readUnits: p.readUnits * k,
  writeUnits: p.writeUnits * k,
  s3Puts: p.s3Puts * k,
  s3Gets: p.s3Gets * k,
  s3ListPuts: p.s3ListPuts * k,
  s3ListGets: p.s3ListGets * k,
  s3BytesPut: p.s3BytesPut * k,
  s3PutsBy: scaleS3PutsBy(p.s3PutsBy, k),
  logBytes: p.logBytes * k,
  objectReadUnits: p.objectReadUnits * k,
  objectWriteUnits: p.objectWriteUnits * k,
  mirrorItemWriteUnits: p.mirrorItemWriteUnits * k,
});

/**
 * A run over `k` times the objects on the same pages: what grows with objects (their index reads and
 * writes, S3, work) is scaled; requests and what is per page or per list (cursor, list marks) are not.
 */
const objectScaled = (p: RunProfile, k: number): RunProfile => ({
  ...p,
  writesBy: scaleWritesBy(p.writesBy, k, true),
  readsBy: scaleWritesBy(p.readsBy, k, true),
  byTarget: scaleByTarget(p.byTarget, k, true),
  workSeconds: p.workSeconds * k,
  readUnits: p.readUnits + p.objectReadUnits * (k - 1),
  writeUnits: p.writeUnits + p.objectWriteUnits * (k - 1),
  // A list's digest is one GET and at most one PUT whatever its objects: those calls are not scaled.
  s3Puts: p.s3Puts * k - p.s3ListPuts * (k - 1),
  s3Gets: p.s3Gets * k - p.s3ListGets * (k - 1),
  s3BytesPut: p.s3BytesPut * k,
  s3PutsBy: scaleS3PutsBy(p.s3PutsBy, k, true),
  objectReadUnits: p.objectReadUnits * k,
  objectWriteUnits: p.objectWriteUnits * k,
  mirrorItemWriteUnits: p.mirrorItemWriteUnits * k,
});

/** The engine's own CPU seconds of a kind's runs on one full vCPU (assumptions.ts `syncCpuSecondsPerRun`). */
interface EngineCpu {
  nightlyFull: number;
  changed: number;
  unchanged: number;
}

/**
 * Issue 28 (sync CPU): a kind's runs with the engine's own CPU in place of this process's, which counts
 * the in-process peers and council too (an upper bound). The nightly full sync without the digest keeps
 * its measured ratio to the one with it; the first full sync (onboarding, a one-off) keeps the upper bound.
 */
const withEngineCpu = (p: KindProfiles, cpu: EngineCpu): KindProfiles => ({
  ...p,
  nightlyFull: { ...p.nightlyFull, workSeconds: cpu.nightlyFull },
  ...(p.nightlyFullWithoutDigest
    ? {
        nightlyFullWithoutDigest: {
          ...p.nightlyFullWithoutDigest,
          workSeconds: (p.nightlyFullWithoutDigest.workSeconds * cpu.nightlyFull) / p.nightlyFull.workSeconds,
        },
      }
    : {}),
  changed: { ...p.changed, workSeconds: cpu.changed },
  unchanged: { ...p.unchanged, workSeconds: cpu.unchanged },
  ...(p.unchangedWithCursor
    ? { unchangedWithCursor: { ...p.unchangedWithCursor, workSeconds: cpu.unchanged } }
    : {}),
});

/** Items of one kind as the local peer holds them: how many, and their DynamoDB size in all. */
interface ItemSample {
  items: number;
  bytes: number;
}

/**
 * The mirror index of one source after the real engine's runs (shared/mirror store.ts `putIndex`): what
 * the State table stores for its objects beside the source's own items.
 */
interface MirrorIndexSample {
  /** One item per mirrored object, embedded ones included (`MIRROR#<source>#<type>`, sk = id hash). */
  table: ItemSample;
  /**
   * Their copies in the State table's global indexes, by index: `byList` holds those of a body's
   * objects (table and index keys, `deleted`, `takedown` and the inline copy `o`; shared/store tables.ts).
   */
  indexes: Record<string, ItemSample>;
  /** The API list counters (`APILISTCOUNT#<source>`, one per list: body × type). */
  counters: ItemSample;
}

/** Every item a Query or Scan returns, sized by DynamoDB's rule (bench/cost/item-size.ts). */
async function sampleItems(
  bed: AwsTestbed,
  request: { query: QueryCommandInput } | { scan: ScanCommandInput },
): Promise<ItemSample> {
  const sample: ItemSample = { items: 0, bytes: 0 };
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await bed.clients.dynamo.send(
      'query' in request
        ? new QueryCommand({ ...request.query, ExclusiveStartKey: start })
        : new ScanCommand({ ...request.scan, ExclusiveStartKey: start }),
    );
    for (const item of out.Items ?? []) {
      sample.items += 1;
      sample.bytes += dynamoItemBytes(item);
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return sample;
}

/**
 * Reads one source's mirror index back from the local State table. A Scan with a key-prefix filter
 * (not a Query per type) so that no partition is missed, whatever types the engine wrote; the local
 * table is small. Each global index is scanned as well, for the copies as DynamoDB projects them.
 */
async function sampleMirrorIndex(bed: AwsTestbed, sourceId: string): Promise<MirrorIndexSample> {
  const TableName = bed.env.STATE_TABLE;
  const ofSource = {
    FilterExpression: 'begins_with(pk, :prefix)',
    ExpressionAttributeValues: { ':prefix': { S: `MIRROR#${sourceId}#` } },
  };
  const table = await sampleItems(bed, { scan: { TableName, ...ofSource } });
  const indexes: Record<string, ItemSample> = {};
  for (const { indexName } of STATE_TABLE.globalIndexes) {
    const copies = await sampleItems(bed, { scan: { TableName, IndexName: indexName, ...ofSource } });
    if (copies.items > 0) indexes[indexName] = copies;
  }
  const counters = await sampleItems(bed, {
    query: {
      TableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: listCountKey(sourceId, '').pk } },
    },
  });
  return { table, indexes, counters };
}

/** Issue 28: the inline bounds priced against the one built (INLINE_ITEM_MAX_BYTES), bytes. */
const INLINE_BOUND_GRID = [0, 1024, 2048, 3072, 4096];

/** Every number in a JSON-like value to 3 decimals (the grid's rows). */
function roundDeep<T>(value: T): T {
  if (typeof value === 'number') return Number(value.toFixed(3)) as T;
  if (Array.isArray(value)) return value.map(roundDeep) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundDeep(v)])) as T;
  return value;
}

/**
 * Issue 28: one source's mirror items as shapes for the inline-bound grid (bench/cost/inline-bound.ts);
 * a live listed item too large for the built bound is priced with the copy it would carry (its S3
 * record packed), so that a larger bound is priced too.
 */
async function sampleInlineShapes(bed: AwsTestbed, sourceId: string): Promise<InlineItemShape[]> {
  const shapes: InlineItemShape[] = [];
  const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  const priced = async (item: Record<string, AttributeValue>) => {
    const live = item.deleted?.BOOL !== true && item.takedown === undefined && item.o === undefined;
    if (!live || (item.lp === undefined && item.type?.S !== 'body') || item.key?.S === undefined) return;
    const record = await mirror.readKey(item.key.S);
    return record && record.meta.deleted !== true ? packInline(record.object) : undefined;
  };
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await bed.clients.dynamo.send(
      new ScanCommand({
        TableName: bed.env.STATE_TABLE,
        FilterExpression: 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': { S: `MIRROR#${sourceId}#` } },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) shapes.push(inlineItemShape(item, await priced(item)));
    start = out.LastEvaluatedKey;
  } while (start);
  return shapes;
}

/** Issue 28: what one run costs beside its engine's work: the planner's start and the message's path. */
interface RunLifecycleProfile {
  /** Write units of the lease taken, the claim and the release with the outcome (table and indexes). */
  writeUnits: number;
  /** Read units of the message's path outside the engine (source config, state before the outcome). */
  readUnits: number;
  writesBy: Record<string, number>;
  /** Table writes and index copies written a run: its write units if every one were < 1 KB. */
  writeCopies: number;
  /**
   * Issue 28: a run's STATE updates by kind — the tick's lease, the message's claim, the release with
   * the outcome, the next tick's — each with its table units, the `byDueAt` units measured on the item
   * before and after, and the copies derived from its attribute names (`dueIndexCopiesOf`), per run.
   */
  byWrite: Record<string, StateUpdateRecord>;
  runs: number;
  /** Issue 28: the run's own units by table and index. */
  byTarget: Record<string, TargetUnits>;
  /** The measured source (its partition is sampled by `bench state-writes`). */
  sourceId: string;
}

const meterDiff = (a: Meter, b: Meter) => {
  const writesBy: Record<string, number> = {};
  for (const [k, v] of Object.entries(b.writesBy)) {
    const d = v - (a.writesBy[k] ?? 0);
    if (d !== 0) writesBy[k] = d;
  }
  const copies = (x: Meter) => Object.values(x.writeCallsBy).reduce((n, c) => n + c, 0);
  return {
    writeUnits: b.writeUnits - a.writeUnits,
    readUnits: b.readUnits - a.readUnits,
    writesBy,
    writeCopies: copies(b) - copies(a),
    byTarget: diffByTarget(a.byTarget, b.byTarget),
  };
};

/**
 * Billed seconds of one file in the files pass (issue 28): its host's pace (RATE-1), overlapped across
 * the hosts the pass works at once, and its CPU at the function's share of a vCPU. Measured (`npm run
 * bench -- files-cost`): the download is a wait inside the host's slot (`latency.file`), the CPU 0.08 s;
 * off: the model's assumption before it, 1.5 s of work a file.
 */
function fileSecondsEach(levers: Levers): number {
  const slowdown = cpuSlowdown(FUNCTION_MEMORY_MB.files);
  return pacedRunSeconds({
    requests: 1,
    intervalSeconds: REQUEST_INTERVAL_MIN_SECONDS,
    workSeconds:
      (levers.filesCpuMeasured ? ASSUMPTIONS.fileCpuSeconds : ASSUMPTIONS.fileWorkSecondsAssumed) * slowdown,
    hostsInParallel: levers.filesHostsAtOnce,
    ...(levers.filesCpuMeasured && levers.latency ? { latency: ASSUMPTIONS.latency.file } : {}),
  });
}

/**
 * Issue 28, `unchangedCursorSkipped`: an unchanged run's profile with or without its run cursor's write.
 * The scraper's is built and measured both ways (`unchangedWithCursor`: the engine told to write it, as
 * before). The OParl runs' is a what-if: their measured profile without the cursor's write (`PutItem
 * CURSOR`, measured as the run's only write) in State.
 */
function unchangedOf(p: KindProfiles, kind: 'oparl' | 'scraper', levers: Levers): RunProfile {
  if (kind === 'scraper')
    return levers.unchangedCursorSkipped === 'none' ? (p.unchangedWithCursor ?? p.unchanged) : p.unchanged;
  return levers.unchangedCursorSkipped === 'both' ? withoutCursorWrite(p.unchanged) : p.unchanged;
}

/** A run's profile less its OParl run cursor's write (`PutItem CURSOR`) in State. */
function withoutCursorWrite(p: RunProfile): RunProfile {
  const label = 'PutItem CURSOR';
  const units = p.writesBy?.[label] ?? 0;
  const { [label]: _cursor, ...writesBy } = p.writesBy ?? {};
  const state = p.byTarget?.State ?? zeroTarget();
  return {
    ...p,
    writeUnits: p.writeUnits - units,
    writesBy,
    byTarget: { ...p.byTarget, State: { ...state, write: state.write - units } },
  };
}

/** Only the reads or only the writes of units by target (issue 28). */
function only(kind: 'read' | 'write', by: Record<string, TargetUnits>): Record<string, TargetUnits> {
  return Object.fromEntries(
    Object.entries(by).map(([t, u]) => [
      t,
      kind === 'read'
        ? { ...zeroTarget(), read: u.read, objectRead: u.objectRead }
        : { ...zeroTarget(), write: u.write, objectWrite: u.objectWrite },
    ]),
  );
}

/** Units by target added up, each term with its sign (issue 28). */
function sumByTarget(...terms: [number, Record<string, TargetUnits>][]): Record<string, TargetUnits> {
  const out: Record<string, TargetUnits> = {};
  for (const [sign, by] of terms)
    for (const [t, u] of Object.entries(by)) {
      const o = out[t] ?? zeroTarget();
      o.read += sign * u.read;
      o.write += sign * u.write;
      o.objectRead += sign * u.objectRead;
      o.objectWrite += sign * u.objectWrite;
      out[t] = o;
    }
  return out;
}

interface LifecycleOptions {
  systemUrl: string;
  clock: TestClock;
  log: (line: string) => void;
  /**
   * Called (outside the meter) at each state the STATE item passes through: leased by the tick, claimed
   * by the message, released with the outcome — with the run's kind and the source.
   */
  onStage?: (stage: 'leased' | 'claimed' | 'released', kind: string, sourceId: string) => Promise<void>;
}

/**
 * Issue 28: one run's STATE updates added by kind: the tick's (the lease), the message's (its claim
 * first, the release with the outcome last, a retried release between) and the next tick's — from the
 * meter's reads at the message's start, after it (which includes the next tick) and before the next tick.
 */
function addStateUpdates(
  into: Record<string, StateUpdateRecord>,
  run: { tick: StateUpdateRecord[]; beforeMessage: Meter; beforeNextTick: Meter; end: Meter },
): void {
  const { tick, beforeMessage, beforeNextTick, end } = run;
  const message = end.stateUpdates.slice(
    beforeMessage.stateUpdates.length,
    beforeNextTick.stateUpdates.length,
  );
  const labelled: [string, StateUpdateRecord][] = [
    ...tick.map((u): [string, StateUpdateRecord] => ['lease (planner tick)', u]),
    ...message.map((u, i): [string, StateUpdateRecord] => [
      i === 0
        ? 'claim (message)'
        : i === message.length - 1
          ? 'release with the outcome'
          : 'release (retried)',
      u,
    ]),
    ...end.stateUpdates
      .slice(beforeNextTick.stateUpdates.length)
      .map((u): [string, StateUpdateRecord] => ['next tick', u]),
  ];
  for (const [label, u] of labelled) {
    const row = into[label] ?? { tableUnits: 0, dueIndexUnits: 0, derivedCopies: 0 };
    into[label] = {
      tableUnits: row.tableUnits + u.tableUnits,
      dueIndexUnits: row.dueIndexUnits + u.dueIndexUnits,
      derivedCopies: row.derivedCopies + u.derivedCopies,
    };
  }
}

/**
 * Unchanged incremental runs of the demo council, each started by a real planner tick and run by the
 * real message path (`runSyncMessage`), then the planner's tick a minute after its end (issue 28: what
 * that tick writes for the source is the run's too): the meter before and after the ticks, the message
 * and the engine inside it tells the run's own writes and reads from the engine's. The first runs only bring
 * the STATE item to its steady size; the last `measured` are averaged.
 */
async function measureRunLifecycle(
  bed: AwsTestbed,
  meter: ReturnType<typeof attachMeter>,
  { systemUrl, clock, log, onStage }: LifecycleOptions,
): Promise<RunLifecycleProfile> {
  const h = harness(bed, systemUrl, clock, 'cost-run');
  const { sourceId } = h.source;
  await bed.clients.doc.send(
    new PutCommand({ TableName: bed.env.SOURCES_TABLE, Item: { sourceId, systemUrl, active: true } }),
  );
  const tables = { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE };
  // A source's STATE item carries its last full sync (FULL-1, nightly): the first run, a warm-up one, is
  // a full sync requested as on-call would (SCH-7), so the measured runs write the item at its real size.
  await requestManualSync(
    { doc: bed.clients.doc, table: tables.state },
    sourceId,
    { kind: 'full', requestedAt: clock.now().toISOString() },
    initialScheduleState(),
  );
  let inEngine = {
    writeUnits: 0,
    readUnits: 0,
    writesBy: {} as Record<string, number>,
    writeCopies: 0,
    byTarget: {} as Record<string, TargetUnits>,
  };
  const runDeps = {
    doc: bed.clients.doc,
    tables,
    queue: new SyncQueue({ sqs: bed.clients.sqs, queueUrl: bed.queues.syncQueueUrl }),
    now: clock.now,
    leaseMinutes: DEFAULT_LEASE_MINUTES,
    settings: DEFAULT_SCHEDULE_SETTINGS,
    engine: async (source, message, budget) => {
      await onStage?.('claimed', message.kind, sourceId);
      const before = meter.read();
      const report = engineReportOf(
        await syncSource(h.deps, source, {
          kind: message.kind,
          runId: message.runId,
          deadlineMs: budget.deadlineMs,
          startedAt: budget.runStartedAt,
        }),
      );
      inEngine = meterDiff(before, meter.read());
      return report;
    },
  } satisfies Parameters<typeof runSyncMessage>[0];
  const planDeps = {
    doc: bed.clients.doc,
    sqs: bed.clients.sqs,
    tables,
    syncQueueUrl: bed.queues.syncQueueUrl,
    settings: DEFAULT_SCHEDULE_SETTINGS,
    leaseMinutes: DEFAULT_LEASE_MINUTES,
  };
  const CYCLES = 6;
  const measured = 3;
  const sum = {
    writeUnits: 0,
    readUnits: 0,
    writesBy: {} as Record<string, number>,
    writeCopies: 0,
    byWrite: {} as Record<string, StateUpdateRecord>,
    runs: 0,
    byTarget: {} as Record<string, TargetUnits>,
  };
  for (let cycle = 0; cycle < CYCLES; cycle += 1) {
    clock.advance(30 * 60_000);
    meter.reset();
    const tick = await plannerTick(planDeps, clock.now());
    const afterTick = meter.read();
    const received = await bed.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: bed.queues.syncQueueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
      }),
    );
    for (const m of received.Messages ?? []) {
      await bed.clients.sqs.send(
        new DeleteMessageCommand({ QueueUrl: bed.queues.syncQueueUrl, ReceiptHandle: m.ReceiptHandle }),
      );
      const message = JSON.parse(m.Body ?? '{}') as SyncMessage;
      if (message.sourceId !== sourceId) continue;
      await onStage?.('leased', message.kind, sourceId);
      // The message arrives after the queue's batching window, not at the tick's instant, as in AWS.
      clock.advance(SYNC_BATCHING_WINDOW_SECONDS * 1000);
      const beforeMessage = meter.read();
      // The invocation ends with the sync function's timeout, as in AWS: the claim sees whether the
      // lease the tick took outlasts it (issue 28: then it renews nothing and writes no index copy).
      const result = await runSyncMessage(runDeps, message, {
        deadlineMs: clock.ms + 3_600_000,
        endsAtMs: Date.now() + SYNC_TIMEOUT_SECONDS * 1000,
      });
      if (result.status !== 'done') throw new Error(`lifecycle run ${result.status}`);
      const path = meterDiff(beforeMessage, meter.read());
      await onStage?.('released', message.kind, sourceId);
      // Issue 28: the planner ticks every minute; the tick after the run's end decides on the source
      // again if the release left it due (its write — a decision and a due-time move — is the run's).
      clock.advance(60_000);
      const beforeNextTick = meter.read();
      await plannerTick(planDeps, clock.now());
      const nextTick = meterDiff(beforeNextTick, meter.read());
      if (cycle < CYCLES - measured) continue;
      const tickCopies = Object.values(afterTick.writeCallsBy).reduce((n, c) => n + c, 0);
      const own = {
        writeUnits: afterTick.writeUnits + path.writeUnits - inEngine.writeUnits + nextTick.writeUnits,
        readUnits: path.readUnits - inEngine.readUnits,
      };
      sum.writeCopies += tickCopies + path.writeCopies - inEngine.writeCopies + nextTick.writeCopies;
      sum.writeUnits += own.writeUnits;
      sum.readUnits += own.readUnits;
      sum.runs += 1;
      // The same sums by table and index (the engine's units are the run profile's): writes of the
      // ticks and the path, reads of the path only (the bill counts the ticks' reads per tick).
      sum.byTarget = sumByTarget(
        [1, sum.byTarget],
        [1, only('write', afterTick.byTarget)],
        [1, path.byTarget],
        [-1, inEngine.byTarget],
        [1, only('write', nextTick.byTarget)],
      );
      for (const [k, v] of Object.entries({ ...afterTick.writesBy }))
        sum.writesBy[k] = (sum.writesBy[k] ?? 0) + v;
      for (const [k, v] of Object.entries(nextTick.writesBy))
        sum.writesBy[`${k} (next tick)`] = (sum.writesBy[`${k} (next tick)`] ?? 0) + v;
      for (const [k, v] of Object.entries(path.writesBy)) {
        const d = v - (inEngine.writesBy[k] ?? 0);
        if (d !== 0) sum.writesBy[k] = (sum.writesBy[k] ?? 0) + d;
      }
      addStateUpdates(sum.byWrite, {
        tick: afterTick.stateUpdates,
        beforeMessage,
        beforeNextTick,
        end: meter.read(),
      });
    }
    if (tick.started.length === 0) log(`lifecycle: no run started at ${clock.now().toISOString()}`);
  }
  if (sum.runs === 0) throw new Error('lifecycle: no run measured');
  const per = (x: number) => x / Math.max(1, sum.runs);
  return {
    writeUnits: per(sum.writeUnits),
    readUnits: per(sum.readUnits),
    writesBy: Object.fromEntries(Object.entries(sum.writesBy).map(([k, v]) => [k, per(v)])),
    writeCopies: per(sum.writeCopies),
    byWrite: Object.fromEntries(
      Object.entries(sum.byWrite).map(([k, v]) => [
        k,
        {
          tableUnits: per(v.tableUnits),
          dueIndexUnits: per(v.dueIndexUnits),
          derivedCopies: per(v.derivedCopies),
        },
      ]),
    ),
    runs: sum.runs,
    byTarget: scaleByTarget(sum.byTarget, 1 / Math.max(1, sum.runs)),
    sourceId,
  };
}

/**
 * `npm run bench -- state-writes`: the run lifecycle alone (issue 28, SCH-5): a run's own STATE writes
 * through real planner ticks and the real message path, by family, and the STATE items' sizes in the
 * leased steady state — the part of `bench cost` that the STATE item's shape moves, in seconds.
 */
export async function runStateWritesBench(opts: { log?: (line: string) => void } = {}) {
  const log = opts.log ?? (() => {});
  const bed = await startAwsTestbed();
  const peekClients = createAwsClients(bed.env);
  const meter = attachMeter(bed.clients, { [bed.env.STATE_TABLE]: STATE_TABLE }, peekClients.dynamo);
  const clock = new TestClock(Date.parse('2026-12-09T09:00:00+01:00'));
  const objectsPerList = Object.fromEntries(
    LIST_KEYS.map((key) => [key, key === 'legislativeTerm' ? ASSUMPTIONS.legislativeTermsPerBody : 150]),
  );
  const fake = await startFakeCouncil({ now: clock.now, bodies: 1, objectsPerList, pageSize: 10 });
  try {
    // Issue 28: the STATE item in each state it passes through, as DynamoDB sizes it (largest seen).
    const stateItem: Record<string, StateItemSize> = {};
    const lifecycle = await measureRunLifecycle(bed, meter, {
      systemUrl: fake.systemUrl,
      clock,
      log,
      onStage: async (stage, kind, sourceId) => {
        const size = await stateItemSize(peekClients.dynamo, bed.env.STATE_TABLE, sourceId);
        const name = `${stage} (${kind})`;
        if (size !== undefined && size.bytes > (stateItem[name]?.bytes ?? 0)) stateItem[name] = size;
      },
    });
    // The largest item in normal operation: every schedule field set, a busy council's session days,
    // a manual full sync leased and claimed (bench/cost/state-item.ts).
    await writeWorstLeasedStateItem(
      { doc: bed.clients.doc, table: bed.env.STATE_TABLE },
      'cost-worst',
      clock.now(),
    );
    const worst = await stateItemSize(peekClients.dynamo, bed.env.STATE_TABLE, 'cost-worst');
    if (worst !== undefined) stateItem['claimed (full, every field, session days)'] = worst;
    log(`STATE item: ${JSON.stringify(stateItem)}`);
    // Each item of the source's partition (STATE and the engine's), by sort key: bytes as DynamoDB sizes it.
    const out = await bed.clients.dynamo.send(
      new QueryCommand({
        TableName: bed.env.STATE_TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: sourcePartition(lifecycle.sourceId) } },
      }),
    );
    const itemBytes = Object.fromEntries(
      (out.Items ?? []).map((item) => [item.sk?.S ?? '?', dynamoItemBytes(item)]),
    );
    const state = (out.Items ?? []).find((item) => item.sk?.S === 'STATE');
    if (process.env.STATE_WRITES_DUMP === '1' && state)
      for (const [name, value] of Object.entries(state))
        log(`STATE ${name}: ${dynamoItemBytes({ [name]: value })} B ${JSON.stringify(value).slice(0, 2000)}`);
    // Issue 28: the room the released item leaves before its last run spills to `LASTRUN` (a release
    // keeps it inline while the item plus LEASE_ROOM_BYTES stays within one write unit), and the session
    // days (3 B each in the stored schedule) that room holds.
    const released = itemBytes.STATE ?? 0;
    const roomBytes = WRITE_UNIT_BYTES - LEASE_ROOM_BYTES - released;
    const lastRunInline = {
      releasedBytes: released,
      lastRunBytes: state?.lastRun === undefined ? 0 : dynamoItemBytes({ lastRun: state.lastRun }),
      roomBytes,
      sessionDaysBeforeSpill: Math.max(0, Math.floor(roomBytes / 3)),
      lastRunPuts: lifecycle.writesBy['PutItem LASTRUN'] ?? 0,
    };
    return { ...lifecycle, stateItem, itemBytes, lastRunInline };
  } finally {
    await fake.close();
    destroyAwsClients(peekClients);
    await bed.stop();
  }
}

interface KindProfiles {
  firstFull: RunProfile;
  nightlyFull: RunProfile;
  /** Issue 28: a nightly full sync without the per-list digest (OParl only; the scraper has none). */
  nightlyFullWithoutDigest?: RunProfile;
  unchanged: RunProfile;
  /**
   * Issue 28 (`unchangedScrapeCursor`): an unchanged scrape that still writes its run cursor at the end,
   * as before the lever (scraper only; measured through the engine's `writeUnchangedCursor`).
   */
  unchangedWithCursor?: RunProfile;
  changed: RunProfile;
}

/** Run starts per minute of the week, by kind of run (issue 28: the DynamoDB load profile). */
interface WeekStarts {
  full: number[];
  changed: number[];
  unchanged: number[];
}

interface PlannerProfile {
  tickSeconds: number;
  tickReadUnits: number;
  perStart: { seconds: number; readUnits: number; writeUnits: number; sqsRequests: number };
  startsMeasured: number;
  /** Issue 28: a tick's units by table and index, and a start's. */
  tickByTarget: Record<string, TargetUnits>;
  perStartByTarget: Record<string, TargetUnits>;
}

export interface CostBenchOptions {
  sources?: number;
  /** Issue 25 point 4: bill the API's rate-based WAF rule (`-c apiWaf=true`); off as in the stack. */
  apiWaf?: boolean;
  log?: (line: string) => void;
}

export async function runCostBench(opts: CostBenchOptions = {}) {
  const sources = opts.sources ?? 1_000;
  const log = opts.log ?? (() => {});
  const A = ASSUMPTIONS;
  const { bed, peekClients, meter } = await startMeteredTestbed();
  // What one of the meter's reads costs in CPU (client and local peer, in this process): a present item
  // of about a State item's size, read as the meter reads.
  {
    const Key = { pk: { S: 'SOURCE#cost-calibration' }, sk: { S: 'STATE' } };
    await peekClients.dynamo.send(
      new PutItemCommand({ TableName: bed.env.STATE_TABLE, Item: { ...Key, pad: { S: 'x'.repeat(1_000) } } }),
    );
    const CALLS = 200;
    const started = process.cpuUsage();
    for (let i = 0; i < CALLS; i += 1)
      await peekClients.dynamo.send(
        new GetItemCommand({ TableName: bed.env.STATE_TABLE, Key, ConsistentRead: true }),
      );
    const cpu = process.cpuUsage(started);
    peekCpuSeconds = (cpu.user + cpu.system) / 1e6 / CALLS;
    log(`meter: ${(peekCpuSeconds * 1000).toFixed(2)} ms CPU a read around a write (subtracted from work)`);
  }
  let oparl: KindProfiles;
  let scraper: KindProfiles;
  let planner: PlannerProfile;
  let oparlIndex: MirrorIndexSample;
  let scraperIndex: MirrorIndexSample;
  let oparlShapes: InlineItemShape[];
  let scraperShapes: InlineItemShape[];
  let lifecycle: RunLifecycleProfile;
  let deletionSamples: DeletionSampleUnits;
  let requestLogLineBytes = 0;
  let summaryLineBytes = 0;
  try {
    // 1a. OParl: the demo council (startDemoCouncil).
    const { clock, fake, h, changePapers } = await startDemoCouncil(bed, 'cost');
    try {
      const firstFull = await measureRun(meter, () => h.sync('full'));
      clock.advance(10 * 60_000);
      // Issue 28: the first run after onboarding reads the body page whole (the full sync's list
      // commits are news to its digest, shared/oparl body-page-digest.ts); the month's unchanged runs
      // are the ones after it, measured here.
      await h.sync('incremental');
      clock.advance(10 * 60_000);
      const unchanged = await measureRun(meter, () => h.sync('incremental'));
      clock.advance(10 * 60_000);
      changePapers('Cost');
      clock.advance(60_000);
      const changed = await measureRun(meter, () => h.sync('incremental'));
      clock.advance(12 * 3_600_000);
      const nightlyFull = await measureRun(meter, () => h.sync('full'));
      // Issue 28: the same night without the per-list digest (an index read per object, as before).
      clock.advance(24 * 3_600_000);
      h.deps.listDigests = false;
      const nightlyFullWithoutDigest = await measureRun(meter, () => h.sync('full'));
      h.deps.listDigests = true;
      oparl = { firstFull, nightlyFull, nightlyFullWithoutDigest, unchanged, changed };
      log(`oparl: ${JSON.stringify(oparl)}`);

      // 1a'. Issue 28: a run's own State writes beside the engine's — the planner's lease, the
      // message's claim, the outcome with the lease's release (SCH-5) — on the STATE item as it is
      // after a few runs (schedule, last decision, last run), through the real planner and sync path.
      // On a weekday morning of its own clock (daytime cadence), after the council's last change.
      lifecycle = await measureRunLifecycle(bed, meter, {
        systemUrl: fake.systemUrl,
        clock: new TestClock(Math.max(clock.ms, Date.parse('2026-12-09T09:00:00+01:00'))),
        log,
      });
      log(`run lifecycle: ${JSON.stringify(lifecycle)}`);
      oparlIndex = await sampleMirrorIndex(bed, h.source.sourceId);
      oparlShapes = await sampleInlineShapes(bed, h.source.sourceId);
      log(`oparl mirror index: ${JSON.stringify(oparlIndex)}`);
    } finally {
      await fake.close();
    }

    // 1b. A scraped ALLRIS site (fake RIS HTML: captured Hamburg district pages).
    const site = await startFakeRisHtml({ districts: [...ALLRIS_DISTRICTS] });
    const s = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'cost' });
    try {
      const firstFull = await measureRun(meter, () => s.scrape('full'));
      s.clock.advance(3_600_000);
      const unchanged = await measureRun(meter, () => s.scrape());
      // Issue 28: the same unchanged scrape writing its run cursor at the end, as before the lever.
      s.clock.advance(3_600_000);
      s.deps.writeUnchangedCursor = true;
      const unchangedWithCursor = await measureRun(meter, () => s.scrape());
      delete s.deps.writeUnchangedCursor;
      site.setCalendarChanged(true);
      site.setAgendaChanged(true);
      s.clock.advance(3_600_000);
      const changed = await measureRun(meter, () => s.scrape());
      s.clock.advance(12 * 3_600_000);
      const nightlyFull = await measureRun(meter, () => s.scrape('full'));
      scraper = { firstFull, nightlyFull, unchanged, unchangedWithCursor, changed };
      log(`scraper: ${JSON.stringify(scraper)}`);
      scraperIndex = await sampleMirrorIndex(bed, s.source.sourceId);
      scraperShapes = await sampleInlineShapes(bed, s.source.sourceId);
      log(`scraper mirror index: ${JSON.stringify(scraperIndex)}`);
    } finally {
      await s.close();
      await site.close();
    }

    // 1b'. Issue 28: the DynamoDB units of one deletion-check sample (DEL-2), through the real check.
    deletionSamples = await measureDeletionSamples(bed, meter);
    log(`deletion samples: ${JSON.stringify(deletionSamples)}`);

    // 1c. One request's log line as the production fetcher writes it (shared/observability/request-log).
    requestLogLineBytes = (
      await logBytesOf(async () => {
        // At info, as every request was logged before issue 18 (now answered ones are debug lines).
        logRequestEvent(
          {
            kind: 'request',
            sourceId: 'src-000123',
            host: 'ris.example-stadt.de',
            url: 'https://ris.example-stadt.de/oparl/v1/body/1/paper?page=7&modified_since=2026-11-30T09%3A00%3A00Z',
            purpose: 'api',
            method: 'GET',
            attempt: 1,
            hop: 0,
            status: 200,
            durationMs: 184,
          } as Parameters<typeof logRequestEvent>[0],
          {
            log: (message, fields) => logger.info(message, fields),
            metrics: new MetricsBuffer({ write: () => {} }),
          },
        );
        return { requests: 0 };
      })
    ).logBytes;

    // 1d. The run's summary line at info (shared/sync/batch.ts "sync message done"), as written.
    summaryLineBytes = (
      await logBytesOf(async () => {
        logger.info('sync message done', {
          sourceId: 'src-000123',
          status: 'completed',
          requests: 17,
          objects: { new: 0, modified: 3, deleted: 0 },
          failures: [],
        });
        return { requests: 0 };
      })
    ).logBytes;

    // 1e. The planner: a warm tick with starts, and one right after with none (its fixed cost).
    const t0 = STEADY_T0;
    await seedSteadySources(bed.clients.doc, bed.env, 200, t0);
    // The tick is timed by the wall clock: no reads around its writes (a run's writes are measured above).
    meter.peeking(false);
    const deps = plannerBenchDeps(bed, 1_000);
    const tick = async (at: number) => {
      meter.reset();
      const started = performance.now();
      const r = await plannerTick(deps, new Date(at));
      return { seconds: (performance.now() - started) / 1000, starts: r.started.length, m: meter.read() };
    };
    await tick(t0); // cold: reads Sources and the STATE ids once (not the steady state)
    const busy = await tick(t0 + 5 * 60_000);
    // The idle tick is billed every minute of the month, so one wall-clock sample on a shared machine
    // swung the total by ≈ €6 (planner 10,862 → 573,743 GB-s a month in a run at load 15–18): the fastest of
    // PLANNER_IDLE_SAMPLES ticks that do the same work (none due, all leased) is the one least disturbed.
    const idles = [];
    for (let i = 1; i <= PLANNER_IDLE_SAMPLES; i += 1) idles.push(await tick(t0 + 5 * 60_000 + i));
    const idle = idles.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const starts = Math.max(1, busy.starts - idle.starts);
    planner = {
      tickSeconds: idle.seconds,
      tickReadUnits: idle.m.readUnits,
      perStart: {
        seconds: Math.max(0, busy.seconds - idle.seconds) / starts,
        readUnits: Math.max(0, busy.m.readUnits - idle.m.readUnits) / starts,
        writeUnits: Math.max(0, busy.m.writeUnits - idle.m.writeUnits) / starts,
        sqsRequests: Math.max(0, busy.m.sqsRequests - idle.m.sqsRequests) / starts,
      },
      startsMeasured: busy.starts,
      tickByTarget: idle.m.byTarget,
      perStartByTarget: scaleByTarget(diffByTarget(idle.m.byTarget, busy.m.byTarget), 1 / starts),
    };
    log(`planner: ${JSON.stringify(planner)}`);
  } finally {
    destroyAwsClients(peekClients);
    await bed.stop();
  }

  // 2. One simulated week per source kind, with the real cadence decisions.
  const week = (kind: 'oparl' | 'scraper', profiles: KindProfiles, variant: number) => {
    const interval = kind === 'oparl' ? REQUEST_INTERVAL_MIN_SECONDS : SCRAPER_DEFAULT_INTERVAL_SECONDS;
    const days = ['2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04'];
    const sessionDays = Array.from(
      { length: A.sessionDaysPerWeek },
      (_, i) => days[(variant + i * 2) % 5] as string,
    );
    const changeAt: string[] = [];
    for (const day of days) {
      for (let i = 0; i < A.changesPerWeekday; i += 1) {
        const minutes = 8 * 60 + Math.round(((i + 0.5 + variant / 7) * 600) / A.changesPerWeekday);
        changeAt.push(
          `${day}T${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`,
        );
      }
    }
    const sim = simulateCadence({
      from: '2026-11-30T00:00',
      days: 7,
      sessionDays,
      changeAt,
      fullSyncs: true,
      syncSeconds: Math.round(
        pacedRunSeconds({
          ...profiles.unchanged,
          intervalSeconds: interval,
          latency: kind === 'oparl' ? A.latency.oparlIncrementalPage : A.latency.scraperPage,
        }),
      ),
    });
    const changes = changeAt.map((c) => Date.parse(`${c}:00+01:00`));
    let previous = Number.NEGATIVE_INFINITY;
    const counts = { full: 0, changed: 0, unchanged: 0 };
    // Issue 28: when each run starts, by minute of the week (the DynamoDB load profile).
    const weekStart = Date.parse('2026-11-30T00:00:00+01:00');
    const startsAt: WeekStarts = {
      full: new Array<number>(MINUTES_PER_WEEK).fill(0),
      changed: new Array<number>(MINUTES_PER_WEEK).fill(0),
      unchanged: new Array<number>(MINUTES_PER_WEEK).fill(0),
    };
    for (const run of sim.runs) {
      const at = Date.parse(run.at);
      const kind: keyof WeekStarts =
        run.kind !== 'incremental'
          ? 'full'
          : changes.some((c) => c > previous && c <= at)
            ? 'changed'
            : 'unchanged';
      counts[kind] += 1;
      const minute = Math.floor((at - weekStart) / 60_000);
      if (minute >= 0 && minute < MINUTES_PER_WEEK)
        startsAt[kind][minute] = (startsAt[kind][minute] ?? 0) + 1;
      previous = at;
    }
    return { ...counts, startsAt };
  };
  const VARIANTS = 7;
  /** Issue 28: a source's run starts per minute of the week, by kind of run (averaged over the variants). */
  const weekStarts = new Map<'oparl' | 'scraper', WeekStarts>();
  const weekly = (kind: 'oparl' | 'scraper', profiles: KindProfiles) => {
    const sum = { full: 0, changed: 0, unchanged: 0 };
    const starts: WeekStarts = {
      full: new Array<number>(MINUTES_PER_WEEK).fill(0),
      changed: new Array<number>(MINUTES_PER_WEEK).fill(0),
      unchanged: new Array<number>(MINUTES_PER_WEEK).fill(0),
    };
    for (let v = 0; v < VARIANTS; v += 1) {
      const c = week(kind, profiles, v);
      sum.full += c.full / VARIANTS;
      sum.changed += c.changed / VARIANTS;
      sum.unchanged += c.unchanged / VARIANTS;
      for (const k of ['full', 'changed', 'unchanged'] as const)
        c.startsAt[k].forEach((n, m) => {
          starts[k][m] = (starts[k][m] ?? 0) + n / VARIANTS;
        });
    }
    weekStarts.set(kind, starts);
    return sum;
  };
  // A source of 1.5 bodies with 10× the demo's objects per page (see assumptions). The demo body embeds
  // A.legislativeTermsPerBody terms (a real body's 3–8), so an incremental run looks up what a real one
  // does; in a full run their few lookups are scaled with the objects (≤ 45 read units of ≈ 15,000).
  const realOparl = (measured: KindProfiles): KindProfiles => ({
    firstFull: scaled(objectScaled(measured.firstFull, A.oparlObjectScale), A.bodiesPerOparlSource),
    nightlyFull: scaled(objectScaled(measured.nightlyFull, A.oparlObjectScale), A.bodiesPerOparlSource),
    ...(measured.nightlyFullWithoutDigest
      ? {
          nightlyFullWithoutDigest: scaled(
            objectScaled(measured.nightlyFullWithoutDigest, A.oparlObjectScale),
            A.bodiesPerOparlSource,
          ),
        }
      : {}),
    unchanged: scaled(measured.unchanged, A.bodiesPerOparlSource),
    // Issue 28: the change is in one body; its records are not one set per body.
    changed: ofOneChange(scaled(measured.changed, A.bodiesPerOparlSource), A.bodiesPerOparlSource),
  });
  // Issue 28 (sync CPU): the runs' work is the engine's own CPU (bench sync-cpu, assumptions.ts), not
  // this process's (its in-process peers and council in it); before and after that session's cuts.
  const oparlReal = realOparl(withEngineCpu(oparl, A.syncCpuSecondsPerRun.oparl));
  const oparlRealBeforeCuts = realOparl(withEngineCpu(oparl, A.syncCpuSecondsPerRunBeforeCuts.oparl));
  // Issue 28: the fake RIS site's changed run holds two changes (a calendar row and a Nachtrag).
  const scraperOneChange = {
    ...scraper,
    changed: ofOneChange(scraper.changed, SCRAPER_CHANGES_MEASURED),
  };
  const scraperEngine = withEngineCpu(scraperOneChange, A.syncCpuSecondsPerRun.scraper);
  const scraperBeforeCuts = withEngineCpu(scraperOneChange, A.syncCpuSecondsPerRunBeforeCuts.scraper);
  const oparlWeek = weekly('oparl', oparlReal);
  const scraperWeek = weekly('scraper', scraperEngine);
  log(`week per source: oparl ${JSON.stringify(oparlWeek)}, scraper ${JSON.stringify(scraperWeek)}`);

  // 2b. The stack as synthesised: functions, schedules, alarms, dashboards, metric names (issue 28).
  const stack = countStack();
  const series = metricSeries(stack, A.metricDimensionValues);
  // Issue 28 (metric-hours): a series is billed for the hours it gets data (bench/cost/metric-hours.ts).
  const plannerEveryHour = plannerDatapointsOfAnOrdinaryHour(A.typicalLongestPauseHours);
  const metricHoursAt = (n: number) =>
    metricHoursOf(stack, {
      valuesPerKey: A.metricDimensionValues,
      everyHour: plannerEveryHour,
      incidentHoursPerMonth: A.metricIncidentHoursPerMonth,
      pausedTooLongHoursPer1000: A.pausedTooLongHoursPer1000,
      sources: n,
    });
  log(
    `stack: ${stack.functions.length} functions, ${stack.schedules.length} schedules, ${stack.alarms} alarms, ${stack.dashboards} dashboards, ${series} metric series, ${metricMonths(metricHoursAt(sources)).toFixed(3)} metric-months (synth ${stack.synthSeconds.toFixed(1)} s)`,
  );
  const memoryOf = (descriptionStart: string, fallback: number) =>
    stack.functions.find((f) => f.description.startsWith(descriptionStart))?.memoryMb ?? fallback;
  const deletionFunction = stack.functions.find((f) => f.description.includes('deletion check'));
  // The schedules' invocations a month, from their expressions: rate(1 minute), hourly and daily crons.
  const minutesPerMonth = WEEKS_PER_MONTH * 7 * 24 * 60;
  const perMonthOf = (expression: string): number => {
    if (/^rate\(1 minute\)$/.test(expression)) return minutesPerMonth;
    const cron = /^cron\((\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\)$/.exec(expression);
    if (!cron) return 0;
    const [, , hour, , , dayOfWeek] = cron;
    if (dayOfWeek !== '?' && dayOfWeek !== '*') return WEEKS_PER_MONTH; // weekly
    return hour === '*' ? minutesPerMonth / 60 : minutesPerMonth / 1440;
  };
  const scheduledPerMonth = stack.schedules.reduce((sum, s) => sum + perMonthOf(s.expression), 0);

  // Issue 28: the sync worker's packing of a run stream (pure simulation, memoised per stream).
  const workerRuns = new Map<string, WorkerModelResult>();
  const workerOf = (
    runs: { seconds: number; weight: number; cpu: number }[],
    runSecondsPerMonth: number,
    runsPerMonth: number,
    levers: Pick<
      Levers,
      'payPerWork' | 'syncRunsAtOnce' | 'syncSpreadSeconds' | 'syncCapFromMean' | 'syncTrigger'
    >,
  ): WorkerModelResult => {
    const { payPerWork: refill, syncRunsAtOnce: runsAtOnce, syncSpreadSeconds: spreadSeconds } = levers;
    const secondsPerMonth = minutesPerMonth * 60;
    const runsPerMinute = runsPerMonth / minutesPerMonth;
    // SCH-5's slots as they must be set: the runs in flight on average (× 1.5) and a tick's burst —
    // the planner starts a minute's due runs at once, so slots of 1.5 × the mean alone would hold them
    // back and the backlog would grow (week.maxConcurrentSyncsToSet is that lower figure,
    // week.maxConcurrentSyncsWithBurst this one).
    const slots = Math.max(
      DEFAULT_MAX_CONCURRENT_SYNCS,
      Math.ceil((1.5 * runSecondsPerMonth) / secondsPerMonth + runsPerMinute),
    );
    // infra/stack.ts: the event source's cap from the runs in flight (Little's mean, the operator's
    // syncRunsInFlight) — or, with the lever off, from SCH-5's slots alone (the stack before issue 28's cap).
    const meanInFlight = runSecondsPerMonth / secondsPerMonth;
    const capInput = {
      maxConcurrentSyncs: slots,
      syncRunsInFlight: levers.syncCapFromMean && meanInFlight > 0 ? meanInFlight : undefined,
      runsAtOnce,
    };
    // Issue 28: the planner's own cap on the workers it starts has no SQS floor of 2.
    const maxInvocations =
      levers.syncTrigger === 'planner' ? plannerSyncWorkers(capInput) : syncMaxConcurrency(capInput);
    const key = JSON.stringify([
      runs,
      runsPerMonth,
      slots,
      refill,
      runsAtOnce,
      spreadSeconds,
      maxInvocations,
      levers.syncTrigger,
    ]);
    let result = workerRuns.get(key);
    if (result === undefined) {
      result = simulateWorker({
        runsPerMinute,
        runs,
        runsAtOnce,
        slots,
        refill,
        // Issue 28 what-if: workers started by the planner's tick, no event source (worker-model.ts).
        trigger: refill ? levers.syncTrigger : 'eventSource',
        ...(refill
          ? {
              // The batching window gathers a tick's burst into full batches.
              maxInvocations,
              batchSize: SYNC_BATCH_SIZE,
              // The event source's pollers long-poll beside the live workers: below its maximum
              // concurrency a message may open a new invocation although a live one has room.
              eventSourcePollers: A.sqsPollers,
              spreadSeconds,
            }
          : {
              // Before: the event source's cap was the slots; a tick's burst split among its pollers.
              maxInvocations: Math.max(2, slots),
              batchSize: Math.max(1, Math.min(SYNC_BATCH_SIZE, Math.round(runsPerMinute / A.sqsPollers))),
            }),
        // infra SYNC_TIMEOUT (15 minutes) less what the worker keeps back.
        startBySeconds: (SYNC_TIMEOUT_SECONDS * 1000 - WORKER_START_MIN_MS) / 1000,
        runBudgetSeconds: (SYNC_TIMEOUT_SECONDS * 1000 - BUDGET_RESERVE_MS) / 1000,
        minutes: WORKER_MODEL_MINUTES,
        warmupMinutes: 30,
      });
      workerRuns.set(key, result);
    }
    return result;
  };

  // 3. Monthly quantities of a fleet of `sources`, with or without each lever (issue 28).
  // Issue 28: the mirror index's items as measured, weighted as the fleet holds them (overFleet below),
  // for the inline-bound grid; and an API origin request as one list page of them (PAGE_SIZE_DEFAULT
  // objects, their `byList` copies at the built bound) instead of a flat 2 read units.
  const inlineSamples: InlineSample[] = [
    { weightPerSource: A.oparlShare * A.oparlObjectScale * A.bodiesPerOparlSource, items: oparlShapes },
    { weightPerSource: 1 - A.oparlShare, items: scraperShapes },
  ];
  const apiPageReadUnits = pageReadUnits(
    inlineBoundFigures(inlineSamples, INLINE_ITEM_MAX_BYTES),
    PAGE_SIZE_DEFAULT,
  );
  // Issue 28: the week's DynamoDB load per minute beside the runs: the planner's tick every minute, the
  // broadcasts and the mirror API's origin reads spread evenly (no daily curve is assumed for them), the
  // hourly files pass (:05) and deletion check (:35) over their run time. Stated attributions: files and
  // the deletion check's samples are Documents items, the check's scan reads Sources, the broadcasts
  // State, an API page the `byList` index.
  const dynamoLoadInput = (parts: {
    runLoads: RunKindLoad[];
    slots: number;
    perHour: {
      files: { count: number; minutes: number };
      deletion: { count: number; minutes: number };
      deletionScanReadUnits: number;
      /** Issue 28: each shard's one `deletion-runs` record a run (Documents). */
      deletionRunWriteUnits: number;
    };
    deletionUnits: { readUnits: number; writeUnits: number };
    perMinute: { broadcastReadUnits: number; apiReadUnits: number };
    /** Issue 28: the mirror's object items and their list index in the Mirror table (the API reads it). */
    mirrorTable: boolean;
  }): FleetLoadInput => {
    const every = new Array<number>(MINUTES_PER_WEEK).fill(1);
    const hourly = (atMinute: number, minutes: number) => {
      const span = Math.max(1, Math.round(minutes));
      return every.map((_, m) => (((m % 60) - atMinute + 60) % 60 < span ? 1 / span : 0));
    };
    const { files, deletion } = parts.perHour;
    return {
      kinds: parts.runLoads,
      slots: parts.slots,
      fixed: [
        { perMinute: every, units: unitsOf(planner.tickByTarget) },
        {
          perMinute: every,
          units: {
            State: { read: parts.perMinute.broadcastReadUnits, write: 0 },
            [`${parts.mirrorTable ? MIRROR_TABLE.logicalName : STATE_TABLE.logicalName}/${LIST_INDEX}`]: {
              read: parts.perMinute.apiReadUnits,
              write: 0,
            },
          },
        },
        {
          perMinute: hourly(5, files.minutes),
          units: { Documents: { read: files.count * A.fileReads, write: files.count * A.fileWrites } },
        },
        {
          perMinute: hourly(35, deletion.minutes),
          units: {
            Documents: {
              read: deletion.count * parts.deletionUnits.readUnits,
              write: deletion.count * parts.deletionUnits.writeUnits + parts.perHour.deletionRunWriteUnits,
            },
            Sources: { read: parts.perHour.deletionScanReadUnits, write: 0 },
          },
        },
      ],
    };
  };
  // Issue 28: DynamoDB's capacity by cost, per table and index, from the week's load per minute (memoised:
  // the sync's sizing levers move no unit).
  const capacityMemo = new Map<string, ReturnType<typeof decideCapacity>>();
  const dynamoCapacityOf = (
    sources: number,
    levers: Levers,
    parts: Parameters<typeof dynamoLoadInput>[0],
  ) => {
    const key = JSON.stringify([
      sources,
      levers.listDigest,
      levers.deletionWalk,
      levers.stateUnderOneKb,
      // Issue 28: a run cursor written or not moves State's write load (`unchangedCursorSkipped`).
      levers.unchangedCursorSkipped,
      levers.deletionServersAtOnce,
      levers.latency,
      levers.syncMemoryMb,
      levers.mirrorTable,
      levers.stateListIndexDropped,
    ]);
    let decided = capacityMemo.get(key);
    if (decided === undefined) {
      const load = fleetLoad(dynamoLoadInput(parts));
      // Issue 28: the week's load per target, for a look at the capacity model outside the bench.
      if (process.env.DYNAMO_LOAD_DUMP)
        writeFileSync(
          `${process.env.DYNAMO_LOAD_DUMP}-${sources}-${capacityMemo.size}.json`,
          JSON.stringify({ key, load }),
        );
      // Issue 28: State's list index, empty once the mirror has its own table, deleted (`ownDropped`).
      const dropped = levers.mirrorTable && levers.stateListIndexDropped;
      decided = decideCapacity(load, {
        without: dropped ? [`${STATE_TABLE.logicalName}/${LIST_INDEX}`] : [],
      });
      capacityMemo.set(key, decided);
    }
    return decided;
  };
  const bill = (sources: number, levers: Levers = LEVERS_NOW) => {
    const perMonth = (perWeek: number) => perWeek * WEEKS_PER_MONTH;
    const kinds = [
      {
        kind: 'oparl' as const,
        n: sources * A.oparlShare,
        p: levers.syncCpuCuts ? oparlReal : oparlRealBeforeCuts,
        w: oparlWeek,
        interval: REQUEST_INTERVAL_MIN_SECONDS,
        fullLatency: A.latency.oparlFullPage,
        incrementalLatency: A.latency.oparlIncrementalPage,
      },
      {
        kind: 'scraper' as const,
        n: sources * (1 - A.oparlShare),
        p: levers.syncCpuCuts ? scraperEngine : scraperBeforeCuts,
        w: scraperWeek,
        interval: SCRAPER_DEFAULT_INTERVAL_SECONDS,
        fullLatency: A.latency.scraperPage,
        incrementalLatency: A.latency.scraperPage,
      },
    ];
    const robotsPerWeek = 7; // robots.txt is re-read once a day per host (ROB cache lifetime 24 h)
    // Work measured here on one core is stretched by the function's CPU share (model.ts cpuSlowdown).
    const syncSlowdown =
      cpuSlowdown(levers.syncMemoryMb) * (levers.syncMallocMmap ? SYNC_MALLOC.cpuFactor : 1);
    const sync = {
      invocations: 0,
      seconds: 0,
      workSeconds: 0,
      requests: 0,
      readUnits: 0,
      writeUnits: 0,
      s3Puts: 0,
      s3Gets: 0,
      /** Issue 28: the IP bytes the runs send the councils (bench/cost/wire-bytes.ts, measured figures). */
      councilBytesOut: 0,
      /** Issue 28: the runs' PUT-class calls by `<kind> <run>: <command> <family>`. */
      s3PutsBy: {} as Record<string, number>,
      logBytes: 0,
      objectWrites: 0,
      writesBy: {} as Record<string, number>,
      /** Issue 28: the runs' read units by `<command> <family>` (an unchanged scrape's months, …). */
      readsBy: {} as Record<string, number>,
    };
    let storageS3Bytes = 0;
    /** Issue 28: the fleet's run stream for the worker model — each run's wall seconds alone, and how often. */
    const runMix: { seconds: number; weight: number; cpu: number }[] = [];
    /** Issue 28: the fleet's runs for the DynamoDB load profile — starts per minute, wall minutes, units. */
    const runLoads: RunKindLoad[] = [];
    // Issue 28: what a run's start spends in its tick's first second — the planner reads its due item and
    // writes its lease (table and `byDueAt` copy) with a minute's other starts, 48 at a time (shared/
    // planner tick.ts STORE_CONCURRENCY); the claim and the rest follow as a worker takes the message.
    const lease = lifecycle.byWrite['lease (planner tick)'];
    const leaseScale = levers.stateUnderOneKb ? lifecycle.writeCopies / lifecycle.writeUnits : 1;
    const leaseAtStart: UnitsByTarget = sumUnits(unitsOf(only('read', planner.perStartByTarget)), {
      [STATE_TABLE.logicalName]: { read: 0, write: (lease?.tableUnits ?? 0) * leaseScale },
      [`${STATE_TABLE.logicalName}/${DUE_INDEX}`]: {
        read: 0,
        write: (lease?.dueIndexUnits ?? 0) * leaseScale,
      },
    });
    for (const k of kinds) {
      // Issue 28: the nightly full sync as measured with the per-list digest, or without it.
      const nightlyFull = levers.listDigest
        ? k.p.nightlyFull
        : (k.p.nightlyFullWithoutDigest ?? k.p.nightlyFull);
      const runs: [RunProfile, number, Latency, keyof WeekStarts][] = [
        [nightlyFull, k.w.full, k.fullLatency, 'full'],
        [k.p.changed, k.w.changed, k.incrementalLatency, 'changed'],
        [unchangedOf(k.p, k.kind, levers), k.w.unchanged, k.incrementalLatency, 'unchanged'],
      ];
      for (const [p, perWeek, latency, runKind] of runs) {
        const count = perMonth(perWeek) * k.n;
        const runSeconds = pacedRunSeconds({
          ...p,
          workSeconds: p.workSeconds * syncSlowdown,
          intervalSeconds: k.interval,
          ...(levers.latency ? { latency } : {}),
        });
        sync.invocations += count;
        sync.seconds += count * runSeconds;
        // Its CPU at the function's share over its wall time: runs at once share one invocation's CPU.
        const cpu = runSeconds > 0 ? (p.workSeconds * syncSlowdown) / runSeconds : 0;
        if (count > 0) runMix.push({ seconds: runSeconds, weight: count, cpu });
        const starts = weekStarts.get(k.kind)?.[runKind];
        if (starts && count > 0)
          runLoads.push({
            startsPerMinute: starts.map((x) => x * k.n),
            minutes: runSeconds / 60,
            atStart: leaseAtStart,
            // The engine's units, the run's own lease, claim and release, and the planner's start — the
            // mirror's items and list copies in the Mirror table when it has its own (issue 28).
            units: mirrorTargetsOf(
              levers,
              p,
              unitsOf(
                levers.stateUnderOneKb
                  ? sumByTarget(
                      [1, p.byTarget ?? {}],
                      [lifecycle.writeCopies / lifecycle.writeUnits, lifecycle.byTarget],
                      [1, only('read', planner.perStartByTarget)],
                    )
                  : sumByTarget(
                      [1, p.byTarget ?? {}],
                      [1, lifecycle.byTarget],
                      [1, only('read', planner.perStartByTarget)],
                    ),
              ),
            ),
          });
        sync.workSeconds += count * p.workSeconds * syncSlowdown;
        sync.requests += count * p.requests;
        sync.readUnits += count * p.readUnits;
        sync.writeUnits += count * p.writeUnits;
        for (const [label, units] of Object.entries(p.writesBy ?? {}))
          sync.writesBy[label] = (sync.writesBy[label] ?? 0) + count * units;
        for (const [label, units] of Object.entries(p.readsBy ?? {}))
          sync.readsBy[`${k.kind}: ${label}`] = (sync.readsBy[`${k.kind}: ${label}`] ?? 0) + count * units;
        sync.objectWrites += count * p.mirrorItemWriteUnits;
        sync.s3Puts += count * p.s3Puts;
        // One new connection a run (runs are minutes apart; the keep-alive is 4 s).
        const answers = A.councilWire.responseBytes;
        sync.councilBytesOut += councilBytesOut(wireOf(k.kind), {
          requests: count * p.requests,
          connections: count,
          responseBytesPerRequest:
            k.kind === 'scraper'
              ? answers.scraper[runKind]
              : runKind === 'full'
                ? answers.oparlFullDemoPage * A.oparlObjectScale
                : answers.oparlIncremental[runKind],
        });
        for (const [label, n] of Object.entries(p.s3PutsBy ?? {})) {
          const at = `sync ${k.kind} ${runKind}: ${label}`;
          sync.s3PutsBy[at] = (sync.s3PutsBy[at] ?? 0) + count * n;
        }
        sync.s3Gets += count * p.s3Gets;
        sync.logBytes += count * p.logBytes;
      }
      const robots = perMonth(robotsPerWeek) * k.n;
      sync.requests += robots;
      // robots.txt on its run's connection: a short answer.
      sync.councilBytesOut += councilBytesOut(wireOf(k.kind), {
        requests: robots,
        connections: 0,
        responseBytesPerRequest: A.councilWire.responseBytes.head,
      });
      // Issue 28: each robots.txt fetch rewrites its shared cache entry (ROB-5, one PUT): the daily
      // refresh is not in the measured runs (their robots.txt is fresh for 24 h).
      const robotsLabel = `sync ${k.kind}: PutObject robots.txt cache (a fetch, ROB-5)`;
      sync.s3PutsBy[robotsLabel] = (sync.s3PutsBy[robotsLabel] ?? 0) + robots;
      sync.s3Puts += robots;
      sync.seconds +=
        robots * (levers.latency ? expectedRequestSeconds(k.interval, A.latency.head) : k.interval);
      storageS3Bytes += k.n * k.p.firstFull.s3BytesPut;
    }
    const syncsPerMinute = sync.invocations / minutesPerMonth;
    const ticks = minutesPerMonth;
    const plannerSeconds =
      (ticks * planner.tickSeconds + sync.invocations * planner.perStart.seconds) *
      cpuSlowdown(FUNCTION_MEMORY_MB.planner);

    const filesPerMonth = perMonth(A.filesPerSourcePerWeek) * sources;
    const hourlyRuns = minutesPerMonth / 60;
    // Issue 28: and every hourly pass loads every source (measured with the files, off: not billed before).
    const fileSeconds =
      filesPerMonth * fileSecondsEach(levers) +
      (levers.filesCpuMeasured
        ? hourlyRuns * sources * A.filesCpuSecondsPerSourceRun * cpuSlowdown(FUNCTION_MEMORY_MB.files)
        : 0);
    // DEL-2: every stored file sampled once a week (HEAD); RATE-6: 2 s between two checks of a server
    // (from the end of one to the start of the next, so the answer time adds), servers in parallel;
    // issue 28: the run in shards by host, each shard its own invocation (bench/cost/deletion-model.ts).
    const deletionRunSeconds = (deletionFunction?.timeoutS ?? 900) - DELETION_BUDGET_RESERVE_MS / 1000;
    const deletionMemoryMb = deletionFunction?.memoryMb ?? FUNCTION_MEMORY_MB.deletionCheck;
    const deletion = deletionRun({
      sources,
      storedFilesPerSource: A.storedFilesPerSource,
      headSeconds: levers.latency ? (A.latency.head.minSeconds + A.latency.head.maxSeconds) / 2 : 0,
      runSeconds: deletionRunSeconds,
      memoryMb: deletionMemoryMb,
      serversAtOnce: levers.deletionServersAtOnce,
      cpuSecondsPerCheck: A.deletionCpuSecondsPerCheck,
      cpuSecondsPerSourceRun: A.deletionCpuSecondsPerSourceRun,
    });
    const { fit: deletionFit, sampleIntervalMs: deletionSampleIntervalMs } = deletion;
    // Each shard reads the whole Sources table once a run (eventually consistent scan).
    const deletionScanReadUnits =
      hourlyRuns * deletion.shards * Math.ceil((sources * A.sourceItemBytes) / 4096) * 0.5;
    // Issue 28: a sample's DynamoDB units, measured through the real check (1b'); off = the code before
    // the sample walk, measured the same way (assumptions.ts).
    const deletionUnits = levers.deletionWalk
      ? { writeUnits: deletionSamples.writeUnitsPerSample, readUnits: deletionSamples.readUnitsPerSample }
      : A.deletionSampleUnitsBeforeWalk;
    const headsPerMonth =
      perMonth(A.storedFilesPerSource) * sources * (DEL_SAMPLE_INTERVAL_MS / deletionSampleIntervalMs);
    const deletionSeconds = hourlyRuns * deletion.shards * deletion.secondsPerRun;
    // Issue 28: each shard's run writes its `deletion-runs` record once, whatever its samples (measured).
    const deletionRunWrites = hourlyRuns * deletion.shards * deletionSamples.writeUnitsPerRun;
    // PHO-2: each person's photo re-checked every 30 days; ~60 persons per body.
    const photosPerMonth = ((60 * 30 * 86_400_000) / PHO_RECHECK_MS) * sources;
    const photoSeconds = pacedRunSeconds({
      requests: photosPerMonth,
      intervalSeconds: REQUEST_INTERVAL_MIN_SECONDS,
      workSeconds: photosPerMonth * 0.05 * cpuSlowdown(FUNCTION_MEMORY_MB.photos),
      hostsInParallel: HOSTS_IN_PARALLEL,
    });
    const visits = perMonth(A.previewVisitsPerSourcePerWeek) * sources;
    const fetches = sync.requests + filesPerMonth + headsPerMonth + photosPerMonth;
    const upstashCommands =
      fetches * A.upstashCommandsPerRequest + sync.invocations * A.upstashCommandsPerRun + minutesPerMonth;

    // Files: the history (older than the transition age) and a month of new ones.
    const youngFiles = sources * A.filesPerSourcePerWeek * ((FILES_TO_GLACIER_IR_AFTER_DAYS / 7) as number);
    const storedFiles =
      sources * A.storedFilesPerSource + Math.min(youngFiles, sources * A.filesPerSourcePerWeek * 4);
    const oldFiles = sources * A.storedFilesPerSource;
    const fileGb = (files: number) => (files * A.fileBytes) / 1e9;
    const textGb = (storedFiles * A.textBytesPerFile) / 1e9;
    // Issue 28: which old files are in Glacier IR — those larger than the rule's threshold, by the
    // assumed size distribution (bench/cost/file-sizes.ts), each billed there as 128 KiB at the least.
    const tiers = tieredFiles(lognormalWithMean(A.fileBytes, A.fileSizeSigma), levers.glacierIrMinBytes);
    const s3StandardGb = levers.storageClasses
      ? storageS3Bytes / 1e9 +
        textGb +
        fileGb(storedFiles - oldFiles) +
        (oldFiles * tiers.standardBytesPerFile) / 1e9
      : storageS3Bytes / 1e9 + textGb + fileGb(storedFiles);
    // Issue 28 (what-if `previewViaCdn`): stored copies through the distribution — S3 reads a file only
    // on CloudFront's misses; without it every visit's redirect reads it from S3.
    const fileReadShare = levers.previewViaCdn ? 1 - A.previewCdnHitShare : 1;
    const oldVisits = visits * A.previewOldFileShare * fileReadShare;
    const glacierVisits = oldVisits * tiers.transitionedShare;

    // The mirror index, measured (see the comment of issue 18 above MirrorKind).
    type MirrorKind = { n: number; sample: MirrorIndexSample; objects: number; lists: number };
    const mirrorKinds: MirrorKind[] = [
      {
        n: sources * A.oparlShare,
        sample: oparlIndex,
        objects: A.oparlObjectScale * A.bodiesPerOparlSource,
        lists: A.bodiesPerOparlSource,
      },
      { n: sources * (1 - A.oparlShare), sample: scraperIndex, objects: 1, lists: 1 },
    ];
    const none: ItemSample = { items: 0, bytes: 0 };
    const mirrorIndexNames = [...new Set(mirrorKinds.flatMap((k) => Object.keys(k.sample.indexes)))];
    const overFleet = (of: (k: MirrorKind) => ItemSample, scale: 'objects' | 'lists') => {
      const items = mirrorKinds.reduce((sum, k) => sum + k.n * k[scale] * of(k).items, 0);
      const bytes = mirrorKinds.reduce((sum, k) => sum + k.n * k[scale] * of(k).bytes, 0);
      return {
        perSource: items / sources,
        avgBytes: items === 0 ? 0 : bytes / items,
        storedBytes: bytes + items * STORAGE_OVERHEAD_BYTES_PER_ITEM,
      };
    };
    const mirrorItems = overFleet((k) => k.sample.table, 'objects');
    const mirrorCounters = overFleet((k) => k.sample.counters, 'lists');
    const mirrorCopies = Object.fromEntries(
      mirrorIndexNames.map((index) => [index, overFleet((k) => k.sample.indexes[index] ?? none, 'objects')]),
    );
    const mirrorTableBytes = mirrorItems.storedBytes + mirrorCounters.storedBytes;
    const mirrorIndexBytes = Object.values(mirrorCopies).reduce((sum, c) => sum + c.storedBytes, 0);
    // Issue 28: with the Mirror table, the object items and their byList copies are billed there
    // (Standard-IA, no PITR); the list counters stay in State.
    const movedBytes = levers.mirrorTable ? mirrorItems.storedBytes : 0;
    const dynamoStorageGb =
      (sources * 20 * A.stateItemBytes + storedFiles * A.documentItemBytes + mirrorTableBytes - movedBytes) /
      1e9;
    const dynamoIndexStorageGb = levers.mirrorTable ? 0 : mirrorIndexBytes / 1e9;
    // The mirror items' writes and their byList copies' (measured per object commit), and the API's
    // page reads (its Query of byList and GetItems of index items; the bodies it reads from State are
    // a few items cached 30 s, left in State's line).
    const mirrorTableWrites =
      (sync.writesBy['PutItem object-hash'] ?? 0) +
      (sync.writesBy[`PutItem object-hash → ${LIST_INDEX}`] ?? 0);
    // Issue 28: the runs' reads of the mirror items by key — State's before the move, the Mirror table's
    // (Standard-IA) after it.
    const mirrorTableReads = levers.mirrorTable ? mirrorItemReads(sync.readsBy) : 0;
    // The byList copies of the mirror items written are measured with them (the meter bills index writes).
    const logBytesPerSync = sync.logBytes / sync.invocations + summaryLineBytes;
    const logsIngestedGb = (logBytesPerSync * sync.invocations) / 1e9;

    // Several sources per sync invocation, both sides simulated from this bill's own run stream (bench/
    // cost/worker-model.ts): before issue 28, a batch per invocation (a tick's burst split among the
    // event source's pollers), lasting until its longest run ends; as built, the sync worker — runs of
    // distinct hosts in few invocations that refill from the queue (shared/sync/worker.ts). Billed sync
    // seconds = Σ invocations' wall time, at least the runs' CPU work together.
    const recordsPerInvocation = Math.max(1, Math.min(SYNC_BATCH_SIZE, syncsPerMinute / A.sqsPollers));
    const worker = workerOf(runMix, sync.seconds, sync.invocations, levers);
    const syncInvocations = sync.invocations * worker.invocationsPerRun;
    const syncSeconds = Math.max(sync.seconds * worker.billedPerRunSecond, sync.workSeconds);
    // Issue 28: the sync workers on provisioned concurrency — the count cheapest for this fleet's
    // distribution of workers alive (bench/cost/provisioned.ts), the spill-over on-demand.
    const syncProvisioned =
      levers.syncProvisioned === 'decided'
        ? decideProvisioned({
            aliveSeconds: worker.aliveSeconds,
            memoryMb: levers.syncMemoryMb,
            billedSeconds: syncSeconds,
            secondsPerMonth: minutesPerMonth * 60,
          })
        : undefined;
    const syncOnProvisioned = syncProvisioned?.choices[syncProvisioned.instances];
    const changes = perMonth(A.changesPerWeekday * 5) * sources;
    const apiRequests = A.apiRequestsPerSourcePerMonth * sources;
    const apiOrigin = apiRequests * (1 - A.apiCacheHitShare);
    const apiBytesEach = levers.apiBytesMeasured
      ? bytesPerResponse([A.apiWire.listPage], A.apiWire.viewerEncodings)
      : API_BYTES_PER_RESPONSE_ASSUMED;
    const previewGb = (visits * A.fileBytes) / 1e9;
    const broadcastRuns = minutesPerMonth;
    const fn = (memoryMb: number, invocations: number, seconds: number) => ({
      invocations,
      seconds,
      memoryMb,
      arch: 'arm64' as const,
    });
    const usage: MonthlyUsage = {
      lambda: {
        planner: fn(FUNCTION_MEMORY_MB.planner, ticks, plannerSeconds),
        sync: {
          ...fn(levers.syncMemoryMb, syncInvocations, syncSeconds),
          ...(syncOnProvisioned && syncOnProvisioned.instances > 0
            ? {
                provisioned: {
                  instances: syncOnProvisioned.instances,
                  gbSeconds: syncOnProvisioned.provisionedGbSeconds,
                  secondsOnProvisioned: syncOnProvisioned.secondsOnProvisioned,
                },
              }
            : {}),
        },
        files: fn(FUNCTION_MEMORY_MB.files, hourlyRuns, fileSeconds),
        deletionCheck: fn(deletionMemoryMb, hourlyRuns * deletion.shards, deletionSeconds),
        photos: fn(FUNCTION_MEMORY_MB.photos, WEEKS_PER_MONTH, photoSeconds),
        preview: fn(FUNCTION_MEMORY_MB.preview, visits, visits * A.previewFunctionSeconds),
        geo: fn(
          memoryOf('Daily: plan boundaries', FUNCTION_MEMORY_MB.geo),
          minutesPerMonth / 1440,
          (minutesPerMonth / 1440) * A.geoSecondsPerRun,
        ),
        broadcasts: fn(
          memoryOf('Every minute: live broadcasts', FUNCTION_MEMORY_MB.broadcasts),
          broadcastRuns,
          broadcastRuns * A.broadcastSecondsPerRun,
        ),
        mirrorApi: fn(
          memoryOf('OParl 1.1 API', FUNCTION_MEMORY_MB.mirrorApi),
          apiOrigin,
          apiOrigin * A.apiFunctionSeconds,
        ),
      },
      sqs: {
        // Planner sends (measured per start); Lambda's poller receives a batch and deletes it with one
        // DeleteMessageBatch per invocation; idle long polls.
        requests:
          sync.invocations * planner.perStart.sqsRequests +
          syncInvocations * 2 +
          ticks * A.sqsIdleReceivesPerMinute +
          // Issue 28: workers started by the planner — each tick reads both queues' depths (the wake
          // queue's pollers replace the sync queue's idle ones; a wake is one send per invocation).
          (levers.syncTrigger === 'planner' ? ticks * 2 + syncInvocations : 0),
      },
      dynamodb: {
        readUnits:
          sync.readUnits -
          mirrorTableReads +
          ticks * planner.tickReadUnits +
          sync.invocations * planner.perStart.readUnits +
          sync.invocations * lifecycle.readUnits +
          filesPerMonth * A.fileReads +
          headsPerMonth * deletionUnits.readUnits +
          deletionScanReadUnits +
          broadcastRuns * A.broadcastReadUnitsPerRun +
          (levers.mirrorTable ? 0 : apiOrigin * apiPageReadUnits),
        writeUnits:
          sync.writeUnits -
          (levers.mirrorTable ? mirrorTableWrites : 0) +
          sync.invocations * (levers.stateUnderOneKb ? lifecycle.writeCopies : lifecycle.writeUnits) +
          filesPerMonth * A.fileWrites +
          headsPerMonth * deletionUnits.writeUnits +
          deletionRunWrites,
        storageGb: dynamoStorageGb,
        indexStorageGb: dynamoIndexStorageGb,
        pitr: true,
        ...(levers.mirrorTable
          ? {
              mirrorTable: {
                readUnits: apiOrigin * apiPageReadUnits + mirrorTableReads,
                writeUnits: mirrorTableWrites,
                storageGb: mirrorItems.storedBytes / 1e9,
                indexStorageGb: mirrorIndexBytes / 1e9,
              },
            }
          : {}),
      },
      s3: {
        putRequests: sync.s3Puts + filesPerMonth * FILE_S3_PUTS,
        getRequests:
          sync.s3Gets +
          (levers.storageClasses ? visits * fileReadShare - glacierVisits : visits * fileReadShare) +
          filesPerMonth,
        storageGb: s3StandardGb,
        ...(levers.storageClasses
          ? {
              glacierIr: {
                storageGb: (oldFiles * tiers.glacierIrBilledBytesPerFile) / 1e9,
                getRequests: glacierVisits,
                retrievalGb: (oldVisits * tiers.glacierIrBytesPerFile) / 1e9,
                transitions: filesPerMonth * tiers.transitionedShare,
              },
            }
          : {}),
      },
      events: { published: changes * A.objectsPerChange * A.changeFeedEventsPerObject },
      logs: { ingestedGb: logsIngestedGb, storedGb: logsIngestedGb * A.logsStoredFraction },
      metrics: {
        series: levers.metricsOnlyAlarmed ? metricMonths(metricHoursAt(sources)) : A.metricSeriesAllEmf,
        alarms: stack.alarms,
        dashboards: stack.dashboards,
      },
      scheduler: { invocations: scheduledPerMonth },
      // The planner's host ledger is one script a tick (shared/slots ledger.ts).
      upstash: { commands: upstashCommands, bandwidthGb: (upstashCommands * A.upstashBytesPerCommand) / 1e9 },
      secrets: { secrets: stack.secrets, apiCalls: A.coldStartsPerMonth },
      dataTransfer: {
        // Issue 28: the preview's files out of S3 (presigned redirects) or, what-if, through CloudFront
        // (a second request a visit: the redirect's target); the API's bytes as measured (api-bytes).
        internetOutGb: levers.previewViaCdn ? 0 : previewGb,
        cloudFrontOutGb: (apiRequests * apiBytesEach) / 1e9 + (levers.previewViaCdn ? previewGb : 0),
        cloudFrontRequests: visits + apiRequests + (levers.previewViaCdn ? visits : 0),
        cloudFrontFlatRate: levers.cloudFrontFlatRate,
        // Issue 28: measured bytes a request (bench/cost/wire-bytes.ts; assumptions.ts `councilWire`):
        // a file fetch its own connection; the deletion check one per server and hourly run (its
        // HEADs of a server 2 s apart, RATE-6), the photo check one per source and weekly run.
        ingestOutGb:
          (sync.councilBytesOut +
            councilBytesOut(wireOf('scraper'), {
              requests: filesPerMonth,
              connections: filesPerMonth,
              responseBytesPerRequest: A.fileBytes,
            }) +
            councilBytesOut(wireOf('scraper'), {
              requests: headsPerMonth,
              connections: Math.min(headsPerMonth, hourlyRuns * sources),
              responseBytesPerRequest: A.councilWire.responseBytes.head,
            }) +
            councilBytesOut(wireOf('scraper'), {
              requests: photosPerMonth,
              connections: Math.min(photosPerMonth, WEEKS_PER_MONTH * sources),
              responseBytesPerRequest: A.councilWire.responseBytes.head,
            })) /
          1e9,
      },
      // Issue 25 point 4: one web ACL with one rate-based rule, every API request inspected — only when on.
      ...(opts.apiWaf ? { waf: { webAcls: 1, rules: 1, requests: apiRequests } } : {}),
    };
    // Issue 28: DynamoDB's capacity mode by cost (bench/cost/dynamo-capacity.ts) from the week's load per
    // minute; the tables the decision provisions are billed per unit-hour instead of per request unit.
    const dynamo = dynamoCapacityOf(sources, levers, {
      runLoads,
      slots: Math.max(
        DEFAULT_MAX_CONCURRENT_SYNCS,
        Math.ceil((1.5 * sync.seconds) / (minutesPerMonth * 60) + syncsPerMinute),
      ),
      perHour: {
        files: { count: filesPerMonth / hourlyRuns, minutes: fileSeconds / hourlyRuns / 60 },
        deletion: { count: headsPerMonth / hourlyRuns, minutes: deletion.secondsPerRun / 60 },
        deletionScanReadUnits: deletionScanReadUnits / hourlyRuns,
        deletionRunWriteUnits: deletionRunWrites / hourlyRuns,
      },
      deletionUnits,
      perMinute: {
        broadcastReadUnits: (broadcastRuns / minutesPerMonth) * A.broadcastReadUnitsPerRun,
        apiReadUnits: (apiOrigin / minutesPerMonth) * apiPageReadUnits,
      },
      mirrorTable: levers.mirrorTable,
    });
    if (levers.dynamoCapacity === 'decided') {
      // The provisioned tables' units come off the on-demand lines of State, Sources and Documents; the
      // Mirror table's requests are billed apart at Standard-IA prices, and its provisioned unit-hours
      // (IA priced) are not modelled — say so loudly rather than bill them at Standard's.
      if (levers.mirrorTable && dynamo.provisionedTables.tables.includes(MIRROR_TABLE.logicalName))
        throw Object.assign(
          new Error('the cost model does not price the Mirror table (Standard-IA) in provisioned mode'),
          { code: 'COST_MIRROR_TABLE_PROVISIONED' },
        );
      usage.dynamodb.readUnits = Math.max(0, usage.dynamodb.readUnits - dynamo.provisionedTables.readUnits);
      usage.dynamodb.writeUnits = Math.max(
        0,
        usage.dynamodb.writeUnits - dynamo.provisionedTables.writeUnits,
      );
      if (dynamo.provisionedTables.tables.length > 0)
        usage.dynamodb.provisioned = {
          wcuHours: dynamo.provisionedTables.wcuHours,
          rcuHours: dynamo.provisionedTables.rcuHours,
        };
    }
    const cost = priceUsage(usage);

    // Onboarding, a one-off (issue 28): every source's first full sync and its file history fetched.
    const firstFulls = kinds.reduce(
      (sum, k) => {
        const p = k.p.firstFull;
        sum.seconds +=
          k.n *
          pacedRunSeconds({
            ...p,
            workSeconds: p.workSeconds * syncSlowdown,
            intervalSeconds: k.interval,
            latency: k.fullLatency,
          });
        sum.readUnits += k.n * p.readUnits;
        sum.writeUnits += k.n * p.writeUnits;
        sum.s3Puts += k.n * p.s3Puts;
        sum.requests += k.n * p.requests;
        return sum;
      },
      { seconds: 0, readUnits: 0, writeUnits: 0, s3Puts: 0, requests: 0 },
    );
    const backfillFiles = sources * A.storedFilesPerSource;
    const onboardingUsage: MonthlyUsage = {
      ...emptyUsage(),
      lambda: {
        sync: fn(levers.syncMemoryMb, sources, firstFulls.seconds),
        files: fn(FUNCTION_MEMORY_MB.files, backfillFiles / 100, backfillFiles * fileSecondsEach(levers)),
      },
      dynamodb: {
        readUnits: firstFulls.readUnits + backfillFiles * A.fileReads,
        writeUnits: firstFulls.writeUnits + backfillFiles * A.fileWrites,
        storageGb: 0,
        indexStorageGb: 0,
        pitr: false,
      },
      s3: {
        putRequests: firstFulls.s3Puts + backfillFiles * FILE_S3_PUTS,
        getRequests: 0,
        storageGb: 0,
        ...(levers.storageClasses
          ? {
              glacierIr: {
                storageGb: 0,
                getRequests: 0,
                retrievalGb: 0,
                transitions: backfillFiles * tiers.transitionedShare,
              },
            }
          : {}),
      },
      upstash: { commands: (firstFulls.requests + backfillFiles) * A.upstashCommandsPerRequest },
    };
    // Upstash is billed as its fixed plan in the month anyway; onboarding's commands add nothing then.
    const onboardingCost = priceUsage({ ...onboardingUsage, upstash: { commands: 0 } });
    // Issue 28: the month's write units by item family and operation (index copies apart).
    const writesByFamily: Record<string, number> = { ...sync.writesBy };
    const lifecycleScale = levers.stateUnderOneKb ? lifecycle.writeCopies / lifecycle.writeUnits : 1;
    for (const [label, units] of Object.entries(lifecycle.writesBy))
      writesByFamily[`run: ${label}`] = sync.invocations * units * lifecycleScale;
    // Issue 28: the same STATE writes by kind (lease, claim, release): table and `byDueAt` units, and
    // the index copies the store's rule derives from each update's attribute names.
    const stateByWrite = Object.fromEntries(
      Object.entries(lifecycle.byWrite).map(([label, w]) => [
        label,
        {
          table: sync.invocations * w.tableUnits * lifecycleScale,
          byDueAt: sync.invocations * w.dueIndexUnits * lifecycleScale,
          derivedCopies: sync.invocations * w.derivedCopies,
        },
      ]),
    );
    writesByFamily['documents: file stored (assumed)'] = filesPerMonth * A.fileWrites;
    writesByFamily['documents: deletion check sample (measured)'] = headsPerMonth * deletionUnits.writeUnits;
    // Issue 28: the month's S3 PUT-class calls by family — the runs' as measured, a file's from the code.
    const s3PutsByFamily: Record<string, number> = { ...sync.s3PutsBy };
    for (const [label, n] of Object.entries(FILE_S3_PUTS_BY))
      s3PutsByFamily[`files: ${label}`] = filesPerMonth * n;
    writesByFamily['documents: deletion check run record (measured)'] = deletionRunWrites;
    // Issue 28: the always-free allowances, apart from the list price (bench/cost/free-tier.ts).
    const egressGb =
      usage.dataTransfer.internetOutGb +
      usage.dataTransfer.cloudFrontOutGb +
      (usage.dataTransfer.ingestOutGb ?? 0);
    return {
      usage,
      cost,
      freeTier: applyFreeTier(cost),
      writesByFamily,
      s3PutsByFamily,
      stateByWrite,
      onboarding: onboardingCost,
      syncsPerMinute,
      sync,
      recordsPerInvocation,
      worker,
      syncProvisioned,
      deletionFit,
      deletionRunSeconds,
      deletion: {
        shards: deletion.shards,
        waitSecondsPerRun: deletion.waitSecondsPerRun,
        cpuSecondsPerRun: deletion.cpuSecondsPerRun,
        sampleIntervalDays: deletionSampleIntervalMs / 86_400_000,
      },
      storedFiles,
      oldFiles,
      dynamo,
      mirror: { mirrorItems, mirrorCounters, mirrorCopies, mirrorTableBytes, mirrorIndexBytes },
      logBytesPerSync,
      vm: vmComparison({
        filesGb: fileGb(storedFiles),
        databaseGb: A.vmDatabaseGb,
        snapshotGb: A.vmDatabaseGb * A.vmSnapshotFactor,
        // The same bytes leave a VM: visitors' files and API answers, and its requests to the councils.
        egressGb,
        // The same always-free allowance as the serverless bill's: 100 GB of egress (issue 28).
        freeEgressGb: vmFreeEgressGb(egressGb),
      }),
    };
  };

  const round = (x: number, d = 2) => Number(x.toFixed(d));
  // Issue 28: the sync's GB-s lines — on-demand, and with provisioned concurrency its instances and their duration.
  const syncGbSecondsEur = (b: ReturnType<typeof bill>) =>
    Object.entries(b.cost.services.lambda?.items ?? {})
      .filter(([name]) => /^sync .*GB-s$/.test(name))
      .reduce((sum, [, line]) => sum + line.eur, 0);
  // Issue 28: the sync function's whole line — every `sync …` item: GB-s (on-demand, provisioned
  // instances and their duration) and invocations.
  const syncLineEur = (b: ReturnType<typeof bill>) =>
    Object.entries(b.cost.services.lambda?.items ?? {})
      .filter(([name]) => name.startsWith('sync '))
      .reduce((sum, [, line]) => sum + line.eur, 0);
  const workerFigures = (w: WorkerModelResult) => ({
    billedPerRunSecond: round(w.billedPerRunSecond, 3),
    invocationsPerRun: round(w.invocationsPerRun, 3),
    meanRunsInFlight: round(w.meanRunsInFlight, 1),
    maxRunsInFlight: w.maxRunsInFlight,
    meanInvocationsAlive: round(w.meanInvocationsAlive, 2),
    meanQueueWaitSeconds: round(w.meanQueueWaitSeconds, 1),
  });
  const servicesOf = (cost: CostBreakdown) =>
    Object.fromEntries(
      Object.entries(cost.services).map(([name, svc]) => [
        name,
        {
          eur: round(svc.eur),
          items: Object.fromEntries(
            Object.entries(svc.items).map(([item, v]) => [
              item,
              { quantity: round(v.quantity, 3), unit: v.unit, eur: round(v.eur, 3) },
            ]),
          ),
        },
      ]),
    );
  const now = bill(sources);
  // Issue 28: Upstash pay-as-you-go against the fixed plan for the month's commands (the model bills
  // the cheaper), and the fixed plan's bandwidth bound.
  const upstashOf = (b: ReturnType<typeof bill>) => {
    const { commands } = b.usage.upstash;
    const bandwidthGb = b.usage.upstash.bandwidthGb ?? 0;
    const billed = upstashPlanOf(b.usage.upstash);
    // The plan that carries the bandwidth, billed or not (pay-as-you-go may be cheaper).
    const plan = billed.plan ?? UPSTASH_FIXED_PLANS.find((p) => p.bandwidthGb >= bandwidthGb);
    return {
      millionCommandsPerMonth: round(commands / 1e6, 2),
      payAsYouGoEur: round(billed.payAsYouGoUsd * USD_TO_EUR),
      fixedPlan: plan?.name ?? 'none carries it',
      fixedPlanEur: round((plan ? PRICES[plan.price].usd : Number.NaN) * USD_TO_EUR),
      bandwidthGb: round(bandwidthGb, 1),
      fixedPlanBandwidthGb: plan?.bandwidthGb ?? Number.NaN,
      billed: billed.plan ? billed.plan.name : 'pay-as-you-go',
    };
  };
  // Issue 28: the write units of the month by item family and operation, largest first (million WRU).
  const dynamoWritesOf = (b: ReturnType<typeof bill>) => {
    const total = b.usage.dynamodb.writeUnits;
    const rows = Object.entries(b.writesByFamily)
      .filter(([, units]) => units > 0)
      .sort((x, y) => y[1] - x[1]);
    return {
      // Every unit written, whichever line bills it (issue 28: State's provisioned capacity and the
      // Mirror table carry most of them), and of them those billed per request unit on-demand.
      millionWruPerMonth: round(rows.reduce((sum, [, units]) => sum + units, 0) / 1e6, 2),
      onDemandMillionWruPerMonth: round(total / 1e6, 2),
      eurPerMonth: round(b.cost.services.dynamodb?.items['write request units']?.eur ?? 0),
      byFamily: Object.fromEntries(rows.map(([label, units]) => [label, round(units / 1e6, 3)])),
      /** Issue 28: the sync runs' read units by source kind and family, million a month. */
      syncReadsByFamily: Object.fromEntries(
        Object.entries(b.sync.readsBy)
          .filter(([, units]) => units > 0)
          .sort((x, y) => y[1] - x[1])
          .map(([label, units]) => [label, round(units / 1e6, 3)]),
      ),
      /** Issue 28: a run's STATE writes by kind, million units a month (`bench state-writes` per run). */
      stateByWrite: Object.fromEntries(
        Object.entries(b.stateByWrite).map(([label, w]) => [
          label,
          {
            table: round(w.table / 1e6, 3),
            byDueAt: round(w.byDueAt / 1e6, 3),
            derivedCopies: round(w.derivedCopies / 1e6, 3),
          },
        ]),
      ),
    };
  };
  // Issue 28: the S3 PUT/LIST line by family, largest first (thousand calls a month), and its transitions.
  const s3RequestsOf = (b: ReturnType<typeof bill>) => {
    const rows = Object.entries(b.s3PutsByFamily)
      .filter(([, n]) => n > 0)
      .sort((x, y) => y[1] - x[1]);
    return {
      thousandPutsPerMonth: round(b.usage.s3.putRequests / 1e3, 1),
      eurPerMonth: round(b.cost.services.s3?.items['PUT/LIST requests']?.eur ?? 0),
      byFamily: Object.fromEntries(rows.map(([label, n]) => [label, round(n / 1e3, 1)])),
      thousandTransitionsPerMonth: round((b.usage.s3.glacierIr?.transitions ?? 0) / 1e3, 1),
    };
  };
  // Issue 28 (s3-files): the file copies' storage-class alternatives, by the model's own load (bench/cost/
  // file-class-choice.ts): EUR a month at this fleet, as built against each; none is built.
  const fileClassesOf = (n: number) => {
    const A = ASSUMPTIONS;
    const d = lognormalWithMean(A.fileBytes, A.fileSizeSigma);
    const visits = A.previewVisitsPerSourcePerWeek * WEEKS_PER_MONTH * n;
    const load = {
      newFilesPerMonth: A.filesPerSourcePerWeek * WEEKS_PER_MONTH * n,
      oldFiles: A.storedFilesPerSource * n,
      youngVisitsPerMonth: visits * (1 - A.previewOldFileShare),
      oldVisitsPerMonth: visits * A.previewOldFileShare,
      // text.ts reads each new copy once (readObject); the deletion check's samples HEAD the source.
      readsPerNewFile: 1,
      // Early deletions only add to the direct write's bill: 0 is the case most in its favour.
      earlyDeletedShare: 0,
      transitionAgeDays: FILES_TO_GLACIER_IR_AFTER_DAYS,
    };
    const eur = (usd: number) => round(usd * USD_TO_EUR);
    const young = youngFilesMonthUsd(d, FILES_TO_GLACIER_IR_MIN_BYTES, load, CLASS_PRICES);
    const stock = fileStockMonthUsd(d, FILES_TO_GLACIER_IR_MIN_BYTES, load, CLASS_PRICES);
    const t = tieredFiles(d, FILES_TO_GLACIER_IR_MIN_BYTES);
    const movedFileBytes = t.glacierIrBytesPerFile / t.transitionedShare;
    return {
      sources: n,
      youngFilesOverThreshold: {
        asBuiltEur: eur(young.asBuilt),
        glacierIrAtPutEur: eur(young.directGlacierIr),
      },
      allFileCopies: { asBuiltEur: eur(stock.asBuilt), intelligentTieringEur: eur(stock.intelligentTiering) },
      laterTransition: {
        breakEvenVisitsPerFileMonth: round(standardBreakEvenVisitsPerMonth(CLASS_PRICES, movedFileBytes), 3),
        oldVisitsPerMovedFileMonth: round(
          (load.oldVisitsPerMonth * t.transitionedShare) / (load.oldFiles * t.transitionedShare),
          4,
        ),
      },
    };
  };
  const { cost, mirror } = now;
  // Issue 28: the mirror index's inline bound, PITR and table class re-priced from the measured items
  // (bench/cost/inline-bound.ts): every bound at 1,000 and 10,000 sources, the rest of the bill as built.
  const billAtFleet = (n: number, b: ReturnType<typeof bill>): BillAtFleet => {
    return {
      usage: b.usage,
      cost: b.cost,
      mirrorWrites: {
        table: b.sync.writesBy['PutItem object-hash'] ?? 0,
        index: b.sync.writesBy[`PutItem object-hash → ${LIST_INDEX}`] ?? 0,
        counters: b.sync.writesBy['UpdateItem APILISTCOUNT'] ?? 0,
      },
      mirrorTableGb: b.mirror.mirrorTableBytes / 1e9,
      api: {
        requests: A.apiRequestsPerSourcePerMonth * n * (1 - A.apiCacheHitShare),
        pageSize: PAGE_SIZE_DEFAULT,
        concurrency: OBJECT_READ_CONCURRENCY,
        s3RoundSeconds: A.apiS3RoundSeconds,
        billedReadUnitsPerRequest: apiPageReadUnits,
      },
    };
  };
  const eurPerUnit = (price: 'dynamoReadUnit' | 'dynamoWriteUnit') => PRICES[price].usd * USD_TO_EUR;
  const inlineBound = [1_000, 10_000].map((n) => {
    const b = n === sources ? now : bill(n);
    return {
      sources: n,
      billEur: round(b.cost.eurPerMonth),
      rows: inlineBoundRows({
        bill: billAtFleet(n, b),
        sources: n,
        samples: inlineSamples,
        measuredBound: INLINE_ITEM_MAX_BYTES,
        bounds: INLINE_BOUND_GRID,
        price: (usage) => priceUsage(usage),
        eurPerReadUnit: eurPerUnit('dynamoReadUnit'),
        eurPerWriteUnit: eurPerUnit('dynamoWriteUnit'),
      }).map((row) => roundDeep(row)),
    };
  });
  // Issue 28: the Mirror table (Standard-IA, no PITR) at 1,000 and 10,000 sources: the month with the
  // items in State (PITR, Standard) and in their own table, and the one-off move (bench/cost/mirror-move.ts;
  // a week of the dual deploy between the two deploys).
  const mirrorTable = [1_000, 10_000].map((n) => {
    const on = n === sources ? now : bill(n);
    const off = bill(n, { ...LEVERS_NOW, mirrorTable: false });
    const dynamo = (b: ReturnType<typeof bill>) => b.cost.services.dynamodb?.eur ?? 0;
    const writes = on.sync.writesBy;
    const move = mirrorMovePrice({
      items: on.mirror.mirrorItems.perSource * n,
      avgItemBytes: on.mirror.mirrorItems.avgBytes,
      stateTableBytes: off.usage.dynamodb.storageGb * 1e9,
      mirrorWriteUnitsPerMonth:
        (writes['PutItem object-hash'] ?? 0) + (writes[`PutItem object-hash → ${LIST_INDEX}`] ?? 0),
      dualDays: 7,
      usdToEur: USD_TO_EUR,
    });
    return roundDeep({
      sources: n,
      inStateEur: off.cost.eurPerMonth,
      ownTableEur: on.cost.eurPerMonth,
      savesEurPerMonth: off.cost.eurPerMonth - on.cost.eurPerMonth,
      // The always-free 25 GB is Standard's: with the items moved out, most of it goes unused.
      alwaysFree: {
        inStateEur: off.freeTier.eurPerMonth,
        ownTableEur: on.freeTier.eurPerMonth,
        savesEurPerMonth: off.freeTier.eurPerMonth - on.freeTier.eurPerMonth,
      },
      dynamodbInStateEur: dynamo(off),
      dynamodbOwnTableEur: dynamo(on),
      ownTableLines: Object.fromEntries(
        Object.entries(on.cost.services.dynamodb?.items ?? {})
          .filter(([name]) => name.startsWith('mirror table'))
          .map(([name, line]) => [name, line.eur]),
      ),
      pitrEur: {
        inState: off.cost.services.dynamodb?.items['PITR GB-month']?.eur ?? 0,
        ownTable: on.cost.services.dynamodb?.items['PITR GB-month']?.eur ?? 0,
      },
      mirrorTableGb:
        (on.usage.dynamodb.mirrorTable?.storageGb ?? 0) +
        (on.usage.dynamodb.mirrorTable?.indexStorageGb ?? 0),
      stateGbAfter: on.usage.dynamodb.storageGb,
      move,
      paysBackMonths: move.eur.total / Math.max(1e-9, off.cost.eurPerMonth - on.cost.eurPerMonth),
      // Issue 28: `ingestor mirror rebuild --all` of a lost Mirror table, once, at its default rate.
      rebuild: mirrorRebuildPrice({
        items: on.mirror.mirrorItems.perSource * n,
        listCopies: (on.mirror.mirrorCopies[LIST_INDEX]?.perSource ?? on.mirror.mirrorItems.perSource) * n,
        avgItemBytes: on.mirror.mirrorItems.avgBytes,
        ratePerSecond: MIRROR_BULK_DEFAULT_RATE,
        usdToEur: USD_TO_EUR,
      }),
    });
  });
  // Before / after each lever at three fleet sizes (issue 28): the lever off, everything else as now.
  const FLEETS = [1_000, 10_000, 100_000];
  const leverRows = Object.entries(LEVER_VARIANTS).map(([lever, variant]) => ({
    lever,
    what: variant.what,
    built: variant.built,
    byFleet: FLEETS.map((n) => {
      const off = bill(n, { ...LEVERS_NOW, ...variant.off });
      const on = bill(n, { ...LEVERS_NOW, ...variant.on });
      return {
        sources: n,
        offEur: round(off.cost.eurPerMonth),
        onEur: round(on.cost.eurPerMonth),
        offPer1000: round((off.cost.eurPerMonth / n) * 1000),
        onPer1000: round((on.cost.eurPerMonth / n) * 1000),
        offSampleDays: round(off.deletion.sampleIntervalDays, 1),
        // Issue 28: both readings of the bill (the always-free tier, if this account runs nothing else).
        offAlwaysFreeEur: round(off.freeTier.eurPerMonth),
        onAlwaysFreeEur: round(on.freeTier.eurPerMonth),
        onSampleDays: round(on.deletion.sampleIntervalDays, 1),
      };
    }),
  }));
  // Issue 28 (api-bytes): the serving line (services.dataTransfer) and S3's per fleet, as built, before
  // the API's bytes were measured, and with the CloudFront what-ifs — the plan picked, the month's
  // CloudFront requests and GB (the plans' allowances are counted in them).
  const servingVariants: Record<string, Partial<Levers>> = {
    apiBytesAssumed: { apiBytesMeasured: false },
    asBuilt: {},
    previewViaCdn: { previewViaCdn: true },
    flatRate: { cloudFrontFlatRate: true },
    previewViaCdnFlatRate: { previewViaCdn: true, cloudFrontFlatRate: true },
  };
  const serving = FLEETS.map((n) => ({
    sources: n,
    ...Object.fromEntries(
      Object.entries(servingVariants).map(([name, what]) => {
        const b = bill(n, { ...LEVERS_NOW, ...what });
        const line = b.cost.services.dataTransfer;
        return [
          name,
          {
            servingEur: round(line?.eur ?? 0),
            s3Eur: round(b.cost.services.s3?.eur ?? 0),
            totalEur: round(b.cost.eurPerMonth),
            plan: Object.keys(line?.items ?? {}).find((item) => item.endsWith(' plan')) ?? 'pay-as-you-go',
            cloudFrontRequests: round(b.usage.dataTransfer.cloudFrontRequests, 0),
            cloudFrontGb: round(b.usage.dataTransfer.cloudFrontOutGb, 1),
            internetOutGb: round(b.usage.dataTransfer.internetOutGb, 1),
          },
        ];
      }),
    ),
  }));
  const fleet = FLEETS.map((n) => {
    const b = bill(n);
    return {
      sources: n,
      eurPerMonth: round(b.cost.eurPerMonth),
      eurPer1000Sources: round((b.cost.eurPerMonth / n) * 1000),
      // Issue 28 (sync-memory): the sync function's line (GB-s and invocations) at this fleet size.
      syncEur: round(syncLineEur(b)),
      // Issue 28 (metric-hours): custom metrics, alarms and the dashboard at this fleet size.
      cloudwatchMetricsEur: round(b.cost.services.cloudwatchMetrics?.eur ?? 0),
      // Issue 28: beside the list price, never inside it — if this account runs nothing else.
      alwaysFreeEurPerMonth: round(b.freeTier.eurPerMonth),
      onboardingEur: round(b.onboarding.eurPerMonth),
      deletionSampleIntervalDays: round(b.deletion.sampleIntervalDays, 1),
      deletionShards: b.deletion.shards,
      deletionSecondsPerRun: round(Math.max(b.deletion.waitSecondsPerRun, b.deletion.cpuSecondsPerRun), 0),
      // Issue 28 (files-pass): files due in an hourly files pass against DOC-3's 400 an hour — above it
      // the cache falls behind (the bill counts every file as fetched).
      filesPerHourlyRun: round((A.filesPerSourcePerWeek * WEEKS_PER_MONTH * n) / (minutesPerMonth / 60), 0),
      filesPerRunCap: CACHE_MAX_FILES_PER_RUN,
      // Issue 28: the host slots' Redis traffic against the fixed plan's bandwidth (billed regardless).
      upstashBandwidthGb: upstashOf(b).bandwidthGb,
      upstashPlan: upstashOf(b).billed,
    };
  });
  const withoutLevers = bill(sources, LEVERS_OFF);
  // Issue 28: the sync's memory and the worker's width by cost, among the sizes that fit the measured
  // need with its headroom (bench/cost/sync-sizing.ts); the built pair is marked. Each size is priced
  // as built (one burst a tick, the event source's cap from the slots) and with each what-if.
  const syncEurOf = (what: Partial<Levers>) => (syncMemoryMb: number, syncRunsAtOnce: number) => {
    const levers = { ...LEVERS_NOW, ...what, syncMemoryMb, syncRunsAtOnce };
    return syncLineEur(bill(sources, levers));
  };
  const whatIfSizing = (what: Partial<Levers>) => {
    const rows = syncSizing(SYNC_SIZING_CANDIDATES, syncEurOf(what));
    return (i: number) => ({
      eur: Number.isNaN(rows[i]?.syncEur ?? Number.NaN) ? null : round(rows[i]?.syncEur ?? 0),
      cheapest: rows[i]?.cheapest ?? false,
    });
  };
  const spreadSizing = whatIfSizing({ syncSpreadSeconds: SYNC_SPREAD_WHAT_IF_SECONDS });
  // Before the cap from the runs in flight: the event source's cap from SCH-5's slots alone.
  const slotsCapSizing = whatIfSizing({ syncCapFromMean: false });
  // Issue 28: each size with the event source's trigger instead of the planner's (as before).
  const eventSourceSizing = whatIfSizing({ syncTrigger: 'eventSource' });
  const sizing = syncSizing(SYNC_SIZING_CANDIDATES, syncEurOf({})).map((r, i) => ({
    ...r,
    needMb: round(r.needMb, 0),
    headroom: round(r.headroom, 2),
    syncEur: Number.isNaN(r.syncEur) ? null : round(r.syncEur),
    syncEurSpread: spreadSizing(i).eur,
    cheapestSpread: spreadSizing(i).cheapest,
    syncEurCapFromSlots: slotsCapSizing(i).eur,
    cheapestCapFromSlots: slotsCapSizing(i).cheapest,
    syncEurEventSource: eventSourceSizing(i).eur,
    cheapestEventSource: eventSourceSizing(i).cheapest,
    built: r.memoryMb === LEVERS_NOW.syncMemoryMb && r.runsAtOnce === LEVERS_NOW.syncRunsAtOnce,
  }));
  return {
    sources,
    eurPerMonth: round(cost.eurPerMonth),
    eurPerMonthPer1000Sources: round((cost.eurPerMonth / sources) * 1000),
    services: servicesOf(cost),
    // Issue 28: the list-price total above; this beside it, apart (bench/cost/free-tier.ts).
    alwaysFree: {
      what: 'always-free tier, if this account runs nothing else',
      freeTierEur: round(now.freeTier.freeTierEur),
      eurPerMonth: round(now.freeTier.eurPerMonth),
      eurPerMonthPer1000Sources: round((now.freeTier.eurPerMonth / sources) * 1000),
      byAllowance: Object.fromEntries(
        Object.entries(now.freeTier.byAllowance)
          .filter(([, a]) => a.used > 0)
          .map(([name, a]) => [
            name,
            {
              what: ALWAYS_FREE[name as keyof typeof ALWAYS_FREE].what,
              allowance: a.allowance,
              used: round(a.used, 3),
              eur: round(a.eur),
            },
          ]),
      ),
    },
    fleet,
    dynamoWrites: dynamoWritesOf(now),
    s3Requests: s3RequestsOf(now),
    s3FileClasses: fileClassesOf(sources),
    // Issue 28: DynamoDB's capacity mode per table by cost, from the week's load per minute; each table's
    // and index's auto scaling as chosen (bench/cost/dynamo-capacity.ts; infra/table-capacity.ts applies it).
    dynamoCapacity: FLEETS.map((n) => {
      const b = n === sources ? now : bill(n);
      const onDemand = bill(n, { ...LEVERS_NOW, dynamoCapacity: 'onDemand' }).usage.dynamodb;
      const month = (x: number) => round(x * WEEKS_PER_MONTH);
      return {
        sources: n,
        // The profile's units against the bill's (1 = every unit of the bill placed in a minute).
        profileOfBill: {
          // Every table's units, the Mirror table's (billed on a line of its own) too.
          read: round(
            b.dynamo.profileReadUnits / (onDemand.readUnits + (onDemand.mirrorTable?.readUnits ?? 0)),
            3,
          ),
          write: round(
            b.dynamo.profileWriteUnits / (onDemand.writeUnits + (onDemand.mirrorTable?.writeUnits ?? 0)),
            3,
          ),
        },
        provisionedTables: b.dynamo.provisionedTables.tables,
        // Where infra/table-capacity.ts's plan for this fleet differs from this decision (empty: agrees).
        infraDiffers: planDifferences(planFor(n).tables, infraPlanOf(b.dynamo.decisions)),
        // What infra/table-capacity.ts holds for this fleet (DECIDED_CAPACITY): units a second at it.
        infraPlan: infraPlanOf(b.dynamo.decisions),
        tables: b.dynamo.decisions.map((d) => ({
          table: d.table,
          mode: d.mode,
          onDemandEur: month(d.onDemandEurPerWeek),
          provisionedEur: month(d.provisionedEurPerWeek),
          targets: d.choices.map((c) => ({
            target: c.target,
            kind: c.kind,
            minUnits: c.policy.minUnits,
            maxUnits: c.policy.maxUnits,
            targetUtilisation: c.policy.targetUtilisation,
            meanProvisioned: round(c.run.meanUnits, 1),
            maxProvisioned: c.run.maxUnits,
            meanUnitsPerSecond: round(c.meanUnitsPerSecond, 2),
            peakUnitsPerSecond: round(c.peakUnitsPerSecond, 2),
            throttledUnits: round(c.run.throttledUnits, 0),
            throttledWithoutBurst: round(c.throttledWithoutBurst, 0),
            increasesPerWeek: c.run.increases,
            decreasesPerWeek: c.run.decreases,
            onDemandEur: month(c.onDemandEurPerWeek),
            provisionedEur: month(c.provisionedEurPerWeek),
          })),
        })),
      };
    }),
    // Issue 28: sync workers on provisioned concurrency — per fleet, the count decided from the worker
    // model's distribution of workers alive, what infra/sync-provisioned.ts holds, and every count's sync line.
    syncProvisioned: FLEETS.map((n) => {
      const b = n === sources ? now : bill(n);
      const off = bill(n, { ...LEVERS_NOW, syncProvisioned: 'off' });
      const seconds = b.worker?.aliveSeconds.reduce((sum, s) => sum + s, 0) ?? 0;
      const memoryGb = LEVERS_NOW.syncMemoryMb / 1024;
      const requestsEur = b.cost.services.lambda?.items['sync invocations']?.eur ?? 0;
      return {
        sources: n,
        decided: b.syncProvisioned?.instances ?? 0,
        infra: syncProvisionedFor(n),
        aliveShare: (b.worker?.aliveSeconds ?? []).map((s) => round(s / Math.max(1, seconds), 3)),
        meanAlive: round(b.worker?.meanInvocationsAlive ?? 0, 3),
        memoryMb: LEVERS_NOW.syncMemoryMb,
        syncEurOff: round(syncLineEur(off)),
        syncEurOn: round(syncLineEur(b)),
        alwaysFreeEurOff: round(off.freeTier.eurPerMonth),
        alwaysFreeEurOn: round(b.freeTier.eurPerMonth),
        choices: (b.syncProvisioned?.choices ?? []).map((c) => ({
          instances: c.instances,
          eur: round(c.usd * USD_TO_EUR + requestsEur),
          provisionedGbSeconds: round(c.provisionedGbSeconds, 0),
          onProvisionedGbSeconds: round(c.secondsOnProvisioned * memoryGb, 0),
          onDemandGbSeconds: round(c.secondsOnDemand * memoryGb, 0),
        })),
      };
    }),
    upstash: upstashOf(now),
    onboarding: {
      what: 'one-off: every source’s first full sync and its stored file history fetched (files pass)',
      eur: round(now.onboarding.eurPerMonth),
      services: servicesOf(now.onboarding),
    },
    mirrorApi: {
      // Issue 28: read units of one list page (an origin request) of the measured items, as billed.
      pageReadUnits: apiPageReadUnits,
      pageSize: PAGE_SIZE_DEFAULT,
      waf: opts.apiWaf === true,
      wafEurPerMonth: round(now.cost.services.waf?.eur ?? 0),
      // The most a flood can cost per hour through the API function at its bound (reserved concurrency).
      maxInstances: MIRROR_API_MAX_INSTANCES,
      floodCeilingEurPerHour: round(
        apiFloodCeilingEurPerHour({
          instances: MIRROR_API_MAX_INSTANCES,
          memoryMb: FUNCTION_MEMORY_MB.mirrorApi,
          invocationSeconds: A.apiFunctionSeconds,
          arch: 'arm64',
        }),
        3,
      ),
    },
    comparison: {
      smallVmEurPerMonth: round(PRICES.smallVmMonth.usd * USD_TO_EUR),
      vmFilesOnDisk: Object.fromEntries(Object.entries(now.vm.filesOnDisk).map(([k, v]) => [k, round(v)])),
      vmFilesInS3: Object.fromEntries(Object.entries(now.vm.filesInS3).map(([k, v]) => [k, round(v)])),
      // The VM's share of the same allowance (100 GB egress), apart from its totals (issue 28).
      vmFreeTier: { egressGb: round(now.vm.freeTier.egressGb, 1), eur: round(now.vm.freeTier.eur) },
      storedFilesGb: round((now.storedFiles * A.fileBytes) / 1e9, 0),
    },
    levers: leverRows,
    serving,
    modelBeforeIssue28: {
      what: 'no council answer time, 4 servers at once for deletion HEADs, all files in S3 Standard (the rest as now)',
      eurPerMonth: round(withoutLevers.cost.eurPerMonth),
    },
    stack: {
      functions: stack.functions.map((f) => ({
        description: f.description,
        memoryMb: f.memoryMb,
        arch: f.arch,
      })),
      schedules: stack.schedules.map((s) => s.expression),
      alarms: stack.alarms,
      dashboards: stack.dashboards,
      customMetrics: stack.customMetrics,
      metricSeries: series,
      metricHours: metricHoursAt(sources).map((m) => ({ ...m, hoursWithData: round(m.hoursWithData, 1) })),
      synthSeconds: round(stack.synthSeconds, 1),
    },
    deletionCheck: {
      serversAtOnce: DEL_HOSTS_IN_PARALLEL,
      runSeconds: now.deletionRunSeconds,
      waitSecondsPerRun: round(now.deletion.waitSecondsPerRun, 0),
      cpuSecondsPerRun: round(now.deletion.cpuSecondsPerRun, 0),
      sampleIntervalDays: round(now.deletion.sampleIntervalDays, 1),
    },
    week: {
      oparlPerSource: oparlWeek,
      scraperPerSource: scraperWeek,
      syncsPerMinute: round(now.syncsPerMinute, 1),
      // Runs in flight on average (Little's law): the planner's maxConcurrentSyncs (SCH-5) must exceed it.
      concurrentRunsNeeded: round(now.sync.seconds / (WEEKS_PER_MONTH * 7 * 86_400), 1),
      maxConcurrentSyncsDefault: DEFAULT_MAX_CONCURRENT_SYNCS,
      maxConcurrentSyncsToSet: Math.ceil((1.5 * now.sync.seconds) / (WEEKS_PER_MONTH * 7 * 86_400)),
      // SCH-5's slots the worker model runs with (`workerOf`): the mean × 1.5 and a tick's burst of due runs.
      maxConcurrentSyncsWithBurst: Math.ceil(
        (1.5 * now.sync.seconds) / (WEEKS_PER_MONTH * 7 * 86_400) + now.syncsPerMinute,
      ),
    },
    // Issue 28 (sync CPU): how much of the sync's billed time is its runs' CPU at the function's share
    // of a vCPU (the rest: politeness waits and council answers no run's CPU fills), and the engine's
    // CPU per run the bill uses (assumptions.ts, bench sync-cpu) before and after that pass's cuts.
    syncCpu: {
      billedSeconds: round(now.usage.lambda.sync?.seconds ?? 0, 0),
      cpuSecondsAtMemory: round(now.sync.workSeconds, 0),
      cpuShareOfBilled: round(now.sync.workSeconds / (now.usage.lambda.sync?.seconds ?? 1), 3),
      meanCpuDemand: round(now.sync.workSeconds / (WEEKS_PER_MONTH * 7 * 86_400), 2),
      beforeCuts: (() => {
        const before = bill(sources, { ...LEVERS_NOW, syncCpuCuts: false });
        return {
          billedSeconds: round(before.usage.lambda.sync?.seconds ?? 0, 0),
          cpuSecondsAtMemory: round(before.sync.workSeconds, 0),
          eur: round(syncGbSecondsEur(before), 2),
        };
      })(),
      eur: round(syncGbSecondsEur(now), 2),
      engineCpuSecondsPerRun: A.syncCpuSecondsPerRun,
      engineCpuSecondsPerRunBeforeCuts: A.syncCpuSecondsPerRunBeforeCuts,
    },
    measured: {
      oparlDemo: oparl,
      scraperFakeRis: scraper,
      planner,
      requestLogLineBytes,
      summaryLineBytes,
      logBytesPerSync: round(now.logBytesPerSync, 0),
    },
    syncSizing: {
      sources,
      spreadSeconds: SYNC_SPREAD_WHAT_IF_SECONDS,
      headroom: SYNC_MEMORY_HEADROOM,
      measured: SYNC_WORKER_MEMORY,
      rows: sizing,
    },
    efficiency: {
      syncRecordsPerInvocation: round(now.recordsPerInvocation, 1),
      // Issue 28: the sync worker as built (bench/cost/worker-model.ts), at this fleet size.
      ...(now.worker
        ? {
            [LEVERS_NOW.payPerWork ? 'worker' : 'batches']: workerFigures(now.worker),
            // The what-if: the same run stream with the handout spread over the tick's minute.
            workerSpread: workerFigures(
              bill(sources, { ...LEVERS_NOW, syncSpreadSeconds: SYNC_SPREAD_WHAT_IF_SECONDS }).worker,
            ),
            // Before: the event source's cap from SCH-5's slots alone (a tick's burst opens invocations).
            workerCapFromSlots: workerFigures(
              bill(sources, { ...LEVERS_NOW, syncCapFromMean: false }).worker,
            ),
            // Before: the event source started the workers (its floor of 2), 256 MB × 20.
            workerEventSource: workerFigures(
              bill(sources, { ...LEVERS_NOW, ...LEVER_VARIANTS.syncTriggerPlanner?.off }).worker,
            ),
          }
        : {}),
    },
    mirrorIndex: {
      inlineItemMaxBytes: INLINE_ITEM_MAX_BYTES,
      overheadBytesPerItem: STORAGE_OVERHEAD_BYTES_PER_ITEM,
      itemsPerSource: round(mirror.mirrorItems.perSource, 0),
      avgItemBytes: round(mirror.mirrorItems.avgBytes, 0),
      listIndexItemsPerSource: round(mirror.mirrorCopies[LIST_INDEX]?.perSource ?? 0, 0),
      avgListIndexBytes: round(mirror.mirrorCopies[LIST_INDEX]?.avgBytes ?? 0, 0),
      listCountersPerSource: round(mirror.mirrorCounters.perSource, 1),
      avgListCounterBytes: round(mirror.mirrorCounters.avgBytes, 0),
      tableGb: round(mirror.mirrorTableBytes / 1e9, 3),
      indexGb: round(mirror.mirrorIndexBytes / 1e9, 3),
      gb: round((mirror.mirrorTableBytes + mirror.mirrorIndexBytes) / 1e9, 3),
      measured: { oparlDemo: oparlIndex, scraperFakeRis: scraperIndex },
      // Issue 28: the bill at each inline bound (API list pages by the page model; docs/scale.md).
      inlineBound,
      // Issue 28: the mirror's items in a table of their own — the month before/after and the one-off move.
      mirrorTable,
    },
    prices: PRICES_READ_ON,
    usdToEur: USD_TO_EUR,
    assumptions: ASSUMPTIONS,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runCostBench({ log: (line) => console.error(line) });
  console.log(JSON.stringify(result));
}
