import { PRICES } from './prices';

/**
 * Issue 28, pure: the one-off price of moving the mirror's index items from State to the Mirror table
 * (`ingestor migrate mirror-table`, shared/mirror move.ts), request by request as the command sends them:
 * - copy: a Scan of State (eventually consistent: ½ unit per 4 KB of the table's items), per mirror item
 *   a strongly consistent GetItem of the Mirror table (1 IA unit), its PutItem there (⌈KB⌉ IA units)
 *   and its `byList` copy (1 IA unit), and a strongly consistent GetItem of State (1 unit);
 * - the dual deploy's own cost: every mirror write goes to both tables for `dualDays`;
 * - delete-old: a second Scan, a GetItem of the Mirror table (1 IA unit) and a DeleteItem in State (⌈KB⌉
 *   units, and 1 for its `byList` copy) per item.
 * Checkpoints (one PutItem per 500 items) are left out.
 */
export interface MirrorMoveInput {
  items: number;
  avgItemBytes: number;
  /** State's item bytes before the move (what the Scans read). */
  stateTableBytes: number;
  /** The mirror's item and copy write units of a month (the dual deploy doubles them meanwhile). */
  mirrorWriteUnitsPerMonth: number;
  dualDays: number;
  usdToEur: number;
}

export interface MirrorMovePrice {
  readUnits: number;
  iaReadUnits: number;
  writeUnits: number;
  iaWriteUnits: number;
  eur: { copy: number; dual: number; deleteOld: number; total: number };
}

const DAYS_PER_MONTH = 365.25 / 12;

export function mirrorMovePrice(input: MirrorMoveInput): MirrorMovePrice {
  const eur = (units: number, price: keyof typeof PRICES) => units * PRICES[price].usd * input.usdToEur;
  const scanUnits = (0.5 * input.stateTableBytes) / 4096;
  const unitsPerItem = Math.max(1, Math.ceil(input.avgItemBytes / 1024));
  const copy = {
    read: scanUnits + input.items,
    iaRead: input.items,
    iaWrite: input.items * (unitsPerItem + 1),
  };
  const dualIaWrites = (input.mirrorWriteUnitsPerMonth * input.dualDays) / DAYS_PER_MONTH;
  const deleteOld = { read: scanUnits, iaRead: input.items, write: input.items * (unitsPerItem + 1) };
  const copyEur =
    eur(copy.read, 'dynamoReadUnit') +
    eur(copy.iaRead, 'dynamoIaReadUnit') +
    eur(copy.iaWrite, 'dynamoIaWriteUnit');
  const dualEur = eur(dualIaWrites, 'dynamoIaWriteUnit');
  const deleteEur =
    eur(deleteOld.read, 'dynamoReadUnit') +
    eur(deleteOld.iaRead, 'dynamoIaReadUnit') +
    eur(deleteOld.write, 'dynamoWriteUnit');
  return {
    readUnits: copy.read + deleteOld.read,
    iaReadUnits: copy.iaRead + deleteOld.iaRead,
    writeUnits: deleteOld.write,
    iaWriteUnits: copy.iaWrite + dualIaWrites,
    eur: { copy: copyEur, dual: dualEur, deleteOld: deleteEur, total: copyEur + dualEur + deleteEur },
  };
}

/**
 * Issue 28, pure: the one-off price and duration of `ingestor mirror rebuild --all` (shared/mirror
 * rebuild.ts) into an empty Mirror table, request by request as the command sends them: one LIST per
 * 1,000 records (priced as a PUT), one GET per record, the conditional PutItem (⌈KB⌉ IA units) and its
 * `byList` copy (1 IA unit) per item; per page of 1,000 one strongly consistent registry Query per
 * source in the page (≈ 2) before and after its writes, and its checkpoint (1 unit). Transfer from S3
 * to the command in the region is free. Hours: the items at the command's default rate.
 */
export interface MirrorRebuildInput {
  items: number;
  /** Items with a `byList` copy (an object of a body); absent = every item. */
  listCopies?: number;
  avgItemBytes: number;
  ratePerSecond: number;
  usdToEur: number;
}

export interface MirrorRebuildPrice {
  s3Lists: number;
  s3Gets: number;
  iaWriteUnits: number;
  readUnits: number;
  writeUnits: number;
  hours: number;
  eur: { s3: number; mirrorWrites: number; state: number; total: number };
}

const REBUILD_PAGE = 1000;
const REGISTRY_READS_PER_PAGE = 4;

export function mirrorRebuildPrice(input: MirrorRebuildInput): MirrorRebuildPrice {
  const eur = (units: number, price: keyof typeof PRICES) => units * PRICES[price].usd * input.usdToEur;
  const pages = Math.ceil(input.items / REBUILD_PAGE);
  const unitsPerItem = Math.max(1, Math.ceil(input.avgItemBytes / 1024));
  const iaWriteUnits = input.items * unitsPerItem + (input.listCopies ?? input.items);
  const readUnits = pages * REGISTRY_READS_PER_PAGE;
  const s3 = eur(pages, 's3PutRequest') + eur(input.items, 's3GetRequest');
  const mirrorWrites = eur(iaWriteUnits, 'dynamoIaWriteUnit');
  const state = eur(readUnits, 'dynamoReadUnit') + eur(pages, 'dynamoWriteUnit');
  return {
    s3Lists: pages,
    s3Gets: input.items,
    iaWriteUnits,
    readUnits,
    writeUnits: pages,
    hours: input.items / input.ratePerSecond / 3600,
    eur: { s3, mirrorWrites, state, total: s3 + mirrorWrites + state },
  };
}
