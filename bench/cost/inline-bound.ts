import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { INLINE_ATTRIBUTE } from '../../shared/mirror';
import { LIST_INDEX, STATE_TABLE, storedItemBytes } from '../../shared/store';
import { dynamoItemBytes } from './item-size';
import type { CostBreakdown, MonthlyUsage } from './model';

/**
 * Issue 28 ("Fixed costs": the mirror index's inline bound and PITR decided by measured cost), pure:
 * the month's usage re-priced for another inline bound (shared/store keys.ts INLINE_ITEM_MAX_BYTES),
 * from the mirror index items the cost bench measured. An object inline rides in its table item
 * (storage, PITR, write units per KB) and in its `byList` copy (index storage, two copies written per
 * commit: the list sort key moves); an object not inline costs the mirror API one S3 GET each time a
 * list page shows it. Everything else in the bill stays as measured.
 */

/** One mirror index item as sampled (bench/cost.ts `sampleMirrorIndex`), sizes by DynamoDB's rule. */
export interface InlineItemShape {
  /** The table item without its inline copy. */
  bytes: number;
  /**
   * Its inline copy (`o`, name + value, packed): the one it carries, or for a live object too large for
   * the measured bound the one it would carry (the bench packs its S3 record); 0 = none (deleted, taken
   * down, or in no list).
   */
  inlineBytes: number;
  /** The code's measure of the item with its copy (`fitsInline`: `storedItemBytes`): inline at a bound ≥ this. */
  boundBytes: number;
  /** Its `byList` copy without the inline copy; 0 = not listed. */
  copyBytes: number;
}

const LIST = STATE_TABLE.globalIndexes.find((index) => index.indexName === LIST_INDEX);

/**
 * A State table mirror item as the local peer returns it, as its shape for re-pricing; `priced` = the
 * packed copy a live listed item without one would carry (shared/store `packInline` of its S3 record).
 */
export function inlineItemShape(item: Record<string, AttributeValue>, priced?: Uint8Array): InlineItemShape {
  const { [INLINE_ATTRIBUTE]: carried, ...rest } = item;
  const inline: AttributeValue | undefined = carried ?? (priced === undefined ? undefined : { B: priced });
  const listed =
    LIST !== undefined && item[LIST.partitionKey] !== undefined && item[LIST.sortKey] !== undefined;
  const projected = [
    STATE_TABLE.partitionKey,
    STATE_TABLE.sortKey ?? '',
    LIST?.partitionKey ?? '',
    LIST?.sortKey ?? '',
    ...(LIST?.include ?? []),
  ];
  const copy = Object.fromEntries(Object.entries(rest).filter(([name]) => projected.includes(name)));
  return {
    bytes: dynamoItemBytes(rest),
    inlineBytes: inline === undefined ? 0 : dynamoItemBytes({ [INLINE_ATTRIBUTE]: inline }),
    boundBytes: storedItemBytes(
      unmarshall(inline === undefined ? rest : { ...rest, [INLINE_ATTRIBUTE]: inline }),
    ),
    copyBytes: listed ? dynamoItemBytes(copy) : 0,
  };
}

/** One measured source's items and how many of them the fleet holds per source of the fleet. */
export interface InlineSample {
  /** Fleet items per sampled item and source (sources of this kind × object scale ÷ all sources). */
  weightPerSource: number;
  items: InlineItemShape[];
}

/** What the mirror index holds and writes at one bound, per source of the fleet. */
export interface InlineBoundFigures {
  tableBytes: number;
  indexBytes: number;
  /** Write units of one commit of every item (table), and of its `byList` copies (key moved: two). */
  tableWriteUnits: number;
  indexWriteUnits: number;
  /** Listed entries, the bytes of their `byList` copies, and those live but not inline (read from S3). */
  listed: number;
  listedCopyBytes: number;
  listedFromS3: number;
}

/** DynamoDB bills every stored item and index copy 100 bytes more (bench/cost/item-size.ts). */
const OVERHEAD = 100;
const unitsOf = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** Per source of the fleet: the mirror index at `bound` (an item inline iff it is now and fits). */
export function inlineBoundFigures(samples: InlineSample[], bound: number): InlineBoundFigures {
  const f: InlineBoundFigures = {
    tableBytes: 0,
    indexBytes: 0,
    tableWriteUnits: 0,
    indexWriteUnits: 0,
    listed: 0,
    listedCopyBytes: 0,
    listedFromS3: 0,
  };
  for (const { weightPerSource: w, items } of samples) {
    for (const item of items) {
      const inline = item.inlineBytes > 0 && item.boundBytes <= bound ? item.inlineBytes : 0;
      f.tableBytes += w * (item.bytes + inline + OVERHEAD);
      f.tableWriteUnits += w * unitsOf(item.bytes + inline);
      if (item.copyBytes === 0) continue;
      const copy = item.copyBytes + inline;
      f.indexBytes += w * (copy + OVERHEAD);
      f.indexWriteUnits += w * 2 * unitsOf(copy);
      f.listed += w;
      f.listedCopyBytes += w * copy;
      // Live and not inline (a live listed item has a copy, carried or priced: `inlineItemShape`).
      if (item.inlineBytes > 0 && inline === 0) f.listedFromS3 += w;
    }
  }
  return f;
}

/** How the mirror API reads a list page (docs/mirror-api.md), and what the month asks of it. */
export interface ApiPageModel {
  /** Origin requests a month (CloudFront misses), each taken as one list page. */
  requests: number;
  /** Objects a page (PAGE_SIZE_DEFAULT); the Query reads one entry more (the look-ahead). */
  pageSize: number;
  /** S3 GETs of one page run this many at once (OBJECT_READ_CONCURRENCY). */
  concurrency: number;
  /** Seconds one round of parallel S3 GETs adds to the function (first-byte latency, assumed). */
  s3RoundSeconds: number;
  /** Read units a request the bill charges now (its flat assumption), replaced by the page's. */
  billedReadUnitsPerRequest: number;
}

/** The month's write units of the mirror items and their copies at `at`, in proportion to a commit's. */
export function mirrorWriteUnits(
  mirrorWrites: { table: number; index: number },
  measured: InlineBoundFigures,
  at: InlineBoundFigures,
): number {
  const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
  return (
    mirrorWrites.table * ratio(at.tableWriteUnits, measured.tableWriteUnits) +
    mirrorWrites.index * ratio(at.indexWriteUnits, measured.indexWriteUnits)
  );
}

/** A page's Query: eventually consistent, 0.5 unit per started 4 KB of the entries it reads. */
export function pageReadUnits(f: InlineBoundFigures, pageSize: number): number {
  if (f.listed === 0) return 0.5;
  return 0.5 * Math.ceil(((pageSize + 1) * f.listedCopyBytes) / f.listed / 4096);
}

/** S3 GETs of one page: its objects that are live and not inline. */
export function pageS3Gets(f: InlineBoundFigures, pageSize: number): number {
  return f.listed === 0 ? 0 : (pageSize * f.listedFromS3) / f.listed;
}

/**
 * The month's usage with the mirror index at `at` instead of `measured` (same sample, other bound):
 * storage and index storage by their bytes, the mirror items' write units (`mirrorWrites`: the month's
 * units of the table items and of their `byList` copies, as measured) in proportion to their units per
 * commit, and the API's list pages by the page model (read units, S3 GETs, the function's wait).
 */
export function usageAtBound(input: {
  usage: MonthlyUsage;
  sources: number;
  measured: InlineBoundFigures;
  at: InlineBoundFigures;
  mirrorWrites: { table: number; index: number };
  api: ApiPageModel;
}): MonthlyUsage {
  const { usage, sources, measured, at, mirrorWrites, api } = input;
  const writeUnits =
    usage.dynamodb.writeUnits +
    mirrorWriteUnits(mirrorWrites, measured, at) -
    mirrorWrites.table -
    mirrorWrites.index;
  const gets = pageS3Gets(at, api.pageSize);
  const readUnits =
    usage.dynamodb.readUnits +
    api.requests * (pageReadUnits(at, api.pageSize) - api.billedReadUnitsPerRequest);
  const apiFn = usage.lambda.mirrorApi;
  const lambda = apiFn
    ? {
        ...usage.lambda,
        mirrorApi: {
          ...apiFn,
          seconds: apiFn.seconds + api.requests * Math.ceil(gets / api.concurrency) * api.s3RoundSeconds,
        },
      }
    : usage.lambda;
  return {
    ...usage,
    lambda,
    dynamodb: {
      ...usage.dynamodb,
      readUnits,
      writeUnits,
      storageGb: usage.dynamodb.storageGb + (sources * (at.tableBytes - measured.tableBytes)) / 1e9,
      indexStorageGb: usage.dynamodb.indexStorageGb + (sources * (at.indexBytes - measured.indexBytes)) / 1e9,
    },
    s3: { ...usage.s3, getRequests: usage.s3.getRequests + api.requests * gets },
  };
}

/**
 * DynamoDB Standard-Infrequent Access (aws.amazon.com/dynamodb/pricing, table classes; as read on the
 * prices' date, to be re-checked): storage 60 % cheaper, request units 25 % dearer. PITR is priced
 * the same. Applied to every table (all units and all storage) — an upper bound of the requests'
 * mark-up for a State table of its own class, since the Documents table's units would stay Standard.
 */
export const IA_STORAGE_FACTOR = 0.4;
export const IA_REQUEST_FACTOR = 1.25;

/** The priced DynamoDB lines the levers below touch (€ a month). */
export interface DynamoLines {
  readEur: number;
  writeEur: number;
  storageEur: number;
  indexStorageEur: number;
  pitrEur: number;
}

export function dynamoLines(cost: CostBreakdown): DynamoLines {
  const items = cost.services.dynamodb?.items ?? {};
  const eur = (name: string) => items[name]?.eur ?? 0;
  return {
    readEur: eur('read request units'),
    writeEur: eur('write request units'),
    storageEur: eur('storage GB-month'),
    indexStorageEur: eur('index storage GB-month'),
    pitrEur: eur('PITR GB-month'),
  };
}

/** € a month the Standard-IA class would change (negative = saves). */
export function standardIaDeltaEur(lines: DynamoLines): number {
  const storage = lines.storageEur + lines.indexStorageEur;
  const requests = lines.readEur + lines.writeEur;
  return storage * (IA_STORAGE_FACTOR - 1) + requests * (IA_REQUEST_FACTOR - 1);
}

/**
 * The mirror index in a table of its own without PITR: the month saves PITR on the mirror's share of
 * the table bytes; the move is a one-off read of every mirror item (Scan, eventually consistent) and a
 * write of it and its `byList` copy (a new copy: one write, no key moved). That table could also be
 * Standard-IA on its own: its storage (items and `byList`) × 0.4, its request units × 1.25
 * (`mirrorRequestEur`: the mirror items', copies' and counters' writes and the API's page reads; the
 * sync's few mirror reads with the list digest are left out).
 */
export function mirrorTableWithoutPitr(input: {
  lines: DynamoLines;
  storageGb: number;
  mirrorTableGb: number;
  mirrorRequestEur: number;
  at: InlineBoundFigures;
  sources: number;
  eurPerReadUnit: number;
  eurPerWriteUnit: number;
}): {
  savesEurPerMonth: number;
  standardIaSavesEurPerMonth: number;
  moveEur: number;
  moveWriteUnits: number;
  moveReadUnits: number;
} {
  const { lines, storageGb, mirrorTableGb, at, sources } = input;
  const mirrorShare = storageGb === 0 ? 0 : mirrorTableGb / storageGb;
  const mirrorStorageEur = lines.storageEur * mirrorShare + lines.indexStorageEur;
  const moveWriteUnits = sources * (at.tableWriteUnits + at.indexWriteUnits / 2);
  const moveReadUnits = (0.5 * (mirrorTableGb * 1e9)) / 4096;
  return {
    savesEurPerMonth: lines.pitrEur * mirrorShare,
    standardIaSavesEurPerMonth:
      mirrorStorageEur * (1 - IA_STORAGE_FACTOR) - input.mirrorRequestEur * (IA_REQUEST_FACTOR - 1),
    moveEur: moveWriteUnits * input.eurPerWriteUnit + moveReadUnits * input.eurPerReadUnit,
    moveWriteUnits,
    moveReadUnits,
  };
}

/** What the grid needs of one fleet size's bill (bench/cost.ts `bill`). */
export interface BillAtFleet {
  usage: MonthlyUsage;
  cost: CostBreakdown;
  /** The month's write units of the mirror items and of their `byList` copies, as measured. */
  mirrorWrites: { table: number; index: number; counters: number };
  /** The mirror items' share of the table bytes (GB), for the table-of-its-own what-if. */
  mirrorTableGb: number;
  api: ApiPageModel;
}

/** One cell of the grid: the whole month re-priced at one bound and fleet size (€ rounded by the caller). */
export interface InlineBoundRow {
  bound: number;
  eurPerMonth: number;
  storageGb: number;
  indexStorageGb: number;
  dynamo: DynamoLines;
  s3GetEur: number;
  apiLambdaEur: number;
  apiReadUnitsPerPage: number;
  apiS3GetsPerPage: number;
  /** Per source: items inline and listed entries read from S3 (fleet-weighted). */
  listedFromS3Share: number;
  standardIaDeltaEur: number;
  mirrorTableWithoutPitr: ReturnType<typeof mirrorTableWithoutPitr>;
}

/**
 * Every bound at one fleet size: the bill's usage re-priced by `usageAtBound` (`price` = the model's
 * priceUsage), each row with the Standard-IA and table-of-its-own what-ifs on top of it.
 */
export function inlineBoundRows(input: {
  bill: BillAtFleet;
  sources: number;
  samples: InlineSample[];
  measuredBound: number;
  bounds: number[];
  price: (usage: MonthlyUsage) => CostBreakdown;
  eurPerReadUnit: number;
  eurPerWriteUnit: number;
}): InlineBoundRow[] {
  const { bill, sources, samples } = input;
  const measured = inlineBoundFigures(samples, input.measuredBound);
  return input.bounds.map((bound) => {
    const at = inlineBoundFigures(samples, bound);
    const usage = usageAtBound({
      usage: bill.usage,
      sources,
      measured,
      at,
      mirrorWrites: bill.mirrorWrites,
      api: bill.api,
    });
    const cost = input.price(usage);
    const lines = dynamoLines(cost);
    const item = (service: string, name: string) => cost.services[service]?.items[name]?.eur ?? 0;
    const mirrorTableGb = bill.mirrorTableGb + (sources * (at.tableBytes - measured.tableBytes)) / 1e9;
    return {
      bound,
      eurPerMonth: cost.eurPerMonth,
      storageGb: usage.dynamodb.storageGb,
      indexStorageGb: usage.dynamodb.indexStorageGb,
      dynamo: lines,
      s3GetEur: item('s3', 'GET/HEAD requests'),
      apiLambdaEur: item('lambda', 'mirrorApi GB-s') + item('lambda', 'mirrorApi invocations'),
      apiReadUnitsPerPage: pageReadUnits(at, bill.api.pageSize),
      apiS3GetsPerPage: pageS3Gets(at, bill.api.pageSize),
      listedFromS3Share: at.listed === 0 ? 0 : at.listedFromS3 / at.listed,
      standardIaDeltaEur: standardIaDeltaEur(lines),
      mirrorTableWithoutPitr: mirrorTableWithoutPitr({
        lines,
        storageGb: usage.dynamodb.storageGb,
        mirrorTableGb,
        mirrorRequestEur:
          (mirrorWriteUnits(bill.mirrorWrites, measured, at) + bill.mirrorWrites.counters) *
            input.eurPerWriteUnit +
          bill.api.requests * pageReadUnits(at, bill.api.pageSize) * input.eurPerReadUnit,
        at,
        sources,
        eurPerReadUnit: input.eurPerReadUnit,
        eurPerWriteUnit: input.eurPerWriteUnit,
      }),
    };
  });
}
